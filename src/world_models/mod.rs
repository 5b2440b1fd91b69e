//! The search pane's world-model tools (seed 004's CWMB): for a search on one of the six Gymnasium
//! environments, what the LLM is given (the description) and what scores its models (the dataset,
//! `info`); a model's transition table, ✓/✗ per part with the first misclassified transition
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
use leptos::prelude::*;

use self::info::{ImportedDataset, gym_of};
use self::planning::PlanTool;
use self::scoring::ScoreTool;
use self::training::TrainInsideTool;
use crate::services::python_pool::Python;

/// The model the tools work on, and what they share while one of them runs.
#[derive(Clone, Copy)]
pub struct ModelAtHand {
    pub env: Memo<Option<GymId>>,
    /// Which model (in words) and its program: the selected node's, else the best one.
    pub program: Memo<Option<(&'static str, String)>>,
    pub record: Signal<Option<SearchRecord>>,
    pub busy: RwSignal<bool>,
    pub problem: RwSignal<Option<String>>,
    pub status: RwSignal<String>,
}

/// The tools for the shown search's models, when it is a world-model search.
#[component]
pub fn WorldModelTools(
    python: StoredValue<Python, LocalStorage>,
    record: Signal<Option<SearchRecord>>,
    selected: RwSignal<Option<usize>>,
    imported: RwSignal<Option<ImportedDataset>>,
    /// Hears how the best model planned, for the search's record.
    on_planned: Callback<PlanningSummary>,
) -> impl IntoView {
    let env = Memo::new(move |_| record.with(|r| r.as_ref().and_then(|r| gym_of(&r.spec.task))));
    let program = Memo::new(move |_| {
        record.with(|r| {
            let r = r.as_ref()?;
            match selected.get().and_then(|i| r.expansions.get(i)) {
                Some(e) if !e.program.is_empty() => Some(("the selected node's model", e.program.clone())),
                _ => r.best.as_ref().map(|(p, _)| ("the best model", p.clone())),
            }
        })
    });
    let (busy, problem, status) = (RwSignal::new(false), RwSignal::new(None::<String>), RwSignal::new(String::new()));
    let at = ModelAtHand { env, program, record, busy, problem, status };
    // The tabulated model that planning made, for training inside it; a new model has none.
    let model = RwSignal::new(None::<Arc<TabulatedModel>>);
    Effect::new(move |_| {
        program.track();
        model.set(None);
    });
    view! {
        <div id="cwm-tools" hidden=move || env.get().is_none() || program.get().is_none()>
            <h3>"The world model"</h3>
            <p>{move || program.get().map(|(which, _)| format!("Working with {which}."))}</p>
            <p role="status">{move || status.get()}</p>
            <p role="alert" class="error" id="cwm-error" hidden=move || problem.get().is_none()>{move || problem.get()}</p>
            <div class="actions"><ScoreTool at python imported /></div>
            <div class="actions"><PlanTool at python model on_planned /></div>
            <div class="actions"><TrainInsideTool at model /></div>
        </div>
    }
}
