//! The registry of the environments with a live mode: each one's [`LiveRules`] under one type,
//! which live episodes hold. Apart from `live.rs` so that the rules' vocabulary does not import the
//! environments that speak it.

use super::live::{LiveRules, Move, OfflineContext, Reply};
use super::{Observation, executive, orchestrator};
use crate::rng::RunRng;

/// The environments with a live mode.
#[derive(Clone, Debug)]
pub enum AnyLiveRules {
    Executive(executive::live::ExecutiveLive),
    Orchestrator(orchestrator::live::OrchestratorLive),
}

macro_rules! each_live {
    ($self:expr, $rules:ident => $body:expr) => {
        match $self {
            AnyLiveRules::Executive($rules) => $body,
            AnyLiveRules::Orchestrator($rules) => $body,
        }
    };
}

impl AnyLiveRules {
    /// Sets the offline LLM's odds apart from the simulator's (seed 003 §6.2's "real" LLM).
    pub fn set_llm_odds(&mut self, settings: &[String]) -> Result<(), String> {
        match self {
            AnyLiveRules::Executive(_) if settings.is_empty() => Ok(()),
            AnyLiveRules::Executive(_) => {
                Err("the executive's offline LLM answers with the task's recorded programs: it has no odds".into())
            }
            AnyLiveRules::Orchestrator(rules) => rules.set_llm_odds(settings),
        }
    }
}

impl LiveRules for AnyLiveRules {
    fn observation(&self) -> Observation {
        each_live!(self, r => r.observation())
    }
    fn features(&self) -> Vec<f32> {
        each_live!(self, r => r.features())
    }
    fn embeds_texts(&self) -> bool {
        each_live!(self, r => r.embeds_texts())
    }
    fn is_agent_call(&self, action: usize) -> bool {
        each_live!(self, r => r.is_agent_call(action))
    }
    fn begin(&mut self, action: usize) -> Move {
        each_live!(self, r => r.begin(action))
    }
    fn replied(&mut self, reply: Option<Reply<'_>>) -> Move {
        each_live!(self, r => r.replied(reply))
    }
    fn tested(&mut self, passed: bool) -> Move {
        each_live!(self, r => r.tested(passed))
    }
    fn pipeline_action(&self, steps: usize) -> usize {
        each_live!(self, r => r.pipeline_action(steps))
    }
    fn offline_reply(&self, context: OfflineContext<'_>, rng: &mut RunRng) -> String {
        each_live!(self, r => r.offline_reply(context, rng))
    }
}
