//! The forms of the chosen LLM ([`crate::services::llm_choice::LlmChoice`]): the select, the
//! endpoint's or the model in the tab's settings and key, and the prompts, as data the user can edit.

use engine::effects::llm_source::SIMULATED;
use engine::llm::{IN_TAB, PRESETS, ProviderSettings, preset};
use engine::prompts::{PromptSet, PromptTemplate};
use leptos::prelude::*;

use crate::services::llm_choice::{LlmChoice, remember_key};
use crate::services::storage::{self, setting};
use crate::widgets::in_tab_model::InTabModelFields;

/// The LLM select: the simulated LLM, or a provider preset.
#[component]
pub fn LlmSelect() -> impl IntoView {
    let LlmChoice { choice, settings, .. } = expect_context::<LlmChoice>();
    let on_llm = move |value: String| {
        if value != SIMULATED
            && let Some(p) = preset(&value)
        {
            // Keep prices, limits and sampling; take the preset's address and model, unless the kept
            // settings are this preset's already (after a reload: the model in the tab used last).
            settings.update(|s| {
                if s.preset != p.id {
                    let fresh = ProviderSettings::from_preset(p);
                    (s.preset, s.base_url, s.model) = (fresh.preset, fresh.base_url, fresh.model);
                }
            });
        }
        choice.set(value);
    };
    view! {
                <label>"LLM"
                    <select id="llm-provider" prop:value=move || choice.get() on:change=move |ev| on_llm(event_target_value(&ev))>
                        <option value=SIMULATED>"Simulated LLM (offline)"</option>
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
                <input type="text" id=id prop:value=move || settings.with(get) on:change=move |ev| settings.update(|s| put(s, event_target_value(&ev))) />
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
                <label class="inline" hidden=in_tab><input type="checkbox" id="llm-prefill" prop:checked=move || settings.with(|s| s.assistant_prefill) on:change=move |ev| settings.update(|s| s.assistant_prefill = event_target_checked(&ev)) />
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
