//! The orchestrator environment of seed 003 (§3 and §4.1): an RL orchestrator chooses which of four
//! LLM agents to call next, on a simulator calibrated from real LLM behaviour.
//!
//! # State (seed 003 §3.1, 64 states)
//! `has_plan`, `has_code`, `has_error`, `tests_pass` and the iteration bucket 0, 1, 2, 3+, where an
//! iteration is one agent call (as in the seed's simulator) and at most 5 are allowed.
//!
//! # Transition rules
//! The paper gives the probabilities and the reward table but not every rule; these are ours, chosen
//! so each calibrated probability has the meaning its table gives it:
//! * **planner**: with `planner_success` the plan is created (+0.2). A plan is for writing code, so
//!   calling the planner is redundant once a plan exists, and while there is code that no test has
//!   found fault with (there is nothing to plan until the coder must write again).
//! * **coder**: writes the program; it is correct with `coder_success_with_plan` or
//!   `coder_success_without_plan` (+0.3 the first time code exists). Rewriting code that nothing has
//!   found fault with is redundant and changes nothing; rewriting after the tester found an error
//!   draws a fresh program.
//! * **tester**: runs the task's tests on the code. Correct code passes. Wrong code is caught with
//!   `tester_finds_error`, which sets `has_error`; otherwise the bug slips through the task's tests,
//!   which pass. This is the seed's "Task success (tests pass)": success means the tests pass, and,
//!   as in the seed's simulator, weak tests can let a bug through. Testing without code, or testing
//!   again while a found error is unfixed, is redundant.
//! * **debugger**: fixes the found error with `debugger_fixes_error` (+0.5, the code becomes correct
//!   and `has_error` clears); otherwise nothing changes. Without a found error it is redundant.
//! * Every call costs −0.1; a redundant one another −0.2 and changes nothing. Passing tests end the
//!   episode with +10; reaching `max_iterations` calls without that ends it with −5 (timeout).
//!
//! The action mask holds what the seed calls validity: the tester needs code and no open error, the
//! debugger needs an open error; planner and coder are always valid.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActionMask, EnvId, EnvInfo, Environment, Observation, SeedEnvironment, Step, StepInfo, flag};
use crate::params::{check_range, check_reward};

pub mod live;
pub mod value_iteration;

pub const PLANNER: usize = 0;
pub const CODER: usize = 1;
pub const TESTER: usize = 2;
pub const DEBUGGER: usize = 3;
pub const ACTION_NAMES: &[&str] = &["planner", "coder", "tester", "debugger"];

/// Seed 003 §5.3's fixed pipeline, the baseline: every call in this order, whatever the results.
pub const PIPELINE: [usize; 5] = [PLANNER, CODER, TESTER, DEBUGGER, TESTER];

/// The names of the five probabilities, as fields of [`OrchestratorParams`] (and of share links).
pub const PLANNER_SUCCESS: &str = "planner_success";
pub const CODER_SUCCESS_WITH_PLAN: &str = "coder_success_with_plan";
pub const CODER_SUCCESS_WITHOUT_PLAN: &str = "coder_success_without_plan";
pub const TESTER_FINDS_ERROR: &str = "tester_finds_error";
pub const DEBUGGER_FIXES_ERROR: &str = "debugger_fixes_error";

/// Simulator parameters and rewards of seed 003 (§3.3, §4.1, §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OrchestratorParams {
    /// Probability that the planner produces a usable plan.
    pub planner_success: f64,
    /// Probability that the coder writes correct code when a plan exists.
    pub coder_success_with_plan: f64,
    /// Probability that the coder writes correct code without a plan.
    pub coder_success_without_plan: f64,
    /// Probability that the tests catch a bug in wrong code.
    pub tester_finds_error: f64,
    /// Probability that the debugger fixes a found error.
    pub debugger_fixes_error: f64,
    /// Agent calls allowed per episode.
    pub max_iterations: u32,
    /// The tests pass: the task is solved.
    pub reward_success: f64,
    /// The call budget ran out.
    pub reward_timeout: f64,
    /// A plan was created.
    pub reward_plan: f64,
    /// Code exists for the first time.
    pub reward_code: f64,
    /// The debugger fixed a found error.
    pub reward_fix: f64,
    /// Added to a redundant call, which changes nothing.
    pub reward_redundant: f64,
    /// Added to every call.
    pub reward_step: f64,
}

