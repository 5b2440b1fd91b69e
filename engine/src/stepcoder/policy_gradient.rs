//! The line-bank learner: a policy that really learns, on which CCCS and FGO are measured (the
//! seed 002 sheet §5 (c)). The policy is a softmax per line of a [`LineBankTask`], trained by
//! REINFORCE with the group-mean baseline (or PPO-clip with a KL term to the initial policy) on
//! batches of rollouts sampled as §4.2 samples them (T = 0.8, top-p 0.9), every program run against
//! the task's visible tests.
//!
//! The four arms differ only in two switches, Table 1's ablation rows:
//! - CCCS: the slots before the curriculum's start line are fixed to the canonical lines and are
//!   not in the gradient (the prompt mask); the curriculum moves back as ρ rises;
//! - FGO: a sampled line's gradient term counts only if the tests ran the line.
//!
//! Every arm spends the same budget of program executions (the curriculum's easier rollouts count
//! like any other) and is measured the same way, at the full task on the visible and hidden tests:
//! pass@1 sampled from the policy as it is (T = 1), pass@1 decoded as Table 1 decodes (T = 0.2,
//! top-p 0.95), and whether the greedy program passes. Measuring runs are not budget.
//!
//! The starting policy stands in for the supervised model that RL starts from, and is ours: it
//! favours each canonical line a little, except in one slot where it favours a plausible mistake
//! (the slot's first mutant, which compiles), so that its greedy program fails as an SFT model's
//! often does (Table 1's models pass 32–36% of APPS+).
//! The learner is sans-IO: it says which programs it needs run ([`Learner::wanted`]) and learns
//! from their verdicts in a [`VerdictCache`] (`verdict_cache.rs`); its sampling maths is in
//! `sampling.rs`.

use std::collections::HashMap;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::curriculum::Curriculum;
use super::fgo::{Coverage, FgoMask};
use super::learner_params::{Arm, LearnerParams, UpdateRule};
use super::line_bank::LineBankTask;
use super::sampling::{decode, sample, softmax};
use super::verdict_cache::{TestSet, TrainingRun, VerdictCache};
use crate::python::{LogicalLine, Outcome, ProgramVerdict};
use crate::rng::RunRng;

/// One measurement of the policy at the full task.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Training executions spent before it.
    pub executions: u32,
    /// The share of sampled programs (T = 1) that pass the visible and hidden tests.
    pub pass_at_1: f64,
    /// The same for programs decoded at the measuring temperature and nucleus (T = 0.2, top-p
    /// 0.95: Table 1's decoding).
    #[serde(default)]
    pub decoded_pass_at_1: f64,
    /// The curriculum's stage then (0 is the full task).
    pub stage: usize,
}

/// What a learner did, for the tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearnerTrace {
    pub measurements: Vec<Measurement>,
    /// Executions spent when the greedy program first passed the visible and hidden tests.
    pub greedy_passed_at: Option<u32>,
    /// Executions spent when the curriculum reached the full task (CCCS arms).
    pub full_task_at: Option<u32>,
    /// Gradient terms of sampled lines, and how many of them FGO removed.
    pub gradient_terms: u64,
    pub masked_terms: u64,
    /// Training rollouts per outcome class.
    pub outcomes: HashMap<Outcome, u32>,
}

/// A rollout as an update used it, kept to be shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Rollout {
    pub program: String,
    pub outcome: Outcome,
    /// Its reward minus the batch's mean: the weight of its lines' gradient terms.
    pub advantage: f64,
    /// The curriculum's prefix, and the lines FGO keeps and removes. Computed for every arm; only
    /// the FGO arms leave the removed lines out of the loss.
    pub mask: FgoMask,
}

/// The rollouts of one update.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// Training executions spent before it.
    pub executions: u32,
    /// The curriculum's stage (CCCS arms; 0 is the full task).
    pub stage: Option<usize>,
    pub rollouts: Vec<Rollout>,
}

