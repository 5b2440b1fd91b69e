//! The chat-completions client of `rlcg live`: a blocking request with a streamed body, and the
//! page's retry rules. The protocol (request body, SSE, errors, retry delays) is `engine::llm`;
//! this file only moves bytes, as the page's `llm_client` does with fetch.
//!
//! The API key goes into the `Authorization` header and nowhere else; every failure message has it
//! masked.

use std::io::Read;
use std::thread;
use std::time::{Duration, Instant};

use engine::llm::{
    ChatMessage, FailureKind, LlmFailure, ProviderSettings, SseDecoder, StreamEvent, Usage, parse_completion,
    parse_stream_data, retry_delay_ms,
};

/// One chat completion with retries; `on_text` hears the reply as it streams in. Returns the
/// reply's text and token usage (the server's, or estimated when it reports none).
pub fn chat(
    settings: &ProviderSettings,
    api_key: &str,
    messages: &[ChatMessage],
    on_text: &mut dyn FnMut(&str),
) -> Result<(String, Usage), LlmFailure> {
    settings.validate().map_err(|m| LlmFailure::new(FailureKind::BadRequest, m))?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(settings.timeout_s.into())))
        .http_status_as_error(false)
        .build()
        .into();
    let mut attempt = 0;
    loop {
        let started = Instant::now();
        let (failure, retry_after) = match attempt_once(&agent, settings, api_key, messages, on_text) {
            Ok((text, usage)) => {
                let usage = usage.unwrap_or_else(|| Usage::estimate(messages, &text));
                // At least 1: a call that was timed is measured, however fast a local stub answers.
                let writing_ms = (started.elapsed().as_millis() as u64).max(1);
                return Ok((text, Usage { writing_ms, ..usage }));
            }
            Err((failure, retry_after)) => (failure.hiding(api_key), retry_after),
        };
        if !failure.kind.is_retryable() || attempt >= settings.max_retries {
            return Err(failure);
        }
        let delay_ms = retry_delay_ms(attempt, retry_after.as_deref());
        eprintln!("{} Retrying in {:.1} s…", failure.message, delay_ms as f64 / 1000.0);
        thread::sleep(Duration::from_millis(delay_ms));
        attempt += 1;
    }
}

type AttemptError = (LlmFailure, Option<String>);

fn attempt_once(
    agent: &ureq::Agent,
    settings: &ProviderSettings,
    api_key: &str,
    messages: &[ChatMessage],
    on_text: &mut dyn FnMut(&str),
) -> Result<(String, Option<Usage>), AttemptError> {
    let transport = |error: ureq::Error| {
        let failure = match error {
            ureq::Error::Timeout(_) => LlmFailure::timeout(settings),
            other => LlmFailure::new(
                FailureKind::Network,
                format!("could not reach {} ({other}): is the server up and the base URL right?", settings.endpoint()),
            ),
        };
        (failure, None)
    };
    let mut request = agent.post(settings.endpoint()).header("Content-Type", "application/json");
    if !api_key.is_empty() {
        request = request.header("Authorization", format!("Bearer {api_key}"));
    }
    let mut response = request.send(settings.request_body(messages, true)).map_err(transport)?;
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (retry_after, content_type) = (header("Retry-After"), header("Content-Type").unwrap_or_default());
    let status = response.status().as_u16();
    if !(200..300).contains(&status) {
        let body = response.body_mut().read_to_string().unwrap_or_default();
        return Err((LlmFailure::from_status(status, &body, settings), retry_after));
    }
    if !content_type.contains("text/event-stream") {
        // The server ignored `stream: true`: one JSON body.
        let body = response.body_mut().read_to_string().map_err(transport)?;
        let (text, usage) = parse_completion(&body).map_err(|f| (f, None))?;
        on_text(&text);
        return finish(text, usage);
    }
    let mut reader = response.body_mut().as_reader();
    let mut sse = SseDecoder::default();
    let (mut text, mut usage, mut buffer) = (String::new(), None, vec![0u8; 4096]);
    let mut undecoded = Vec::new();
    loop {
        let read = reader.read(&mut buffer).map_err(|e| transport(ureq::Error::Io(e)))?;
        let events: Vec<String> = if read == 0 {
            sse.finish().into_iter().collect()
        } else {
            undecoded.extend_from_slice(&buffer[..read]);
            // Feed whole UTF-8 characters only; a character cut between reads waits for the rest.
            let valid = match std::str::from_utf8(&undecoded) {
                Ok(_) => undecoded.len(),
                Err(e) => e.valid_up_to(),
            };
            let piece = String::from_utf8_lossy(&undecoded[..valid]).into_owned();
            undecoded.drain(..valid);
            sse.feed(&piece)
        };
        let mut done = read == 0;
        for data in events {
            for event in parse_stream_data(&data).map_err(|f| (f, None))? {
                match event {
                    StreamEvent::Text(piece) => {
                        on_text(&piece);
                        text.push_str(&piece);
                    }
                    StreamEvent::Usage(u) => usage = Some(u),
                    StreamEvent::Done => done = true,
                }
            }
        }
        if done {
            return finish(text, usage);
        }
    }
}

fn finish(text: String, usage: Option<Usage>) -> Result<(String, Option<Usage>), AttemptError> {
    if text.trim().is_empty() {
        return Err((LlmFailure::new(FailureKind::Empty, "the model's reply has no text"), None));
    }
    Ok((text, usage))
}