impl OrchestratorParams {
    /// The five calibrated probabilities of seed 003 §4.1, by field name.
    pub fn odds(&self) -> [(&'static str, f64); 5] {
        [
            (PLANNER_SUCCESS, self.planner_success),
            (CODER_SUCCESS_WITH_PLAN, self.coder_success_with_plan),
            (CODER_SUCCESS_WITHOUT_PLAN, self.coder_success_without_plan),
            (TESTER_FINDS_ERROR, self.tester_finds_error),
            (DEBUGGER_FIXES_ERROR, self.debugger_fixes_error),
        ]
    }

    /// Checks every field; the error names the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        self.odds().into_iter().try_for_each(|(field, value)| check_range(field, value, 0.0..=1.0))?;
        check_range("max_iterations", f64::from(self.max_iterations), 1.0..=100.0)?;
        let rewards = [
            ("reward_success", self.reward_success),
            ("reward_timeout", self.reward_timeout),
            ("reward_plan", self.reward_plan),
            ("reward_code", self.reward_code),
            ("reward_fix", self.reward_fix),
            ("reward_redundant", self.reward_redundant),
            ("reward_step", self.reward_step),
        ];
        rewards.into_iter().try_for_each(|(field, value)| check_reward(field, value))
    }
}

impl Default for OrchestratorParams {
    fn default() -> Self {
        Self {
            planner_success: 0.95,
            coder_success_with_plan: 0.85,
            coder_success_without_plan: 0.60,
            tester_finds_error: 0.40,
            debugger_fixes_error: 0.70,
            max_iterations: 5,
            reward_success: 10.0,
            reward_timeout: -5.0,
            reward_plan: 0.2,
            reward_code: 0.3,
            reward_fix: 0.5,
            reward_redundant: -0.2,
            reward_step: -0.1,
        }
    }
}

/// What came of a useful agent call, whoever produced it: the simulator draws it with the
/// calibrated odds, live mode reads it from a real reply or test run. Both apply it with
/// [`OrchestratorState::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrchestratorOutcome {
    /// The planner's reply holds a usable plan, or not.
    Planned(bool),
    /// The coder wrote a program, or its reply held none.
    Coded(bool),
    /// The tests passed, or found an error.
    Tested(bool),
    /// The debugger fixed the error, or not.
    Debugged(bool),
}

/// One way a call can go: its probability, its outcome, and whether the code is correct after it.
pub type Branch = (f64, OrchestratorOutcome, bool);

/// The ways a useful call can go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Odds {
    Certain(Branch),
    /// The first branch with its probability, else the second.
    Either(Branch, Branch),
}

impl OrchestratorParams {
    /// The calibrated odds of a useful `action` in `state`, when the code is `correct` (hidden):
    /// the planner makes a plan; the coder writes correct code, more often with a plan; the tests
    /// catch wrong code; the debugger fixes a found error. The simulator draws from these, and
    /// value iteration weighs by them.
    pub fn outcomes(&self, state: OrchestratorState, correct: bool, action: usize) -> Odds {
        let either = |p: f64, yes: (OrchestratorOutcome, bool), no: (OrchestratorOutcome, bool)| {
            Odds::Either((p, yes.0, yes.1), (1.0 - p, no.0, no.1))
        };
        match action {
            PLANNER => either(
                self.planner_success,
                (OrchestratorOutcome::Planned(true), correct),
                (OrchestratorOutcome::Planned(false), correct),
            ),
            CODER => {
                let odds = if state.has_plan { self.coder_success_with_plan } else { self.coder_success_without_plan };
                either(odds, (OrchestratorOutcome::Coded(true), true), (OrchestratorOutcome::Coded(true), false))
            }
            TESTER if correct => Odds::Certain((1.0, OrchestratorOutcome::Tested(true), true)),
            TESTER => either(
                self.tester_finds_error,
                (OrchestratorOutcome::Tested(false), false),
                (OrchestratorOutcome::Tested(true), false),
            ),
            _ => either(
                self.debugger_fixes_error,
                (OrchestratorOutcome::Debugged(true), true),
                (OrchestratorOutcome::Debugged(false), correct),
            ),
        }
    }
}

