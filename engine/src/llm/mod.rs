//! The OpenAI-compatible chat-completions protocol, without the I/O: provider settings (their
//! presets and the in-tab models in `presets.rs`), the request body, the server-sent-event stream and the replies parsed into text and token usage (`replies.rs`),
//! HTTP failures turned into messages a person can act on, the retry policy, and code extraction
//! from a reply. The page's client does the fetching; everything here is tested natively.
//!
//! The API key is not part of any type here: it lives only in the page's client, so nothing that is
//! serialised (settings, runs, share links, exports) can carry it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

mod presets;
mod replies;
pub use presets::{IN_TAB, IN_TAB_MODELS, InTabModel, PRESETS, Preset, preset};
pub use replies::{SseDecoder, StreamEvent, parse_completion, parse_stream_data};

/// How the address of a model file chosen from the user's disk begins ([`ProviderSettings::local_model_address`]).
pub const LOCAL_MODEL_SCHEME: &str = "file:///";

/// Where and how to call the model. Deliberately without the API key (see the module doc).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProviderSettings {
    /// A [`Preset`] id; `custom` for any other base URL.
    pub preset: String,
    /// The API root, e.g. `https://openrouter.ai/api/v1`; `/chat/completions` is appended. For the
    /// model in the tab ([`IN_TAB`]), the model file's URL.
    pub base_url: String,
    pub model: String,
    /// Sampling temperature, 0–2.
    pub temperature: f64,
    /// Nucleus sampling mass, in (0, 1].
    pub top_p: f64,
    /// Most tokens one reply may have.
    pub max_tokens: u32,
    /// US dollars per million prompt tokens, for the cost estimate (0 for local models).
    pub price_prompt_per_million: f64,
    /// US dollars per million completion tokens.
    pub price_completion_per_million: f64,
    /// Seconds one attempt may take, from request to the last token.
    pub timeout_s: u32,
    /// Attempts after the first for rate limits, server errors and network failures.
    pub max_retries: u32,
    /// The endpoint continues a last assistant message rather than answering after it (vLLM with
    /// `continue_final_message`, llama.cpp's server, Anthropic): a search's generate then sends
    /// the program's first lines as the start of the reply, so the model keeps them (seed 004
    /// spec §1.3; chat APIs otherwise cannot be made to).
    pub assistant_prefill: bool,
    /// What runs the model in the tab ([`IN_TAB`] only): llama.cpp, or the engine's own model.
    pub runtime: InTabRuntime,
}

/// What runs a model in the tab. All read the same kept GGUF file and give the same numbers
/// (engine/tests/lm_parity.rs natively, e2e/engine-model.spec.mjs in the page).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InTabRuntime {
    /// llama.cpp compiled to wasm (wllama), in its own worker, on every thread the page has.
    #[default]
    LlamaCpp,
    /// The engine's transformer on burn (`engine::lm`), in the training worker on the CPU: the
    /// model that StepCoder's PPO trains.
    Engine,
    /// The engine's transformer on burn's WebGPU backend, in the nested WebGPU worker.
    EngineWebGpu,
}

impl InTabRuntime {
    pub const ALL: [InTabRuntime; 3] = [InTabRuntime::LlamaCpp, InTabRuntime::Engine, InTabRuntime::EngineWebGpu];

    /// Where the engine computes, for the engine's runtimes.
    pub fn engine_backend(self) -> Option<crate::device::Backend> {
        match self {
            InTabRuntime::LlamaCpp => None,
            InTabRuntime::Engine => Some(crate::device::Backend::Ndarray),
            InTabRuntime::EngineWebGpu => Some(crate::device::Backend::Wgpu),
        }
    }

    /// The value a form names it by.
    pub fn name(self) -> &'static str {
        match self {
            InTabRuntime::LlamaCpp => "llama.cpp",
            InTabRuntime::Engine => "engine",
            InTabRuntime::EngineWebGpu => "engine-webgpu",
        }
    }

    /// How a form's choice and a reply's line name it.
    pub fn label(self) -> &'static str {
        match self {
            InTabRuntime::LlamaCpp => "llama.cpp (wllama)",
            InTabRuntime::Engine => "the engine (burn) in the training worker, on the CPU",
            InTabRuntime::EngineWebGpu => "the engine (burn) in the WebGPU worker, on WebGPU",
        }
    }
}

impl Default for ProviderSettings {
    fn default() -> Self {
        Self::from_preset(&PRESETS[0])
    }
}

