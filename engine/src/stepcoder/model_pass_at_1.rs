//! Pass@1 of the engine's language model on the small code model's tasks ([`coder_tasks`]): each
//! task's replies drawn by the model (greedy, or sampled as Table 1 decodes, several per task),
//! the program in each run against the tests and the hidden tests, and the share that passes in
//! each split. The one measurement of the model: `rlcg lm pass-at-1` and StepCoder's training
//! ([`model_ppo`]) both run it. Sans-IO and [`Effectful`]: the replies are the task's own work
//! ([`Need::Compute`], a few tokens a slice, so a page's worker answers between them), the
//! programs one [`PythonBatch`] the host runs, each in an interpreter of its own (the model's code
//! is untrusted).
//!
//! [`coder_tasks`]: super::coder_tasks::coder_tasks
//! [`model_ppo`]: super::model_ppo

use std::ops::Range;

use rand::SeedableRng;
use serde::Serialize;

use super::coder_tasks::{CoderTask, Split};
use crate::device::completed;
use crate::effects::{Effectful, Need, PythonBatch};
use crate::llm::extract_code;
use crate::lm::generation::{ReplyBatch, Sampling};
use crate::lm::language_model::LanguageModel;
use crate::python::{Outcome, ProgramVerdict};
use crate::rng::RunRng;

/// Replies drawn side by side in one batch (ours): enough rows to share each step's pass over the
/// weights, few enough that rows which stopped early idle little.
pub const ROWS_PER_BATCH: usize = 64;

/// Tokens drawn per slice of work (ours): a worker answers a pause or a cancel between slices.
pub const TOKENS_PER_SLICE: usize = 8;

/// How the replies are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PassAt1Spec {
    /// Greedy by default: the small model's starting point is its greedy pass@1.
    pub sampling: Sampling,
    /// Programs drawn per task; a split's pass@1 is the share of its programs that pass.
    pub samples: usize,
    /// The most tokens a reply may have; the templates' programs take under 80.
    pub max_tokens: usize,
    /// The seed of the draws (unused when greedy).
    pub seed: u64,
}

impl Default for PassAt1Spec {
    fn default() -> Self {
        Self { sampling: Sampling::GREEDY, samples: 1, max_tokens: 160, seed: 1 }
    }
}

/// One program's reply and what it did.
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
    pub tasks: usize,
    pub programs: usize,
    pub passed: usize,
}

impl SplitPassAt1 {
    pub fn share(&self) -> f64 {
        self.passed as f64 / self.programs.max(1) as f64
    }
}

/// What [`ModelPassAt1`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PassAt1Report {
    pub spec: PassAt1Spec,
    pub splits: Vec<SplitPassAt1>,
    /// Each program's, task by task.
    pub results: Vec<TaskResult>,
}

impl PassAt1Report {
    /// pass@1 of `split` (0 when it has no task).
    pub fn share(&self, split: Split) -> f64 {
        self.splits.iter().find(|s| s.split == split).map_or(0.0, SplitPassAt1::share)
    }
}

/// The measurement under way.
pub struct ModelPassAt1 {
    model: LanguageModel,
    tasks: Vec<CoderTask>,
    spec: PassAt1Spec,
    rng: RunRng,
    /// The tasks whose replies are being drawn, side by side.
    drawing: Option<(Range<usize>, ReplyBatch)>,
    results: Vec<TaskResult>,
    batch: Option<PythonBatch>,
    done: bool,
    /// Why the measurement ended before its end: cancelled, a prompt the model could not format.
    pub error: Option<String>,
}

impl ModelPassAt1 {
    /// The measurement of `model` (for inference: [`LanguageModel::valid`]) on `tasks`.
    pub fn new(model: LanguageModel, tasks: Vec<CoderTask>, spec: PassAt1Spec) -> Self {
        let rng = RunRng::seed_from_u64(spec.seed);
        let spec = PassAt1Spec { samples: spec.samples.max(1), ..spec };
        Self { model, tasks, spec, rng, drawing: None, results: Vec::new(), batch: None, done: false, error: None }
    }

    /// Programs written, and programs to write.
    pub fn progress(&self) -> (usize, usize) {
        (self.results.len(), self.tasks.len() * self.spec.samples)
    }

    /// The passes per split and each program's result, once the programs have run.
    pub fn report(&self) -> Option<PassAt1Report> {
        if !self.done || self.error.is_some() {
            return None;
        }
        let splits = Split::ALL
            .into_iter()
            .map(|split| {
                let of_split: Vec<&TaskResult> = self.results.iter().filter(|r| r.split == split).collect();
                SplitPassAt1 {
                    split,
                    tasks: self.tasks.iter().filter(|t| t.split == split).count(),
                    programs: of_split.len(),
                    passed: of_split.iter().filter(|r| r.passed).count(),
                }
            })
            .filter(|s| s.tasks > 0)
            .collect();
        Some(PassAt1Report { spec: self.spec, splits, results: self.results.clone() })
    }

    /// The next tasks' replies, begun.
    fn begin_batch(&self) -> Result<(Range<usize>, ReplyBatch), String> {
        let first = self.results.len() / self.spec.samples;
        let tasks = first..(first + (ROWS_PER_BATCH / self.spec.samples).max(1)).min(self.tasks.len());
        let prompts = self.tasks[tasks.clone()]
            .iter()
            .map(|task| self.model.prompt(&task.messages()).map_err(|e| format!("task {}: {e}", task.id)))
            .collect::<Result<Vec<_>, _>>()?;
        let (spec, end) = (&self.spec, &self.model.tokenizer.end_of_generation);
        let batch =
            ReplyBatch::new(&self.model.transformer, &prompts, spec.samples, spec.sampling, spec.max_tokens, end);
        Ok((tasks, batch))
    }

    /// [`Effectful::compute`], awaiting the device's values (WebGPU in a browser cannot block on
    /// them).
    pub async fn compute_async(&mut self, now_ms: f64) {
        let (tasks, mut batch) = match self.drawing.take().map_or_else(|| self.begin_batch(), Ok) {
            Ok(drawing) => drawing,
            Err(reason) => return self.end(&reason, now_ms),
        };
        if let Err(reason) = batch.advance_async(&self.model.transformer, TOKENS_PER_SLICE, &mut self.rng).await {
            return self.end(&reason, now_ms);
        }
        if !batch.is_done() {
            self.drawing = Some((tasks, batch));
            return;
        }
        self.finish_batch(tasks, batch);
        if self.results.len() == self.tasks.len() * self.spec.samples {
            let samples = self.spec.samples;
            let requests = self
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| self.tasks[i / samples].measuring_request(r.program.clone()))
                .collect();
            self.batch = Some(PythonBatch::untrusted_programs(requests));
        }
    }

    /// The drawn replies as results, task by task.
    fn finish_batch(&mut self, tasks: Range<usize>, batch: ReplyBatch) {
        let samples = self.spec.samples;
        for (row, tokens) in batch.into_replies().into_iter().enumerate() {
            let task = &self.tasks[tasks.start + row / samples];
            let reply = self.model.tokenizer.decode(&tokens);
            let program = extract_code(&reply).unwrap_or_default();
            self.results.push(TaskResult {
                id: task.id.clone(),
                split: task.split,
                reply,
                program,
                outcome: None,
                passed: false,
            });
        }
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
        completed(self.compute_async(now_ms));
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
            self.drawing = None;
            self.batch = None;
            self.done = true;
        }
    }
}
