//! The searches of the Search pane: every search kept in this browser or run on this page, by
//! number, the one shown and the one running; the table of them, and their export and import as
//! the JSON of `SearchRecord::export`.

use engine::search::record::SearchRecord;
use engine::share::search_link::SearchResults;
use leptos::prelude::*;

use crate::services::storage::{self, setting};
use crate::widgets::{download, upload};

/// The searches, shared by the pane's parts.
#[derive(Clone, Copy)]
pub struct Searches {
    pub list: RwSignal<Vec<(u32, SearchRecord)>>,
    pub shown: RwSignal<Option<u32>>,
    /// The search being driven now, by number: it cannot be removed.
    pub in_flight: RwSignal<Option<u32>>,
    /// What went wrong last, for the pane's alert.
    pub problem: RwSignal<Option<String>>,
}

impl Searches {
    pub fn new(problem: RwSignal<Option<String>>) -> Self {
        Self { list: RwSignal::new(Vec::new()), shown: RwSignal::new(None), in_flight: RwSignal::new(None), problem }
    }

    pub fn next_id(self) -> u32 {
        self.list.with_untracked(|l| l.iter().map(|(id, _)| id + 1).max().unwrap_or(1))
    }

    pub fn put(self, id: u32, record: SearchRecord) {
        self.list.update(|list| match list.iter_mut().find(|(i, _)| *i == id) {
            Some(entry) => entry.1 = record,
            None => list.push((id, record)),
        });
    }

    pub fn record(self, id: u32) -> Option<SearchRecord> {
        self.list.with_untracked(|l| l.iter().find(|(i, _)| *i == id).map(|(_, r)| r.clone()))
    }

    pub fn shown_record(self) -> Signal<Option<SearchRecord>> {
        Signal::derive(move || {
            let id = self.shown.get()?;
            self.list.with(|l| l.iter().find(|(i, _)| *i == id).map(|(_, r)| r.clone()))
        })
    }

    /// Every record, in order.
    pub fn records(self) -> Signal<Vec<SearchRecord>> {
        Signal::derive(move || self.list.with(|l| l.iter().map(|(_, r)| r.clone()).collect()))
    }

    /// Reads the kept searches back and shows the one shown before the reload. A shared search
    /// `sent` found among them (its link reopened: a reload, a bookmark) is shown instead, and its
    /// number returned: searches are deterministic, so the same fingerprint is the same search.
    pub async fn restore(self, sent: Option<&SearchResults>) -> Option<u32> {
        let (kept, problems) = storage::load_searches().await;
        let kept_shown = storage::load_number(setting::SHOWN_SEARCH).await;
        let find =
            |wanted: &dyn Fn(u32, &SearchRecord) -> bool| kept.iter().find(|(id, r)| wanted(*id, r)).map(|e| e.0);
        let already_here = sent.and_then(|sent| find(&|_, record| record.fingerprint == sent.fingerprint));
        let shown = already_here.or_else(|| kept_shown.and_then(|shown| find(&|id, _| id == shown)));
        self.list.set(kept);
        self.shown.set(shown);
        if !problems.is_empty() {
            self.problem.set(Some(problems.join("; ")));
        }
        already_here
    }

    /// Keeps the number of the search shown once `restored`, so that a reload shows it again.
    pub fn keep_shown(self, restored: RwSignal<bool>) {
        storage::keep_number(setting::SHOWN_SEARCH, self.shown, restored);
    }

    /// Keeps search `id` in this browser (a refusal is shown).
    pub fn keep(self, id: u32, record: SearchRecord) {
        leptos::task::spawn_local(async move {
            if let Err(refused) = storage::save_search(id, &record).await {
                self.problem.set(Some(refused));
            }
        });
    }
}

/// The table of the searches kept, with their export and import.
#[component]
pub fn SearchHistory(searches: Searches, selected: RwSignal<Option<usize>>) -> impl IntoView {
    let problem = searches.problem;
    let import = move |ev: leptos::ev::Event| {
        let Some(file) = upload::picked(&ev) else { return };
        upload::read_text(file, move |name, text| {
            match text.and_then(|text| SearchRecord::import(&text).map_err(|e| format!("{name}: {e}"))) {
                Err(message) => problem.set(Some(message)),
                Ok(records) => {
                    problem.set(None);
                    for record in records {
                        let id = searches.next_id();
                        searches.put(id, record.clone());
                        searches.shown.set(Some(id));
                        searches.keep(id, record);
                    }
                }
            }
        });
    };
    let export = move |_| {
        let records = searches.records().get_untracked();
        if let Err(message) = download::text("searches.json", "application/json", &SearchRecord::export(&records)) {
            problem.set(Some(message));
        }
    };
    // The row goes once the browser has forgotten it, so that it never comes back on a reload.
    let remove = move |id: u32| {
        leptos::task::spawn_local(async move {
            match storage::forget_search(id).await {
                Ok(()) => searches.list.update(|l| l.retain(|(i, _)| *i != id)),
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    view! {
        <h3>"Searches kept in this browser"</h3>
        <table id="search-history">
            <thead><tr><th>"#"</th><th>"Search"</th><th>"Best score"</th><th>"LLM calls"</th><th>"Ended"</th><th><span class="visually-hidden">"Actions"</span></th></tr></thead>
            <tbody>{move || searches.list.with(|list| list.iter().map(|(id, r)| {
                let id = *id;
                view! { <tr>
                    <td>{id}</td><td>{r.label()}</td><td>{format!("{:.3}", r.best_score())}</td><td>{r.llm_calls()}</td><td>{r.ended.clone()}</td>
                    <td>
                        <button type="button" class="search-show" on:click=move |_| { selected.set(None); searches.shown.set(Some(id)) }>"Show"</button>
                        <button type="button" class="search-remove" disabled=move || searches.in_flight.get() == Some(id) on:click=move |_| remove(id)>"Remove"</button>
                    </td>
                </tr> }
            }).collect_view())}</tbody>
        </table>
        <p class="actions">
            <button type="button" id="search-export" on:click=export>"Export searches (JSON)"</button>
            <label>"Import searches "<input type="file" id="search-import" accept=".json,application/json" on:change=import /></label>
        </p>
    }
}
