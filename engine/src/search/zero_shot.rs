//! Zero-shot sampling, seed 004's simplest baseline (§5.1): B independent programs written from the
//! task alone, with the same generate prompt and scoring as the searches; the task is solved when
//! any of them passes every test (pass@B), and the best score is the best of the B.

use super::{ActionKind, Expanded, Expansion, Method};
use crate::RunRng;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZeroShot;

impl Method for ZeroShot {
    fn next(&mut self, _rng: &mut RunRng) -> Option<Expansion> {
        Some(Expansion { kind: ActionKind::Generate, code: String::new(), parent: None })
    }

    fn absorb(&mut self, _expanded: &Expanded, _rng: &mut RunRng) {}
}
