//! The chat-completions client: fetch with a streamed body, cancel and timeout through one
//! `AbortController`, retries with backoff for rate limits, server errors and network failures.
//! The protocol itself (request body, SSE, errors, retry delays) is `engine::llm`; this file only
//! moves bytes. It uses the global `fetch`, `AbortController`, `TextDecoder` and timers, which
//! workers have too, so it runs unchanged in a worker.
//!
//! The API key is an argument of [`chat`] and goes into the `Authorization` header and nowhere else;
//! every message that leaves this file has it masked.

use std::cell::Cell;
use std::rc::Rc;

use engine::llm::{
    ChatMessage, FailureKind, LlmFailure, ProviderSettings, SseDecoder, StreamEvent, Usage, parse_completion,
    parse_stream_data, retry_delay_ms,
};
use gloo_timers::future::TimeoutFuture;
use js_sys::{Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, ReadableStreamDefaultReader, Request, RequestInit, Response, TextDecodeOptions, TextDecoder};

use crate::services::cancel::CancelToken;

#[wasm_bindgen]
extern "C" {
    /// The global `fetch`, in a window or a worker alike.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;
}

/// What the caller hears while a call is under way.
pub enum ClientEvent<'a> {
    /// Attempt `n` (from 1) has started: text shown so far belongs to a failed attempt.
    Attempt(u32),
    Text(&'a str),
    Retrying {
        delay_ms: u64,
        reason: &'a str,
    },
    /// The model in the tab is loaded `into` llama.cpp or the engine before it writes (the first
    /// call after a load).
    Loading {
        into: &'a str,
    },
    /// The model in the tab is writing at this speed (so far).
    Speed {
        tokens_per_second: f64,
    },
    /// The model in the tab wrote its reply: `tokens` at this speed over the whole reply (its
    /// runtime's measure), by `device` ("llama.cpp on the CPU, 2 threads").
    Wrote {
        tokens: u64,
        tokens_per_second: f64,
        device: &'a str,
    },
}

fn cancelled() -> LlmFailure {
    LlmFailure::new(FailureKind::Cancelled, "cancelled")
}

/// One chat completion, streamed, with retries. Returns the reply's text and token usage (the
/// server's, or estimated when it reports none), timed from the request to the reply's last byte.
pub async fn chat(
    settings: &ProviderSettings,
    api_key: &str,
    messages: &[ChatMessage],
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(ClientEvent),
) -> Result<(String, Usage), LlmFailure> {
    settings.validate().map_err(|m| LlmFailure::new(FailureKind::BadRequest, m))?;
    let mut attempt = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        on_event(ClientEvent::Attempt(attempt + 1));
        let started = js_sys::Date::now();
        let (failure, retry_after) = match attempt_once(settings, api_key, messages, cancel, on_event).await {
            Ok((text, usage)) => {
                let usage = usage.unwrap_or_else(|| Usage::estimate(messages, &text));
                // At least 1: a call that was timed is measured, however fast a local stub answers.
                let writing_ms = ((js_sys::Date::now() - started) as u64).max(1);
                return Ok((text, Usage { writing_ms, ..usage }));
            }
            Err((failure, retry_after)) => (failure.hiding(api_key), retry_after),
        };
        if !failure.kind.is_retryable() || attempt >= settings.max_retries || cancel.is_cancelled() {
            return Err(if cancel.is_cancelled() { cancelled() } else { failure });
        }
        let delay_ms = retry_delay_ms(attempt, retry_after.as_deref());
        on_event(ClientEvent::Retrying { delay_ms, reason: &failure.message });
        TimeoutFuture::new(delay_ms.min(u64::from(u32::MAX)) as u32).await;
        attempt += 1;
    }
}

type AttemptError = (LlmFailure, Option<String>);

