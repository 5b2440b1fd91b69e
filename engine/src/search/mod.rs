//! Searches over programs that an LLM writes (seed 004): GIF-MCTS and its baselines, WorldCoder
//! and zero-shot CoT; and LATS with its baseline Reflexion, which judge programs by unit tests the
//! LLM writes ([`methods::own_tests`]). A method decides what to ask next ([`method::Method::next`]:
//! generate, improve or fix, on which program) and learns from what came of it
//! ([`method::Method::absorb`]); [`machine::Search`] is
//! the machinery they share: it renders the prompt, asks for the LLM call, takes the program out of
//! the reply, has it scored (each program text once), counts the budget in LLM calls, keeps the
//! best program, and stops at a perfect score. It is sans-IO like live mode: it says what it
//! [`Need`](crate::effects::Need)s and is resumed with the outcome, so with recorded outcomes it is deterministic.
//!
//! By job: the method's side (`method.rs`) and each method (`methods/`); the machine
//! (`machine.rs`), scoring (`scorer.rs`), a search's spec (`spec.rs`), its record and summary
//! (`record.rs`, `summary.rs`) and tree (`tree.rs`); the simulated LLM and its program banks
//! (`offline/`); many searches at once and what they measure (`measures/`); the code-world-model
//! tasks (`world_model.rs`, `world_model_tasks.rs`).
//!
//! How a program is scored is a [`scorer::Scorer`]: the fraction of a task's tests it passes
//! ([`scorer::TestsScorer`], APPS's rule), or a code world model's accuracy on recorded transitions
//! ([`world_model::WorldModelScorer`]).

pub mod hand_edit;
pub mod machine;
pub mod measures;
pub mod method;
pub mod methods;
pub mod offline;
pub mod record;
pub mod scorer;
pub mod spec;
pub mod summary;
pub mod trace;
pub mod tree;
pub mod world_model;
pub mod world_model_tasks;

#[cfg(test)]
mod cheating_tests;
#[cfg(test)]
pub(crate) mod tests;
