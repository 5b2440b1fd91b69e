//! The planner environment of seed 000 §7 and Listing 9 (`PlannerEnv`): one planning episode,
//! planning → execution → integration → evaluation → stop, on the `compute(a, b)` task.
//!
//! The simulated planner LLM is deterministic: planning yields the three subtasks of the task data,
//! execution their helper functions, integration the integrated program, and evaluation its
//! recorded verdict.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActionMask, EnvId, EnvInfo, Environment, Observation, SeedEnvironment, Step, StepCosts, flag};
use crate::env::tasks::{BundledProgram, PlannerTask, planner_programs, planner_task};
use crate::params::{check_range, check_reward};

pub const PLANNING: usize = 0;
pub const EXECUTION: usize = 1;
pub const INTEGRATION: usize = 2;
pub const EVALUATION: usize = 3;
pub const STOP: usize = 4;
pub const ACTION_NAMES: &[&str] = &["planning", "execution", "integration", "evaluation", "stop"];

/// Rewards and limits of seed 000 §7.2.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PlannerRewards {
    /// Added to every step.
    pub step: f64,
    /// Reward of planning the subtasks.
    pub planning: f64,
    /// Reward of executing the planned subtasks.
    pub execution: f64,
    /// Reward of integrating the subtasks' code.
    pub integration: f64,
    /// Reward of an evaluation whose tests pass.
    pub evaluation_pass: f64,
    /// Reward of an evaluation whose tests fail.
    pub evaluation_fail: f64,
    /// Illegal action (soft fail: the episode continues).
    pub invalid: f64,
    /// Stopping after a passing evaluation, with no illegal action in the episode.
    pub stop_success: f64,
    /// Stopping otherwise.
    pub stop_failure: f64,
    /// Added when the step limit ends the episode.
    pub step_limit: f64,
    /// Steps before the episode is truncated.
    pub max_steps: u32,
}

impl PlannerRewards {
    /// Checks every field; the error names the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        let rewards = [
            ("step", self.step),
            ("planning", self.planning),
            ("execution", self.execution),
            ("integration", self.integration),
            ("evaluation_pass", self.evaluation_pass),
            ("evaluation_fail", self.evaluation_fail),
            ("invalid", self.invalid),
            ("stop_success", self.stop_success),
            ("stop_failure", self.stop_failure),
            ("step_limit", self.step_limit),
        ];
        rewards.into_iter().try_for_each(|(field, value)| check_reward(field, value))?;
        check_range("max_steps", f64::from(self.max_steps), 1.0..=100.0)
    }
}

impl Default for PlannerRewards {
    fn default() -> Self {
        Self {
            step: -0.1,
            planning: 1.0,
            execution: 1.5,
            integration: 2.0,
            evaluation_pass: 5.0,
            evaluation_fail: -1.0,
            invalid: -5.0,
            stop_success: 30.0,
            stop_failure: -10.0,
            step_limit: -10.0,
            max_steps: 10,
        }
    }
}

/// The seed's planner flags `[has_planned, executed_count, integrated, evaluated, invalid_action,
/// last_test_passed]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlannerFlags {
    pub has_planned: bool,
    pub executed: bool,
    pub integrated: bool,
    pub evaluated: bool,
    pub invalid_action: bool,
    pub last_test_passed: bool,
}

impl PlannerFlags {
    pub const N_STATES: usize = 64;

    pub fn bits(self) -> [bool; 6] {
        [self.has_planned, self.executed, self.integrated, self.evaluated, self.invalid_action, self.last_test_passed]
    }

    pub fn index(self) -> usize {
        self.bits().iter().fold(0, |i, &b| i * 2 + usize::from(b))
    }

    pub fn from_index(i: usize) -> Self {
        let bit = |k: usize| (i >> (5 - k)) & 1 == 1;
        Self {
            has_planned: bit(0),
            executed: bit(1),
            integrated: bit(2),
            evaluated: bit(3),
            invalid_action: bit(4),
            last_test_passed: bit(5),
        }
    }

