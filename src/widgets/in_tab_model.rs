//! The model that runs in the tab: which GGUF file (a preset of the public model hub, any URL, or a
//! file from the user's disk), its size before the download, the download with its progress and
//! Cancel, the file looked at before it is kept, and the models this browser keeps, each with its
//! size, the date it was kept, Use and Remove, the one in use marked. Shown in the LLM settings while the "In this tab"
//! provider is chosen; nothing of the library loads before a user acts here.

use engine::llm::{IN_TAB_MODELS, InTabRuntime, ProviderSettings};
use leptos::prelude::*;

use crate::services::cancel::CancelToken;
use crate::services::in_tab_llm::{self, KeptModel};
use crate::widgets::upload;

/// The value of the preset select for a URL the user types.
const OTHER: &str = "other";

fn megabytes(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// One copy of a model into the browser (a download, or a file from the disk), with its progress
/// bar and Cancel; the kept models are listed again when it ends.
#[derive(Clone, Copy)]
struct Transfer {
    /// (bytes copied, bytes in all) while a copy runs.
    progress: RwSignal<Option<(f64, f64)>>,
    message: RwSignal<Option<String>>,
    cancel: StoredValue<Option<CancelToken>, LocalStorage>,
    /// Lists the kept models again.
    refresh: Callback<()>,
}

impl Transfer {
    /// Runs `copy` (given its cancel token and its progress), then says `kept(what the model is)` or
    /// what failed.
    fn run<F>(
        self,
        starting: String,
        copy: impl FnOnce(CancelToken, Box<dyn FnMut(f64, f64)>) -> F + 'static,
        kept: impl FnOnce(String) -> String + 'static,
    ) where
        F: Future<Output = Result<String, String>> + 'static,
    {
        let token = CancelToken::default();
        self.cancel.set_value(Some(token.clone()));
        self.message.set(Some(starting));
        self.progress.set(Some((0.0, 0.0)));
        let progress = self.progress;
        leptos::task::spawn_local(async move {
            let outcome = copy(token, Box::new(move |done, total| progress.set(Some((done, total))))).await;
            self.progress.set(None);
            self.cancel.set_value(None);
            self.message.set(Some(outcome.map_or_else(|problem| problem, kept)));
            self.refresh.run(());
        });
    }
}

/// `settings`: the LLM choice's (its base URL is the model file's), kept when a model is chosen.
#[component]
pub fn InTabModelFields(settings: RwSignal<ProviderSettings>) -> impl IntoView {
    let url = move || settings.with(|s| s.base_url.clone());
    let size = RwSignal::new(None::<String>);
    // The size the model's server announced, in bytes, to refuse a model with no room before its download.
    let announced = RwSignal::new(None::<f64>);
    let kept = RwSignal::new(Vec::<KeptModel>::new());
    let message = RwSignal::new(None::<String>);
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
        announced.set(None);
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
        size_known(&address);
    };
    // Once the user has chosen a model here, the kept list arriving (or changing) leaves it chosen.
    let user_chose = StoredValue::new(false);
    let pick = move |address: String| {
        user_chose.set_value(true);
        choose(address);
    };
    // A model this browser keeps is the one to use when the chosen one is not kept (the preset
    // that choosing the provider fills in, say): a reload keeps working offline.
    Effect::new(move |_| {
        let address = settings.with_untracked(|s| s.base_url.clone());
        kept.with(|models| {
            let fall_back = !user_chose.get_value() && !models.iter().any(|m| m.url == address);
            if let Some(first) = models.first().filter(|_| fall_back) {
                choose(first.url.clone());
            } else {
                size_known(&address);
            }
        });
    });
    refresh();
    let transfer = Transfer {
        progress: RwSignal::new(None),
        message,
        cancel: StoredValue::new_local(None),
        refresh: Callback::new(move |()| refresh()),
    };
    let progress = transfer.progress;

    let download = move |_| {
        let address = url();
        if size.with_untracked(Option::is_none) {
            message.set(Some("Asking the model's server for its size…".into()));
            return leptos::task::spawn_local(async move {
                let known = match in_tab_llm::model_size(&address).await {
                    Ok(Some(bytes)) => {
                        announced.set(Some(bytes));
                        megabytes(bytes)
                    }
                    Ok(None) => "unknown (the server does not say)".into(),
                    Err(problem) => return message.set(Some(problem)),
                };
                size.set(Some(known));
                message.set(Some("Press Download again to download it.".into()));
            });
        }
        transfer.run(
            "Downloading…".into(),
            move |token, progress| async move {
                in_tab_llm::download(&address, announced.get_untracked(), &token, progress).await
            },
            move |model| format!("Kept in this browser ({model}): it works offline from now on."),
        );
    };
    // A file from the user's disk is copied into the browser as a download is, and kept the same way.
    let from_disk = move |ev: leptos::ev::Event| {
        let Some(file) = upload::picked(&ev) else { return };
        let address = ProviderSettings::local_model_address(&file.name());
        if !address.ends_with(".gguf") {
            return message.set(Some(format!("{} is not a GGUF model file (.gguf)", file.name())));
        }
        let (name, kept_as) = (file.name(), address.clone());
        transfer.run(
            format!("Keeping {name} in this browser…"),
            move |token, progress| async move { in_tab_llm::keep_local(&address, &file, &token, progress).await },
            move |model| {
                pick(kept_as);
                format!("Kept {name} in this browser ({model}): it works offline from now on.")
            },
        );
    };
    let stop = move |_| transfer.cancel.with_value(|token| token.iter().for_each(CancelToken::cancel));
    let remove = Callback::new(move |address: String| {
        leptos::task::spawn_local(async move {
            message.set(Some(match in_tab_llm::remove_model(&address).await {
                Ok(()) => format!("Removed {address}."),
                Err(problem) => problem,
            }));
            refresh();
        });
    });
    let preset_value = move || IN_TAB_MODELS.iter().find(|m| m.url == url()).map_or(OTHER, |m| m.name);

    view! {
        <div id="in-tab-model">
            <label>"Model"
                <select id="in-tab-preset" prop:value=preset_value on:change=move |ev| {
                    if let Some(model) = IN_TAB_MODELS.iter().find(|m| m.name == event_target_value(&ev)) {
                        pick(model.url.to_owned());
                    }
                }>
                    {IN_TAB_MODELS.iter().map(|m| view! { <option value=m.name>{m.name}</option> }).collect_view()}
                    <option value=OTHER>"another GGUF file (a URL, or a file from this computer)"</option>
                </select>
            </label>
            <label>"Model file (URL)"
                <input type="url" id="in-tab-url" prop:value=url on:change=move |ev| pick(event_target_value(&ev).trim().to_owned()) />
            </label>
            <label>"or a model file from this computer"
                <input type="file" id="in-tab-file" accept=".gguf" on:change=from_disk disabled=move || progress.get().is_some() />
            </label>
            <p id="in-tab-size">"Size: "{move || size.get().unwrap_or_else(|| "asked of its server when you press Download".into())}</p>
            <p class="actions">
                // A file chosen from a disk has no server to download it from: it is chosen again.
                <button type="button" id="in-tab-download" on:click=download disabled=move || progress.get().is_some()
                    hidden=move || settings.with(ProviderSettings::is_local_model)>
                    {move || size.get().map_or_else(|| "Download…".into(), |known| format!("Download ({known})"))}
                </button>
                <button type="button" id="in-tab-cancel" on:click=stop hidden=move || progress.get().is_none()>"Cancel"</button>
                <progress id="in-tab-progress" hidden=move || progress.get().is_none()
                    max=move || progress.get().map_or(1.0, |(_, total)| total.max(1.0))
                    value=move || progress.get().map_or(0.0, |(done, _)| done)></progress>
            </p>
            <p id="in-tab-message" role="status">{move || message.get()}</p>
            <KeptModels kept in_use=Signal::derive(url) choose=Callback::new(pick) remove />
            <WhereItRuns settings />
        </div>
    }
}

