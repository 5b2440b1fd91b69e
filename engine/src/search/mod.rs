//! Searches over programs that an LLM writes (seed 004): GIF-MCTS and its baselines, WorldCoder
//! and zero-shot CoT; and LATS with its baseline Reflexion, which judge programs by unit tests the
//! LLM writes ([`self_tests`]). A method decides what to ask next ([`Method::next`]: generate, improve
//! or fix, on which program) and learns from what came of it ([`Method::absorb`]); [`Search`] is
//! the machinery they share: it renders the prompt, asks for the LLM call, takes the program out of
//! the reply, has it scored (each program text once), counts the budget in LLM calls, keeps the
//! best program, and stops at a perfect score. It is sans-IO like live mode: it says what it
//! [`Need`]s and is resumed with the outcome, so with recorded outcomes it is deterministic.
//!
//! The method's side is in `method.rs`, the machine in `machine.rs`, scoring in `scorer.rs`.
//!
//! How a program is scored is a [`Scorer`]: the fraction of a task's tests it passes
//! ([`TestsScorer`], APPS's rule), or a code world model's accuracy on recorded transitions
//! ([`world_model::WorldModelScorer`]).

pub mod bank;
pub mod bench;
pub mod cheat_measure;
#[cfg(test)]
mod cheating_tests;
pub mod gif_mcts;
pub mod hand_edit;
pub mod lats;
mod machine;
mod method;
pub mod paper_table_1;
pub mod record;
pub mod reflexion;
mod scorer;
pub mod self_tests;
pub mod simulated_llm;
pub mod spec;
#[cfg(test)]
pub(crate) mod tests;
pub mod tree;
pub mod value_model;
pub mod world_coder;
pub mod world_model;
pub mod world_model_tasks;
pub mod zero_shot;

pub use machine::Search;
pub use method::{ActionKind, Answering, Ask, Expanded, Expansion, Method, TextAct, TextAsk, keeps_prefix, program_of};
pub use record::{BestSoFar, CallRecord, TextRecord};
pub use scorer::{FailingExample, Score, Scorer, SearchTask, TestsScorer};