impl ProviderSettings {
    pub fn from_preset(preset: &Preset) -> Self {
        Self {
            preset: preset.id.to_owned(),
            base_url: preset.base_url.to_owned(),
            model: preset.model.to_owned(),
            temperature: 0.2,
            top_p: 1.0,
            max_tokens: 1024,
            price_prompt_per_million: 0.0,
            price_completion_per_million: 0.0,
            timeout_s: 60,
            max_retries: 3,
            assistant_prefill: false,
            runtime: InTabRuntime::LlamaCpp,
        }
    }

    /// Every field checked; the error names the field and the allowed values.
    pub fn validate(&self) -> Result<(), String> {
        let url = self.base_url.trim();
        let local = self.runs_in_tab() && url.starts_with(LOCAL_MODEL_SCHEME);
        if !local && (!(url.starts_with("http://") || url.starts_with("https://")) || url.len() <= "https://".len()) {
            return Err(format!("base URL: \"{url}\" is not an http:// or https:// address"));
        }
        if self.runs_in_tab() && !url.split(['?', '#']).next().unwrap_or_default().ends_with(".gguf") {
            return Err(format!("model file: \"{url}\" is not the address of a .gguf file"));
        }
        if self.model.trim().is_empty() {
            return Err("model: give the model's name, e.g. gpt-4o-mini".into());
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return Err(format!("temperature: {} is outside 0–2", self.temperature));
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return Err(format!("top-p: {} is outside (0, 1]", self.top_p));
        }
        if !(1..=65_536).contains(&self.max_tokens) {
            return Err(format!("max tokens: {} is outside 1–65536", self.max_tokens));
        }
        for (name, price) in
            [("prompt price", self.price_prompt_per_million), ("completion price", self.price_completion_per_million)]
        {
            if !(price.is_finite() && price >= 0.0) {
                return Err(format!("{name}: {price} is not a price (0 or more dollars per million tokens)"));
            }
        }
        if !(1..=600).contains(&self.timeout_s) {
            return Err(format!("timeout: {} s is outside 1–600 s", self.timeout_s));
        }
        if self.max_retries > 10 {
            return Err(format!("retries: {} is more than 10", self.max_retries));
        }
        Ok(())
    }

    /// The model runs in the page rather than behind an endpoint.
    pub fn runs_in_tab(&self) -> bool {
        self.preset == IN_TAB
    }

    /// The address under which the model in the tab keeps a file chosen from the user's disk: its
    /// name as a `file:` URL (a page never learns the file's path). Nothing can download it again,
    /// so a run that used it replays only where that file was chosen too.
    pub fn local_model_address(file_name: &str) -> String {
        format!("{LOCAL_MODEL_SCHEME}{}", file_name.rsplit(['/', '\\']).next().unwrap_or_default())
    }

    /// The model in the tab came from the user's disk rather than from a URL.
    pub fn is_local_model(&self) -> bool {
        self.runs_in_tab() && self.base_url.starts_with(LOCAL_MODEL_SCHEME)
    }

    /// How runs, records and share links name the model: a model in the tab with its file's
    /// address, since replaying such a run needs that same file chosen under "In this tab".
    pub fn label(&self) -> String {
        if self.runs_in_tab() && self.runtime == InTabRuntime::Engine {
            format!("{} (in this tab on the engine, from {})", self.model, self.base_url.trim())
        } else if self.runs_in_tab() && self.runtime == InTabRuntime::EngineWebGpu {
            format!("{} (in this tab on the engine on WebGPU, from {})", self.model, self.base_url.trim())
        } else if self.runs_in_tab() {
            format!("{} (in this tab, from {})", self.model, self.base_url.trim())
        } else {
            self.model.clone()
        }
    }

    /// The model's name from its file's URL (`…/tiny-coder.gguf` → `tiny-coder`).
    pub fn model_from_file(url: &str) -> String {
        let path = url.split(['?', '#']).next().unwrap_or_default();
        let file = path.rsplit('/').next().unwrap_or_default();
        file.strip_suffix(".gguf").unwrap_or(file).to_owned()
    }

    pub fn prices(&self) -> Prices {
        Prices {
            prompt_per_million: self.price_prompt_per_million,
            completion_per_million: self.price_completion_per_million,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim().trim_end_matches('/'))
    }

    pub fn cors_hint(&self) -> &'static str {
        preset(&self.preset).unwrap_or(&PRESETS[PRESETS.len() - 1]).cors_hint
    }

    /// The JSON body of a chat-completions request. Streaming asks for the usage in the last chunk.
    pub fn request_body(&self, messages: &[ChatMessage], stream: bool) -> String {
        let mut body = json!({
            "model": self.model.trim(),
            "messages": messages,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "stream": stream,
        });
        if stream {
            body["stream_options"] = json!({ "include_usage": true });
        }
        // A last assistant message is the start of the reply (vLLM's names for asking so).
        if messages.last().is_some_and(|m| m.role == "assistant") {
            body["continue_final_message"] = json!(true);
            body["add_generation_prompt"] = json!(false);
        }
        body.to_string()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: &str, content: impl Into<String>) -> Self {
        Self { role: role.to_owned(), content: content.into() }
    }
}

