//! Running a search of the Search pane: the page's host drives it, the pane's list shows it grow,
//! and a finished one is kept in this browser (and, for a shared search's replay, compared with
//! what the link said).

use engine::effects::Llm;
use engine::search::record::SearchRecord;
use engine::search::spec::{ProgramSearch, SearchSpec, TEMPERATURE};
use engine::share::search_link::SearchResults;
use leptos::prelude::*;

use crate::search::history::Searches;
use crate::services::cancel::CancelToken;
use crate::services::chat;
use crate::services::host::{self, HostView};
use crate::services::python_pool::Python;

/// What a search needs from the pane while it runs.
#[derive(Clone, Copy)]
pub struct Runner {
    pub searches: Searches,
    pub selected: RwSignal<Option<usize>>,
    pub running: RwSignal<bool>,
    pub status: RwSignal<String>,
    pub stream: RwSignal<String>,
    pub replay: RwSignal<Option<String>>,
    pub cancel: StoredValue<CancelToken, LocalStorage>,
    pub python: StoredValue<Python, LocalStorage>,
}

impl Runner {
    /// Runs `search`, made from `spec`, with `llm`; `sent` is what a shared link said it came to.
    pub fn launch(self, search: ProgramSearch, spec: SearchSpec, mut llm: Llm, sent: Option<SearchResults>) {
        let Self { searches, selected, running, status, stream, replay, cancel, python } = self;
        running.set(true);
        // Runs `search`, made from `spec`, with `llm`; `sent` is what a shared link said it came to.
        let mut search = search.with_prefill(llm.settings().is_some_and(|s| s.assistant_prefill));
        // A model that is called samples at seed 004's temperature.
        if let Some(settings) = llm.settings_mut() {
            settings.temperature = TEMPERATURE;
        }
        let (llm_name, prices, in_tab) = (llm.name(), llm.prices(), llm.runs_in_tab());
        let record = move |search: &ProgramSearch| {
            let mut record = search.record(&spec, &llm_name);
            record.cost_usd = record.usage.cost(prices);
            record.device = chat::device(in_tab);
            record
        };
        let id = searches.next_id();
        searches.put(id, record(&search));
        searches.shown.set(Some(id));
        searches.in_flight.set(Some(id));
        selected.set(None);
        let token = CancelToken::default();
        cancel.set_value(token.clone());
        let python = python.get_value();
        leptos::task::spawn_local(async move {
            let decide = async |_| Err("a search takes no policy decisions".to_owned());
            let view = HostView { status, stream };
            // A search Python failed ends with the reason, which its status line shows.
            let _ = host::drive(&mut search, &mut llm, &python, &token, decide, view, |s| searches.put(id, record(s)))
                .await;
            status.set(format!("Search over: {}.", search.ended()));
            let kept = record(&search);
            if let Some(sent) = sent {
                replay.set(Some(replay_verdict(&kept, &sent)));
            }
            searches.put(id, kept.clone());
            running.set(false);
            searches.in_flight.set(None);
            searches.keep(id, kept);
        });
    }
}

/// What a finished replay of a shared search says about it.
fn replay_verdict(record: &SearchRecord, sent: &SearchResults) -> String {
    if record.fingerprint == sent.fingerprint {
        format!(
            "This replay is the shared search exactly: the same {} LLM calls and programs, best score {:.3} (fingerprint {}).",
            record.llm_calls(),
            record.best_score(),
            record.fingerprint
        )
    } else {
        format!(
            "This replay differs from the shared search: {} LLM calls and best score {:.3} here, {} and {:.3} in the link (fingerprints {} and {}). The page that made the link may be another version of the playground.",
            record.llm_calls(),
            record.best_score(),
            sent.llm_calls,
            sent.best_score,
            record.fingerprint,
            sent.fingerprint
        )
    }
}
