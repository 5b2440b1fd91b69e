//! StepCoder on the engine's language model: seed 002's Algorithm 1 with §4.2's PPO on the model's
//! tokens ([`token_ppo`]), its adapters trained on a frozen base (the base is the KL's reference,
//! no second copy), rewarded by the tests of the small code model's tasks ([`coder_tasks`]).
//!
//! Each update takes the next `tasks_per_update` training tasks; for each, the prompt is the
//! requirement with the assistant's reply begun by the curriculum's canonical prefix (CCCS, empty
//! at the full task or without CCCS), and `rollouts` replies are drawn at §4.2's T 0.8 / top-p
//! 0.9. Their programs (prefix and reply) run against the task's tests with line coverage; eq. 3
//! rewards each, FGO keeps the reply's tokens on lines the tests ran, and the clipped loss and the
//! value head's ([`ppo_batch`]) take some epochs of Adam. ρ and the stage then move as Algorithm 1
//! lines 16–26 say. The rollouts that passed also run on the task's hidden tests, which reward
//! nothing and which the model never sees: the share that fails them is the share special-cased to
//! the tests it was rewarded by, reported with each update.
//! Before the first update, every `measure_every` updates and after the last, pass@1 is measured
//! as Table 1 decodes (T 0.2, top-p 0.95) on the training tasks and on the unseen ones, against
//! the tests and the hidden tests, which no rollout is rewarded by.
//!
//! Sans-IO and [`Effectful`]: the rollouts, the updates and the measuring replies are its own work
//! ([`Need::Compute`], one task's rollouts or one update a slice), the programs [`PythonBatch`]es
//! that a host runs, each in an interpreter of its own (the model's code is untrusted).
//!
//! [`coder_tasks`]: super::coder_tasks
//! [`ppo_batch`]: super::ppo_batch
//! [`token_ppo`]: super::token_ppo

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Tensor;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::coder_tasks::{CoderTask, Split};
use super::curriculum::Curriculum;
use super::fgo::{Coverage, FgoMask, reply_code_lines, token_mask};
use super::learner_params::Arm;
use super::model_pass_at_1::{ModelPassAt1, PassAt1Spec, TOKENS_PER_SLICE};
use super::model_ppo_params::ModelPpoParams;
use super::ppo_batch::{PpoBatch, RolloutReply, ValueHead};
use super::training_work::TrainingWork;
use crate::device::{Backend, completed};
use crate::effects::{Effectful, Need, PythonBatch};
use crate::lm::chat_template::Message;
use crate::lm::generation::{ReplyBatch, Sampling};
use crate::lm::language_model::LanguageModel;
use crate::params::Parameters;
use crate::python::{ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;

/// The reply's opening, as the corpus writes it: the prefix and the reply continue it.
const FENCE: &str = "```python\n";

/// What to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelPpoSpec {
    /// Table 1's row: which of CCCS and FGO the training uses.
    pub arm: Arm,
    pub updates: usize,
    /// Updates between two measurements of pass@1 (and one before the first, one after the last).
    pub measure_every: usize,
    /// Seeds the adapters, the task order and every draw.
    pub seed: u64,
    pub params: ModelPpoParams,
    /// Where the host loads the model to train it (its device's numbers are the records'): burn's
    /// CPU backend, or WebGPU ([`Backend::preferred_for_model`] picks in the page).
    pub backend: Backend,
}

impl Default for ModelPpoSpec {
    fn default() -> Self {
        Self {
            arm: Arm::StepCoder,
            updates: 40,
            measure_every: 10,
            seed: 1,
            params: ModelPpoParams::default(),
            backend: Backend::Ndarray,
        }
    }
}

/// One rollout: its tokens, its program and where each reply token lies in it.
#[derive(Clone, Debug)]
struct Rollout {
    task: usize,
    prompt: Vec<u32>,
    prefix_lines: usize,
    reply: Vec<u32>,
    program: String,
    /// The program line (1-based) of each reply token; none after the code (the closing fence,
    /// the end of the turn).
    token_lines: Vec<Option<u32>>,
}

/// One update's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UpdateRecord {
    pub update: usize,
    pub tasks: Vec<String>,
    /// The rollouts' mean reward (eq. 3).
    pub mean_reward: f64,
    /// The share of rollouts that passed their tests.
    pub pass_rate: f64,
    /// Of the rollouts that passed their tests, the share that failed the task's hidden tests:
    /// programs special-cased to the tests they were rewarded by (0 when none passed).
    pub special_cased: f64,
    /// The mean per-token KL estimate log π_old − log π_ref over the replies.
    pub kl: f64,
    /// The share of reply tokens the loss kept (all but padding without FGO).
    pub kept_share: f64,
    /// Each task's curriculum stage after the update (0: the full task) and its ρ; none without
    /// CCCS.
    pub stages: Vec<(String, usize, f64)>,
    pub policy_loss: f64,
    pub value_loss: f64,
}

