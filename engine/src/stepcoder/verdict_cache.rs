//! The verdicts a task's learners share, by program text: each program runs once, on the visible
//! tests with coverage (training) or on the visible and hidden tests (measuring).

use std::collections::HashMap;

use crate::python::{Outcome, ProgramVerdict};

/// What a training run leaves that the learner needs: its outcome and the lines that ran.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct TrainingRun {
    pub(super) outcome: Outcome,
    pub(super) executed_lines: Vec<u32>,
}

/// Verdicts by program text, shared by every learner of a task: a program runs once.
#[derive(Clone, Debug, Default)]
pub struct VerdictCache {
    pub(super) training: HashMap<String, TrainingRun>,
    pub(super) measuring: HashMap<String, bool>,
}

/// Which tests a program is run against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestSet {
    /// The visible tests, with coverage: a training rollout.
    Training,
    /// Visible and hidden tests, the verdict only: a measurement.
    Measuring,
}

impl VerdictCache {
    pub fn has(&self, set: TestSet, program: &str) -> bool {
        match set {
            TestSet::Training => self.training.contains_key(program),
            TestSet::Measuring => self.measuring.contains_key(program),
        }
    }

    pub fn insert(&mut self, set: TestSet, program: String, verdict: &ProgramVerdict) {
        match set {
            TestSet::Training => {
                let run = TrainingRun { outcome: verdict.outcome, executed_lines: verdict.executed_lines.clone() };
                self.training.insert(program, run);
            }
            TestSet::Measuring => {
                self.measuring.insert(program, verdict.passed);
            }
        }
    }

    /// Distinct programs run, both test sets together.
    pub fn programs_run(&self) -> usize {
        self.training.len() + self.measuring.len()
    }
}