    /// The planner agent's exploitation mask (Listing 9, `_compute_action_mask`). The seed explores
    /// without it, so the agent can discover failures.
    pub fn mask(self) -> ActionMask {
        ActionMask::from_legal(&[
            !self.has_planned,
            self.has_planned && !self.executed,
            self.executed && !self.integrated,
            self.integrated && !self.evaluated,
            self.last_test_passed && !self.invalid_action,
        ])
    }
}

#[derive(Clone, Debug)]
pub struct PlannerEnv {
    task: Arc<PlannerTask>,
    rewards: PlannerRewards,
    steps: u32,
    done: bool,
    flags: PlannerFlags,
    feedback: String,
}

impl Default for PlannerEnv {
    fn default() -> Self {
        Self::new(planner_task(), PlannerRewards::default())
    }
}

impl PlannerEnv {
    pub fn new(task: Arc<PlannerTask>, rewards: PlannerRewards) -> Self {
        Self { task, rewards, steps: 0, done: false, flags: PlannerFlags::default(), feedback: String::new() }
    }

    pub fn task(&self) -> &PlannerTask {
        &self.task
    }

    pub fn flags(&self) -> PlannerFlags {
        self.flags
    }

    /// The integrated program ("" before integration).
    pub fn integrated_code(&self) -> &str {
        if self.flags.integrated { &self.task.integrated_code } else { "" }
    }

    pub fn feedback(&self) -> &str {
        &self.feedback
    }

    fn apply(&mut self, action: usize) -> Option<f64> {
        let r = self.rewards;
        let f = &mut self.flags;
        match action {
            PLANNING if !f.has_planned => {
                f.has_planned = true;
                Some(r.planning)
            }
            EXECUTION if f.has_planned && !f.executed => {
                f.executed = true;
                Some(r.execution)
            }
            INTEGRATION if f.executed && !f.integrated => {
                f.integrated = true;
                Some(r.integration)
            }
            EVALUATION if f.integrated && !f.evaluated => {
                let verdict = self.task.integrated_verdict;
                f.evaluated = true;
                f.last_test_passed = verdict.passed;
                self.feedback = format!("Tests {}/{}", verdict.number_passed, verdict.total);
                Some(if verdict.passed { r.evaluation_pass } else { r.evaluation_fail })
            }
            STOP => {
                self.done = true;
                Some(if self.is_success() { r.stop_success } else { r.stop_failure })
            }
            PLANNING | EXECUTION | INTEGRATION | EVALUATION => None,
            _ => panic!("planner action {action} is outside 0..5"),
        }
    }

    fn is_success(&self) -> bool {
        self.flags.evaluated && self.flags.last_test_passed && !self.flags.invalid_action
    }
}

impl SeedEnvironment for PlannerEnv {
    const NAME: &'static str = "planner";
    const SUMMARY: &'static str =
        "Seed 000: one planning episode, planning -> execution -> integration -> evaluation -> stop, for compute(a, b)";
    const SOURCE: &'static str = "seed-000";
    const ACTION_NAMES: &'static [&'static str] = ACTION_NAMES;

    /// Seed 000's 3000; a neural agent learns from its expert episodes in 500.
    fn default_episodes(neural_agent: bool) -> u32 {
        if neural_agent { 500 } else { 3000 }
    }

    fn bundled_programs() -> Vec<BundledProgram> {
        planner_programs()
    }
}