/// The observable state of seed 003 §3.1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OrchestratorState {
    pub has_plan: bool,
    pub has_code: bool,
    pub has_error: bool,
    pub tests_pass: bool,
    /// Agent calls so far.
    pub iteration: u32,
}

impl OrchestratorState {
    pub const N_STATES: usize = 64;
    /// Four flags, then the iteration bucket one-hot.
    pub const FEATURE_DIM: usize = 8;

    pub fn iteration_bucket(self) -> usize {
        self.iteration.min(3) as usize
    }

    pub fn index(self) -> usize {
        let flags = [self.has_plan, self.has_code, self.has_error, self.tests_pass];
        flags.iter().fold(0, |i, &b| i * 2 + usize::from(b)) * 4 + self.iteration_bucket()
    }

    /// The state with this index (iteration = the bucket's lowest count).
    pub fn from_index(i: usize) -> Self {
        let bit = |k: usize| (i >> (5 - k)) & 1 == 1;
        Self { has_plan: bit(0), has_code: bit(1), has_error: bit(2), tests_pass: bit(3), iteration: (i % 4) as u32 }
    }

    pub fn mask(self) -> ActionMask {
        ActionMask::from_legal(&[true, true, self.has_code && !self.has_error, self.has_error])
    }

    /// Whether `action` has something to do in this state; a call without is redundant and changes
    /// nothing (the guards of the rules above).
    ///
    /// # Panics
    /// If `action` is outside 0..4.
    pub fn is_useful(self, action: usize) -> bool {
        match action {
            PLANNER => !self.has_plan && (!self.has_code || self.has_error),
            CODER => !self.has_code || self.has_error,
            TESTER => self.has_code && !self.has_error,
            DEBUGGER => self.has_error,
            _ => panic!("orchestrator action {action} is outside 0..4"),
        }
    }

    /// The rules above for a useful call that led to `outcome`: the new state, and the call's
    /// reward beyond the step cost.
    pub fn apply(&mut self, outcome: OrchestratorOutcome, p: &OrchestratorParams) -> f64 {
        match outcome {
            OrchestratorOutcome::Planned(created) => {
                self.has_plan = created;
                if created { p.reward_plan } else { 0.0 }
            }
            OrchestratorOutcome::Coded(written) => {
                if !written {
                    return 0.0;
                }
                let first = !self.has_code;
                self.has_code = true;
                self.has_error = false;
                if first { p.reward_code } else { 0.0 }
            }
            OrchestratorOutcome::Tested(passed) => {
                self.has_error = !passed;
                self.tests_pass = passed;
                if passed { p.reward_success } else { 0.0 }
            }
            OrchestratorOutcome::Debugged(fixed) => {
                if fixed {
                    self.has_error = false;
                }
                if fixed { p.reward_fix } else { 0.0 }
            }
        }
    }

    /// The accounting of one agent call that earned `action_reward` (`None`: redundant): its
    /// reward with the step cost and a timeout, whether passing tests ended the episode
    /// (terminated), and whether the call limit did (truncated).
    pub fn settle(&mut self, action_reward: Option<f64>, p: &OrchestratorParams) -> (f64, bool, bool) {
        self.iteration += 1;
        let mut reward = p.reward_step + action_reward.unwrap_or(p.reward_redundant);
        let terminated = self.tests_pass;
        let truncated = !terminated && self.iteration >= p.max_iterations;
        if truncated {
            reward += p.reward_timeout;
        }
        (reward, terminated, truncated)
    }

