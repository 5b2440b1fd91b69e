//! The model that runs in the page ([`engine::llm::IN_TAB`]): downloading, keeping and removing its
//! GGUF file, and chat completions with it, through `static/in_tab_llm.js` (llama.cpp in wasm, by
//! wllama, which generates in its own worker). Its replies reach the host as an endpoint's do:
//! text as it streams, then the text and the token usage, or an [`LlmFailure`].

use engine::llm::{ChatMessage, FailureKind, LlmFailure, ProviderSettings, Usage};
use engine::lm::gguf::{Gguf, HEADER_READ_BYTES};
use futures_channel::mpsc;
use futures_util::StreamExt;
use futures_util::future::{Either, select};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

use crate::services::cancel::CancelToken;
use crate::services::js_error::describe;
use crate::services::llm_client::ClientEvent;

#[wasm_bindgen(module = "/static/in_tab_llm.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = modelSize)]
    async fn js_model_size(url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = keptModels)]
    async fn js_kept_models() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_name = removeModel)]
    async fn js_remove_model(url: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = storageEstimate)]
    async fn js_storage_estimate() -> JsValue;
    #[wasm_bindgen(js_name = isLoaded)]
    fn js_is_loaded(url: &str) -> bool;
    #[wasm_bindgen(catch, js_name = keptFile)]
    async fn js_kept_file(url: &str) -> Result<JsValue, JsValue>;
    // The two copies into the browser return their promise, which `keep` awaits.
    #[wasm_bindgen(js_name = download)]
    fn js_download(url: &str, on_progress: &Closure<dyn FnMut(f64, f64)>, signal: &AbortSignal) -> js_sys::Promise;
    #[wasm_bindgen(js_name = keepLocal)]
    fn js_keep_local(
        address: &str,
        file: &web_sys::File,
        on_progress: &Closure<dyn FnMut(f64, f64)>,
        signal: &AbortSignal,
    ) -> js_sys::Promise;
    #[wasm_bindgen(catch, js_name = chat)]
    async fn js_chat(
        url: &str,
        request: &str,
        on_text: &Closure<dyn FnMut(String)>,
        signal: &AbortSignal,
    ) -> Result<JsValue, JsValue>;
}

/// A model kept in this browser.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct KeptModel {
    pub url: String,
    pub size: f64,
    /// When it was kept, in the reader's words for a date and time (none where the store does not say).
    pub kept_on: Option<String>,
}

#[derive(Deserialize)]
struct Reply {
    text: String,
    prompt_tokens: u64,
    completion_tokens: u64,
    tokens_per_second: f64,
    /// llama.cpp's time writing the completion.
    writing_ms: f64,
    /// Where llama.cpp ran it: the CPU's threads, and WebGPU where it offloaded layers.
    device: String,
}

/// The size in bytes that the model's server announces, before any download (`None`: it does not).
pub async fn model_size(url: &str) -> Result<Option<f64>, String> {
    let size = js_model_size(url).await.map_err(|e| format!("the size of {url} is unknown: {}", describe(&e)))?;
    Ok(size.as_f64())
}

pub async fn kept_models() -> Result<Vec<KeptModel>, String> {
    let json = js_kept_models().await.map_err(|e| format!("the kept models cannot be listed: {}", describe(&e)))?;
    serde_json::from_str(&json.as_string().unwrap_or_default()).map_err(|e| format!("the kept models: {e}"))
}

/// The bytes this page's storage uses and may use (the browser's estimate), when it gives one.
pub async fn storage_estimate() -> Option<(f64, f64)> {
    let estimate = js_storage_estimate().await;
    let field = |name: &str| js_sys::Reflect::get(&estimate, &name.into()).ok().and_then(|v| v.as_f64());
    Some((field("usage")?, field("quota")?))
}

/// Refuses a model of `bytes` that this page's storage has no room for, by the browser's estimate
/// (none given: it is tried), before any of it is copied.
async fn check_room(name: &str, bytes: f64) -> Result<(), String> {
    match storage_estimate().await {
        Some((used, quota)) if bytes > quota - used => Err(format!(
            "{name} ({:.1} MB) does not fit: this browser lets this page keep {:.1} MB more (remove a kept model, or choose a smaller one)",
            bytes / 1e6,
            ((quota - used) / 1e6).max(0.0)
        )),
        _ => Ok(()),
    }
}

pub async fn remove_model(url: &str) -> Result<(), String> {
    js_remove_model(url).await.map(drop).map_err(|e| format!("{url} could not be removed: {}", describe(&e)))
}

