//! The kept world-model searches beside seed 004's Tables 9 and 10 (`engine::cwm::paper_results`).

use engine::cwm::normalised_return::PlanningSummary;
use engine::cwm::paper_results::{paper_environments, paper_results};
use engine::gym::GymId;
use engine::search::record::SearchRecord;
use leptos::prelude::*;

use super::info::gym_of;

/// An accuracy and an R(CWM) as the comparison shows them.
fn accuracy_and_return(accuracy: f64, normalised: Option<f64>) -> String {
    format!("{accuracy:.2} / {}", normalised.map_or("N/A".to_owned(), |r| format!("{r:.2}")))
}

/// The kept world-model searches' best accuracies, and R(CWM) where their best model was planned
/// with, beside the paper's Tables 9 and 10.
#[component]
pub fn PaperComparison(list: Signal<Vec<SearchRecord>>) -> impl IntoView {
    let ours = move |env: GymId, method: &'static str| {
        list.with(|l| {
            let kept: Vec<&SearchRecord> =
                l.iter().filter(|r| r.spec.task == env.name() && r.spec.method.name() == method).collect();
            if kept.is_empty() {
                return "–".to_owned();
            }
            let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
            let accuracies: Vec<f64> = kept.iter().map(|r| r.best_score()).collect();
            let planned: Vec<&PlanningSummary> = kept.iter().filter_map(|r| r.planned.as_ref()).collect();
            let returns: Vec<f64> = planned.iter().filter_map(|p| p.normalised).collect();
            let r = match (planned.len(), returns.len()) {
                (0, _) => "–".to_owned(),
                (_, 0) => "N/A".to_owned(),
                _ => format!("{:.2}", mean(&returns)),
            };
            let mut llms: Vec<&str> = kept.iter().map(|r| r.llm.as_str()).collect();
            llms.dedup();
            format!(
                "{:.2} / {r} ({} search{}, {}; R of {} planned)",
                mean(&accuracies),
                kept.len(),
                if kept.len() == 1 { "" } else { "es" },
                llms.join(", "),
                planned.len()
            )
        })
    };
    let any = move || list.with(|l| l.iter().any(|r| gym_of(&r.spec.task).is_some()));
    view! {
        <div hidden=move || !any()>
            <h3>"World models against the paper"</h3>
            <p class="hint">"Accuracy / R(CWM): the mean best accuracy of the searches kept here, and the mean R(CWM) of those whose best model was planned with (the quick protocol; \"Plan with it\" on the best model records it), labelled by who answered them (simulated: the simulated LLM, not the paper's models), beside seed 004's Tables 9 (Llama 3 70B, 50 calls) and 10 (GPT-4 Turbo, 10 calls). N/A: the oracle did no better than random."</p>
            <table id="cwm-comparison">
                <thead><tr><th>"environment"</th><th>"GIF-MCTS here"</th><th>"WorldCoder here"</th><th>"Llama GIF-MCTS"</th><th>"Llama WorldCoder"</th><th>"GPT-4 GIF-MCTS"</th><th>"GPT-4 WorldCoder"</th></tr></thead>
                <tbody>{paper_environments().into_iter().map(|env| view! {
                    <tr><td>{env.name()}</td><td>{move || ours(env, "gif-mcts")}</td><td>{move || ours(env, "worldcoder")}</td>
                    {paper_results(env).iter().map(|p| view! { <td>{accuracy_and_return(p.accuracy, p.normalised)}</td> }).collect_view()}</tr>
                }).collect_view()}</tbody>
            </table>
        </div>
    }
}