/// pass@1 at one point of training: the share of passing programs over each split's tasks and
/// their samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PassAt1Point {
    /// Updates done before it.
    pub after_updates: usize,
    pub training: f64,
    pub unseen: f64,
    /// Each task's passing programs (of `measure_samples`), in the tasks' order: the pairs that
    /// compare two points, or two arms, task by task.
    pub passes: Vec<usize>,
}

/// The update's rollouts being drawn, side by side: each task's prompt and prefix.
struct Drawing {
    tasks: Vec<usize>,
    prefixes: Vec<(usize, String)>,
    prompts: Vec<Vec<u32>>,
    batch: ReplyBatch,
}

enum Phase {
    /// pass@1 being measured by the policy as it stands.
    Measuring(Box<ModelPassAt1>),
    Rollouts(Box<Drawing>),
    Run(PythonBatch, Vec<Rollout>),
    /// The rollouts that passed, run on their tasks' hidden tests (which reward nothing).
    HiddenRun(PythonBatch, Vec<Rollout>, Vec<ProgramVerdict>),
    /// The rollouts with their verdicts, for the PPO step, and the share special-cased.
    Update(Vec<Rollout>, Vec<ProgramVerdict>, f64),
    Done,
}

/// The training under way.
pub struct ModelPpo {
    pub spec: ModelPpoSpec,
    model: LanguageModel,
    value_head: ValueHead,
    policy_optimizer: ModuleOptimizer,
    value_optimizer: ModuleOptimizer,
    tasks: Vec<CoderTask>,
    curricula: Vec<Curriculum>,
    /// The training tasks' indices, shuffled once, taken in turn.
    order: Vec<usize>,
    taken: usize,
    rng: RunRng,
    phase: Phase,
    pub updates_done: usize,
    pub history: Vec<UpdateRecord>,
    pub measurements: Vec<PassAt1Point>,
    /// Why training ended before its end: cancelled, or a verdict it could not use.
    pub error: Option<String>,
}

impl ModelPpo {
    /// Training of `model` (loaded with f32 numerics on an autodiff device) on `tasks`, or what is
    /// wrong with the spec.
    pub fn new(model: LanguageModel, tasks: Vec<CoderTask>, spec: ModelPpoSpec) -> Result<Self, String> {
        spec.params.validate()?;
        if spec.updates == 0 || spec.measure_every == 0 {
            return Err("updates and measure_every must be 1 or more".into());
        }
        let mut rng = RunRng::seed_from_u64(spec.seed);
        let mut order: Vec<usize> = (0..tasks.len()).filter(|&i| tasks[i].split == Split::Training).collect();
        if order.is_empty() {
            return Err("no training task".into());
        }
        order.shuffle(&mut rng);
        let model = model.with_lora(&spec.params.lora, &mut rng);
        let device = model.transformer.device();
        let value_head = ValueHead::new(model.transformer.config.embedding, &device, &mut rng);
        let curricula = tasks.iter().map(|t| Curriculum::new(&t.scope, spec.params.curriculum)).collect();
        let mut ppo = Self {
            model,
            value_head,
            policy_optimizer: AdamConfig::new().init(),
            value_optimizer: AdamConfig::new().init(),
            tasks,
            curricula,
            order,
            taken: 0,
            rng,
            phase: Phase::Done,
            updates_done: 0,
            history: Vec::new(),
            measurements: Vec::new(),
            error: None,
            spec,
        };
        ppo.phase = ppo.measuring();
        Ok(ppo)
    }

    /// The trained model (its adapters merged when written).
    pub fn model(&self) -> &LanguageModel {
        &self.model
    }

    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// What it is doing, by kind.
    pub fn work(&self) -> TrainingWork {
        match &self.phase {
            Phase::Measuring(_) => TrainingWork::Measuring,
            Phase::Rollouts(_) => TrainingWork::Rollouts,
            Phase::Run(..) => TrainingWork::Programs,
            Phase::HiddenRun(..) => TrainingWork::HiddenTests,
            Phase::Update(..) => TrainingWork::PpoStep,
            Phase::Done => TrainingWork::Done,
        }
    }

    /// What it is doing, in words, for people watching.
    pub fn doing(&self) -> String {
        self.work().describe(self.updates_done)
    }