/// What a model file is, from its start (the magic, version, metadata and tensor table against the
/// file's length: `Gguf::parse_start`), or why no language model loads from it.
async fn look_at(file: &web_sys::Blob) -> Result<String, String> {
    let start =
        file.slice_with_f64_and_f64(0.0, file.size().min(HEADER_READ_BYTES as f64)).map_err(|e| describe(&e))?;
    let bytes = wasm_bindgen_futures::JsFuture::from(start.array_buffer()).await.map_err(|e| describe(&e))?;
    Gguf::parse_start(&js_sys::Uint8Array::new(&bytes).to_vec(), file.size() as u64)?.describe()
}

/// The kept model file at `url`, if this browser keeps one.
pub async fn kept_file(url: &str) -> Result<Option<web_sys::Blob>, String> {
    let file =
        js_kept_file(url).await.map_err(|e| format!("{url} could not be read from this browser: {}", describe(&e)))?;
    Ok(file.dyn_into::<web_sys::Blob>().ok())
}

/// Downloads `url` into the browser, unless its `announced` size has no room there, and looks at
/// what came (a server's error page or a cut file is removed again, with the reason); `progress`
/// hears (loaded, total) bytes; `cancel` stops it. Returns what the model is.
pub async fn download(
    url: &str,
    announced: Option<f64>,
    cancel: &CancelToken,
    progress: impl FnMut(f64, f64) + 'static,
) -> Result<String, String> {
    if let Some(bytes) = announced {
        check_room(url, bytes).await?;
    }
    let failed = format!("{url} could not be downloaded");
    keep(cancel, progress, "the download was cancelled", &failed, |on_progress, signal| {
        js_download(url, on_progress, signal)
    })
    .await?;
    let kept = kept_file(url)
        .await
        .and_then(|file| file.ok_or_else(|| format!("{url} is not in this browser after its download")));
    match kept {
        Ok(file) => match look_at(&file).await {
            Ok(model) => Ok(model),
            Err(problem) => {
                remove_model(url).await?;
                Err(format!("{url} was downloaded but not kept: {problem}"))
            }
        },
        Err(problem) => Err(format!("{url} could not be read back: {problem}")),
    }
}

/// Keeps `file`, chosen from the user's disk, under `address` once its start shows a model;
/// `progress` hears (written, total) bytes; `cancel` stops it. Returns what the model is.
pub async fn keep_local(
    address: &str,
    file: &web_sys::File,
    cancel: &CancelToken,
    progress: impl FnMut(f64, f64) + 'static,
) -> Result<String, String> {
    let model = look_at(file).await.map_err(|problem| format!("{} was not kept: {problem}", file.name()))?;
    check_room(&file.name(), file.size()).await?;
    let failed = format!("{} could not be kept in this browser", file.name());
    keep(cancel, progress, "keeping the file was cancelled", &failed, |on_progress, signal| {
        js_keep_local(address, file, on_progress, signal)
    })
    .await?;
    Ok(model)
}

/// One copy of a model into the browser (`copy`, given its progress callback and abort signal):
/// `cancelled` when the user stopped it, else `failed` with what went wrong.
async fn keep(
    cancel: &CancelToken,
    progress: impl FnMut(f64, f64) + 'static,
    cancelled: &str,
    failed: &str,
    copy: impl FnOnce(&Closure<dyn FnMut(f64, f64)>, &AbortSignal) -> js_sys::Promise,
) -> Result<(), String> {
    let controller = cancel.attach_controller().map_err(|e| describe(&e))?;
    let on_progress = Closure::<dyn FnMut(f64, f64)>::new(progress);
    match wasm_bindgen_futures::JsFuture::from(copy(&on_progress, &controller.signal())).await {
        Ok(_) => Ok(()),
        Err(_) if cancel.is_cancelled() => Err(cancelled.to_owned()),
        Err(e) => Err(format!("{failed}: {}", describe(&e))),
    }
}

