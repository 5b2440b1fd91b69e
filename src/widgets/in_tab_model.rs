//! The model that runs in the tab: which GGUF file (a preset of the public model hub, or any URL),
//! its size before the download, the download with its progress and Cancel, and the models this
//! browser keeps, each with its size and a Remove button. Shown in the LLM settings while the
//! "In this tab" provider is chosen; nothing of the library loads before a user acts here.

use engine::llm::{IN_TAB_MODELS, ProviderSettings};
use leptos::prelude::*;

use crate::services::in_tab_llm::{self, KeptModel};
use crate::services::llm_client::CancelToken;
use crate::services::storage::{save_setting, setting};

/// The value of the preset select for a URL the user types.
const OTHER: &str = "other";

fn megabytes(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// `settings`: the LLM choice's (its base URL is the model file's), kept when a model is chosen.
#[component]
pub fn InTabModelFields(settings: RwSignal<ProviderSettings>) -> impl IntoView {
    let url = move || settings.with(|s| s.base_url.clone());
    let size = RwSignal::new(None::<String>);
    let progress = RwSignal::new(None::<(f64, f64)>);
    let kept = RwSignal::new(Vec::<KeptModel>::new());
    let message = RwSignal::new(None::<String>);
    let cancel = StoredValue::new_local(None::<CancelToken>);

    let refresh = move || {
        leptos::task::spawn_local(async move {
            match in_tab_llm::kept_models().await {
                Ok(models) => kept.set(models),
                Err(problem) => message.set(Some(problem)),
            }
        })
    };
    // The size comes from the model's server only when the user presses Download (nothing is
    // asked of a third party before that); a kept model's size is known without its server.
    let size_known = move |address: &str| {
        size.set(
            kept.with_untracked(|models| models.iter().find(|m| m.url == address).map(|m| m.size))
                .map(|bytes| format!("{} (kept in this browser)", megabytes(bytes))),
        )
    };
    let choose = move |address: String| {
        settings.update(|s| {
            s.model = ProviderSettings::model_from_file(&address);
            s.base_url = address.clone();
        });
        save_setting(setting::LLM, serde_json::to_string(&settings.get_untracked()).ok());
        size_known(&address);
    };
    // A model this browser keeps is the one to use when the chosen one is not kept (the preset
    // that choosing the provider fills in, say): a reload keeps working offline.
    Effect::new(move |_| {
        let address = settings.with_untracked(|s| s.base_url.clone());
        kept.with(|models| {
            if !models.is_empty() && !models.iter().any(|m| m.url == address) {
                choose(models[0].url.clone());
            } else {
                size_known(&address);
            }
        });
    });
    refresh();

    let download = move |_| {
        let address = url();
        if size.with_untracked(Option::is_none) {
            message.set(Some("Asking the model's server for its size…".into()));
            return leptos::task::spawn_local(async move {
                let known = match in_tab_llm::model_size(&address).await {
                    Ok(Some(bytes)) => megabytes(bytes),
                    Ok(None) => "unknown (the server does not say)".into(),
                    Err(problem) => return message.set(Some(problem)),
                };
                size.set(Some(known));
                message.set(Some("Press Download again to download it.".into()));
            });
        }
        let token = CancelToken::default();
        cancel.set_value(Some(token.clone()));
        message.set(Some("Downloading…".into()));
        progress.set(Some((0.0, 0.0)));
        leptos::task::spawn_local(async move {
            let outcome =
                in_tab_llm::download(&address, &token, move |done, total| progress.set(Some((done, total)))).await;
            progress.set(None);
            cancel.set_value(None);
            message.set(Some(match outcome {
                Ok(()) => "Kept in this browser: it works offline from now on.".into(),
                Err(problem) => problem,
            }));
            refresh();
        });
    };
    let stop = move |_| cancel.with_value(|token| token.iter().for_each(CancelToken::cancel));
    let remove = move |address: String| {
        leptos::task::spawn_local(async move {
            message.set(Some(match in_tab_llm::remove_model(&address).await {
                Ok(()) => format!("Removed {address}."),
                Err(problem) => problem,
            }));
            refresh();
        });
    };
    let preset_value = move || {
        let address = url();
        IN_TAB_MODELS.iter().find(|m| m.url == address).map_or(OTHER, |m| m.name)
    };

    view! {
        <div id="in-tab-model">
            <label>"Model"
                <select id="in-tab-preset" prop:value=preset_value on:change=move |ev| {
                    if let Some(model) = IN_TAB_MODELS.iter().find(|m| m.name == event_target_value(&ev)) {
                        choose(model.url.to_owned());
                    }
                }>
                    {IN_TAB_MODELS.iter().map(|m| view! { <option value=m.name>{m.name}</option> }).collect_view()}
                    <option value=OTHER>"another GGUF file (give its URL)"</option>
                </select>
            </label>
            <label>"Model file (URL)"
                <input type="url" id="in-tab-url" prop:value=url on:change=move |ev| choose(event_target_value(&ev).trim().to_owned()) />
            </label>
            <p id="in-tab-size">"Size: "{move || size.get().unwrap_or_else(|| "asked of its server when you press Download".into())}</p>
            <p class="actions">
                <button type="button" id="in-tab-download" on:click=download disabled=move || progress.get().is_some()>
                    {move || size.get().map_or_else(|| "Download…".into(), |known| format!("Download ({known})"))}
                </button>
                <button type="button" id="in-tab-cancel" on:click=stop hidden=move || progress.get().is_none()>"Cancel"</button>
                <progress id="in-tab-progress" hidden=move || progress.get().is_none()
                    max=move || progress.get().map_or(1.0, |(_, total)| total.max(1.0))
                    value=move || progress.get().map_or(0.0, |(done, _)| done)></progress>
            </p>
            <p id="in-tab-message" role="status">{move || message.get()}</p>
            <table id="in-tab-kept" hidden=move || kept.with(Vec::is_empty)>
                <caption>"Kept in this browser"</caption>
                <tbody>
                    {move || kept.get().into_iter().map(|model| {
                        let address = model.url.clone();
                        view! {
                            <tr>
                                <td>{model.url.clone()}</td>
                                <td>{megabytes(model.size)}</td>
                                <td><button type="button" class="remove" on:click=move |_| remove(address.clone())>"Remove"</button></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <p class="hint">"llama.cpp runs the model in this tab (wllama, in a worker): the library loads only when you download or use a model, and the model stays in this browser after its one download. Share links name the model, not its file."</p>
        </div>
    }
}