/// One update's programs, sampled and waiting for their verdicts.
#[derive(Clone, Debug)]
struct Batch {
    /// The first line the policy wrote (CCCS), none at the full task.
    start_line: Option<u32>,
    choices: Vec<Vec<usize>>,
    programs: Vec<String>,
    measured: Vec<String>,
    decoded: Vec<String>,
    greedy: Option<String>,
}

/// One arm learning one task with one seed.
#[derive(Clone, Debug)]
pub struct Learner {
    pub arm: Arm,
    params: LearnerParams,
    task: LineBankTask,
    /// Each slot's 1-based line.
    slot_lines: Vec<u32>,
    /// The canonical program's logical lines, which every program of the bank shares.
    statements: Vec<LogicalLine>,
    logits: Vec<Vec<f64>>,
    initial_logits: Vec<Vec<f64>>,
    pub curriculum: Curriculum,
    training_rng: RunRng,
    measuring_rng: RunRng,
    pub executions: u32,
    next_measurement: u32,
    batch: Option<Batch>,
    pub trace: LearnerTrace,
    /// The first and the latest update's rollouts, to show what the masks did.
    pub first_update: Option<Update>,
    pub last_update: Option<Update>,
}

/// The starting logits: each canonical line at `canonical_prior`, and in `mistaken_slots` slots
/// drawn from `rng` the first mutant at `mistake_prior`.
fn starting_logits(options: &[usize], params: &LearnerParams, rng: &mut RunRng) -> Vec<Vec<f64>> {
    let mut logits: Vec<Vec<f64>> = options
        .iter()
        .map(|&n| (0..n).map(|option| if option == 0 { params.canonical_prior } else { 0.0 }).collect())
        .collect();
    let slots: Vec<usize> = (0..options.len()).filter(|&slot| options[slot] > 1).collect();
    for index in rand::seq::index::sample(rng, slots.len(), params.mistaken_slots.min(slots.len())) {
        logits[slots[index]][1] = params.mistake_prior;
    }
    logits
}

impl Learner {
    /// A learner of `task`, whose canonical program's verdict (run with analysis) gives the
    /// curriculum's conditional statements and the logical lines. The training and measuring
    /// streams depend on the seed and the task only, so every arm starts from the same draws.
    pub fn new(
        task: &LineBankTask,
        task_index: usize,
        canonical: &ProgramVerdict,
        arm: Arm,
        seed: u64,
        params: LearnerParams,
    ) -> Self {
        let (mut training_rng, measuring_rng) = crate::rng::stepcoder_rngs(seed, task_index);
        let logits = starting_logits(&task.options(), &params, &mut training_rng);
        Self {
            arm,
            params,
            task: task.clone(),
            slot_lines: task.slots().into_iter().map(|index| index as u32 + 1).collect(),
            statements: canonical.statements.clone(),
            initial_logits: logits.clone(),
            logits,
            curriculum: Curriculum::new(&canonical.scope, params.curriculum),
            training_rng,
            measuring_rng,
            executions: 0,
            next_measurement: 0,
            batch: None,
            trace: LearnerTrace::default(),
            first_update: None,
            last_update: None,
        }
    }

    /// Whether another batch of rollouts fits in the budget.
    fn can_train(&self) -> bool {
        self.executions + self.params.rollouts as u32 <= self.params.budget
    }

    /// Out of budget, and measured at the end.
    pub fn is_done(&self) -> bool {
        self.batch.is_none() && !self.can_train() && self.next_measurement > self.executions
    }

    /// The policy's probabilities, slot by slot.
    pub fn probabilities(&self) -> Vec<Vec<f64>> {
        self.logits.iter().map(|l| softmax(l)).collect()
    }

    /// The probabilities training rollouts are sampled from before the nucleus, slot by slot:
    /// the softmax at the rollout temperature, whose log the update differentiates.
    fn rollout_probabilities(&self) -> Vec<Vec<f64>> {
        self.logits.iter().map(|l| self.tempered(l)).collect()
    }

