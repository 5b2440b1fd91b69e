//! The executive environment of seed 000 §3 and Listing 3 (`CodeGenEnv`).
//!
//! Each episode draws one task; the agent calls generate / test / debug / search / stop on a
//! deterministic simulated LLM whose answers, and their test verdicts, are task data. Illegal actions
//! are soft failures: −5, `invalid_action` is set for the rest of the episode (so `stop` can no
//! longer succeed), and the episode goes on.
//!
//! The rules (legality, rewards, termination) are functions of the flags and a typed outcome,
//! shared with live mode (`live.rs`), which takes its outcomes from a real LLM and real tests.

use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActionMask, EnvId, EnvInfo, Environment, Observation, SeedEnvironment, Step, StepCosts, StepInfo, flag};
use crate::env::tasks::{
    BundledProgram, ExecutiveTask, MeasuredVerdict, executive_programs, executive_tasks, executive_tasks_measured,
};
use crate::params::{check_range, check_reward};

pub mod live;

pub const GENERATE: usize = 0;
pub const TEST: usize = 1;
pub const DEBUG: usize = 2;
pub const SEARCH: usize = 3;
pub const STOP: usize = 4;
pub const ACTION_NAMES: &[&str] = &["generate", "test", "debug", "search", "stop"];

/// Rewards and limits of seed 000 §3.4.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ExecutiveRewards {
    /// Added to every step to encourage brevity.
    pub step: f64,
    /// Reward of generating the first program.
    pub generate: f64,
    /// Reward of a test run that passes.
    pub test_pass: f64,
    /// Reward of a test run that fails.
    pub test_fail: f64,
    /// Reward of a debug call after a failed test.
    pub debug: f64,
    /// Reward of searching the documentation.
    pub search: f64,
    /// Illegal action (soft fail: the episode continues).
    pub invalid: f64,
    /// Stopping after a passing test, with no illegal action in the episode.
    pub stop_success: f64,
    /// Stopping otherwise.
    pub stop_failure: f64,
    /// Added when the step limit ends the episode.
    pub step_limit: f64,
    /// Steps before the episode is truncated.
    pub max_steps: u32,
    /// A task may be tested at most this many times (the state counts up to 4).
    pub max_tests: usize,
}

impl ExecutiveRewards {
    /// Checks every field; the error names the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        let rewards = [
            ("step", self.step),
            ("generate", self.generate),
            ("test_pass", self.test_pass),
            ("test_fail", self.test_fail),
            ("debug", self.debug),
            ("search", self.search),
            ("invalid", self.invalid),
            ("stop_success", self.stop_success),
            ("stop_failure", self.stop_failure),
            ("step_limit", self.step_limit),
        ];
        rewards.into_iter().try_for_each(|(field, value)| check_reward(field, value))?;
        check_range("max_steps", f64::from(self.max_steps), 1.0..=100.0)?;
        check_range("max_tests", self.max_tests as f64, 1.0..=4.0)
    }
}

/// The executive's parameters in a run spec: its rewards, and where its test verdicts come from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecutiveParams {
    #[serde(flatten)]
    pub rewards: ExecutiveRewards,
    /// Verdicts measured by running every program of the tasks in Python (the page's "test actions
    /// run the code in Python"); they replace the recorded ones. Set by the host, not a form field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub measured_verdicts: Option<Vec<MeasuredVerdict>>,
}

impl ExecutiveParams {
    pub fn validate(&self) -> Result<(), String> {
        self.rewards.validate()?;
        self.tasks().map(|_| ())
    }

    /// The bundled tasks, with the measured verdicts where there are some.
    pub fn tasks(&self) -> Result<Arc<[ExecutiveTask]>, String> {
        match &self.measured_verdicts {
            None => Ok(executive_tasks()),
            Some(measured) => executive_tasks_measured(measured),
        }
    }
}

impl Default for ExecutiveRewards {
    fn default() -> Self {
        Self {
            step: -0.1,
            generate: 1.0,
            test_pass: 1.0,
            test_fail: -1.0,
            debug: 2.0,
            search: 1.5,
            invalid: -5.0,
            stop_success: 30.0,
            stop_failure: -10.0,
            step_limit: -10.0,
            max_steps: 10,
            max_tests: 4,
        }
    }
}