/// Tokens one call used, as the server reports them (or estimated where it reports none), and how
/// long the model took to write them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Milliseconds the model spent writing the completion, as the host measured them: llama.cpp's
    /// own timer for the model in the tab; for an endpoint, from the request to the reply's last
    /// byte (its queue and the prompt's reading count too). 0 where nothing wrote (the simulated
    /// LLM) or nothing was measured (a record from before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub writing_ms: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Usage {
    /// About four characters a token, for servers that report no usage (and the simulated LLM).
    pub fn estimate(messages: &[ChatMessage], reply: &str) -> Self {
        let prompt: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        let completion_tokens = reply.chars().count().div_ceil(4) as u64;
        Self { prompt_tokens: prompt.div_ceil(4) as u64, completion_tokens, writing_ms: 0 }
    }

    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.writing_ms += other.writing_ms;
    }

    /// Completion tokens a second over the time measured writing them (none where none was).
    pub fn tokens_per_second(self) -> Option<f64> {
        (self.writing_ms > 0).then(|| self.completion_tokens as f64 * 1000.0 / self.writing_ms as f64)
    }

    /// Where a run's model wrote and how fast, for its view: "35.2 tokens/s on llama.cpp on the
    /// CPU, 2 threads"; `device` is the host's words for it, empty where the host cannot know (an
    /// endpoint's server). None where nothing was measured.
    pub fn speed_on(self, device: &str) -> Option<String> {
        let speed = format!("{:.1} tokens/s", self.tokens_per_second()?);
        Some(if device.is_empty() { speed } else { format!("{speed} on {device}") })
    }

    pub fn total(self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// US dollars at `prices`.
    pub fn cost(self, prices: Prices) -> f64 {
        (self.prompt_tokens as f64 * prices.prompt_per_million
            + self.completion_tokens as f64 * prices.completion_per_million)
            / 1e6
    }
}

/// What a model's tokens cost, in US dollars per million (nothing for the simulated LLM).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prices {
    pub prompt_per_million: f64,
    pub completion_per_million: f64,
}

/// Why a call failed, which decides whether it is worth another attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// 401 / 403: the key is missing, wrong or not allowed this model.
    Auth,
    /// 404, or a 400 that names the model.
    UnknownModel,
    /// 429.
    RateLimited,
    /// 5xx.
    Server,
    /// The request never got an answer: offline, DNS, refused, or a CORS refusal (the browser does
    /// not say which).
    Network,
    Timeout,
    /// Another 4xx: the server refused the request as written.
    BadRequest,
    /// The answer was not the JSON the protocol promises.
    Malformed,
    /// A well-formed answer without any choice or text.
    Empty,
    Cancelled,
}

impl FailureKind {
    pub fn is_retryable(self) -> bool {
        matches!(self, Self::RateLimited | Self::Server | Self::Network | Self::Timeout)
    }

    /// Whether no later call can succeed either (a wrong key or model, a request the server refuses
    /// as written), so a task that needs the LLM should end rather than try its next step.
    pub fn is_fatal(self) -> bool {
        matches!(self, Self::Auth | Self::UnknownModel | Self::BadRequest | Self::Cancelled)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmFailure {
    pub kind: FailureKind,
    pub message: String,
}

impl LlmFailure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }

    /// The failure with the API key masked wherever its message quotes it (a server may echo the
    /// request, or the client's error may name it).
    pub fn hiding(mut self, api_key: &str) -> Self {
        if !api_key.is_empty() {
            self.message = self.message.replace(api_key, "[hidden]");
        }
        self
    }

    /// A fetch that got no response at all.
    pub fn network(settings: &ProviderSettings, detail: &str) -> Self {
        Self::new(
            FailureKind::Network,
            format!(
                "could not reach {} ({detail}): the server is down or unreachable, or refused this page's origin (CORS). Hint: {}",
                settings.endpoint(),
                settings.cors_hint()
            ),
        )
    }

    pub fn timeout(settings: &ProviderSettings) -> Self {
        Self::new(
            FailureKind::Timeout,
            format!("no complete reply from {} within {} s", settings.model, settings.timeout_s),
        )
    }

