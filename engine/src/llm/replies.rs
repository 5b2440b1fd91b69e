//! An endpoint's replies as they come over the wire: a server-sent-event stream split into events,
//! each event's text and token usage, and a whole (non-streamed) completion's.

use serde_json::Value;

use super::{FailureKind, LlmFailure, Usage, mask_secrets, server_error_message};

/// One piece of a streamed reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    Text(String),
    Usage(Usage),
    /// `data: [DONE]`.
    Done,
}

/// Splits a server-sent-event byte stream, fed in arbitrary pieces, into the `data` of each event
/// (a small line protocol; the SSE crates are tied to an async runtime, this is fed from fetch).
#[derive(Debug, Default)]
pub struct SseDecoder {
    pending: String,
    data: Vec<String>,
}

impl SseDecoder {
    /// The data of every event completed by `chunk`.
    pub fn feed(&mut self, chunk: &str) -> Vec<String> {
        self.pending.push_str(chunk);
        let mut events = Vec::new();
        while let Some(end) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=end).collect();
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if !self.data.is_empty() {
                    events.push(std::mem::take(&mut self.data).join("\n"));
                }
            } else if let Some(value) = line.strip_prefix("data:") {
                self.data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
            }
            // Comments (`: keep-alive`), `event:`, `id:` and `retry:` lines carry nothing we use.
        }
        events
    }

    /// The last event, if the stream ended without its blank line.
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        if let Some(value) = rest.trim_end().strip_prefix("data:") {
            self.data.push(value.trim_start().to_owned());
        }
        (!self.data.is_empty()).then(|| std::mem::take(&mut self.data).join("\n"))
    }
}

/// The events in one streamed chunk's data.
pub fn parse_stream_data(data: &str) -> Result<Vec<StreamEvent>, LlmFailure> {
    if data.trim() == "[DONE]" {
        return Ok(vec![StreamEvent::Done]);
    }
    let value: Value = serde_json::from_str(data).map_err(|e| {
        LlmFailure::new(FailureKind::Malformed, format!("a streamed chunk is not JSON ({e}): {}", preview(data)))
    })?;
    if let Some(message) = server_error_message(data) {
        return Err(LlmFailure::new(
            FailureKind::Server,
            format!("the stream reported an error: {}", mask_secrets(&message)),
        ));
    }
    let mut events = Vec::new();
    if let Some(text) = value.pointer("/choices/0/delta/content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        events.push(StreamEvent::Text(text.to_owned()));
    }
    if let Some(usage) = parse_usage(&value) {
        events.push(StreamEvent::Usage(usage));
    }
    Ok(events)
}

/// Text and usage of a whole (non-streamed) completion.
pub fn parse_completion(body: &str) -> Result<(String, Option<Usage>), LlmFailure> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmFailure::new(FailureKind::Malformed, format!("the reply is not JSON ({e}): {}", preview(body)))
    })?;
    let choices = value.get("choices").and_then(Value::as_array);
    let Some(first) = choices.and_then(|c| c.first()) else {
        return Err(LlmFailure::new(FailureKind::Empty, "the reply has no choices"));
    };
    let text = first.pointer("/message/content").and_then(Value::as_str).unwrap_or_default();
    Ok((text.to_owned(), parse_usage(&value)))
}

fn parse_usage(value: &Value) -> Option<Usage> {
    let usage = value.get("usage").filter(|u| u.is_object())?;
    let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage { prompt_tokens: count("prompt_tokens"), completion_tokens: count("completion_tokens"), writing_ms: 0 })
}

fn preview(text: &str) -> String {
    let short: String = text.chars().take(80).collect();
    if short.len() < text.len() { format!("{short}…") } else { short }
}