/// What runs the model, llama.cpp or the engine, chosen here; where it runs; and what stays in the
/// browser.
#[component]
fn WhereItRuns(settings: RwSignal<ProviderSettings>) -> impl IntoView {
    let cores = web_sys::window().map_or(1.0, |window| window.navigator().hardware_concurrency());
    let runtime = move || settings.with(|s| s.runtime);
    let choose = move |ev| {
        let chosen = event_target_value(&ev);
        let runtime = InTabRuntime::ALL.into_iter().find(|r| r.name() == chosen).unwrap_or_default();
        settings.update(|s| s.runtime = runtime);
    };
    let hint = move || {
        match runtime() {
        InTabRuntime::LlamaCpp => format!("llama.cpp runs the model in this tab (wllama, in a worker) on every core this browser gives ({cores} here), and on WebGPU where the browser offers it; each reply says where it ran."),
        InTabRuntime::Engine => "The engine runs the model (its transformer on burn, the one StepCoder's PPO trains) in the training worker, on one core, from the same kept file: its numbers are llama.cpp's (the same logits and greedy tokens, docs/guide.md). It reads a prompt faster than llama.cpp does here and writes slower: a 0.5B model at about a quarter of llama.cpp's speed (docs/benchmarks.md).".to_owned(),
        InTabRuntime::EngineWebGpu => "The engine runs the model on burn's WebGPU backend, in the WebGPU training worker, from the same kept file: its numbers are llama.cpp's within the GPU's rounding. A browser without WebGPU says so at the first reply.".to_owned(),
    }
    };
    view! {
        <label>"Runs on"
            <select id="in-tab-runtime" prop:value=move || runtime().name() on:change=choose>
                {InTabRuntime::ALL.iter().map(|r| view! { <option value=r.name()>{r.label()}</option> }).collect_view()}
            </select>
        </label>
        <p class="hint" id="in-tab-where">{hint}" The library loads only when you download or use a model, and the model stays in this browser after its one download. Share links name the model and its file's address, never the file."</p>
    }
}

