//! The one place a choice of LLM (the page's select, the CLI's `--llm`) becomes the [`Llm`] a task
//! talks to: parsed once, labelled once, its key checked once, for both hosts.

use crate::llm::{IN_TAB, PRESETS, Prices, ProviderSettings, preset};

use super::Llm;

/// The choice's value, the search links' and records' name, for the offline stand-in.
pub const SIMULATED: &str = "simulated";

/// How reports and status lines name the offline stand-in.
pub const SIMULATED_LABEL: &str = "simulated LLM";

/// Where a task's replies come from.
#[derive(Clone, Debug, PartialEq)]
pub enum LlmSource {
    /// The simulated LLM: the task's recorded programs, or a search's bank, drawn offline.
    Simulated,
    /// An OpenAI-compatible endpoint, called with the user's key.
    Endpoint(ProviderSettings),
    /// A GGUF model that the page runs itself (llama.cpp in wasm); only the page has it.
    InTab(ProviderSettings),
}

impl LlmSource {
    /// The source a choice names (`simulated` or a preset id), with `settings` in use for it; the
    /// error lists the valid names.
    pub fn of(value: &str, settings: ProviderSettings) -> Result<Self, String> {
        match value {
            SIMULATED => Ok(Self::Simulated),
            IN_TAB => Ok(Self::InTab(ProviderSettings { preset: IN_TAB.into(), ..settings })),
            id if preset(id).is_some() => Ok(Self::Endpoint(ProviderSettings { preset: id.into(), ..settings })),
            unknown => Err(format!("unknown LLM '{unknown}'; valid: {}", Self::names().join(", "))),
        }
    }

    /// The source a choice names, with its preset's own settings.
    pub fn parse(value: &str) -> Result<Self, String> {
        let settings = preset(value).map(ProviderSettings::from_preset).unwrap_or_default();
        Self::of(value, settings)
    }

    /// Every valid choice: the simulated LLM, then each preset.
    pub fn names() -> Vec<&'static str> {
        std::iter::once(SIMULATED).chain(PRESETS.iter().map(|p| p.id)).collect()
    }

    /// The choice's value: what [`Self::parse`] reads back.
    pub fn value(&self) -> &str {
        match self {
            Self::Simulated => SIMULATED,
            Self::Endpoint(settings) | Self::InTab(settings) => &settings.preset,
        }
    }

    /// How a pane names the choice where its work starts: the simulated LLM, a model and its
    /// endpoint, or a model in the tab and its file.
    pub fn label(&self) -> String {
        match self {
            Self::Simulated => SIMULATED_LABEL.to_owned(),
            Self::Endpoint(settings) => format!("{} at {}", settings.label(), settings.base_url.trim()),
            Self::InTab(settings) => settings.label(),
        }
    }

    /// The settings of an endpoint or of the model in the tab.
    pub fn settings_mut(&mut self) -> Option<&mut ProviderSettings> {
        match self {
            Self::Simulated => None,
            Self::Endpoint(settings) | Self::InTab(settings) => Some(settings),
        }
    }

    /// The LLM for one task, `seed` seeding the simulated one and `key` going to the endpoint; the
    /// error says what is wrong, and `key_hint` how to give a missing key.
    pub fn llm(&self, seed: u64, key: &str, key_hint: &str) -> Result<Llm, String> {
        match self {
            Self::Simulated => Ok(Llm::offline(seed)),
            Self::Endpoint(settings) => {
                settings.validate().map_err(|message| format!("LLM settings: {message}"))?;
                if key.trim().is_empty() && preset(&settings.preset).is_some_and(|p| p.needs_key) {
                    return Err(format!("{} needs an API key: {key_hint}", settings.base_url));
                }
                Ok(Llm::Remote { settings: settings.clone(), key: key.to_owned() })
            }
            Self::InTab(settings) => {
                settings.validate().map_err(|message| format!("LLM settings: {message}"))?;
                Ok(Llm::InTab { settings: settings.clone() })
            }
        }
    }
}

