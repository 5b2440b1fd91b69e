//! The LLM that a pane drives, shared by every such pane through leptos context: the choice of the
//! LLM select, the endpoint's (or the model in the tab's) settings and key, and the prompts. A pane
//! asks it for the [`Llm`] of a task; [`engine::effects::llm_source::LlmSource`] does the rest.
//!
//! Settings and prompts are kept with the page's other settings ([`crate::services::storage`]):
//! the settings by one effect here, whichever form changed them. The API key is held in a signal,
//! and in `localStorage` only while the user ticks "remember": unlike the IndexedDB that keeps
//! everything else, `localStorage` is out of every worker's reach, the Python workers' included.
//! The key goes into the [`Llm`], which gives it to [`crate::services::llm_client::chat`] and
//! nowhere else: not to the training worker, the Python worker, the runs, the share link or the
//! exports.

use engine::effects::Llm;
use engine::effects::llm_source::{LlmSource, SIMULATED};
use engine::llm::ProviderSettings;
use engine::prompts::PromptSet;
use leptos::prelude::*;

use crate::services::storage::{self, setting};

/// The chosen LLM, its settings and key, and the prompts.
#[derive(Clone, Copy)]
pub struct LlmChoice {
    /// The LLM select's value: [`SIMULATED`], or the preset whose settings are in use.
    pub choice: RwSignal<String>,
    pub settings: RwSignal<ProviderSettings>,
    pub api_key: RwSignal<String>,
    pub remember: RwSignal<bool>,
    pub prompts: RwSignal<PromptSet>,
}

impl LlmChoice {
    /// Provides the choice as context, with what this browser kept once it is read back; from
    /// then on every change of the settings is kept, whichever form made it.
    pub fn provide() -> LlmChoice {
        let remembered_key = key_storage().and_then(|s| s.get_item(API_KEY).ok().flatten());
        let llm = LlmChoice {
            choice: RwSignal::new(SIMULATED.to_owned()),
            settings: RwSignal::new(ProviderSettings::default()),
            remember: RwSignal::new(remembered_key.is_some()),
            api_key: RwSignal::new(remembered_key.unwrap_or_default()),
            prompts: RwSignal::new(PromptSet::default()),
        };
        let read_back = RwSignal::new(false);
        leptos::task::spawn_local(async move {
            if let Some(settings) = stored::<ProviderSettings>(setting::LLM).await {
                llm.settings.set(settings);
            }
            if let Some(prompts) = stored::<PromptSet>(setting::PROMPTS).await {
                llm.prompts.set(PromptSet::default().with_edits(prompts));
            }
            read_back.set(true);
        });
        // Kept when they change after the read-back: never before it (the defaults would overwrite
        // what a reload should find), nor what was just read (an older page's settings are moved
        // by the read itself).
        Effect::new(move |read_before: Option<bool>| {
            let settings = llm.settings.get();
            let read = read_back.get();
            if read && read_before == Some(true) {
                storage::save_setting(setting::LLM, serde_json::to_string(&settings).ok());
            }
            read
        });
        provide_context(llm);
        llm
    }

    /// The LLM for one task (`seed` seeds the simulated one); the error says what is missing.
    pub fn llm(self, seed: u64) -> Result<Llm, String> {
        let source = LlmSource::of(&self.choice.get_untracked(), self.settings.get_untracked())?;
        source.llm(seed, &self.api_key.get_untracked(), "enter it, or choose the simulated LLM")
    }
}

/// Where a remembered key is kept (see the module's comment), under [`API_KEY`].
fn key_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

const API_KEY: &str = "rlcg.llm-api-key";

/// Remembers `key`, or forgets the remembered one.
pub fn remember_key(key: Option<&str>) {
    if let Some(storage) = key_storage() {
        let _ = match key {
            Some(key) => storage.set_item(API_KEY, key),
            None => storage.remove_item(API_KEY),
        };
    }
}

async fn stored<T: serde::de::DeserializeOwned>(name: &'static str) -> Option<T> {
    storage::load_setting(name).await.and_then(|text| serde_json::from_str(&text).ok())
}
