//! Which LLM a command talks to: the simulated one, or an OpenAI-compatible endpoint whose key is
//! read from the environment.

use engine::effects::Llm;
use engine::llm::{IN_TAB, PRESETS, ProviderSettings, preset};

use crate::common::{Failure, usage};

/// The environment variable that holds the API key (never a flag, so it stays out of shell
/// histories and process lists).
const API_KEY_VARIABLE: &str = "RLCG_API_KEY";

#[derive(clap::Args)]
pub struct LlmArgs {
    /// `simulated` (offline: the task's recorded programs, or the search's program bank) or a
    /// provider preset: openrouter, openai, ollama, lmstudio, custom. The key is read from
    /// RLCG_API_KEY.
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
        self.llm == "simulated"
    }

    /// The LLM, its label, and its settings when it is an endpoint; `temperature` overrides the
    /// preset's.
    pub fn choose(
        &self,
        seed: u64,
        temperature: Option<f64>,
    ) -> Result<(Llm, String, Option<ProviderSettings>), Failure> {
        if self.is_simulated() {
            return Ok((Llm::offline(seed), "simulated LLM".to_owned(), None));
        }
        if self.llm == IN_TAB {
            return Err(usage(
                "the in-tab model runs only in the page; serve the same GGUF file with llama.cpp's llama-server and use --llm custom --base-url http://127.0.0.1:8080/v1 (docs/guide.md)",
            ));
        }
        let Some(preset) = preset(&self.llm) else {
            let presets: Vec<&str> = PRESETS.iter().map(|p| p.id).filter(|&id| id != IN_TAB).collect();
            return Err(usage(format!("unknown LLM '{}'; valid: simulated, {}", self.llm, presets.join(", "))));
        };
        let mut settings = ProviderSettings::from_preset(preset);
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
        settings.validate().map_err(|m| usage(format!("LLM settings: {m}")))?;
        let key = std::env::var(API_KEY_VARIABLE).unwrap_or_default();
        if key.trim().is_empty() && preset.needs_key {
            return Err(usage(format!("{} needs an API key: set {API_KEY_VARIABLE}", settings.base_url)));
        }
        let label = settings.model.clone();
        Ok((Llm::Remote { settings: settings.clone(), key }, label, Some(settings)))
    }
}