/// The seed's flag vector `[has_generated, debug_count, has_searched, test_count, invalid_action,
/// last_test_passed]`, which alone decides legality and the optimal action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecutiveFlags {
    pub has_generated: bool,
    pub debug_count: u8,
    pub has_searched: bool,
    pub test_count: u8,
    pub invalid_action: bool,
    pub last_test_passed: bool,
}

impl ExecutiveFlags {
    pub const N_STATES: usize = 2 * 3 * 2 * 5 * 2 * 2;

    pub fn index(self) -> usize {
        let mut i = usize::from(self.has_generated);
        i = i * 3 + usize::from(self.debug_count.min(2));
        i = i * 2 + usize::from(self.has_searched);
        i = i * 5 + usize::from(self.test_count.min(4));
        i = i * 2 + usize::from(self.invalid_action);
        i * 2 + usize::from(self.last_test_passed)
    }

    pub fn from_index(mut i: usize) -> Self {
        let last_test_passed = i % 2 == 1;
        i /= 2;
        let invalid_action = i % 2 == 1;
        i /= 2;
        let test_count = (i % 5) as u8;
        i /= 5;
        let has_searched = i % 2 == 1;
        i /= 2;
        let debug_count = (i % 3) as u8;
        i /= 3;
        Self { has_generated: i % 2 == 1, debug_count, has_searched, test_count, invalid_action, last_test_passed }
    }

    pub fn as_features(self) -> [f32; 6] {
        [
            f32::from(u8::from(self.has_generated)),
            f32::from(self.debug_count),
            f32::from(u8::from(self.has_searched)),
            f32::from(self.test_count),
            f32::from(u8::from(self.invalid_action)),
            f32::from(u8::from(self.last_test_passed)),
        ]
    }

    /// The seed agent's `_compute_action_mask` (Listing 6), derived from the flags alone.
    pub fn mask(self) -> ActionMask {
        let generate = !self.has_generated;
        let test = self.has_generated && self.test_count < 4 && !self.last_test_passed;
        let debug = self.test_count > 0
            && !self.last_test_passed
            && self.debug_count < 2
            && !(self.debug_count == 1 && self.test_count != 2);
        let search = self.debug_count == 1 && self.test_count == 2 && !self.last_test_passed && !self.has_searched;
        let stop = self.last_test_passed && !self.invalid_action;
        ActionMask::from_legal(&[generate, test, debug, search, stop])
    }
}

/// What came of a legal action, whoever produced it: the simulator reads it from its task data,
/// live mode from a real reply or test run. Both apply it with [`ExecutiveFlags::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecutiveOutcome {
    Generated,
    /// The tests ran and passed, or not.
    Tested(bool),
    Debugged,
    Searched,
    /// The agent stopped, with the task solved or not.
    Stopped(bool),
}

impl ExecutiveFlags {
    /// Whether `action` is legal (`CodeGenEnv.step`'s guards): generate once; test generated code
    /// at most `max_tests` times until a test passes; debug after a failed test, at most twice,
    /// the second time only after the second test or a search; search once, after one debug and
    /// two failed tests; stop at any time.
    ///
    /// # Panics
    /// If `action` is outside 0..5.
    pub fn allows(self, action: usize, max_tests: usize) -> bool {
        let tests = usize::from(self.test_count);
        match action {
            GENERATE => !self.has_generated,
            TEST => self.has_generated && tests < max_tests && !self.last_test_passed,
            DEBUG => {
                let second_without_search = self.debug_count == 1 && !self.has_searched && tests != 2;
                tests > 0 && !self.last_test_passed && self.debug_count < 2 && !second_without_search
            }
            SEARCH => !self.has_searched && self.debug_count == 1 && tests == 2 && !self.last_test_passed,
            STOP => true,
            _ => panic!("executive action {action} is outside 0..5"),
        }
    }

    /// Seed 000 §3.4's rules for a legal action that led to `outcome`: the new flags and the
    /// action's reward.
    pub fn apply(&mut self, outcome: ExecutiveOutcome, r: &ExecutiveRewards) -> f64 {
        match outcome {
            ExecutiveOutcome::Generated => {
                self.has_generated = true;
                r.generate
            }
            ExecutiveOutcome::Tested(passed) => {
                self.test_count += 1;
                self.last_test_passed = passed;
                if passed { r.test_pass } else { r.test_fail }
            }
            ExecutiveOutcome::Debugged => {
                self.debug_count += 1;
                r.debug
            }
            ExecutiveOutcome::Searched => {
                self.has_searched = true;
                r.search
            }
            ExecutiveOutcome::Stopped(success) => {
                if success {
                    r.stop_success
                } else {
                    r.stop_failure
                }
            }
        }
    }

