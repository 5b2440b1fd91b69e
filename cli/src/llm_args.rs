//! Which LLM a command talks to: the simulated one, or an OpenAI-compatible endpoint whose key is
//! read from the environment.

use engine::effects::Llm;
use engine::effects::llm_source::{LlmSource, SIMULATED};

use crate::common::{Failure, usage};

/// The environment variable that holds the API key (never a flag, so it stays out of shell
/// histories and process lists).
const API_KEY_VARIABLE: &str = "RLCG_API_KEY";

#[derive(clap::Args)]
pub struct LlmArgs {
    /// `simulated` (offline: the task's recorded programs, or the search's program bank) or a
    /// provider preset: openrouter, openai, ollama, lmstudio, custom (in-tab is the page's). The key
    /// is read from RLCG_API_KEY.
    #[arg(long, default_value = "simulated")]
    pub llm: String,
    /// The endpoint's base URL (default: the preset's).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model (default: the preset's).
    #[arg(long)]
    pub model: Option<String>,
    /// The endpoint continues a last assistant message (vLLM, llama.cpp's server): a search's
    /// generate sends its prefix as the start of the reply.
    #[arg(long)]
    pub prefill: bool,
}

impl LlmArgs {
    pub fn is_simulated(&self) -> bool {
        self.llm == SIMULATED
    }

    /// The LLM (its settings, label and cost read from it); `temperature` overrides the preset's.
    pub fn choose(&self, seed: u64, temperature: Option<f64>) -> Result<Llm, Failure> {
        let mut source = LlmSource::parse(&self.llm).map_err(usage)?;
        if let LlmSource::InTab(_) = source {
            return Err(usage(
                "the in-tab model runs only in the page; serve the same GGUF file with llama.cpp's llama-server and use --llm custom --base-url http://127.0.0.1:8080/v1 (docs/guide.md)",
            ));
        }
        if let Some(settings) = source.settings_mut() {
            if let Some(url) = &self.base_url {
                settings.base_url.clone_from(url);
            }
            if let Some(model) = &self.model {
                settings.model.clone_from(model);
            }
            if let Some(temperature) = temperature {
                settings.temperature = temperature;
            }
            settings.assistant_prefill = self.prefill;
        }
        let key = std::env::var(API_KEY_VARIABLE).unwrap_or_default();
        source.llm(seed, &key, &format!("set {API_KEY_VARIABLE}")).map_err(usage)
    }
}
