//! The LLM that a pane drives, shared by every such pane through leptos context: the simulated
//! LLM offline, or an OpenAI-compatible endpoint with its settings and key; and the prompts, as
//! data the user can edit.
//!
//! Settings and prompts are kept with the page's other settings ([`crate::services::storage`]). The API key
//! is held in a signal, and in `localStorage` only while the user ticks "remember": unlike the
//! IndexedDB that keeps everything else, `localStorage` is out of every worker's reach, the Python
//! workers' included. The key goes to [`crate::services::llm_client::chat`] (through [`crate::services::host::Llm`])
//! and nowhere else: not to the training worker, the Python worker, the runs, the share link or
//! the exports.

use engine::effects::Llm;
use engine::llm::{IN_TAB, PRESETS, ProviderSettings, preset};
use engine::prompts::{PromptSet, PromptTemplate};
use leptos::prelude::*;

use crate::services::storage::{self, setting};
use crate::widgets::in_tab_model::InTabModelFields;

/// The LLM select's value for the offline stand-in.
const SIMULATED: &str = "simulated";

/// The chosen LLM, its settings and key, and the prompts.
#[derive(Clone, Copy)]
pub struct LlmChoice {
    /// `simulated`, or the preset whose settings are in use.
    pub choice: RwSignal<String>,
    pub settings: RwSignal<ProviderSettings>,
    pub api_key: RwSignal<String>,
    pub remember: RwSignal<bool>,
    pub prompts: RwSignal<PromptSet>,
}

impl LlmChoice {
    /// Provides the choice as context, with what this browser kept once it is read back.
    pub fn provide() -> LlmChoice {
        let remembered_key = key_storage().and_then(|s| s.get_item(API_KEY).ok().flatten());
        let llm = LlmChoice {
            choice: RwSignal::new(SIMULATED.to_owned()),
            settings: RwSignal::new(ProviderSettings::default()),
            remember: RwSignal::new(remembered_key.is_some()),
            api_key: RwSignal::new(remembered_key.unwrap_or_default()),
            prompts: RwSignal::new(PromptSet::default()),
        };
        leptos::task::spawn_local(async move {
            if let Some(settings) = stored::<ProviderSettings>(setting::LLM).await {
                llm.settings.set(settings);
            }
            if let Some(prompts) = stored::<PromptSet>(setting::PROMPTS).await {
                llm.prompts.set(PromptSet::default().with_edits(prompts));
            }
        });
        provide_context(llm);
        llm
    }

    /// The LLM for one task (`seed` seeds the offline one), its label, and the endpoint's settings
    /// (for the cost); the error says what is missing.
    pub fn llm(self, seed: u64) -> Result<(Llm, String, Option<ProviderSettings>), String> {
        if self.choice.get_untracked() == SIMULATED {
            return Ok((Llm::offline(seed), "simulated LLM".to_owned(), None));
        }
        let settings = self.settings.get_untracked();
        let key = self.api_key.get_untracked();
        settings.validate().map_err(|message| format!("LLM settings: {message}"))?;
        if key.trim().is_empty() && preset(&settings.preset).is_some_and(|p| p.needs_key) {
            return Err(format!("{} needs an API key: enter it, or choose the simulated LLM", settings.base_url));
        }
        Ok((Llm::Remote { settings: settings.clone(), key }, settings.label(), Some(settings)))
    }
}

/// Where a remembered key is kept (see the module's comment), under [`API_KEY`].
fn key_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

const API_KEY: &str = "rlcg.llm-api-key";