    fn tempered(&self, logits: &[f64]) -> Vec<f64> {
        softmax(&logits.iter().map(|l| l / self.params.rollout_temperature).collect::<Vec<_>>())
    }

    /// The program of the most likely line in every slot; a tie is broken at random (from the
    /// measuring stream), so that a uniform policy's greedy program is not the canonical one
    /// merely because the bank lists it first.
    fn greedy_program(&mut self) -> String {
        let choices: Vec<usize> = self
            .logits
            .iter()
            .map(|l| {
                let top = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let best: Vec<usize> = (0..l.len()).filter(|&i| l[i] == top).collect();
                best[self.measuring_rng.random_range(0..best.len())]
            })
            .collect();
        self.task.program(&choices)
    }

    /// The programs the next update needs run, sampling them first if it has not yet; empty once
    /// the learner is done.
    pub fn wanted(&mut self) -> Vec<(TestSet, &str)> {
        if self.batch.is_none() && !self.is_done() {
            self.batch = Some(self.sample_batch());
        }
        let Some(batch) = &self.batch else { return Vec::new() };
        let training = batch.programs.iter().map(|p| (TestSet::Training, p.as_str()));
        let measured = batch.measured.iter().chain(&batch.decoded).chain(&batch.greedy);
        let measuring = measured.map(|p| (TestSet::Measuring, p.as_str()));
        training.chain(measuring).collect()
    }

    fn sample_batch(&mut self) -> Batch {
        let train = self.can_train();
        let measure = self.executions >= self.next_measurement || !train;
        let samples = if measure { self.params.measure_samples } else { 0 };
        let (temperature, top_p) = (self.params.measure_temperature, self.params.measure_top_p);
        let mut draw = |line: &dyn Fn(&[f64], &mut RunRng) -> usize| -> Vec<String> {
            (0..samples)
                .map(|_| {
                    let choices: Vec<usize> = self.logits.iter().map(|l| line(l, &mut self.measuring_rng)).collect();
                    self.task.program(&choices)
                })
                .collect()
        };
        let measured = draw(&sample);
        let decoded = draw(&|l, rng| decode(l, temperature, top_p, rng));
        let start_line = if self.arm.uses_cccs() { self.curriculum.start_line() } else { None };
        let (rollout_temperature, rollout_top_p) = (self.params.rollout_temperature, self.params.rollout_top_p);
        let mut choices = Vec::new();
        if train {
            for _ in 0..self.params.rollouts {
                let rollout: Vec<usize> = self
                    .logits
                    .iter()
                    .zip(&self.slot_lines)
                    .map(|(l, &line)| {
                        if start_line.is_some_and(|start| line < start) {
                            0
                        } else {
                            decode(l, rollout_temperature, rollout_top_p, &mut self.training_rng)
                        }
                    })
                    .collect();
                choices.push(rollout);
            }
        }
        let programs = choices.iter().map(|c| self.task.program(c)).collect();
        let greedy = (train && self.trace.greedy_passed_at.is_none()).then(|| self.greedy_program());
        Batch { start_line, choices, programs, measured, decoded, greedy }
    }