impl Llm {
    /// How search records and share links name it ([`SIMULATED`] when offline).
    pub fn name(&self) -> String {
        self.settings().map_or_else(|| SIMULATED.to_owned(), ProviderSettings::label)
    }

    /// How reports and status lines name it.
    pub fn label(&self) -> String {
        self.settings().map_or_else(|| SIMULATED_LABEL.to_owned(), ProviderSettings::label)
    }

    /// What its tokens cost (nothing for the simulated LLM).
    pub fn prices(&self) -> Prices {
        self.settings().map(ProviderSettings::prices).unwrap_or_default()
    }

    /// The simulated LLM answers (or no LLM at all): nothing is called, nothing is billed.
    pub fn is_simulated(&self) -> bool {
        self.settings().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_parsed_once_and_names_itself_back() {
        for name in LlmSource::names() {
            assert_eq!(LlmSource::parse(name).unwrap().value(), name);
        }
        assert_eq!(LlmSource::parse(SIMULATED), Ok(LlmSource::Simulated));
        assert!(matches!(LlmSource::parse(IN_TAB), Ok(LlmSource::InTab(_))));
        assert!(matches!(LlmSource::parse("ollama"), Ok(LlmSource::Endpoint(s)) if s.model == "qwen2.5-coder:7b"));
        let error = LlmSource::parse("gpt").unwrap_err();
        assert!(error.starts_with("unknown LLM 'gpt'; valid: simulated, openrouter"), "{error}");
    }

    #[test]
    fn the_llm_is_checked_before_any_call() {
        let openai = LlmSource::parse("openai").unwrap();
        assert_eq!(openai.llm(1, " ", "set it").err().unwrap(), "https://api.openai.com/v1 needs an API key: set it");
        let llm = openai.llm(1, "k", "set it").unwrap();
        assert_eq!((llm.name(), llm.label()), ("gpt-4o-mini".to_owned(), "gpt-4o-mini".to_owned()));
        let custom = LlmSource::parse("custom").unwrap();
        assert!(custom.llm(1, "", "").err().unwrap().starts_with("LLM settings: base URL"));
        let simulated = LlmSource::Simulated.llm(7, "", "").unwrap();
        assert_eq!((simulated.name(), simulated.label()), (SIMULATED.to_owned(), SIMULATED_LABEL.to_owned()));
        assert!(simulated.settings().is_none());
        let in_tab = LlmSource::parse(IN_TAB).unwrap().llm(1, "", "").unwrap();
        assert!(matches!(in_tab, Llm::InTab { .. }));
        assert!(in_tab.label().contains("(in this tab, from"));
    }

    #[test]
    fn the_page_settings_keep_the_chosen_preset() {
        let edited = ProviderSettings { model: "mine".into(), ..ProviderSettings::default() };
        let LlmSource::Endpoint(settings) = LlmSource::of("lmstudio", edited).unwrap() else { panic!() };
        assert_eq!((settings.preset.as_str(), settings.model.as_str()), ("lmstudio", "mine"));
    }

    #[test]
    fn a_choice_is_named_with_where_it_answers_from() {
        assert_eq!(LlmSource::Simulated.label(), "simulated LLM");
        assert_eq!(LlmSource::parse("openai").unwrap().label(), "gpt-4o-mini at https://api.openai.com/v1");
        let in_tab = ProviderSettings {
            preset: IN_TAB.into(),
            model: "tiny".into(),
            base_url: "file:tiny.gguf".into(),
            ..ProviderSettings::default()
        };
        assert_eq!(LlmSource::of(IN_TAB, in_tab.clone()).unwrap().label(), "tiny (in this tab, from file:tiny.gguf)");
        let on_engine = ProviderSettings { runtime: crate::llm::InTabRuntime::Engine, ..in_tab };
        assert_eq!(on_engine.label(), "tiny (in this tab on the engine, from file:tiny.gguf)");
    }
}
