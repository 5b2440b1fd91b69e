//! Zero-shot CoT, seed 004's simplest baseline (§5.1, after Kojima et al. 2022): B independent
//! programs, each from the task alone with "Let's think step by step." as the start of the reply
//! (the official `generate_CoT_prompt`); the code is parsed out of the reply after the reasoning.
//! The task is solved when any of them passes every test (pass@B), and the best score is the best
//! of the B.

use crate::prompts::id;
use crate::rng::RunRng;
use crate::search::method::{ActionKind, Ask, Expanded, Expansion, Method};

/// The reply's start that makes a zero-shot prompt a chain of thought (seed 004 App. J: "the
/// problem description followed by 'Let's think step by step'").
pub const COT_START: &str = "Let's think step by step.";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZeroShot;

impl Method for ZeroShot {
    fn next(&mut self, _rng: &mut RunRng) -> Option<Ask> {
        Some(Ask::Program(Expansion { kind: ActionKind::Generate, code: String::new(), parent: None }))
    }

    fn absorb(&mut self, _expanded: &Expanded, _rng: &mut RunRng) {}

    fn prompt_id(&self, _kind: ActionKind) -> &'static str {
        id::ZERO_SHOT_COT
    }

    fn reply_start(&self) -> Option<&'static str> {
        Some(COT_START)
    }
}
