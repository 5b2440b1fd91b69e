//! What a search did call by call, as its machine notes it and its record keeps it: the best
//! program after each call, each call's prompt and reply, and the text calls of LATS and Reflexion.

use serde::{Deserialize, Serialize};

use crate::search::method::TextAct;

/// The best program so far after a number of LLM calls (the score-against-calls plot).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BestSoFar {
    pub llm_calls: u32,
    pub best_score: f64,
}

/// An LLM call as it went: the prompt's user message and the raw reply (or why there was none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub prompt: String,
    pub reply: String,
}

/// A text call as it went (LATS's and Reflexion's tests and reflections): its act, the call and
/// the LLM calls made once it was answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextRecord {
    pub act: TextAct,
    #[serde(flatten)]
    pub call: CallRecord,
    pub llm_calls: u32,
}
