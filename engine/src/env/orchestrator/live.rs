//! Seed 003's orchestrator in live mode: each agent call is a real LLM call, the tester runs the
//! task's tests in Python (and on a failure asks the LLM to analyse it for the debugger, seed 003
//! §2.1), and every outcome goes through the simulator's own rules
//! ([`OrchestratorState::is_useful`], [`OrchestratorState::apply`], [`OrchestratorState::settle`]).
//!
//! Each call also records what it says about the simulator's five probabilities (seed 003 §6.2):
//! whether the planner made a plan; whether the coder's or the debugger's program was correct, as
//! the next test run tells; and, on a failing run, that the tests caught the bug. The tester runs
//! the very tests that define success, so it catches every bug they can see: its trials are all
//! catches, and live mode cannot observe a bug slipping through, as the simulator's 0.40 assumes.

use rand::Rng;

use super::{
    ACTION_NAMES, CODER, CODER_SUCCESS_WITH_PLAN, CODER_SUCCESS_WITHOUT_PLAN, DEBUGGER_FIXES_ERROR,
    OrchestratorOutcome, OrchestratorParams, OrchestratorState, PIPELINE, PLANNER, PLANNER_SUCCESS, TESTER,
    TESTER_FINDS_ERROR,
};
use crate::env::live::{Answer, CallSpec, LiveRules, Move, OfflineContext, Reply, Settled, Trial, fenced};
use crate::env::{EnvSpec, Observation};
use crate::prompts::id;
use crate::rng::RunRng;

/// The orchestrator's LLM calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrchestratorCall {
    Planner,
    Coder,
    /// The tester's analysis of failing tests.
    TesterAnalysis,
    Debugger,
}

impl OrchestratorCall {
    pub fn spec(self) -> CallSpec {
        match self {
            Self::Planner => CallSpec { prompt_id: id::ORCHESTRATOR_PLANNER, agent: "planner", answer: Answer::Plan },
            Self::Coder => CallSpec { prompt_id: id::ORCHESTRATOR_CODER, agent: "coder", answer: Answer::Code },
            Self::TesterAnalysis => {
                CallSpec { prompt_id: id::ORCHESTRATOR_TESTER, agent: "tester", answer: Answer::Analysis }
            }
            Self::Debugger => {
                CallSpec { prompt_id: id::ORCHESTRATOR_DEBUGGER, agent: "debugger", answer: Answer::Code }
            }
        }
    }
}

/// The orchestrator's state, filled from real outcomes.
#[derive(Clone, Debug)]
pub struct OrchestratorLive {
    params: OrchestratorParams,
    /// The odds the offline LLM writes with: the simulator's, unless set apart to stand for a
    /// real LLM that the simulator mis-guesses (seed 003 §6.2).
    llm_odds: OrchestratorParams,
    state: OrchestratorState,
    pending: Option<OrchestratorCall>,
    /// The failed tests' reward, settled once the tester's analysis is back: the analysis is part
    /// of the tester's one agent call.
    tests_reward: f64,
    /// The probability the current program will inform once tested: the coder's (with or without
    /// a plan) or the debugger's.
    untested: Option<&'static str>,
    /// What this step observed, for its settlement.
    trials: Vec<Trial>,
}

impl OrchestratorLive {
    pub fn new(params: OrchestratorParams) -> Self {
        Self {
            params,
            llm_odds: params,
            state: OrchestratorState::default(),
            pending: None,
            tests_reward: 0.0,
            untested: None,
            trials: Vec::new(),
        }
    }

    /// Sets the offline LLM's odds apart from the simulator's, from `NAME=VALUE` settings that
    /// each name one of the five odds.
    pub fn set_llm_odds(&mut self, settings: &[String]) -> Result<(), String> {
        let names = self.params.odds().map(|(name, _)| name);
        for setting in settings {
            let name = setting.split_once('=').map_or(setting.as_str(), |(name, _)| name).trim();
            if !names.contains(&name) {
                return Err(format!("'{name}' is not one of the LLM's odds; valid: {}", names.join(", ")));
            }
        }
        match crate::params::apply(&EnvSpec::Orchestrator(self.llm_odds), settings)? {
            EnvSpec::Orchestrator(odds) => {
                self.llm_odds = odds;
                Ok(())
            }
            _ => Err("the orchestrator's settings made another environment".into()),
        }
    }

    fn observed(&mut self, odds: &str, happened: bool) {
        self.trials.push(Trial { odds: odds.to_owned(), happened });
    }

    /// A program the next test run will judge, or a reply without one, which failed at once.
    fn wrote(&mut self, odds: &'static str, has_code: bool) {
        if has_code {
            self.untested = Some(odds);
        } else {
            self.observed(odds, false);
        }
    }

    fn call(&mut self, call: OrchestratorCall) -> Move {
        self.pending = Some(call);
        Move::Call(call.spec())
    }

