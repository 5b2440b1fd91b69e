//! The providers the settings form offers ready-filled, and the models the in-tab provider offers.

/// A provider the settings form offers ready-filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub base_url: &'static str,
    pub model: &'static str,
    pub needs_key: bool,
    /// What to do when the browser refuses the cross-origin request.
    pub cors_hint: &'static str,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        model: "meta-llama/llama-3.1-8b-instruct",
        needs_key: true,
        cors_hint: "OpenRouter allows browser requests; check the base URL and your connection",
    },
    Preset {
        id: "openai",
        label: "OpenAI",
        base_url: "https://api.openai.com/v1",
        model: "gpt-4o-mini",
        needs_key: true,
        cors_hint: "OpenAI allows browser requests; check the base URL and your connection",
    },
    Preset {
        id: "ollama",
        label: "Ollama (localhost)",
        base_url: "http://localhost:11434/v1",
        model: "qwen2.5-coder:7b",
        needs_key: false,
        cors_hint: "start Ollama with OLLAMA_ORIGINS set to this page's origin (or *), e.g. OLLAMA_ORIGINS='*' ollama serve",
    },
    Preset {
        id: "lmstudio",
        label: "LM Studio (localhost)",
        base_url: "http://localhost:1234/v1",
        model: "qwen2.5-coder-7b-instruct",
        needs_key: false,
        cors_hint: "turn on \"Enable CORS\" in LM Studio's server settings and check that the server is running",
    },
    Preset {
        id: IN_TAB,
        label: "In this tab (a small model, downloaded once)",
        base_url: IN_TAB_MODELS[0].url,
        model: IN_TAB_MODELS[0].name,
        needs_key: false,
        cors_hint: "the model's server must allow this page's origin (Access-Control-Allow-Origin), as the Hugging Face hub does",
    },
    Preset {
        id: "custom",
        label: "Other OpenAI-compatible endpoint",
        base_url: "",
        model: "",
        needs_key: false,
        cors_hint: "the server must answer this page's origin with Access-Control-Allow-Origin (and allow the Authorization and Content-Type headers)",
    },
];

/// The preset of the model that runs in the page (llama.cpp in wasm): its base URL is the model
/// file's, and the page's host generates with it instead of calling an endpoint.
pub const IN_TAB: &str = "in-tab";

/// A model the "In this tab" provider offers: a quantised GGUF file on the public model hub, which
/// the user downloads once (its size is shown first) and the browser keeps. Q4_K_M is the smallest
/// download; Q8_0 writes faster in the tab (llama.cpp falls back to Q5_0 for most of Qwen2.5-0.5B's
/// Q4_K_M tensors, whose rows of 896 are no multiple of 256, and its wasm Q5_0 kernel is slower per
/// weight than Q8_0's: docs/benchmarks.md, issue 71's profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InTabModel {
    pub name: &'static str,
    pub url: &'static str,
}

pub const IN_TAB_MODELS: &[InTabModel] = &[
    InTabModel {
        name: "qwen2.5-coder-0.5b-instruct-q4_k_m",
        url: "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    },
    InTabModel {
        name: "qwen2.5-coder-0.5b-instruct-q8_0",
        url: "https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q8_0.gguf",
    },
    InTabModel {
        name: "qwen2.5-coder-1.5b-instruct-q4_k_m",
        url: "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    },
];

pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}