    /// The curriculum's stage of task `task`'s prompt: its prefix lines and text.
    fn prefix(&self, task: usize) -> (usize, String) {
        if !self.spec.arm.uses_cccs() {
            return (0, String::new());
        }
        let curriculum = &self.curricula[task];
        let canonical = &self.tasks[task].canonical;
        (curriculum.prefix_lines_at(curriculum.stage), curriculum.prefix_at(canonical, curriculum.stage).to_owned())
    }

    /// The prompt's tokens: the requirement, and the assistant's reply begun by the fence and `prefix`.
    fn prompt(&self, task: usize, prefix: &str) -> Result<Vec<u32>, String> {
        let mut messages = self.tasks[task].messages();
        messages.push(Message { role: "assistant".into(), content: format!("{FENCE}{prefix}") });
        self.model.prompt(&messages)
    }

    /// The rollouts of the update's next tasks, begun.
    fn begin_rollouts(&mut self) -> Result<Drawing, String> {
        let tasks = self.next_tasks();
        let prefixes: Vec<(usize, String)> = tasks.iter().map(|&t| self.prefix(t)).collect();
        let prompts = tasks
            .iter()
            .zip(&prefixes)
            .map(|(&t, (_, prefix))| self.prompt(t, prefix))
            .collect::<Result<Vec<_>, _>>()?;
        let params = &self.spec.params;
        let sampling = Sampling { temperature: params.rollout_temperature, top_p: params.rollout_top_p };
        let end = &self.model.tokenizer.end_of_generation;
        let batch =
            ReplyBatch::new(&self.model.transformer, &prompts, params.rollouts, sampling, params.max_tokens, end);
        Ok(Drawing { tasks, prefixes, prompts, batch })
    }

    /// The drawn replies as rollouts: each one's program (the prefix and the reply's code) and
    /// the program line of each of its tokens.
    fn finish_rollouts(&self, drawing: Drawing) -> Vec<Rollout> {
        let Drawing { tasks, prefixes, prompts, batch } = drawing;
        let rollouts = self.spec.params.rollouts;
        batch
            .into_replies()
            .into_iter()
            .enumerate()
            .map(|(row, reply)| {
                let (task, (prefix_lines, prefix)) = (row / rollouts, &prefixes[row / rollouts]);
                let pieces: Vec<String> = reply
                    .iter()
                    .map(|&t| String::from_utf8_lossy(&self.model.tokenizer.piece(t, false)).into_owned())
                    .collect();
                let (code, token_lines) = reply_code_lines(&pieces, *prefix_lines);
                Rollout {
                    task: tasks[task],
                    prompt: prompts[task].clone(),
                    prefix_lines: *prefix_lines,
                    reply,
                    program: format!("{prefix}{code}"),
                    token_lines,
                }
            })
            .collect()
    }

    fn request(&self, rollout: &Rollout) -> ProgramRequest {
        let task = &self.tasks[rollout.task];
        ProgramRequest::with_statements(rollout.program.clone(), &task.tests)
    }

    /// The update's tasks: the next ones in the shuffled order.
    fn next_tasks(&mut self) -> Vec<usize> {
        (0..self.spec.params.tasks_per_update)
            .map(|_| {
                let task = self.order[self.taken % self.order.len()];
                self.taken += 1;
                task
            })
            .collect()
    }

    /// pass@1 measured by the policy as it stands, as Table 1 decodes, from the requirement alone
    /// ([`ModelPassAt1`]), with a stream of its own so that measuring never moves training's draws.
    fn measuring(&self) -> Phase {
        let params = &self.spec.params;
        let spec = PassAt1Spec {
            sampling: Sampling { temperature: params.measure_temperature, top_p: params.measure_top_p },
            samples: params.measure_samples,
            max_tokens: params.max_tokens,
            seed: self.spec.seed.wrapping_mul(1_000_003) ^ ((self.updates_done as u64) << 20),
        };
        Phase::Measuring(Box::new(ModelPassAt1::new(self.model.valid(), self.tasks.clone(), spec)))
    }

    /// The next update's rollouts, begun.
    fn rollouts(&mut self) -> Phase {
        match self.begin_rollouts() {
            Ok(drawing) => Phase::Rollouts(Box::new(drawing)),
            Err(reason) => {
                self.error.get_or_insert(reason);
                Phase::Done
            }
        }
    }

