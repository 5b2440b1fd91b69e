//! The runs on the page, the one selected, and what can be done to the whole set: start, resume,
//! import, and keeping them in this browser. Components reach it through leptos context.

use std::collections::HashMap;

use engine::RunSpec;
use engine::pace::Pace;
use engine::protocol::ToWorker;
use engine::run::Resume;
use leptos::prelude::*;

use crate::services::model::{RunData, Status, parse_runs_json};
use crate::services::storage::{self, setting};
use crate::services::worker_bridge::WorkerBridge;

#[derive(Clone, Copy)]
pub struct RunBook {
    pub runs: RwSignal<Vec<RunData>>,
    pub selected: RwSignal<Option<u32>>,
    /// The runs kept in this browser are back (so a shared run can look for itself among them).
    pub restored: RwSignal<bool>,
    /// The pace new runs start at (the run form's).
    pub pace: RwSignal<Pace>,
    next_id: StoredValue<u32>,
    error: RwSignal<Option<String>>,
    // Held, not looked up: runs start from callbacks (Python's, for measured verdicts) that run
    // outside any component, where there is no context to read.
    bridge: WorkerBridge,
}

impl RunBook {
    /// Provides the book of `runs`, trained through `bridge`, as context, and brings back the runs kept in this browser: those
    /// that were training come back interrupted and offer to resume. Saving starts once they are
    /// back; problems go to `error`.
    pub fn provide(runs: RwSignal<Vec<RunData>>, bridge: WorkerBridge, error: RwSignal<Option<String>>) -> RunBook {
        let book = RunBook {
            runs,
            selected: RwSignal::new(None),
            restored: RwSignal::new(false),
            pace: RwSignal::new(Pace::Full),
            next_id: StoredValue::new(1),
            error,
            bridge,
        };
        provide_context(book);
        leptos::task::spawn_local(async move {
            let mut kept = HashMap::new();
            match storage::restore().await {
                Ok((stored, problems)) => {
                    runs.update(|runs| {
                        for mut stored in stored {
                            if runs.iter().any(|r| r.id == stored.run.id) {
                                // A run started before this one was read took its id: it is kept anew.
                                stored.run.renumber(book.next_id.get_value());
                            } else if let Some(state) = stored.kept {
                                kept.insert(stored.run.id, state);
                            }
                            book.next_id.set_value(book.next_id.get_value().max(stored.run.id + 1));
                            runs.push(stored.run);
                        }
                    });
                    if !problems.is_empty() {
                        error.set(Some(problems.join("; ")));
                    }
                }
                Err(problem) => error.set(Some(problem)),
            }
            // The run selected before the reload, unless one was selected meanwhile (a shared run's).
            let kept_selection = storage::load_number(setting::SELECTED_RUN).await;
            if book.selected.get_untracked().is_none()
                && runs.with_untracked(|runs| runs.iter().any(|r| Some(r.id) == kept_selection))
            {
                book.selected.set(kept_selection);
            }
            book.restored.set(true);
            storage::keep_saving(runs, kept, move |problem| error.set(Some(problem)));
        });
        storage::keep_number(setting::SELECTED_RUN, book.selected, book.restored);
        book
    }

    fn take_id(self) -> u32 {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        id
    }

    /// Adds a run of `spec`, selects it and has the worker train it; returns its id.
    pub fn start(self, spec: RunSpec) -> u32 {
        let id = self.take_id();
        self.runs.update(|runs| runs.push(RunData::new(id, spec.clone())));
        self.selected.set(Some(id));
        let pace = self.pace.get_untracked();
        self.runs.update(|runs| runs.iter_mut().filter(|r| r.id == id).for_each(|r| r.pace = pace));
        self.bridge.send(ToWorker::Start { run_id: id, spec, resume: None, pace });
        id
    }

    /// Has run `id` trained at `pace` from now on.
    pub fn set_pace(self, id: u32, pace: Pace) {
        self.runs.update(|runs| {
            if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
                run.pace = pace;
            }
        });
        self.bridge.send(ToWorker::Pace { run_id: id, pace });
    }

    /// The run of `spec` already on the page, if there is one (runs are deterministic: the same spec
    /// is the same run).
    pub fn find(self, spec: &RunSpec) -> Option<u32> {
        self.runs.with_untracked(|runs| runs.iter().find(|r| r.spec == *spec).map(|r| r.id))
    }

    /// Goes on with an interrupted run: the worker trains its recorded episodes again, unsent, and
    /// checks their fingerprint, then trains the rest.
    pub fn resume(self, id: u32) {
        let Some((spec, resume, pace)) = self.runs.with_untracked(|runs| {
            let run = runs.iter().find(|r| r.id == id)?;
            let resume = Resume { episodes: run.records.len() as u32, fingerprint: run.digest.value() };
            Some((run.spec.clone(), resume, run.pace))
        }) else {
            return;
        };
        self.runs.update(|runs| {
            if let Some(run) = runs.iter_mut().find(|r| r.id == id) {
                run.status = Status::Training;
            }
        });
        self.bridge.send(ToWorker::Start { run_id: id, spec, resume: Some(resume), pace });
    }

    /// Adds the runs of an exported JSON file (`text`, or why it could not be read), with fresh ids.
    pub fn import(self, name: &str, text: Result<String, String>) {
        match text.and_then(|text| parse_runs_json(name, &text)) {
            Ok(imported) => {
                let mut last = None;
                self.runs.update(|runs| {
                    for run in imported {
                        let id = self.take_id();
                        runs.push(RunData::imported(id, run));
                        last = Some(id);
                    }
                });
                self.selected.set(last);
                self.error.set(None);
            }
            Err(problem) => self.error.set(Some(problem)),
        }
    }
}