/// One chat completion with the kept model of `settings` (its base URL is the model file's).
pub async fn chat(
    settings: &ProviderSettings,
    messages: &[ChatMessage],
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(ClientEvent),
) -> Result<(String, Usage), LlmFailure> {
    settings.validate().map_err(|m| LlmFailure::new(FailureKind::BadRequest, m))?;
    let controller = cancel.attach_controller().map_err(|e| LlmFailure::new(FailureKind::BadRequest, describe(&e)))?;
    let request = serde_json::json!({
        "messages": messages,
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_tokens": settings.max_tokens,
    })
    .to_string();
    // The pieces come through a channel while the generation runs, and are shown as they come.
    let (pieces, mut arrived) = mpsc::unbounded::<String>();
    let on_text = Closure::<dyn FnMut(String)>::new(move |piece: String| {
        let _ = pieces.unbounded_send(piece);
    });
    let signal = controller.signal();
    if !js_is_loaded(&settings.base_url) {
        on_event(ClientEvent::Loading { into: "llama.cpp" });
    }
    let mut generation = std::pin::pin!(js_chat(&settings.base_url, &request, &on_text, &signal));
    // wllama streams one token a piece: the speed so far is pieces over the time since the first.
    // The speed is told twice a second at most, not with every token, and not before half a second
    // of the reply: a figure from its first few tokens says little (they come in bursts).
    let (mut first, mut count, mut told) = (None, 0.0, f64::NEG_INFINITY);
    let mut show = |piece: &str, on_event: &mut dyn FnMut(ClientEvent)| {
        let now = js_sys::Date::now();
        let since = *first.get_or_insert(now);
        count += 1.0;
        on_event(ClientEvent::Text(piece));
        if now - since >= 500.0 && now - told >= 500.0 {
            told = now;
            on_event(ClientEvent::Speed { tokens_per_second: (count - 1.0) * 1000.0 / (now - since) });
        }
    };
    let outcome = loop {
        match select(generation.as_mut(), arrived.next()).await {
            Either::Left((outcome, _)) => break outcome,
            Either::Right((Some(piece), _)) => show(&piece, on_event),
            Either::Right((None, _)) => break generation.await,
        }
    };
    while let Ok(piece) = arrived.try_recv() {
        show(&piece, on_event);
    }
    let json = outcome.map_err(|e| failure(settings, cancel, &e))?;
    let reply: Reply = serde_json::from_str(&json.as_string().unwrap_or_default())
        .map_err(|e| LlmFailure::new(FailureKind::Malformed, format!("the in-tab model's reply: {e}")))?;
    let device = format!("llama.cpp on {}", reply.device);
    on_event(ClientEvent::Wrote {
        tokens: reply.completion_tokens,
        tokens_per_second: reply.tokens_per_second,
        device: &device,
    });
    if reply.text.trim().is_empty() {
        return Err(LlmFailure::new(FailureKind::Empty, "the model's reply has no text"));
    }
    let usage = Usage {
        prompt_tokens: reply.prompt_tokens,
        completion_tokens: reply.completion_tokens,
        // At least 1: a reply that was timed is measured.
        writing_ms: (reply.writing_ms.round() as u64).max(1),
    };
    Ok((reply.text, usage))
}

/// Why a generation failed, in words: cancelled, a model that is not kept, one that llama.cpp
/// refused with its reason, a conversation longer than the model's context, or one that failed
/// otherwise (not enough memory, a corrupt file).
fn failure(settings: &ProviderSettings, cancel: &CancelToken, error: &JsValue) -> LlmFailure {
    if cancel.is_cancelled() {
        return LlmFailure::new(FailureKind::Cancelled, "cancelled");
    }
    let name = js_sys::Reflect::get(error, &"name".into()).ok().and_then(|n| n.as_string());
    if name.as_deref() == Some("NotKept") {
        let how = if settings.is_local_model() { "choose that file from your disk" } else { "download it" };
        return LlmFailure::new(
            FailureKind::BadRequest,
            format!(
                "the model in this tab: {} is not in this browser: {how} in the LLM settings first",
                settings.base_url
            ),
        );
    }
    let message = js_sys::Reflect::get(error, &"message".into()).ok().and_then(|m| m.as_string());
    if let (Some("Refused"), Some(message)) = (name.as_deref(), message) {
        return LlmFailure::new(
            FailureKind::BadRequest,
            format!("the model in this tab ({}): {message}; remove it, or choose another model", settings.model),
        );
    }
    let detail = describe(error);
    // llama.cpp's context is the model's own (a request over it is refused, not cut): a larger
    // one is not a setting here.
    if detail.contains("context size") {
        return LlmFailure::new(
            FailureKind::BadRequest,
            format!(
                "the model in this tab ({}): {detail}; the conversation does not fit the model's context: lower the max tokens, or choose a model with a longer context",
                settings.model
            ),
        );
    }
    LlmFailure::new(
        FailureKind::BadRequest,
        format!(
            "the model in this tab ({}) failed: {detail}. A truncated or corrupt file, a format llama.cpp does not read, or a model too large for this browser's memory gives this: remove it and download it again, or choose a smaller one",
            settings.model
        ),
    )
}