    /// Four flags and a one-hot iteration bucket (8 features).
    pub fn write_features(self, out: &mut [f32]) {
        let flags = [self.has_plan, self.has_code, self.has_error, self.tests_pass];
        for (o, b) in out.iter_mut().zip(flags) {
            *o = f32::from(u8::from(b));
        }
        for (k, o) in out[4..8].iter_mut().enumerate() {
            *o = f32::from(u8::from(k == self.iteration_bucket()));
        }
    }
}

#[derive(Clone, Debug)]
pub struct OrchestratorEnv {
    params: OrchestratorParams,
    rng: ChaCha8Rng,
    state: OrchestratorState,
    /// Hidden: whether the current code is correct.
    code_correct: bool,
    done: bool,
}

impl Default for OrchestratorEnv {
    fn default() -> Self {
        Self::new(OrchestratorParams::default())
    }
}

impl OrchestratorEnv {
    pub fn new(params: OrchestratorParams) -> Self {
        Self {
            params,
            rng: ChaCha8Rng::seed_from_u64(0),
            state: OrchestratorState::default(),
            code_correct: false,
            done: false,
        }
    }

    pub fn params(&self) -> &OrchestratorParams {
        &self.params
    }

    pub fn state(&self) -> OrchestratorState {
        self.state
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p.clamp(0.0, 1.0))
    }

    /// What a useful `action` leads to, drawn with the calibrated odds of
    /// [`OrchestratorParams::outcomes`] (the hidden correctness of
    /// the code decides whether tests can pass).
    fn draw(&mut self, action: usize) -> OrchestratorOutcome {
        let (_, outcome, correct) = match self.params.outcomes(self.state, self.code_correct, action) {
            Odds::Certain(only) => only,
            Odds::Either(first, second) => {
                if self.chance(first.0) {
                    first
                } else {
                    second
                }
            }
        };
        self.code_correct = correct;
        outcome
    }
}

impl SeedEnvironment for OrchestratorEnv {
    const NAME: &'static str = "orchestrator";
    const SUMMARY: &'static str = "Seed 003: choose which agent (planner, coder, tester, debugger) to call next; 64 states, calibrated success odds";
    const SOURCE: &'static str = "seed-003";
    const ACTION_NAMES: &'static [&'static str] = ACTION_NAMES;
    const LIVE_PIPELINE: Option<&'static str> = Some("planner → coder → tester → debugger → tester");
    const START_VALUES_NOTE: Option<&'static str> = Some(
        "Seed 003 §6.1 reports Q(s0, planner) = 0.01, which cannot come out of these rules: planning first still leads to code and passing tests.",
    );

    /// Seed 003's budget.
    fn default_episodes(_neural_agent: bool) -> u32 {
        5000
    }
}

impl Environment for OrchestratorEnv {
    fn info(&self) -> EnvInfo {
        EnvInfo {
            id: EnvId::Orchestrator,
            action_names: ACTION_NAMES,
            n_states: OrchestratorState::N_STATES,
            feature_dim: OrchestratorState::FEATURE_DIM,
            text_names: &[],
            tasks: vec!["simulated_task".into()],
        }
    }

    fn reset(&mut self, seed: u64) -> Observation {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.state = OrchestratorState::default();
        self.code_correct = false;
        self.done = false;
        self.observation()
    }

    fn step(&mut self, action: usize) -> Step {
        assert!(!self.done, "step() after the episode ended: call reset()");
        let action_reward = self.state.is_useful(action).then(|| {
            let outcome = self.draw(action);
            self.state.apply(outcome, &self.params)
        });
        let (reward, terminated, truncated) = self.state.settle(action_reward, &self.params);
        self.done = terminated || truncated;
        let info = StepInfo { success: terminated, invalid_action: false, agent_call: true };
        Step { observation: self.observation(), reward, terminated, truncated, info }
    }

