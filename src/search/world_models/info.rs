//! What a world-model search's form shows: the environment's description, the dataset that scores
//! its models, and transitions a person imports to score on instead.

use engine::gym::GymId;
use engine::gym::dataset::{dataset, from_json_lines, to_json_lines};
use engine::gym::transitions::Transition;
use engine::rng::gym_rng;
use engine::search::spec::WorldModelSpec;
use engine::search::world_model_tasks::world_model_task;
use leptos::prelude::*;

use crate::widgets::{download, upload};

pub fn gym_of(task: &str) -> Option<GymId> {
    GymId::parse(task).ok()
}

/// The dataset a model is scored on, by `world`'s seed.
pub fn dataset_of(world: &WorldModelSpec, env: GymId) -> Vec<Transition> {
    dataset(env, &mut gym_rng(world.dataset_seed))
}

/// Transitions a person imported (an exported dataset, or one recorded from Gymnasium): the
/// world-model tools score on them instead of the generated dataset; a search still scores on its
/// own.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedDataset {
    pub env: GymId,
    pub file: String,
    pub transitions: Vec<Transition>,
}

/// The environment's description and dataset, while the form's task is a world model.
#[component]
pub fn WorldModelInfo(task: RwSignal<String>, imported: RwSignal<Option<ImportedDataset>>) -> impl IntoView {
    let env = Memo::new(move |_| gym_of(&task.get()));
    let problem = RwSignal::new(None::<String>);
    let import = move |ev: leptos::ev::Event| {
        let (Some(file), Some(env)) = (upload::picked(&ev), env.get_untracked()) else { return };
        upload::read_text(file, move |name, text| {
            match text.and_then(|text| from_json_lines(env, &text).map_err(|e| format!("{name}: {e}"))) {
                Err(message) => problem.set(Some(message)),
                Ok(transitions) => {
                    problem.set(None);
                    imported.set(Some(ImportedDataset { env, file: name, transitions }));
                }
            }
        });
    };
    let imported_note = move || {
        imported.with(|d| {
            d.as_ref().filter(|d| Some(d.env) == env.get()).map(|d| {
                format!(
                    "Imported {} transitions of {} from {}: \"Score it on the dataset\" scores on them (a search still scores on the generated dataset).",
                    d.transitions.len(),
                    d.env.name(),
                    d.file
                )
            })
        })
    };
    let summary = move || {
        let env = env.get()?;
        let transitions = dataset(env, &mut gym_rng(0));
        let mut rewards: Vec<f64> = transitions.iter().map(|t| t.reward).collect();
        rewards.sort_by(f64::total_cmp);
        rewards.dedup();
        let ends = transitions.iter().filter(|t| t.terminated).count();
        Some(format!(
            "Dataset: {} transitions of 5 random and 5 heuristic trajectories of at most 100 steps (seed 0), {ends} of them ending an episode; rewards {}.",
            transitions.len(),
            rewards.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
        ))
    };
    let save = move |_| {
        let Some(env) = env.get_untracked() else { return };
        let lines = to_json_lines(&dataset(env, &mut gym_rng(0)));
        if let Err(message) = download::text(&format!("{}-dataset.jsonl", env.name()), "application/jsonl", &lines) {
            problem.set(Some(message));
        }
    };
    view! {
        <div id="cwm-info" hidden=move || env.get().is_none()>
            <p class="hint">"A code world model: the LLM writes a Python class `Environment` that predicts the next state, reward and end of the environment; it is scored on recorded transitions by both the official code's accuracy (partial credit, each reward value weighing the same; the score the search maximises) and the paper's (a third each for state, reward and done). A truncation by the time limit is not counted as done."</p>
            <details><summary>"What the LLM is given"</summary>
                <pre id="cwm-description">{move || env.get().map(|e| world_model_task(e).description)}</pre>
            </details>
            <p id="cwm-dataset">{summary}</p>
            <p class="actions">
                <button type="button" id="cwm-dataset-download" on:click=save>"Download the dataset (JSON lines)"</button>
                <label>"Import transitions (JSON lines) "<input type="file" id="cwm-dataset-import" accept=".jsonl,.json,application/jsonl" on:change=import /></label>
            </p>
            <p hidden=move || imported_note().is_none()>
                <span id="cwm-dataset-imported">{imported_note}</span>" "
                <button type="button" id="cwm-dataset-forget" on:click=move |_| imported.set(None)>"Score on the generated dataset again"</button>
            </p>
            <p id="cwm-dataset-error" role="alert" class="error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
        </div>
    }
}