    fn settle(&mut self, action_reward: Option<f64>, note: Option<String>) -> Move {
        let (reward, terminated, truncated) = self.state.settle(action_reward, &self.params);
        let end = if terminated {
            Some((true, "tests pass".to_owned()))
        } else {
            truncated.then(|| (false, format!("{} agent calls without passing tests", self.params.max_iterations)))
        };
        let trials = std::mem::take(&mut self.trials);
        Move::Settled(Settled { reward, note, end, trials })
    }
}

impl LiveRules for OrchestratorLive {
    fn observation(&self) -> Observation {
        Observation { state: self.state.index(), mask: self.state.mask() }
    }

    fn features(&self) -> Vec<f32> {
        let mut out = vec![0.0; OrchestratorState::FEATURE_DIM];
        self.state.write_features(&mut out);
        out
    }

    fn embeds_texts(&self) -> bool {
        false
    }

    fn is_agent_call(&self, _action: usize) -> bool {
        true
    }

    fn begin(&mut self, action: usize) -> Move {
        if !self.state.is_useful(action) {
            let note = format!("{} has nothing to do now (redundant call, not made)", ACTION_NAMES[action]);
            return self.settle(None, Some(note));
        }
        match action {
            PLANNER => self.call(OrchestratorCall::Planner),
            CODER => self.call(OrchestratorCall::Coder),
            TESTER => Move::Test,
            _ => self.call(OrchestratorCall::Debugger),
        }
    }

    fn replied(&mut self, reply: Option<Reply<'_>>) -> Move {
        let call = self.pending.take().expect("a reply follows a call");
        let outcome = match (call, reply) {
            (OrchestratorCall::TesterAnalysis, _) => return self.settle(Some(self.tests_reward), None),
            // A failed call changes nothing, and says nothing about the LLM's odds.
            (_, None) => return self.settle(Some(0.0), None),
            (OrchestratorCall::Planner, Some(reply)) => {
                let planned = !reply.text.trim().is_empty();
                self.observed(PLANNER_SUCCESS, planned);
                OrchestratorOutcome::Planned(planned)
            }
            (OrchestratorCall::Coder, Some(reply)) => {
                let odds = if self.state.has_plan { CODER_SUCCESS_WITH_PLAN } else { CODER_SUCCESS_WITHOUT_PLAN };
                self.wrote(odds, reply.code.is_some());
                OrchestratorOutcome::Coded(reply.code.is_some())
            }
            (OrchestratorCall::Debugger, Some(reply)) => {
                self.wrote(DEBUGGER_FIXES_ERROR, reply.code.is_some());
                OrchestratorOutcome::Debugged(reply.code.is_some())
            }
        };
        let reward = self.state.apply(outcome, &self.params);
        self.settle(Some(reward), None)
    }

    fn tested(&mut self, passed: bool) -> Move {
        if let Some(odds) = self.untested.take() {
            self.observed(odds, passed);
        }
        if !passed {
            self.observed(TESTER_FINDS_ERROR, true);
        }
        let reward = self.state.apply(OrchestratorOutcome::Tested(passed), &self.params);
        if passed {
            self.settle(Some(reward), None)
        } else {
            self.tests_reward = reward;
            self.call(OrchestratorCall::TesterAnalysis)
        }
    }

    /// Seed 003's fixed pipeline: planner → coder → tester → debugger → tester.
    fn pipeline_action(&self, steps: usize) -> usize {
        PIPELINE[steps.min(PIPELINE.len() - 1)]
    }

    /// A plan, the task's reference program or its first draft, with the odds of the planner, the
    /// coder and the debugger (the simulator's, seed 003's calibrated ones by default).
    fn offline_reply(&self, context: OfflineContext<'_>, rng: &mut RunRng) -> String {
        let p = &self.llm_odds;
        match self.pending {
            // An empty reply is no plan, as often as the planner fails.
            Some(OrchestratorCall::Planner) if !rng.random_bool(p.planner_success) => String::new(),
            Some(OrchestratorCall::Planner) => format!(
                "1. Read the signature and the docstring of `{}`.\n2. Handle the edge cases first.\n3. Implement the main computation.\n4. Return the result in the documented type.",
                context.task.id
            ),
            Some(OrchestratorCall::Coder) => {
                let odds = if self.state.has_plan { p.coder_success_with_plan } else { p.coder_success_without_plan };
                fenced(if rng.random_bool(odds) { context.task.reference() } else { &context.task.offline.generate })
            }
            Some(OrchestratorCall::TesterAnalysis) => {
                format!("Analysis: the code does not meet the specification.\n{}", context.report)
            }
            _ => fenced(if rng.random_bool(p.debugger_fixes_error) { context.task.reference() } else { context.code }),
        }
    }
}