/// The models this browser keeps, each with its size and date, the one in use marked and the others chosen
/// by a click, each with a Remove button; and what the page's storage holds.
#[component]
fn KeptModels(
    kept: RwSignal<Vec<KeptModel>>,
    /// The address of the model in use (the settings', kept with them across reloads).
    in_use: Signal<String>,
    choose: Callback<String>,
    remove: Callback<String>,
) -> impl IntoView {
    let storage = LocalResource::new(move || {
        kept.track();
        in_tab_llm::storage_estimate()
    });
    view! {
        <table id="in-tab-kept" hidden=move || kept.with(Vec::is_empty)>
            <caption>"Kept in this browser"</caption>
            <tbody>
                {move || kept.get().into_iter().map(|model| {
                    let (address, chosen) = (model.url.clone(), model.url.clone());
                    let used = in_use.with(|url| *url == model.url);
                    view! {
                        <tr class:in-use=used>
                            <td>{model.url.clone()}</td>
                            <td>{megabytes(model.size)}</td>
                            <td class="kept-on">{model.kept_on.clone().map(|date| format!("kept {date}"))}</td>
                            <td>{if used {
                                view! { <span>"in use"</span> }.into_any()
                            } else {
                                view! { <button type="button" class="use" on:click=move |_| choose.run(chosen.clone())>"Use"</button> }.into_any()
                            }}</td>
                            <td><button type="button" class="remove" on:click=move |_| remove.run(address.clone())>"Remove"</button></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <p id="in-tab-storage" class="hint">{move || storage.get().flatten().map(|(used, quota)| format!(
            "This page's storage in this browser: {} used of {} it may use.", megabytes(used), megabytes(quota)
        ))}</p>
    }
}