/// Remembers `key`, or forgets the remembered one.
fn remember_key(key: Option<&str>) {
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

fn store(name: &'static str, value: &impl serde::Serialize) {
    storage::save_setting(name, serde_json::to_string(value).ok());
}

/// The LLM select: the simulated LLM, or a provider preset.
#[component]
pub fn LlmSelect() -> impl IntoView {
    let LlmChoice { choice, settings, .. } = expect_context::<LlmChoice>();
    let on_llm = move |value: String| {
        if value != SIMULATED
            && let Some(p) = preset(&value)
        {
            // Keep prices, limits and sampling; take the preset's address and model.
            settings.update(|s| {
                let fresh = ProviderSettings::from_preset(p);
                (s.preset, s.base_url, s.model) = (fresh.preset, fresh.base_url, fresh.model);
            });
            store(setting::LLM, &settings.get_untracked());
        }
        choice.set(value);
    };
    view! {
                <label>"LLM"
                    <select id="llm-provider" on:change=move |ev| on_llm(event_target_value(&ev))>
                        <option value=SIMULATED selected=true>"Simulated LLM (offline)"</option>
                        {PRESETS.iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                    </select>
                </label>
    }
}

/// The endpoint's settings and key (hidden while the simulated LLM is chosen); a value that is not
/// valid is reported in `problem`, the pane's error line.
#[component]
pub fn EndpointFields(problem: RwSignal<Option<String>>) -> impl IntoView {
    let LlmChoice { choice, settings, api_key, remember, .. } = expect_context::<LlmChoice>();
    let number_field = move |id: &'static str,
                             label: &'static str,
                             get: fn(&ProviderSettings) -> f64,
                             put: fn(&mut ProviderSettings, f64)| {
        let on_change = move |ev| match event_target_value(&ev).trim().parse::<f64>() {
            Ok(v) if v.is_finite() => {
                settings.update(|s| put(s, v));
                problem.set(
                    settings.with_untracked(ProviderSettings::validate).err().map(|m| format!("LLM settings: {m}")),
                );
                store(setting::LLM, &settings.get_untracked());
            }
            _ => problem.set(Some(format!("LLM settings: {label} must be a number"))),
        };
        view! {
            <label>{label}
                <input type="number" id=id step="any" prop:value=move || settings.with(|s| get(s).to_string()) on:change=on_change />
            </label>
        }
    };
    let text_field = move |id: &'static str,
                           label: &'static str,
                           get: fn(&ProviderSettings) -> String,
                           put: fn(&mut ProviderSettings, String)| {
        view! {
            <label>{label}
                <input type="text" id=id prop:value=move || settings.with(get) on:change=move |ev| {
                    settings.update(|s| put(s, event_target_value(&ev)));
                    store(setting::LLM, &settings.get_untracked());
                } />
            </label>
        }
    };
    let on_key = move |ev| {
        let key = event_target_value(&ev);
        if remember.get_untracked() {
            remember_key(Some(&key));
        }
        api_key.set(key);
    };
    let on_remember = move |ev| {
        let on = event_target_checked(&ev);
        remember.set(on);
        remember_key(on.then(|| api_key.get_untracked()).as_deref());
    };

    // The model in the tab has a file, not an address, key, prices or retries.
    let in_tab = move || choice.get() == IN_TAB;
    view! {
            <fieldset id="llm-settings" hidden=move || choice.get() == SIMULATED>
                <legend>{move || if in_tab() { "Model in this tab" } else { "Endpoint" }}</legend>
                {move || in_tab().then(|| view! { <InTabModelFields settings=settings /> })}
                <div class="form-grid">
                    <div class="form-grid-part" hidden=in_tab>
                    {text_field("llm-base-url", "Base URL", |s| s.base_url.clone(), |s, v| s.base_url = v)}
                    {text_field("llm-model", "Model", |s| s.model.clone(), |s, v| s.model = v)}
                    <label>"API key"
                        <input type="password" id="llm-key" autocomplete="off" prop:value=move || api_key.get() on:change=on_key />
                    </label>
                    <label class="inline"><input type="checkbox" id="llm-remember" prop:checked=move || remember.get() on:change=on_remember />
                        "remember the key in this browser"</label>
                    </div>
                    {number_field("llm-temperature", "Temperature", |s| s.temperature, |s, v| s.temperature = v)}
                    {number_field("llm-top-p", "Top-p", |s| s.top_p, |s, v| s.top_p = v)}
                    {number_field("llm-max-tokens", "Max tokens", |s| f64::from(s.max_tokens), |s, v| s.max_tokens = v.clamp(0.0, f64::from(u32::MAX)) as u32)}
                    <div class="form-grid-part" hidden=in_tab>
                    {number_field("llm-timeout", "Timeout (s)", |s| f64::from(s.timeout_s), |s, v| s.timeout_s = v.clamp(0.0, 1e6) as u32)}
                    {number_field("llm-retries", "Retries", |s| f64::from(s.max_retries), |s, v| s.max_retries = v.clamp(0.0, 1e6) as u32)}
                    {number_field("llm-price-in", "$ per 1M prompt tokens", |s| s.price_prompt_per_million, |s, v| s.price_prompt_per_million = v)}
                    {number_field("llm-price-out", "$ per 1M completion tokens", |s| s.price_completion_per_million, |s, v| s.price_completion_per_million = v)}
                    </div>
                </div>
                <label class="inline" hidden=in_tab><input type="checkbox" id="llm-prefill" prop:checked=move || settings.with(|s| s.assistant_prefill) on:change=move |ev| {
                    settings.update(|s| s.assistant_prefill = event_target_checked(&ev));
                    store(setting::LLM, &settings.get_untracked());
                } />
                    "the endpoint continues a started reply (vLLM, llama.cpp): a search's generate starts the reply with the program's first lines"</label>
                <p class="hint" hidden=in_tab>"The key is sent only to this base URL. It is kept in memory unless you tick remember; it never goes into links, exports or the Python worker."</p>
            </fieldset>
    }
}

/// The prompts as data: edit one, save it (after checking its placeholders), restore the defaults.
#[component]
pub fn PromptEditor() -> impl IntoView {
    let prompts = expect_context::<LlmChoice>().prompts;
    let first = prompts.with_untracked(|p| p.prompts[0].id.clone());
    let chosen = RwSignal::new(first);
    let template = move || prompts.with(|p| p.get(&chosen.get()).cloned());
    let system = RwSignal::new(String::new());
    let user = RwSignal::new(String::new());
    let message = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(t) = template() {
            system.set(t.system);
            user.set(t.user);
        }
    });
    // Puts `set` in use, keeps it (`None` forgets the edits), and says `done` only once the browser
    // has committed it: a reload before the commit would lose it.
    let apply = move |set: PromptSet, edits: Option<String>, done: &'static str| {
        prompts.set(set);
        message.set(Some("Keeping it in this browser…".into()));
        leptos::task::spawn_local(async move {
            message.set(Some(match storage::keep_setting(setting::PROMPTS, edits).await {
                Ok(()) => done.into(),
                Err(problem) => format!("In use on this page, but not kept: {problem}."),
            }));
        });
    };
    let save = move |_| {
        let Some(current) = template() else { return };
        let edited = PromptTemplate { system: system.get_untracked(), user: user.get_untracked(), ..current };
        let mut set = prompts.get_untracked();
        match set.set(edited) {
            Ok(()) => {
                let json = serde_json::to_string(&set).ok();
                apply(set, json, "Saved.");
            }
            Err(problem) => message.set(Some(problem)),
        }
    };
    let restore = move |_| apply(PromptSet::default(), None, "The default prompts are back.");
    view! {
        <details id="prompts">
            <summary>"Prompts"</summary>
            <label>"Prompt"
                <select id="prompt-id" on:change=move |ev| { chosen.set(event_target_value(&ev)); message.set(None) }>
                    {move || prompts.get().prompts.into_iter().map(|p| view! { <option value=p.id.clone()>{p.label}</option> }).collect_view()}
                </select>
            </label>
            <label>"System"<textarea id="prompt-system" rows="4" prop:value=move || system.get() on:input=move |ev| system.set(event_target_value(&ev))></textarea></label>
            <label>"User"<textarea id="prompt-user" rows="8" prop:value=move || user.get() on:input=move |ev| user.set(event_target_value(&ev))></textarea></label>
            <p class="hint">"Placeholders in braces ({task}, {code}, …) are filled in for each call; write {{ and }} for literal braces."</p>
            <p class="actions">
                <button type="button" id="prompt-save" on:click=save>"Save prompt"</button>
                <button type="button" id="prompt-restore" on:click=restore>"Restore all defaults"</button>
            </p>
            <p id="prompt-message" role="status">{move || message.get()}</p>
        </details>
    }
}