async fn attempt_once(
    settings: &ProviderSettings,
    api_key: &str,
    messages: &[ChatMessage],
    cancel: &CancelToken,
    on_event: &mut dyn FnMut(ClientEvent),
) -> Result<(String, Option<Usage>), AttemptError> {
    let network = |e: JsValue| (LlmFailure::network(settings, &js_text(&e)), None);
    let controller = cancel.attach_controller().map_err(network)?;
    let timed_out = Rc::new(Cell::new(false));
    // Dropping the timer (any return from here) cancels it.
    let _timer = {
        let (controller, timed_out) = (controller.clone(), timed_out.clone());
        gloo_timers::callback::Timeout::new(settings.timeout_s * 1000, move || {
            timed_out.set(true);
            controller.abort();
        })
    };
    let aborted = |e: JsValue| {
        if timed_out.get() {
            (LlmFailure::timeout(settings), None)
        } else if cancel.is_cancelled() {
            (cancelled(), None)
        } else {
            network(e)
        }
    };

    let headers = Headers::new().map_err(network)?;
    headers.set("Content-Type", "application/json").map_err(network)?;
    if !api_key.is_empty() {
        headers.set("Authorization", &format!("Bearer {api_key}")).map_err(network)?;
    }
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&settings.request_body(messages, true)));
    init.set_signal(Some(&controller.signal()));
    let request = Request::new_with_str_and_init(&settings.endpoint(), &init).map_err(network)?;
    let response: Response = JsFuture::from(global_fetch(&request)).await.map_err(aborted)?.unchecked_into();

    if !response.ok() {
        let retry_after = response.headers().get("Retry-After").ok().flatten();
        let body = read_text(&response).await.unwrap_or_default();
        return Err((LlmFailure::from_status(response.status(), &body, settings), retry_after));
    }
    let content_type = response.headers().get("Content-Type").ok().flatten().unwrap_or_default();
    if !content_type.contains("text/event-stream") {
        // The server ignored `stream: true`: one JSON body.
        let body = read_text(&response).await.map_err(aborted)?;
        let (text, usage) = parse_completion(&body).map_err(|f| (f, None))?;
        on_event(ClientEvent::Text(&text));
        return finish(text, usage);
    }

    let body = response.body().ok_or_else(|| (LlmFailure::new(FailureKind::Empty, "the reply has no body"), None))?;
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let decoder = TextDecoder::new().map_err(network)?;
    let options = TextDecodeOptions::new();
    options.set_stream(true);
    let mut sse = SseDecoder::default();
    let (mut text, mut usage, mut done) = (String::new(), None, false);
    while !done {
        let chunk = JsFuture::from(reader.read()).await.map_err(aborted)?;
        let finished = Reflect::get(&chunk, &"done".into()).map(|d| d.is_truthy()).unwrap_or(true);
        let events = if finished {
            sse.finish().into_iter().collect()
        } else {
            let bytes: Uint8Array = Reflect::get(&chunk, &"value".into()).map_err(network)?.unchecked_into();
            let piece = decoder.decode_with_js_u8_array_and_options(&bytes, &options).map_err(network)?;
            sse.feed(&piece)
        };
        for data in events {
            for event in parse_stream_data(&data).map_err(|f| (f, None))? {
                match event {
                    StreamEvent::Text(piece) => {
                        on_event(ClientEvent::Text(&piece));
                        text.push_str(&piece);
                    }
                    StreamEvent::Usage(u) => usage = Some(u),
                    StreamEvent::Done => done = true,
                }
            }
        }
        done |= finished;
    }
    finish(text, usage)
}

fn finish(text: String, usage: Option<Usage>) -> Result<(String, Option<Usage>), AttemptError> {
    if text.trim().is_empty() {
        return Err((LlmFailure::new(FailureKind::Empty, "the model's reply has no text"), None));
    }
    Ok((text, usage))
}

async fn read_text(response: &Response) -> Result<String, JsValue> {
    Ok(JsFuture::from(response.text()?).await?.as_string().unwrap_or_default())
}

fn js_text(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "no response".into())
}
