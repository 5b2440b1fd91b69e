//! The search's simulated LLM and the program banks it answers from, so that searches run offline
//! and reproduce exactly.

pub mod bank;
pub mod simulated_llm;
