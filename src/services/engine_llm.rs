//! The model in the tab run by the engine ([`engine::llm::InTabRuntime::Engine`] and
//! `EngineWebGpu`): the same kept GGUF file that llama.cpp runs, loaded into the engine's transformer
//! (burn) in the training worker, on the CPU, or on WebGPU in its nested worker, which writes the
//! reply token by token. Its replies reach the host as llama.cpp's do: text
//! as it streams, then the text and the token usage, or an [`LlmFailure`].

use std::cell::{Cell, RefCell};

use engine::device::Backend;
use engine::llm::{ChatMessage, FailureKind, LlmFailure, ProviderSettings, Usage};
use engine::lm::chat_template::Message;
use engine::lm::generation::Sampling;
use engine::protocol::GenerateRequest;
use futures_util::StreamExt;
use wasm_bindgen::JsCast;

use crate::services::cancel::CancelToken;
use crate::services::in_tab_llm;
use crate::services::llm_client::ClientEvent;
use crate::services::worker_bridge::{Generating, WorkerBridge};

/// The worker holds one engine model at a time, under this id.
const MODEL_ID: u32 = 1;

thread_local! {
    /// The kept file loaded in the worker: its address, size, time of keeping and backend.
    static LOADED: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Each reply's seed: replies at a temperature above 0 differ from call to call, as an
    /// endpoint's and llama.cpp's do, and each is drawn from a stream of its own.
    static NEXT_SEED: Cell<u64> = Cell::new(js_sys::Date::now() as u64);
}

fn failure(message: String) -> LlmFailure {
    LlmFailure::new(FailureKind::BadRequest, message)
}

/// Loads the kept model of `settings` into the worker on `backend`, unless it is there already.
async fn load(
    bridge: WorkerBridge,
    settings: &ProviderSettings,
    backend: Backend,
    on_event: &mut dyn FnMut(ClientEvent),
) -> Result<(), LlmFailure> {
    let url = settings.base_url.trim();
    let file = in_tab_llm::kept_file(url).await.map_err(failure)?.ok_or_else(|| {
        let how = if settings.is_local_model() { "choose that file from your disk" } else { "download it" };
        failure(format!("the model in this tab: {url} is not in this browser: {how} in the LLM settings first"))
    })?;
    // A file chosen from disk again under the same name is another model.
    let kept_on = file.dyn_ref::<web_sys::File>().map_or(0.0, web_sys::File::last_modified);
    let identity = format!("{url} {} {kept_on} {}", file.size(), backend.name());
    if LOADED.with_borrow(|loaded| loaded.as_deref() == Some(identity.as_str())) {
        return Ok(());
    }
    on_event(ClientEvent::Loading { into: "the engine" });
    LOADED.set(None);
    bridge
        .load_model(MODEL_ID, url, backend, &file)
        .await
        .map_err(|problem| failure(format!("the engine could not load the model in this tab: {problem}")))?;
    LOADED.set(Some(identity));
    Ok(())
}

/// One chat completion with the kept model of `settings`, written by the engine.
pub async fn chat(
    bridge: WorkerBridge,
    settings: &ProviderSettings,
    messages: &[ChatMessage],
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(ClientEvent),
) -> Result<(String, Usage), LlmFailure> {
    settings.validate().map_err(failure)?;
    let backend = settings.runtime.engine_backend().unwrap_or_default();
    load(bridge, settings, backend, on_event).await?;
    let seed = NEXT_SEED.replace(NEXT_SEED.get().wrapping_add(1));
    let request = GenerateRequest {
        request_id: 0,
        model_id: MODEL_ID,
        messages: messages.iter().map(|m| Message { role: m.role.clone(), content: m.content.clone() }).collect(),
        sampling: Sampling { temperature: settings.temperature as f32, top_p: settings.top_p as f32 },
        max_tokens: settings.max_tokens,
        seed,
        ignore_eos: false,
    };
    let (request_id, mut pieces) = bridge.generate(request);
    let mut stop_sent = false;
    // The speed so far: tokens over the time since the first piece, told twice a second at most.
    let (mut first, mut told) = (None, f64::NEG_INFINITY);
    let reply = loop {
        if cancel.is_cancelled() && !stop_sent {
            bridge.stop_generation(request_id);
            stop_sent = true;
        }
        match pieces.next().await {
            Some(Generating::Text { text, tokens }) => {
                on_event(ClientEvent::Text(&text));
                let now = js_sys::Date::now();
                let (since, before) = *first.get_or_insert((now, tokens));
                if now - since >= 500.0 && now - told >= 500.0 {
                    told = now;
                    let tokens_per_second = f64::from(tokens - before) * 1000.0 / (now - since);
                    on_event(ClientEvent::Speed { tokens_per_second });
                }
            }
            Some(Generating::Ended(result)) => break result,
            None => break Err("the training worker stopped answering".into()),
        }
    };
    if stop_sent {
        return Err(LlmFailure::new(FailureKind::Cancelled, "cancelled"));
    }
    let reply = reply.map_err(|problem| {
        // The worker may have lost the model (the WebGPU worker failed): the next call loads it again.
        LOADED.set(None);
        failure(format!("the engine's model in this tab ({}): {problem}", settings.model))
    })?;
    let completion_tokens = reply.tokens.len() as u64;
    let tokens_per_second = completion_tokens as f64 * 1000.0 / reply.writing_ms.max(1.0);
    on_event(ClientEvent::Wrote { tokens: completion_tokens, tokens_per_second, device: settings.runtime.label() });
    if reply.text.trim().is_empty() {
        return Err(LlmFailure::new(FailureKind::Empty, "the model's reply has no text"));
    }
    let usage = Usage {
        prompt_tokens: u64::from(reply.prompt_tokens),
        completion_tokens,
        writing_ms: (reply.writing_ms.round() as u64).max(1),
    };
    Ok((reply.text, usage))
}