    /// An HTTP error status, explained; `body` is the server's answer (its `error.message` is
    /// quoted, with anything that looks like a key masked).
    pub fn from_status(status: u16, body: &str, settings: &ProviderSettings) -> Self {
        let detail =
            server_error_message(body).map(|m| format!(" The server said: {}", mask_secrets(&m))).unwrap_or_default();
        let model = settings.model.trim();
        let mentions_model = body.to_lowercase().contains("model");
        let (kind, message) = match status {
            401 => (
                FailureKind::Auth,
                "HTTP 401: the API key is missing or wrong; enter the key for this provider".to_owned(),
            ),
            403 => (
                FailureKind::Auth,
                format!("HTTP 403: the key is not allowed to use {model} (or this provider refuses the request)"),
            ),
            404 => (
                FailureKind::UnknownModel,
                format!("HTTP 404: unknown model \"{model}\" or wrong base URL ({})", settings.endpoint()),
            ),
            400 | 422 if mentions_model => {
                (FailureKind::UnknownModel, format!("HTTP {status}: the server does not accept the model \"{model}\""))
            }
            429 => (FailureKind::RateLimited, "HTTP 429: rate limited".to_owned()),
            500..=599 => (FailureKind::Server, format!("HTTP {status}: the server failed")),
            _ => (FailureKind::BadRequest, format!("HTTP {status}: the server refused the request")),
        };
        Self::new(kind, format!("{message}.{detail}"))
    }
}

/// The `error.message` (or `error` string) of an OpenAI-style error body.
fn server_error_message(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let error = value.get("error")?;
    error.get("message").and_then(Value::as_str).or_else(|| error.as_str()).map(|m| m.chars().take(300).collect())
}

/// Replaces tokens that look like API keys (`sk-…`, long opaque strings) with a mask, so a
/// provider's error message that quotes the key does not show it.
pub fn mask_secrets(text: &str) -> String {
    text.split_inclusive(char::is_whitespace)
        .map(|piece| {
            let word = piece.trim_end();
            let opaque = word.len() >= 20 && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_.*".contains(c));
            let looks_like_key = word.starts_with("sk-") || (opaque && word.chars().any(|c| c.is_ascii_digit()));
            if looks_like_key { piece.replacen(word, "[hidden]", 1) } else { piece.to_owned() }
        })
        .collect()
}

/// Milliseconds to wait before attempt `attempt + 1` (attempt counts from 0): the server's
/// `Retry-After` seconds when it sent them (capped at a minute), else 1 s doubling up to 30 s.
pub fn retry_delay_ms(attempt: u32, retry_after: Option<&str>) -> u64 {
    if let Some(seconds) = retry_after.and_then(|v| v.trim().parse::<f64>().ok()).filter(|s| s.is_finite() && *s >= 0.0)
    {
        return (seconds.min(60.0) * 1000.0) as u64;
    }
    (1000u64 << attempt.min(5)).min(30_000)
}

/// The Python program in a reply: the longest fenced block tagged python (or untagged), else the
/// text from its first line of code on when the model used no fences. Reasoning models' `<think>`
/// sections are skipped; an unclosed fence (a reply cut at max tokens) runs to the end.
pub fn extract_code(reply: &str) -> Option<String> {
    let reply = strip_thinking(reply);
    let mut blocks: Vec<(bool, String)> = Vec::new();
    let mut lines = reply.lines();
    while let Some(line) = lines.next() {
        let Some(tag) = line.trim_start().strip_prefix("```") else { continue };
        let tag = tag.trim().to_lowercase();
        let body: Vec<&str> = lines.by_ref().take_while(|l| !l.trim_start().starts_with("```")).collect();
        let python = matches!(tag.as_str(), "python" | "py" | "python3");
        if python || tag.is_empty() {
            blocks.push((python, body.join("\n")));
        }
    }
    let fenced = blocks.iter().filter(|(python, _)| *python).chain(blocks.iter().filter(|(python, _)| !python));
    let best = fenced.map(|(_, code)| code.trim_matches('\n')).filter(|code| !code.trim().is_empty()).fold(
        None::<&str>,
        |best, code| match best {
            Some(b) if b.len() >= code.len() => Some(b),
            _ => Some(code),
        },
    );
    if !blocks.is_empty() {
        return best.map(|code| format!("{code}\n"));
    }
    let starts_code =
        |l: &str| ["def ", "class ", "import ", "from ", "@", "async def "].iter().any(|p| l.starts_with(p));
    let start = reply.lines().position(starts_code)?;
    let code: Vec<&str> = reply.lines().skip(start).collect();
    Some(format!("{}\n", code.join("\n").trim_end()))
}

fn strip_thinking(reply: &str) -> &str {
    match reply.find("</think>") {
        Some(end) if reply.trim_start().starts_with("<think>") => &reply[end + "</think>".len()..],
        _ => reply,
    }
}

#[cfg(test)]
mod tests;