    fn observation(&self) -> Observation {
        Observation { state: self.state.index(), mask: self.state.mask() }
    }

    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)> {
        let s = OrchestratorState::from_index(state);
        let calls = if s.iteration >= 3 { "3+".to_owned() } else { s.iteration.to_string() };
        vec![
            flag("plan", s.has_plan),
            flag("code", s.has_code),
            flag("error", s.has_error),
            flag("tests pass", s.tests_pass),
            ("calls", calls),
        ]
    }

    fn features(&self, out: &mut [f32]) {
        self.state.write_features(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certain() -> OrchestratorParams {
        OrchestratorParams {
            planner_success: 1.0,
            coder_success_with_plan: 1.0,
            coder_success_without_plan: 1.0,
            tester_finds_error: 1.0,
            debugger_fixes_error: 1.0,
            ..OrchestratorParams::default()
        }
    }

    #[test]
    fn coder_then_tester_succeeds_with_the_table_rewards() {
        let mut env = OrchestratorEnv::new(certain());
        env.reset(0);
        let code = env.step(CODER);
        assert!((code.reward - 0.2).abs() < 1e-12);
        let test = env.step(TESTER);
        assert!(test.terminated && test.info.success);
        assert!((test.reward - 9.9).abs() < 1e-12);
    }

    #[test]
    fn found_errors_are_debugged_then_retested() {
        let params = OrchestratorParams { coder_success_without_plan: 0.0, ..certain() };
        let mut env = OrchestratorEnv::new(params);
        env.reset(0);
        env.step(CODER);
        let test = env.step(TESTER);
        assert!(!test.done() && env.state().has_error);
        assert!(!test.observation.mask.allows(TESTER) && test.observation.mask.allows(DEBUGGER));
        let fix = env.step(DEBUGGER);
        assert!((fix.reward - 0.4).abs() < 1e-12);
        assert!(env.step(TESTER).info.success);
    }

    #[test]
    fn redundant_calls_cost_and_change_nothing() {
        let mut env = OrchestratorEnv::new(certain());
        env.reset(0);
        for action in [TESTER, DEBUGGER] {
            let before = env.state();
            let step = env.step(action);
            assert!((step.reward + 0.3).abs() < 1e-12, "{}", ACTION_NAMES[action]);
            assert_eq!(env.state().has_code, before.has_code);
        }
        env.step(PLANNER);
        assert!((env.step(PLANNER).reward + 0.3).abs() < 1e-12);
    }

    #[test]
    fn planning_is_redundant_while_unfaulted_code_exists() {
        let mut env = OrchestratorEnv::new(certain());
        env.reset(0);
        env.step(CODER);
        let step = env.step(PLANNER);
        assert!((step.reward + 0.3).abs() < 1e-12);
        assert!(!env.state().has_plan);
    }

    #[test]
    fn five_calls_without_passing_tests_time_out() {
        let mut env = OrchestratorEnv::new(certain());
        env.reset(0);
        let steps: Vec<Step> = (0..5).map(|_| env.step(PLANNER)).collect();
        assert!(steps[..4].iter().all(|s| !s.done()));
        assert!(steps[4].truncated && !steps[4].info.success);
        assert!((steps[4].reward - (-0.3 - 5.0)).abs() < 1e-12);
    }

    #[test]
    fn state_encoding_has_64_states_and_round_trips() {
        for i in 0..OrchestratorState::N_STATES {
            assert_eq!(OrchestratorState::from_index(i).index(), i);
        }
    }

    #[test]
    fn calibrated_odds_show_in_the_first_test() {
        // Without a plan, tests pass after one coder call with 0.60 + 0.40 × 0.60 = 0.84.
        let mut env = OrchestratorEnv::default();
        let n = 20_000;
        let passes = (0..n)
            .filter(|&seed| {
                env.reset(seed);
                env.step(CODER);
                env.step(TESTER).info.success
            })
            .count();
        let rate = passes as f64 / n as f64;
        assert!((rate - 0.84).abs() < 0.01, "{rate}");
    }
}