    /// The accounting of step number `steps`, whose action earned `action_reward` (`None`:
    /// illegal, which sets the sticky `invalid_action`): its reward, whether the step limit
    /// truncated the episode, and its info (the caller fills in `success`).
    pub fn settle(
        &mut self,
        action_reward: Option<f64>,
        agent_call: bool,
        steps: u32,
        terminated: bool,
        r: &ExecutiveRewards,
    ) -> (f64, bool, StepInfo) {
        self.invalid_action |= action_reward.is_none();
        let costs = StepCosts { step: r.step, invalid: r.invalid, step_limit: r.step_limit, max_steps: r.max_steps };
        costs.settle(action_reward, agent_call, steps, terminated)
    }
}

/// Seed 000's `CodeGenEnv` over a set of tasks; each reset draws one uniformly.
#[derive(Clone, Debug)]
pub struct ExecutiveEnv {
    tasks: Arc<[ExecutiveTask]>,
    /// Restricts episodes to one task (index into `tasks`).
    fixed_task: Option<usize>,
    rewards: ExecutiveRewards,
    rng: ChaCha8Rng,
    task: usize,
    steps: u32,
    done: bool,
    flags: ExecutiveFlags,
    /// Name of the code variant the simulated LLM last produced ("" before generate).
    code_variant: String,
    test_results: Vec<bool>,
    feedback: String,
}

impl Default for ExecutiveEnv {
    fn default() -> Self {
        Self::new(executive_tasks(), None, ExecutiveRewards::default())
    }
}

impl ExecutiveEnv {
    /// # Panics
    /// If `tasks` is empty or `fixed_task` is out of range.
    pub fn new(tasks: Arc<[ExecutiveTask]>, fixed_task: Option<usize>, rewards: ExecutiveRewards) -> Self {
        assert!(!tasks.is_empty(), "the executive environment needs at least one task");
        assert!(fixed_task.is_none_or(|t| t < tasks.len()), "fixed task out of range");
        let mut env = Self {
            tasks,
            fixed_task,
            rewards,
            rng: ChaCha8Rng::seed_from_u64(0),
            task: 0,
            steps: 0,
            done: false,
            flags: ExecutiveFlags::default(),
            code_variant: String::new(),
            test_results: Vec::new(),
            feedback: String::new(),
        };
        env.reset(0);
        env
    }

    /// Only the task named `task_id`, if there is one.
    pub fn for_task(task_id: &str) -> Option<Self> {
        let tasks = executive_tasks();
        let index = tasks.iter().position(|t| t.task_id == task_id)?;
        Some(Self::new(tasks, Some(index), ExecutiveRewards::default()))
    }

    pub fn task(&self) -> &ExecutiveTask {
        &self.tasks[self.task]
    }

    pub fn flags(&self) -> ExecutiveFlags {
        self.flags
    }

    /// The code the simulated LLM last produced ("" before generate).
    pub fn current_code(&self) -> &str {
        self.task().code_of(&self.code_variant)
    }

    /// The last test feedback, e.g. `Tests 3/5` ("" before the first test).
    pub fn feedback(&self) -> &str {
        &self.feedback
    }

    fn start(&mut self, task: usize) -> Observation {
        self.task = task;
        self.steps = 0;
        self.done = false;
        self.flags = ExecutiveFlags::default();
        self.code_variant.clear();
        self.test_results.clear();
        self.feedback.clear();
        self.observation()
    }

    fn is_success(&self) -> bool {
        let f = self.flags;
        if f.invalid_action {
            return false;
        }
        if self.task().requires_search {
            self.test_results == [false, false, true] && f.debug_count == 2 && f.has_searched
        } else {
            self.test_results == [true] || (self.test_results == [false, true] && f.debug_count == 1)
        }
    }

    /// What a legal `action` leads to under the task's simulated LLM: its recorded programs and
    /// their recorded verdicts.
    fn draw(&mut self, action: usize) -> ExecutiveOutcome {
        let task = &self.tasks[self.task];
        match action {
            GENERATE => {
                self.code_variant = task.simulated_llm.generate.clone();
                ExecutiveOutcome::Generated
            }
            TEST => {
                let verdict = task.verdict_of(&self.code_variant);
                self.test_results.push(verdict.passed);
                self.feedback = format!("Tests {}/{}", verdict.number_passed, verdict.total);
                ExecutiveOutcome::Tested(verdict.passed)
            }
            DEBUG => {
                let llm = &task.simulated_llm;
                let variant = if self.flags.has_searched { &llm.debug_after_search } else { &llm.debug };
                self.code_variant = variant.clone();
                ExecutiveOutcome::Debugged
            }
            SEARCH => ExecutiveOutcome::Searched,
            _ => {
                self.done = true;
                ExecutiveOutcome::Stopped(self.is_success())
            }
        }
    }
}

