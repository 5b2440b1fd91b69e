//! The search pane's world-model tools (seed 004's CWMB): for a search on one of the six Gymnasium
//! environments, what the LLM is given (the description) and what scores its models (the dataset,
//! `info`); for the shown search's model, or one of your own from the editor: its transition table, ✓/✗ per part with the first misclassified transition
//! marked (`scoring`); planning with a model against the oracle and random actions, the quick
//! protocol (`planning`); Q-learning inside the model, evaluated on the real environment beside
//! Q-learning on the real one (`training`); and the kept searches beside the paper's Tables 9 and
//! 10 (`paper`).

pub mod info;
pub mod paper;
pub mod planning;
pub mod scoring;
pub mod training;

use std::sync::Arc;

use engine::cwm::normalised_return::PlanningSummary;
use engine::cwm::tabulated::TabulatedModel;
use engine::gym::GymId;
use engine::search::record::SearchRecord;
use engine::search::spec::WorldModelSpec;
use leptos::prelude::*;

use self::info::{ImportedDataset, gym_of};
use self::planning::PlanTool;
use self::scoring::ScoreTool;
use self::training::TrainInsideTool;

/// The model the tools work on, and what they share while one of them runs.
#[derive(Clone, Copy)]
pub struct ModelAtHand {
    pub env: Memo<Option<GymId>>,
    /// Which model (in words) and its program: your own, else the selected node's, else the best.
    pub program: Memo<Option<(&'static str, String)>>,
    /// What it is scored on: the shown search's dataset and scoring, or the defaults for your own.
    pub world: Memo<WorldModelSpec>,
    /// The shown search's best program while the model at hand is one of its nodes: how that one
    /// planned is kept with the search.
    pub search_best: Memo<Option<String>>,
    pub busy: RwSignal<bool>,
    pub problem: RwSignal<Option<String>>,
    pub status: RwSignal<String>,
}

/// The tools for the shown search's models, when it is a world-model search, or for `own`, a model
/// of your own from the editor (until a node of the search is chosen).
#[component]
pub fn WorldModelTools(
    record: Signal<Option<SearchRecord>>,
    selected: RwSignal<Option<usize>>,
    own: RwSignal<Option<(GymId, String)>>,
    imported: RwSignal<Option<ImportedDataset>>,
    /// Hears how the best model planned, for the search's record.
    on_planned: Callback<PlanningSummary>,
) -> impl IntoView {
    Effect::new(move |first: Option<()>| {
        selected.track();
        if first.is_some() {
            own.set(None);
        }
    });
    let searched_env = move || record.with(|r| r.as_ref().and_then(|r| gym_of(&r.spec.task)));
    let env = Memo::new(move |_| own.with(|o| o.as_ref().map(|(env, _)| *env)).or_else(searched_env));
    let program = Memo::new(move |_| {
        if let Some((_, code)) = own.get() {
            return Some(("your own model", code));
        }
        record.with(|r| {
            let r = r.as_ref()?;
            match selected.get().and_then(|node| Some((node, r.program_at(node)?.0.to_owned()))) {
                Some((node, code)) if r.nodes()[node].edit.is_some() => Some(("the model edited by hand", code)),
                Some((_, code)) => Some(("the selected node's model", code)),
                None => r.best.as_ref().map(|(p, _)| ("the best model", p.clone())),
            }
        })
    });
    let world = Memo::new(move |_| {
        let searched = record.with(|r| r.as_ref().map(|r| r.spec.world_model));
        if own.with(Option::is_some) { WorldModelSpec::default() } else { searched.unwrap_or_default() }
    });
    let search_best = Memo::new(move |_| {
        if own.with(Option::is_some) {
            return None;
        }
        record.with(|r| r.as_ref().and_then(|r| r.best.as_ref()).map(|(p, _)| p.clone()))
    });
    let (busy, problem, status) = (RwSignal::new(false), RwSignal::new(None::<String>), RwSignal::new(String::new()));
    let at = ModelAtHand { env, program, world, search_best, busy, problem, status };
    // The tabulated model that planning made, for training inside it; a new model has none.
    let model = RwSignal::new(None::<Arc<TabulatedModel>>);
    Effect::new(move |_| {
        program.track();
        model.set(None);
    });
    view! {
        <div id="cwm-tools" hidden=move || env.get().is_none() || program.get().is_none()>
            <h3>"The world model"</h3>
            <p id="cwm-which">{move || program.get().map(|(which, _)| format!("Working with {which}."))}
                " "<button type="button" id="cwm-own-leave" hidden=move || own.with(Option::is_none) on:click=move |_| own.set(None)>"Back to the search's models"</button>
            </p>
            <p role="status">{move || status.get()}</p>
            <p role="alert" class="error" id="cwm-error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <div class="actions"><ScoreTool at imported /></div>
            <div class="actions"><PlanTool at model on_planned /></div>
            <div class="actions"><TrainInsideTool at model /></div>
        </div>
    }
}