    /// Learns from the batch's verdicts, which `cache` must hold (see [`Learner::wanted`]).
    pub fn update(&mut self, cache: &VerdictCache) {
        let Some(batch) = self.batch.take() else { return };
        if !batch.measured.is_empty() {
            let pass_rate = |programs: &[String]| {
                programs.iter().filter(|p| cache.measuring[p.as_str()]).count() as f64 / programs.len() as f64
            };
            self.trace.measurements.push(Measurement {
                executions: self.executions,
                pass_at_1: pass_rate(&batch.measured),
                decoded_pass_at_1: pass_rate(&batch.decoded),
                stage: if self.arm.uses_cccs() { self.curriculum.stage } else { 0 },
            });
            while self.next_measurement <= self.executions {
                self.next_measurement += self.params.measure_every;
            }
        }
        if let Some(greedy) = &batch.greedy
            && cache.measuring[greedy]
        {
            self.trace.greedy_passed_at = Some(self.executions);
        }
        if batch.programs.is_empty() {
            return;
        }
        let runs: Vec<&TrainingRun> = batch.programs.iter().map(|p| &cache.training[p]).collect();
        let executed = batch.programs.len() as u32;
        self.learn(batch, &runs);
        self.executions += executed;
        if self.arm.uses_cccs() {
            let passed: Vec<bool> = runs.iter().map(|r| r.outcome == Outcome::Pass).collect();
            if self.curriculum.record_batch(&passed) && self.curriculum.is_full_task() {
                self.trace.full_task_at = Some(self.executions);
            }
        }
    }

    /// One policy-gradient update on the batch: each sampled line's gradient term is weighted by
    /// its rollout's advantage (reward minus the batch's mean), and counts only where the arm's
    /// masks keep it.
    fn learn(&mut self, batch: Batch, runs: &[&TrainingRun]) {
        let rewards: Vec<f64> = runs.iter().map(|r| r.outcome.reward()).collect();
        let baseline = rewards.iter().sum::<f64>() / rewards.len() as f64;
        let advantages: Vec<f64> = rewards.iter().map(|r| r - baseline).collect();
        let masks = self.masks(&batch, runs);
        let kept = self.kept_terms(&batch, &masks);
        for (run, row) in runs.iter().zip(&kept) {
            *self.trace.outcomes.entry(run.outcome).or_default() += 1;
            for (&line, &keep) in self.slot_lines.iter().zip(row) {
                if batch.start_line.is_none_or(|start| line >= start) {
                    self.trace.gradient_terms += 1;
                    self.trace.masked_terms += u64::from(!keep);
                }
            }
        }
        let old = self.rollout_probabilities();
        let epochs = match self.params.update {
            UpdateRule::Reinforce => 1,
            UpdateRule::PpoClip => self.params.ppo_epochs,
        };
        for _ in 0..epochs {
            for (slot, old) in old.iter().enumerate() {
                let gradient = self.gradient(slot, &batch.choices, &advantages, &kept, old);
                for (logit, g) in self.logits[slot].iter_mut().zip(&gradient) {
                    *logit += self.params.learning_rate * g;
                }
            }
        }
        self.keep_update(batch.programs, runs, &advantages, masks);
    }

    /// Each rollout's FGO mask, from the lines its run executed.
    fn masks(&self, batch: &Batch, runs: &[&TrainingRun]) -> Vec<FgoMask> {
        let prefix_lines = batch.start_line.map_or(0, |line| line as usize - 1);
        batch
            .programs
            .iter()
            .zip(runs)
            .map(|(program, run)| {
                let coverage = Coverage {
                    outcome: run.outcome,
                    executed_lines: &run.executed_lines,
                    statements: &self.statements,
                    line_tokens: &[],
                };
                FgoMask::new(program, prefix_lines, coverage, self.params.compile_errors)
            })
            .collect()
    }

    /// `kept[i][j]`: rollout i's line in slot j is in the loss: it was sampled (after the
    /// curriculum's prefix), and, with FGO, it ran.
    fn kept_terms(&self, batch: &Batch, masks: &[FgoMask]) -> Vec<Vec<bool>> {
        masks
            .iter()
            .map(|mask| {
                self.slot_lines
                    .iter()
                    .map(|&line| {
                        let sampled = batch.start_line.is_none_or(|start| line >= start);
                        sampled && (!self.arm.uses_fgo() || mask.keeps(line))
                    })
                    .collect()
            })
            .collect()
    }

