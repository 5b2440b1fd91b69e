//! The native side of `rlcg`: what the command needs beyond the engine (running Python, calling an
//! LLM, and the host that performs both for the engine's tasks).

pub mod host;
pub mod llm;
pub mod python;
pub mod sandbox;
