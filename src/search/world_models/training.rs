//! Q-learning inside a tabulated world model, evaluated on the real environment beside Q-learning
//! on the real one: two runs of the run book, trained by the worker like any other.

use std::sync::Arc;

use engine::cwm::tabulated::TabulatedModel;
use engine::env::EnvSpec;
use engine::env::gym::GymParams;
use engine::{AgentId, EnvId, RunSpec};
use leptos::prelude::*;

use super::ModelAtHand;
use super::info::dataset_of;
use crate::services::run_book::RunBook;

/// A run of the comparison: an agent trained inside the model, or on the real environment.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Compared {
    label: &'static str,
    run_id: u32,
    /// The real environment steps it used, when not its own episodes' (inside: the dataset's).
    real_steps: Option<u64>,
}

/// The training button, once the model is tabulated, and the two runs compared.
#[component]
pub fn TrainInsideTool(at: ModelAtHand, model: RwSignal<Option<Arc<TabulatedModel>>>) -> impl IntoView {
    let ModelAtHand { env, program, world, busy, .. } = at;
    let book = expect_context::<RunBook>();
    let trained = RwSignal::new(Vec::<Compared>::new());
    Effect::new(move |_| {
        program.track();
        trained.set(Vec::new());
    });
    let train_inside = move |_| {
        let (Some(env), Some(table)) = (env.get_untracked(), model.get_untracked()) else { return };
        // Two runs of the run book, trained by the worker like any other: their plots, episode
        // trees and greedy step-throughs are in the Train pane; their greedy evaluation is on the
        // real environment either way.
        let real = RunSpec::new(EnvId::Gym(env), AgentId::QLearning, 1, EnvId::Gym(env).default_episodes(false));
        let mut inside = real.clone();
        inside.env = EnvSpec::Gym(GymParams { model: Some(table), ..GymParams::new(env) });
        let dataset_steps = dataset_of(&world.get_untracked(), env).len() as u64;
        let mut compared = Vec::new();
        for (label, spec, real_steps) in [
            ("Q-learning inside the model", inside, Some(dataset_steps)),
            ("Q-learning on the real environment", real, None),
        ] {
            let run_id = book.find(&spec).unwrap_or_else(|| book.start(spec));
            compared.push(Compared { label, run_id, real_steps });
        }
        trained.set(compared);
    };
    // The comparison's rows, from the runs as the worker trains them.
    let compared_rows = move || {
        let compared = trained.get();
        book.runs.with(|runs| {
            compared
                .iter()
                .map(|c| {
                    let run = runs.iter().find(|r| r.id == c.run_id);
                    let used: u64 =
                        run.map_or(0, |r| r.records.iter().map(|e| u64::from(e.outcome.length)).sum::<u64>());
                    let (success, mean) = match run.and_then(|r| r.finished.as_ref()).map(|f| &f.greedy) {
                        Some(g) => (
                            format!("{:.0}% of {}", 100.0 * g.success_rate, g.episodes),
                            format!("{:.2}", g.mean_return),
                        ),
                        None => ("training…".to_owned(), "training…".to_owned()),
                    };
                    (
                        format!("{} (run #{})", c.label, c.run_id),
                        c.real_steps.unwrap_or(used).to_string(),
                        success,
                        mean,
                    )
                })
                .collect::<Vec<_>>()
        })
    };

    view! {
        <button type="button" id="cwm-train" disabled=move || busy.get() || model.get().is_none() on:click=train_inside>"Train Q-learning inside it"</button>
        <table id="cwm-agents" hidden=move || trained.with(Vec::is_empty)>
            <thead><tr><th>"agent"</th><th>"real environment steps used"</th><th>"greedy success (real environment)"</th><th>"mean return"</th></tr></thead>
            <tbody>{move || compared_rows().into_iter().map(|(label, steps, success, mean)| view! {
                <tr><td>{label}</td><td>{steps}</td><td>{success}</td><td>{mean}</td></tr>
            }).collect_view()}</tbody>
        </table>
        <p class="hint" hidden=move || trained.with(Vec::is_empty)>"The agent inside the model used no real steps beyond the dataset the model was scored on; both train in the background worker as runs of the Train pane (with their plots, episode trees and greedy step-throughs there) and are evaluated greedily on the real environment."</p>
    }
}
