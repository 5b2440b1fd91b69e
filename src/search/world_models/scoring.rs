//! Scoring a world model on the dataset (or imported transitions): its accuracy by both rules and
//! its transition table, ✓/✗ per part, the first misclassified transition marked.

use engine::gym::accuracy::Accuracy;
use engine::gym::transitions::Transition;
use engine::python::{DEFAULT_TIME_LIMIT_MS, Outcome, Prediction};
use engine::search::scorer::Scorer;
use engine::search::world_model::{WorldModelScorer, python_repr};
use leptos::prelude::*;

use super::ModelAtHand;
use super::info::{ImportedDataset, dataset_of};
use crate::services::python_pool::Python;

/// Rows of the transition table shown before the first misclassified one.
const ROWS_SHOWN: usize = 40;

/// A model's scoring: its accuracy and its predictions, beside the transitions.
#[derive(Clone)]
struct Scored {
    accuracy: Accuracy,
    transitions: Vec<Transition>,
    predictions: Vec<Prediction>,
    error: Option<String>,
    /// The harness's own time for the run.
    python_ms: f64,
    /// The imported file scored on, if not the generated dataset.
    file: Option<String>,
}

/// The scoring button and what it found.
#[component]
pub fn ScoreTool(at: ModelAtHand, imported: RwSignal<Option<ImportedDataset>>) -> impl IntoView {
    let ModelAtHand { env, program, world, busy, problem, status, .. } = at;
    let python = Python::from_context();
    let scored = RwSignal::new(None::<Scored>);
    // A new search or node shows nothing old.
    Effect::new(move |_| {
        program.track();
        scored.set(None);
    });
    let score = move |_| {
        let (Some(env), Some((_, code))) = (env.get_untracked(), program.get_untracked()) else { return };
        let world = world.get_untracked();
        let chosen = imported.with_untracked(|d| d.as_ref().filter(|d| d.env == env).cloned());
        let file = chosen.as_ref().map(|d| d.file.clone());
        let transitions = chosen.map_or_else(|| dataset_of(&world, env), |d| d.transitions);
        let scorer = WorldModelScorer { env, transitions, scoring: world.scoring };
        busy.set(true);
        status.set("Scoring the model in Pyodide…".into());
        python.with_value(|python| {
            python.run(scorer.request(&code), DEFAULT_TIME_LIMIT_MS, move |verdict| {
                busy.set(false);
                status.set(String::new());
                match verdict {
                    Err(message) => problem.set(Some(message)),
                    Ok(verdict) => {
                        problem.set(None);
                        scored.set(Some(Scored {
                            accuracy: scorer.accuracy(&verdict),
                            predictions: verdict.predictions.clone().unwrap_or_default(),
                            error: (verdict.outcome != Outcome::Pass)
                                .then(|| verdict.error.clone().unwrap_or_default()),
                            transitions: scorer.transitions,
                            python_ms: verdict.duration_ms,
                            file: file.clone(),
                        }));
                    }
                }
            })
        });
    };

    let rows = move || {
        scored.with(|s| {
            let s = s.as_ref()?;
            let first = s.accuracy.first_miss;
            let shown: Vec<usize> =
                (0..s.transitions.len().min(ROWS_SHOWN)).chain(first.filter(|&i| i >= ROWS_SHOWN)).collect();
            let mark = |ok: bool| if ok { "✓" } else { "✗" };
            Some(
                shown
                    .into_iter()
                    .map(|i| {
                        let (t, part) = (&s.transitions[i], &s.accuracy.transitions[i]);
                        let p = s.predictions.get(i);
                        let predicted = p.map_or_else(
                            || "not predicted".to_owned(),
                            |p| format!("{} · {} · {}", python_repr(&p.next_obs), python_repr(&p.reward), python_repr(&p.done)),
                        );
                        let class = if Some(i) == first { "first-miss" } else { "" };
                        view! { <tr class=class>
                            <td>{i}</td><td>{python_repr(&t.obs)}</td><td>{t.action}</td>
                            <td>{format!("{} · {:?} · {}", python_repr(&t.next_obs), t.reward, if part.done_label { "True" } else { "False" })}</td>
                            <td>{predicted}</td>
                            <td>{mark(part.next_obs_matches())}</td><td>{mark(part.reward)}</td><td>{mark(part.done)}</td>
                        </tr> }
                    })
                    .collect_view(),
            )
        })
    };
    let accuracy_line = move || {
        scored.with(|s| {
            s.as_ref().map(|s| {
                let right = s.accuracy.transitions.iter().filter(|t| t.predicted && !t.misclassified()).count();
                let error = s.error.as_ref().map(|e| format!(" The model raised, so the search scores it 0: {e}")).unwrap_or_default();
                format!(
                    "Accuracy {:.3} (official) · {:.3} (paper's formula) · {right} of {} transitions right in every part{}.{error}",
                    s.accuracy.official,
                    s.accuracy.paper,
                    s.transitions.len(),
                    s.file.as_ref().map_or(String::new(), |f| format!(" (on {f})"))
                )
            })
        })
    };

    view! {
        <button type="button" id="cwm-score" disabled=move || busy.get() on:click=score>"Score it on the dataset"</button>
        <p id="cwm-accuracy">{accuracy_line}</p>
        <p class="hint" hidden=move || scored.with(|s| s.is_none())>"Scored in "<span id="cwm-python-ms">{move || scored.with(|s| s.as_ref().map(|s| format!("{:.1}", s.python_ms)))}</span>" ms inside Python."</p>
        <table id="cwm-transitions" hidden=move || scored.with(|s| s.is_none())>
            <thead><tr><th>"#"</th><th>"state"</th><th>"action"</th><th>"recorded: next · reward · done"</th><th>"the model's"</th><th>"next"</th><th>"reward"</th><th>"done"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