    /// The ascent direction of `slot`'s logits over the rollouts whose term is kept: REINFORCE's
    /// advantage-weighted score, or PPO-clip's surrogate with its KL penalty to the initial policy
    /// (`old` is the slot's policy before this update's epochs).
    fn gradient(
        &self,
        slot: usize,
        choices: &[Vec<usize>],
        advantages: &[f64],
        kept: &[Vec<bool>],
        old: &[f64],
    ) -> Vec<f64> {
        let policy = self.tempered(&self.logits[slot]);
        let scale = 1.0 / self.params.rollout_temperature;
        let mut gradient = vec![0.0; policy.len()];
        let mut sampled = false;
        let rollouts = advantages.len() as f64;
        for (i, advantage) in advantages.iter().enumerate() {
            if !kept[i][slot] {
                continue;
            }
            sampled = true;
            let action = choices[i][slot];
            let weight = match self.params.update {
                UpdateRule::Reinforce => *advantage,
                UpdateRule::PpoClip => {
                    // The clipped surrogate's gradient: ratio × advantage, or nothing where the
                    // clip holds the ratio.
                    let ratio = policy[action] / old[action];
                    let clip = self.params.ppo_clip;
                    let clipped = (*advantage > 0.0 && ratio > 1.0 + clip) || (*advantage < 0.0 && ratio < 1.0 - clip);
                    if clipped { 0.0 } else { ratio * advantage }
                }
            };
            // ∇ log π(a) = (onehot(a) − π) / T for the softmax of logits / T.
            for (option, g) in gradient.iter_mut().enumerate() {
                *g += weight * scale * (f64::from(u8::from(option == action)) - policy[option]) / rollouts;
            }
        }
        if self.params.update == UpdateRule::PpoClip && sampled {
            // −β ∇ KL(π ‖ π₀), both at the rollout temperature: ∂/∂θ_k = π_k (log(π_k / π₀_k) − KL) / T.
            let reference = self.tempered(&self.initial_logits[slot]);
            let kl: f64 = policy.iter().zip(&reference).map(|(p, q)| p * (p / q).ln()).sum();
            for (k, g) in gradient.iter_mut().enumerate() {
                *g -= self.params.kl_coefficient * scale * policy[k] * ((policy[k] / reference[k]).ln() - kl);
            }
        }
        gradient
    }

