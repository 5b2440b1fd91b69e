//! Pass@1 of the engine's language model on the small code model's tasks ([`coder_tasks`]): each
//! task's reply drawn by the model (greedy, or sampled as Table 1 decodes), the program in it run
//! against the tests and the hidden tests, and the share that passes in each split. Sans-IO and
//! [`Effectful`]: the replies are the task's own work ([`Need::Compute`], one reply a slice, so a
//! page stays responsive), the programs one [`PythonBatch`] the host runs, each in an interpreter
//! of its own (the model's code is untrusted).
//!
//! [`coder_tasks`]: super::coder_tasks::coder_tasks

use rand::SeedableRng;
use serde::Serialize;

use super::coder_tasks::{CoderTask, Split};
use crate::effects::{Effectful, Need, PythonBatch};
use crate::llm::extract_code;
use crate::lm::generation::Sampling;
use crate::lm::language_model::LanguageModel;
use crate::python::{Outcome, ProgramVerdict};
use crate::rng::RunRng;

/// How the replies are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PassAt1Spec {
    /// Greedy by default: the small model's starting point is its greedy pass@1.
    pub sampling: Sampling,
    /// The most tokens a reply may have; the templates' programs take under 80.
    pub max_tokens: usize,
    /// The seed of the draws (unused when greedy).
    pub seed: u64,
}

impl Default for PassAt1Spec {
    fn default() -> Self {
        Self { sampling: Sampling::GREEDY, max_tokens: 160, seed: 1 }
    }
}

/// One task's reply and what its program did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskResult {
    pub id: String,
    pub split: Split,
    pub reply: String,
    pub program: String,
    pub outcome: Option<Outcome>,
    pub passed: bool,
}

/// Each split's passes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitPassAt1 {
    pub split: Split,
    pub passed: usize,
    pub tasks: usize,
}

impl SplitPassAt1 {
    pub fn share(&self) -> f64 {
        self.passed as f64 / self.tasks.max(1) as f64
    }
}

/// What [`ModelPassAt1`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PassAt1Report {
    pub spec: PassAt1Spec,
    pub splits: Vec<SplitPassAt1>,
    pub results: Vec<TaskResult>,
}

/// The measurement under way.
pub struct ModelPassAt1 {
    model: LanguageModel,
    tasks: Vec<CoderTask>,
    spec: PassAt1Spec,
    rng: RunRng,
    results: Vec<TaskResult>,
    batch: Option<PythonBatch>,
    done: bool,
    /// Why the measurement ended before its end: cancelled, a prompt the model could not format.
    pub error: Option<String>,
}

impl ModelPassAt1 {
    pub fn new(model: LanguageModel, tasks: Vec<CoderTask>, spec: PassAt1Spec) -> Self {
        let rng = RunRng::seed_from_u64(spec.seed);
        Self { model, tasks, spec, rng, results: Vec::new(), batch: None, done: false, error: None }
    }

    /// Replies written, and tasks.
    pub fn progress(&self) -> (usize, usize) {
        (self.results.len(), self.tasks.len())
    }

    /// The passes per split and each task's result, once the programs have run.
    pub fn report(&self) -> Option<PassAt1Report> {
        if !self.done || self.error.is_some() {
            return None;
        }
        let splits = Split::ALL
            .into_iter()
            .map(|split| {
                let of_split: Vec<&TaskResult> = self.results.iter().filter(|r| r.split == split).collect();
                SplitPassAt1 { split, passed: of_split.iter().filter(|r| r.passed).count(), tasks: of_split.len() }
            })
            .filter(|s| s.tasks > 0)
            .collect();
        Some(PassAt1Report { spec: self.spec, splits, results: self.results.clone() })
    }

    fn write_reply(&mut self, task: &CoderTask) -> Result<TaskResult, String> {
        let mut generation = self.model.reply(&task.messages(), self.spec.sampling, self.spec.max_tokens)?;
        while generation.step(&self.model.transformer, &mut self.rng).is_some() {}
        let reply = self.model.tokenizer.decode(&generation.reply);
        let program = extract_code(&reply).unwrap_or_default();
        Ok(TaskResult { id: task.id.clone(), split: task.split, reply, program, outcome: None, passed: false })
    }
}

impl Effectful for ModelPassAt1 {
    fn need(&self) -> Need<'_> {
        match &self.batch {
            _ if self.done => Need::Done,
            Some(batch) => Need::Python(batch),
            None => Need::Compute,
        }
    }

    fn compute(&mut self, now_ms: f64) {
        let task = self.tasks[self.results.len()].clone();
        match self.write_reply(&task) {
            Ok(result) => self.results.push(result),
            Err(reason) => return self.end(&format!("task {}: {reason}", task.id), now_ms),
        }
        if self.results.len() == self.tasks.len() {
            let requests =
                self.tasks.iter().zip(&self.results).map(|(t, r)| t.measuring_request(r.program.clone())).collect();
            self.batch = Some(PythonBatch::untrusted_programs(requests));
        }
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        if verdicts.len() != self.results.len() {
            return self.end(&format!("{} verdicts for {} programs", verdicts.len(), self.results.len()), now_ms);
        }
        for (result, verdict) in self.results.iter_mut().zip(verdicts) {
            result.passed = verdict.passed && !result.program.is_empty();
            result.outcome = Some(verdict.outcome);
        }
        self.batch = None;
        self.done = true;
    }

    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.done {
            self.error = Some(reason.to_owned());
            self.batch = None;
            self.done = true;
        }
    }
}