    /// The PPO step on the update's rollouts, and the curricula's ρ; awaits the values it reads
    /// back (WebGPU in a browser cannot block on them).
    async fn update(
        &mut self,
        rollouts: &[Rollout],
        verdicts: &[ProgramVerdict],
        special_cased: f64,
    ) -> Result<UpdateRecord, String> {
        let params = self.spec.params.clone();
        let rewards: Vec<f32> = verdicts.iter().map(|v| v.outcome.reward() as f32).collect();
        let masks: Vec<Vec<f32>> = rollouts
            .iter()
            .zip(verdicts)
            .map(|(rollout, verdict)| {
                let fgo = self.spec.arm.uses_fgo().then(|| {
                    FgoMask::new(&rollout.program, rollout.prefix_lines, Coverage::from(verdict), params.compile_errors)
                });
                token_mask(fgo.as_ref(), &rollout.token_lines)
            })
            .collect();
        // Rollouts of one task share a prompt: each task's are one batch.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (index, rollout) in rollouts.iter().enumerate() {
            match groups.iter_mut().find(|g| rollouts[g[0]].task == rollout.task) {
                Some(group) => group.push(index),
                None => groups.push(vec![index]),
            }
        }
        // The policy before the update, its reference and the critic: constants of the loss.
        let (policy, critic) = (self.model.transformer.valid(), self.value_head.valid());
        let mut batches = Vec::with_capacity(groups.len());
        for group in &groups {
            let replies: Vec<RolloutReply> = group
                .iter()
                .map(|&i| RolloutReply { tokens: &rollouts[i].reply, reward: rewards[i], mask: &masks[i] })
                .collect();
            batches.push(PpoBatch::new(&policy, &critic, &rollouts[group[0]].prompt, &replies, &params).await?);
        }
        let (mut policy_total, mut value_total) = (0.0, 0.0);
        for _ in 0..params.epochs {
            let mut policy_losses = Vec::new();
            let mut value_losses = Vec::new();
            for batch in &batches {
                let (policy_loss, value_loss) = batch.losses(&self.model.transformer, &self.value_head, params.clip);
                policy_losses.push(policy_loss);
                value_losses.push(value_loss);
            }
            let policy_loss = Tensor::cat(policy_losses, 0).mean();
            let value_loss = Tensor::cat(value_losses, 0).mean();
            policy_total = f64::from(scalar(policy_loss.clone()).await?);
            value_total = f64::from(scalar(value_loss.clone()).await?);
            let mut grads = (policy_loss + value_loss).backward();
            let policy_grads = GradientsParams::from_module(&mut grads, &self.model.transformer);
            let value_grads = GradientsParams::from_module(&mut grads, &self.value_head);
            let transformer = self.model.transformer.clone();
            self.model.transformer = self.policy_optimizer.step(params.policy_learning_rate, transformer, policy_grads);
            self.value_head =
                self.value_optimizer.step(params.value_learning_rate, self.value_head.clone(), value_grads);
        }
        // Algorithm 1 lines 16–26: each task's ρ from its rollouts, at the stage they were drawn at.
        for group in groups.iter().filter(|_| self.spec.arm.uses_cccs()) {
            let task = rollouts[group[0]].task;
            let passed: Vec<bool> = group.iter().map(|&i| verdicts[i].passed).collect();
            self.curricula[task].record_batch(&passed);
        }
        let tokens: f64 = batches.iter().map(|b| b.reply_tokens as f64).sum();
        let kept: f64 = masks.iter().flatten().map(|&m| f64::from(m)).sum();
        let update = self.updates_done + 1;
        let mut tasks: Vec<usize> = groups.iter().map(|g| rollouts[g[0]].task).collect();
        tasks.dedup();
        Ok(UpdateRecord {
            update,
            tasks: tasks.iter().map(|&t| self.tasks[t].id.clone()).collect(),
            mean_reward: rewards.iter().map(|&r| f64::from(r)).sum::<f64>() / rewards.len().max(1) as f64,
            pass_rate: verdicts.iter().filter(|v| v.passed).count() as f64 / verdicts.len().max(1) as f64,
            special_cased,
            kl: batches.iter().map(|b| b.kl_sum).sum::<f64>() / tokens.max(1.0),
            kept_share: kept / tokens.max(1.0),
            stages: tasks
                .iter()
                .filter(|_| self.spec.arm.uses_cccs())
                .map(|&t| (self.tasks[t].id.clone(), self.curricula[t].stage, self.curricula[t].rho))
                .collect(),
            policy_loss: policy_total,
            value_loss: value_total,
        })
    }

    /// [`Effectful::compute`], awaiting the device's values (WebGPU in a browser cannot block).
    pub async fn compute_async(&mut self, now_ms: f64) {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Measuring(mut measurement) => {
                measurement.compute_async(now_ms).await;
                self.phase = self.after_measuring_step(measurement);
            }
            Phase::Rollouts(mut drawing) => {
                // Drawn without autodiff: the graph of every step would be kept through the cache.
                let advanced =
                    drawing.batch.advance_async(&self.model.transformer.valid(), TOKENS_PER_SLICE, &mut self.rng).await;
                if let Err(reason) = advanced {
                    return self.fail(&format!("drawing the rollouts: {reason}"));
                }
                self.phase = if drawing.batch.is_done() {
                    let rollouts = self.finish_rollouts(*drawing);
                    let requests = rollouts.iter().map(|r| self.request(r)).collect();
                    Phase::Run(PythonBatch::untrusted_programs(requests), rollouts)
                } else {
                    Phase::Rollouts(drawing)
                };
            }
            Phase::Update(rollouts, verdicts, special_cased) => {
                let record = match self.update(&rollouts, &verdicts, special_cased).await {
                    Ok(record) => record,
                    Err(reason) => return self.fail(&format!("the PPO step: {reason}")),
                };
                self.history.push(record);
                self.updates_done += 1;
                let measure =
                    self.updates_done.is_multiple_of(self.spec.measure_every) || self.updates_done == self.spec.updates;
                self.phase = if measure { self.measuring() } else { self.rollouts() };
            }
            other => self.phase = other,
        }
    }

    /// Ends the training here, saying why.
    fn fail(&mut self, reason: &str) {
        self.error.get_or_insert_with(|| reason.to_owned());
        self.phase = Phase::Done;
    }

    /// After a step of a measurement: still measuring, or its figures recorded and the next
    /// update's rollouts begun (or the end).
    fn after_measuring_step(&mut self, measurement: Box<ModelPassAt1>) -> Phase {
        if !matches!(measurement.need(), Need::Done) {
            return Phase::Measuring(measurement);
        }
        let Some(report) = measurement.report() else {
            let reason = measurement.error.clone().unwrap_or_default();
            self.error.get_or_insert(format!("measuring pass@1: {reason}"));
            return Phase::Done;
        };
        self.measurements.push(PassAt1Point {
            after_updates: self.updates_done,
            training: report.share(Split::Training),
            unseen: report.share(Split::Unseen),
            passes: self
                .tasks
                .iter()
                .map(|t| report.results.iter().filter(|r| r.id == t.id && r.passed).count())
                .collect(),
        });
        if self.updates_done >= self.spec.updates { Phase::Done } else { self.rollouts() }
    }
}