    /// Keeps the rollouts of the update just made, as the first update's and the latest.
    fn keep_update(&mut self, programs: Vec<String>, runs: &[&TrainingRun], advantages: &[f64], masks: Vec<FgoMask>) {
        let rollouts = programs.into_iter().zip(runs).zip(advantages).zip(masks);
        let update = Update {
            executions: self.executions,
            stage: self.arm.uses_cccs().then_some(self.curriculum.stage),
            rollouts: rollouts
                .map(|(((program, run), &advantage), mask)| Rollout { program, outcome: run.outcome, advantage, mask })
                .collect(),
        };
        if self.first_update.is_none() {
            self.first_update = Some(update.clone());
        }
        self.last_update = Some(update);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::{ProgramRequest, Scope, ScopeKind};
    use crate::stepcoder::fgo::LineRole;
    use crate::stepcoder::line_bank::line_bank_tasks;

    /// The canonical verdict of the first bundled task as the harness gives it (clamp_sum: the
    /// function at line 1, the loop at 3, ifs at 4, 6 and 8; one logical line per line).
    fn canonical(task: &LineBankTask) -> ProgramVerdict {
        let program = task.canonical();
        let mut verdict =
            ProgramVerdict::from_host(&ProgramRequest::new(&program, vec![]), Outcome::Pass, String::new(), 0.0);
        let scope = [
            (ScopeKind::Function, 1, 11),
            (ScopeKind::For, 3, 10),
            (ScopeKind::If, 4, 5),
            (ScopeKind::If, 6, 9),
            (ScopeKind::If, 8, 9),
        ];
        verdict.scope = scope.into_iter().map(Scope::from).collect();
        verdict.statements =
            (1..=program.lines().count() as u32).map(|l| LogicalLine { start: l, end: l, clause: false }).collect();
        verdict
    }

    /// A stand-in for the harness: a program passes when it is canonical in every slot from line
    /// `from` on, and every line ran up to its last.
    fn run_all(learner: &mut Learner, cache: &mut VerdictCache, passes: impl Fn(&str) -> bool) {
        let wanted: Vec<(TestSet, String)> = learner.wanted().into_iter().map(|(s, p)| (s, p.to_owned())).collect();
        for (set, program) in wanted {
            let outcome = if passes(&program) { Outcome::Pass } else { Outcome::FailedTest };
            let mut verdict =
                ProgramVerdict::from_host(&ProgramRequest::new(&program, vec![]), outcome, String::new(), 0.0);
            verdict.passed = outcome == Outcome::Pass;
            verdict.executed_lines = (1..=program.lines().count() as u32).collect();
            cache.insert(set, program, &verdict);
        }
        learner.update(cache);
    }

    #[test]
    fn the_arms_start_from_the_same_draws() {
        let task = &line_bank_tasks()[0];
        let verdict = canonical(task);
        let mut vanilla = Learner::new(task, 0, &verdict, Arm::Vanilla, 7, LearnerParams::default());
        let mut fgo = Learner::new(task, 0, &verdict, Arm::Fgo, 7, LearnerParams::default());
        let mut cccs = Learner::new(task, 0, &verdict, Arm::Cccs, 7, LearnerParams::default());
        assert_eq!(vanilla.wanted(), fgo.wanted(), "same seed, same first batch");
        // clamp_sum has E = 5: k = 3, s = 2, the first stage starts at statement 4 (line 8).
        assert_eq!(cccs.curriculum.start_line(), Some(8));
        let staged = cccs.wanted();
        for (_, program) in staged.iter().filter(|(set, _)| *set == TestSet::Training) {
            assert_eq!(
                program.lines().take(7).collect::<Vec<_>>(),
                task.canonical().lines().take(7).collect::<Vec<_>>()
            );
        }
        let mut other_seed = Learner::new(task, 0, &verdict, Arm::Vanilla, 8, LearnerParams::default());
        assert_ne!(vanilla.wanted(), other_seed.wanted());
    }

    /// With every program rewarded alike the baseline cancels every advantage: nothing moves. With
    /// the canonical program the only pass, its lines gain probability.
    #[test]
    fn the_group_mean_baseline_and_a_pass_move_the_policy() {
        let task = &line_bank_tasks()[0];
        let verdict = canonical(task);
        let uniform = LearnerParams { canonical_prior: 0.0, mistaken_slots: 0, ..LearnerParams::default() };
        let mut learner = Learner::new(task, 0, &verdict, Arm::Vanilla, 1, uniform);
        let mut cache = VerdictCache::default();
        run_all(&mut learner, &mut cache, |_| false);
        assert!(learner.probabilities().iter().flatten().all(|p| (p - 0.25).abs() < 1e-12));
        assert_eq!((learner.executions, learner.trace.measurements.len()), (16, 1));
        let canonical_program = task.canonical();
        let first_line = |program: &str| program.lines().nth(1).map(str::to_owned);
        let target = first_line(&canonical_program);
        // Programs whose first slot is canonical pass: that line's probability rises.
        run_all(&mut learner, &mut cache, |p| first_line(p) == target);
        let probabilities = learner.probabilities();
        assert!(probabilities[0][0] > 0.25, "{:?}", probabilities[0]);
        assert_eq!(learner.trace.gradient_terms, 2 * 16 * 10);
    }

    /// The StepCoder arm on `task` (seed 3) with a budget of 40 updates, and an empty cache.
    /// Two rollouts of a uniform slot (π = 0.25 at any temperature), one picking line 0 with
    /// advantage +1 and one line 1 with −1: the score at T = 0.8 is (onehot − π)/0.8 each, so the
    /// mean is ((e₀ − π) − (e₁ − π)) / (2 × 0.8) = [0.625, −0.625, 0, 0]; at T = 1, [0.5, −0.5, 0, 0].
    #[test]
    fn the_score_is_taken_at_the_rollout_temperature() {
        let task = &line_bank_tasks()[0];
        let verdict = canonical(task);
        let uniform = LearnerParams { canonical_prior: 0.0, mistaken_slots: 0, ..LearnerParams::default() };
        let choices = vec![vec![0; 10], vec![1; 10]];
        let kept = vec![vec![true; 10]; 2];
        for (temperature, expected) in [(0.8, 0.625), (1.0, 0.5)] {
            let params = LearnerParams { rollout_temperature: temperature, ..uniform };
            let learner = Learner::new(task, 0, &verdict, Arm::Vanilla, 1, params);
            let old = learner.rollout_probabilities();
            let gradient = learner.gradient(0, &choices, &[1.0, -1.0], &kept, &old[0]);
            let worked = [expected, -expected, 0.0, 0.0];
            assert!(gradient.iter().zip(worked).all(|(g, w)| (g - w).abs() < 1e-12), "T {temperature}: {gradient:?}");
        }
    }

    fn stepcoder_for_40_updates(task: &LineBankTask) -> (Learner, VerdictCache) {
        let params = LearnerParams { budget: 16 * 40, ..LearnerParams::default() };
        (Learner::new(task, 0, &canonical(task), Arm::StepCoder, 3, params), VerdictCache::default())
    }

    #[test]
    fn the_curriculum_moves_back_and_fgo_removes_lines_that_did_not_run() {
        let task = &line_bank_tasks()[0];
        let (mut learner, mut cache) = stepcoder_for_40_updates(task);
        // Everything passes: ρ passes 0.8 after 16 rollouts, one batch per stage.
        while !learner.is_done() {
            run_all(&mut learner, &mut cache, |_| true);
        }
        assert_eq!(learner.trace.full_task_at, Some(32));
        assert_eq!(learner.trace.masked_terms, 0, "every line ran");
        // Measurements at 0, 128, …, 640 executions.
        let at: Vec<u32> = learner.trace.measurements.iter().map(|m| m.executions).collect();
        assert_eq!(at, [0, 128, 256, 384, 512, 640]);
        assert_eq!(learner.trace.greedy_passed_at, Some(0));
    }

    #[test]
    fn the_first_and_latest_updates_are_kept_with_their_masks() {
        let task = &line_bank_tasks()[0];
        let (mut learner, mut cache) = stepcoder_for_40_updates(task);
        let target = task.canonical().lines().nth(9).map(str::to_owned);
        // A pass needs the canonical line 10 (`total += x`), which every stage samples.
        while !learner.is_done() {
            run_all(&mut learner, &mut cache, |p| p.lines().nth(9).map(str::to_owned) == target);
        }
        let first = learner.first_update.as_ref().unwrap();
        // Five conditional statements (lines 1, 3, 4, 6, 8): k = 3, s = 2, the start at
        // statement 2·2 = 4, line 8, so seven lines given.
        assert_eq!((first.executions, first.stage, first.rollouts.len()), (0, Some(2), 16));
        for rollout in &first.rollouts {
            let roles: Vec<LineRole> = rollout.mask.lines.iter().map(|l| l.role).collect();
            assert!(
                roles[..7].iter().all(|r| *r == LineRole::Prefix) && roles[7..].iter().all(|r| *r == LineRole::Kept)
            );
            let passed = rollout.outcome == Outcome::Pass;
            assert_eq!(passed, rollout.advantage > 0.0, "{rollout:?}");
        }
        let sum: f64 = first.rollouts.iter().map(|r| r.advantage).sum();
        assert!(sum.abs() < 1e-9, "advantages are centred on the batch mean: {sum}");
        let last = learner.last_update.as_ref().unwrap();
        assert_eq!(last.executions, 16 * 39);
        assert_ne!(last, first);
    }

    /// PPO-clip on one batch where the canonical first line is the only pass: its first epoch is
    /// REINFORCE's step (the ratio is 1), its later epochs go further until the clip holds, so a
    /// tight clip leaves it near REINFORCE's single step.
    #[test]
    fn ppo_clip_goes_past_one_step_until_its_clip_holds() {
        let task = &line_bank_tasks()[0];
        let verdict = canonical(task);
        let first_line = |program: &str| program.lines().nth(1).map(str::to_owned);
        let target = first_line(&task.canonical());
        let moved = |update: UpdateRule, ppo_clip: f64| {
            // Without the KL term, which pulls back once the clip holds. At T 0.8 one step already
            // moves the ratio past 1.2, so the clip of §4.2's reading (0.8) is the one with room.
            let params = LearnerParams {
                update,
                ppo_clip,
                kl_coefficient: 0.0,
                canonical_prior: 0.0,
                mistaken_slots: 0,
                ..LearnerParams::default()
            };
            let mut learner = Learner::new(task, 0, &verdict, Arm::Vanilla, 1, params);
            run_all(&mut learner, &mut VerdictCache::default(), |p| first_line(p) == target);
            learner.probabilities()[0][0]
        };
        let reinforce = moved(UpdateRule::Reinforce, 0.2);
        let (ppo, tight) = (moved(UpdateRule::PpoClip, 0.8), moved(UpdateRule::PpoClip, 0.001));
        assert!(reinforce > 0.25, "{reinforce}");
        assert!(ppo > reinforce, "four epochs go further than one step: {ppo} against {reinforce}");
        assert!(
            (tight - reinforce).abs() < 0.02,
            "a tight clip stops after about one step: {tight} against {reinforce}"
        );
    }

    /// The default start: one slot favours its first mutant, so the greedy program fails, and the
    /// arms of one seed draw the same slot.
    #[test]
    fn the_starting_policy_errs_in_one_slot_the_same_for_every_arm() {
        let task = &line_bank_tasks()[0];
        let verdict = canonical(task);
        let start = |arm: Arm, seed: u64| Learner::new(task, 0, &verdict, arm, seed, LearnerParams::default()).logits;
        let logits = start(Arm::Vanilla, 5);
        let mistaken: Vec<usize> = (0..logits.len()).filter(|&slot| logits[slot][1] == 1.5).collect();
        assert_eq!(mistaken.len(), 1);
        assert!(logits.iter().all(|slot| slot[0] == 1.0 && slot[2..].iter().all(|&l| l == 0.0)));
        assert_eq!(start(Arm::StepCoder, 5), logits);
        assert!((1..20).any(|seed| start(Arm::Vanilla, seed) != logits), "another seed, another slot");
        let two = LearnerParams { mistaken_slots: 2, ..LearnerParams::default() };
        let logits = Learner::new(task, 0, &verdict, Arm::Vanilla, 5, two).logits;
        assert_eq!(logits.iter().filter(|slot| slot[1] == 1.5).count(), 2);
        let mut learner = Learner::new(task, 0, &verdict, Arm::Vanilla, 5, LearnerParams::default());
        assert_ne!(learner.greedy_program(), task.canonical());
    }

    #[test]
    fn bad_settings_are_named() {
        use crate::params::Parameters;
        let params = LearnerParams { rollouts: 1, ..LearnerParams::default() };
        assert!(params.validate().unwrap_err().contains("rollouts"));
        let params = LearnerParams { budget: 8, ..LearnerParams::default() };
        assert!(params.validate().unwrap_err().contains("budget"));
        assert_eq!(LearnerParams::default().validate(), Ok(()));
        assert_eq!(Arm::parse("stepcoder"), Ok(Arm::StepCoder));
        assert!(Arm::parse("ppo").unwrap_err().contains("vanilla, cccs, fgo and stepcoder"));
    }
}