impl Environment for PlannerEnv {
    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: EnvId::Planner,
            action_names: ACTION_NAMES,
            n_states: PlannerFlags::N_STATES,
            feature_dim: 6,
            text_names: &["prompt", "integrated code", "feedback"],
            tasks: vec![self.task.task_id.clone()],
        }
    }

    /// The task prompt, the integrated program and the test feedback.
    fn texts(&self) -> Vec<&str> {
        vec![&self.task.prompt, self.integrated_code(), &self.feedback]
    }

    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)> {
        let f = PlannerFlags::from_index(state);
        vec![
            flag("planned", f.has_planned),
            flag("executed", f.executed),
            flag("integrated", f.integrated),
            flag("evaluated", f.evaluated),
            flag("an invalid action so far", f.invalid_action),
            flag("last test passed", f.last_test_passed),
        ]
    }

    /// Seed 000 §7: the one planning episode.
    fn expert_actions(&self) -> Option<Vec<usize>> {
        Some(vec![PLANNING, EXECUTION, INTEGRATION, EVALUATION, STOP])
    }

    fn reset(&mut self, _seed: u64) -> Observation {
        // The planner's simulated LLM is deterministic: the seed has nothing to draw.
        self.steps = 0;
        self.done = false;
        self.flags = PlannerFlags::default();
        self.feedback.clear();
        self.observation()
    }

    fn step(&mut self, action: usize) -> Step {
        assert!(!self.done, "step() after the episode ended: call reset()");
        self.steps += 1;
        let action_reward = self.apply(action);
        if action_reward.is_none() {
            self.flags.invalid_action = true;
        }
        let r = self.rewards;
        let costs = StepCosts { step: r.step, invalid: r.invalid, step_limit: r.step_limit, max_steps: r.max_steps };
        let agent_call = matches!(action, PLANNING | EXECUTION | INTEGRATION);
        let terminated = self.done;
        let (reward, truncated, mut info) = costs.settle(action_reward, agent_call, self.steps, terminated);
        self.done |= truncated;
        info.success = terminated && self.is_success();
        Step { observation: self.observation(), reward, terminated, truncated, info }
    }

    fn observation(&self) -> Observation {
        Observation { state: self.flags.index(), mask: self.flags.mask() }
    }

    fn features(&self, out: &mut [f32]) {
        for (o, b) in out.iter_mut().zip(self.flags.bits()) {
            *o = f32::from(u8::from(b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_episode_succeeds_with_the_seed_return() {
        let mut env = PlannerEnv::default();
        let mut obs = env.reset(0);
        let mut ret = 0.0;
        let mut last = None;
        for a in [PLANNING, EXECUTION, INTEGRATION, EVALUATION, STOP] {
            assert!(obs.mask.allows(a));
            let step = env.step(a);
            ret += step.reward;
            obs = step.observation;
            last = Some(step);
        }
        let last = last.unwrap();
        assert!(last.terminated && last.info.success);
        assert!((ret - (0.9 + 1.4 + 1.9 + 4.9 + 29.9)).abs() < 1e-9, "{ret}");
        assert_eq!(env.feedback(), "Tests 4/4");
        assert!(env.integrated_code().contains("def compute(a, b)"));
    }

    #[test]
    fn out_of_order_actions_are_soft_failures() {
        for (prefix, illegal) in [
            (&[][..], EXECUTION),
            (&[PLANNING][..], PLANNING),
            (&[PLANNING][..], INTEGRATION),
            (&[PLANNING, EXECUTION][..], EVALUATION),
            (&[PLANNING, EXECUTION][..], EXECUTION),
            (&[PLANNING, EXECUTION, INTEGRATION, EVALUATION][..], EVALUATION),
        ] {
            let mut env = PlannerEnv::default();
            env.reset(0);
            prefix.iter().for_each(|&a| assert!(!env.step(a).info.invalid_action));
            let step = env.step(illegal);
            assert!(step.info.invalid_action && !step.done());
            assert!((step.reward + 5.1).abs() < 1e-9);
        }
    }

    #[test]
    fn stopping_early_fails() {
        let mut env = PlannerEnv::default();
        env.reset(0);
        let step = env.step(STOP);
        assert!(step.terminated && !step.info.success);
        assert!((step.reward + 10.1).abs() < 1e-9);
    }

    #[test]
    fn flags_index_round_trips() {
        for i in 0..PlannerFlags::N_STATES {
            assert_eq!(PlannerFlags::from_index(i).index(), i);
        }
    }
}
