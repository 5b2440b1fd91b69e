//! Seed 000's executive in live mode: generate, debug and search are real LLM calls, test runs the
//! task's tests in Python, and every outcome goes through the simulator's own rules
//! ([`ExecutiveFlags::allows`], [`ExecutiveFlags::apply`], [`ExecutiveFlags::settle`]).

use super::{ACTION_NAMES, DEBUG, ExecutiveFlags, ExecutiveOutcome, ExecutiveRewards, GENERATE, SEARCH, STOP, TEST};
use crate::env::Observation;
use crate::env::live::{Answer, CallSpec, LiveRules, Move, OfflineContext, Reply, Settled, fenced};
use crate::prompts::id;
use crate::rng::RunRng;

/// The executive's LLM calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecutiveCall {
    Generate,
    Debug,
    Search,
}

impl ExecutiveCall {
    pub fn spec(self) -> CallSpec {
        match self {
            Self::Generate => CallSpec { prompt_id: id::EXECUTIVE_GENERATE, agent: "generator", answer: Answer::Code },
            Self::Debug => CallSpec { prompt_id: id::EXECUTIVE_DEBUG, agent: "debugger", answer: Answer::Code },
            Self::Search => CallSpec { prompt_id: id::EXECUTIVE_SEARCH, agent: "searcher", answer: Answer::Hints },
        }
    }
}

/// The executive's flags, filled from real outcomes.
#[derive(Clone, Debug)]
pub struct ExecutiveLive {
    rewards: ExecutiveRewards,
    flags: ExecutiveFlags,
    steps: u32,
    pending: Option<ExecutiveCall>,
}

impl ExecutiveLive {
    pub fn new(rewards: ExecutiveRewards) -> Self {
        Self { rewards, flags: ExecutiveFlags::default(), steps: 0, pending: None }
    }

    fn call(&mut self, call: ExecutiveCall) -> Move {
        self.pending = Some(call);
        Move::Call(call.spec())
    }

    /// Applies a legal action's outcome and settles the step.
    fn conclude(&mut self, outcome: ExecutiveOutcome) -> Move {
        let reward = self.flags.apply(outcome, &self.rewards);
        let end = match outcome {
            ExecutiveOutcome::Stopped(true) => Some((true, "stopped after passing tests".to_owned())),
            ExecutiveOutcome::Stopped(false) => Some((false, "stopped without passing tests".to_owned())),
            _ => None,
        };
        self.settle(Some(reward), None, end)
    }

    fn settle(&mut self, action_reward: Option<f64>, note: Option<String>, end: Option<(bool, String)>) -> Move {
        let (reward, truncated, _) = self.flags.settle(action_reward, false, self.steps, end.is_some(), &self.rewards);
        let end =
            end.or_else(|| truncated.then(|| (false, format!("reached the step limit of {}", self.rewards.max_steps))));
        Move::Settled(Settled { reward, note, end, trials: Vec::new() })
    }
}

impl LiveRules for ExecutiveLive {
    fn observation(&self) -> Observation {
        Observation { state: self.flags.index(), mask: self.flags.mask() }
    }

    fn features(&self) -> Vec<f32> {
        self.flags.as_features().to_vec()
    }

    fn embeds_texts(&self) -> bool {
        true
    }

    fn is_agent_call(&self, action: usize) -> bool {
        matches!(action, GENERATE | DEBUG | SEARCH) && self.flags.allows(action, self.rewards.max_tests)
    }

    fn begin(&mut self, action: usize) -> Move {
        self.steps += 1;
        if !self.flags.allows(action, self.rewards.max_tests) {
            return self.settle(None, Some(format!("{} is not allowed now", ACTION_NAMES[action])), None);
        }
        match action {
            GENERATE => self.call(ExecutiveCall::Generate),
            TEST => Move::Test,
            DEBUG => self.call(ExecutiveCall::Debug),
            SEARCH => self.call(ExecutiveCall::Search),
            _ => self.conclude(ExecutiveOutcome::Stopped(self.flags.last_test_passed && !self.flags.invalid_action)),
        }
    }

    fn replied(&mut self, reply: Option<Reply<'_>>) -> Move {
        let call = self.pending.take().expect("a reply follows a call");
        if reply.is_none() {
            return self.settle(Some(0.0), None, None);
        }
        self.conclude(match call {
            ExecutiveCall::Generate => ExecutiveOutcome::Generated,
            ExecutiveCall::Debug => ExecutiveOutcome::Debugged,
            ExecutiveCall::Search => ExecutiveOutcome::Searched,
        })
    }

    fn tested(&mut self, passed: bool) -> Move {
        self.conclude(ExecutiveOutcome::Tested(passed))
    }

    /// Generate → test → debug → test → stop, stopping once a test passes.
    fn pipeline_action(&self, steps: usize) -> usize {
        const CHAIN: [usize; 4] = [GENERATE, TEST, DEBUG, TEST];
        if self.flags.last_test_passed { STOP } else { CHAIN.get(steps).copied().unwrap_or(STOP) }
    }

    /// Seed 000's simulated LLM: the task's recorded programs.
    fn offline_reply(&self, context: OfflineContext<'_>, _rng: &mut RunRng) -> String {
        let answers = &context.task.offline;
        match self.pending {
            Some(ExecutiveCall::Generate) => fenced(&answers.generate),
            Some(ExecutiveCall::Debug) if self.flags.has_searched => fenced(&answers.debug_after_search),
            Some(ExecutiveCall::Debug) => fenced(&answers.debug),
            _ => "- Re-read the docstring: the failing tests show the edge cases it implies.\n- Prefer the standard library function for this operation over a hand-written loop.".to_owned(),
        }
    }
}