impl Effectful for ModelPpo {
    fn need(&self) -> Need<'_> {
        match &self.phase {
            Phase::Done => Need::Done,
            Phase::Measuring(measurement) => measurement.need(),
            Phase::Run(batch, _) | Phase::HiddenRun(batch, ..) => Need::Python(batch),
            Phase::Rollouts(..) | Phase::Update(..) => Need::Compute,
        }
    }

    fn compute(&mut self, now_ms: f64) {
        completed(self.compute_async(now_ms));
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        match std::mem::replace(&mut self.phase, Phase::Done) {
            Phase::Measuring(mut measurement) => {
                measurement.python_done(verdicts, now_ms);
                self.phase = self.after_measuring_step(measurement);
            }
            Phase::Run(batch, _) | Phase::HiddenRun(batch, ..) if verdicts.len() != batch.requests.len() => {
                self.fail(&format!("{} verdicts for {} programs", verdicts.len(), batch.requests.len()));
            }
            Phase::Run(_, rollouts) => {
                let passed: Vec<ProgramRequest> = rollouts
                    .iter()
                    .zip(&verdicts)
                    .filter(|(_, v)| v.passed)
                    .map(|(r, _)| self.tasks[r.task].hidden_request(r.program.clone()))
                    .collect();
                self.phase = if passed.is_empty() {
                    Phase::Update(rollouts, verdicts, 0.0)
                } else {
                    Phase::HiddenRun(PythonBatch::untrusted_programs(passed), rollouts, verdicts)
                };
            }
            Phase::HiddenRun(_, rollouts, of_tests) => {
                let failed = verdicts.iter().filter(|v| !v.passed).count();
                self.phase = Phase::Update(rollouts, of_tests, failed as f64 / verdicts.len() as f64);
            }
            _ => self.fail("verdicts came when no programs were running"),
        }
    }

    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.is_done() {
            self.fail(reason);
        }
    }
}

/// A one-value tensor's value, awaited.
async fn scalar(tensor: Tensor<1>) -> Result<f32, String> {
    tensor.into_scalar_async::<f32>().await.map_err(|e| format!("cannot read a loss back from the device: {e:?}"))
}