impl SeedEnvironment for ExecutiveEnv {
    const NAME: &'static str = "executive";
    const SUMMARY: &'static str = "Seed 000: pick generate, test, debug, search or stop to solve three HumanEval-style tasks with a simulated LLM";
    const SOURCE: &'static str = "seed-000";
    const ACTION_NAMES: &'static [&'static str] = ACTION_NAMES;
    const LIVE_PIPELINE: Option<&'static str> = Some("generate → test → debug → test → stop");
    const CANONICAL_PATHS: Option<&'static str> = Some(
        "The executive's canonical paths: generate → test → stop; generate → test → debug → test → stop; \
         and, for the task that needs documentation, generate → test → debug → test → search → debug → test → stop.",
    );
    const MEASURES_VERDICTS: bool = true;

    /// Seed 000's 3000; a neural agent learns from its expert episodes in 500.
    fn default_episodes(neural_agent: bool) -> u32 {
        if neural_agent { 500 } else { 3000 }
    }

    fn bundled_programs() -> Vec<BundledProgram> {
        executive_programs()
    }
}

impl Environment for ExecutiveEnv {
    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: EnvId::Executive,
            action_names: ACTION_NAMES,
            n_states: ExecutiveFlags::N_STATES,
            feature_dim: 6,
            text_names: &["prompt", "code", "feedback"],
            tasks: self.tasks.iter().map(|t| t.task_id.clone()).collect(),
        }
    }

    fn reset(&mut self, seed: u64) -> Observation {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        let task = self.fixed_task.unwrap_or_else(|| self.rng.random_range(0..self.tasks.len()));
        self.start(task)
    }

    fn reset_task(&mut self, seed: u64, task: usize) -> Observation {
        assert!(task < self.tasks.len(), "task {task} is out of range");
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.start(task)
    }

    /// The task prompt, the current code and the last test feedback (seed 000 §5.4).
    fn texts(&self) -> Vec<&str> {
        vec![&self.task().prompt, self.current_code(), &self.feedback]
    }

    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)> {
        let f = ExecutiveFlags::from_index(state);
        vec![
            flag("generated", f.has_generated),
            ("debugs", f.debug_count.to_string()),
            flag("searched", f.has_searched),
            ("tests", f.test_count.to_string()),
            flag("an invalid action so far", f.invalid_action),
            flag("last test passed", f.last_test_passed),
        ]
    }

    /// Seed 000 Listing 7's expert sequences, derived from the task data.
    fn expert_actions(&self) -> Option<Vec<usize>> {
        let task = self.task();
        Some(if task.requires_search {
            vec![GENERATE, TEST, DEBUG, TEST, SEARCH, DEBUG, TEST, STOP]
        } else if task.verdict_of(&task.simulated_llm.generate).passed {
            vec![GENERATE, TEST, STOP]
        } else {
            vec![GENERATE, TEST, DEBUG, TEST, STOP]
        })
    }

    fn step(&mut self, action: usize) -> Step {
        assert!(!self.done, "step() after the episode ended: call reset()");
        self.steps += 1;
        let r = self.rewards;
        let action_reward = self.flags.allows(action, r.max_tests).then(|| {
            let outcome = self.draw(action);
            self.flags.apply(outcome, &r)
        });
        let agent_call = matches!(action, GENERATE | DEBUG | SEARCH);
        let terminated = self.done;
        let (reward, truncated, mut info) = self.flags.settle(action_reward, agent_call, self.steps, terminated, &r);
        self.done |= truncated;
        info.success = terminated && self.is_success();
        Step { observation: self.observation(), reward, terminated, truncated, info }
    }

    fn observation(&self) -> Observation {
        Observation { state: self.flags.index(), mask: self.flags.mask() }
    }

    fn features(&self, out: &mut [f32]) {
        out.copy_from_slice(&self.flags.as_features());
    }

    fn task_index(&self) -> usize {
        self.task
    }
}

#[cfg(test)]
mod tests;
