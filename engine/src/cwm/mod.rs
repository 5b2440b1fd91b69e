//! What a code world model is for (seed 004 §5.3): planning with it in place of the real
//! environment. The paper's MCTS planner ([`mcts`]) runs on any [`mcts::Model`]: the true
//! environment (the oracle), or a model of a small environment tabulated over its states once
//! ([`tabulated`]), so that planning stays in Rust and sans-IO. [`normalised_return`] sets the
//! model's returns between random actions and the oracle's, and [`paper_results`] holds the
//! paper's own figures to compare with.

pub mod mcts;
pub mod normalised_return;
pub mod paper_results;
pub mod tabulated;
