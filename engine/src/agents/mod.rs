//! Agents that learn which action to take. Tabular agents index their tables by the environment's
//! discrete state; every agent chooses only among the legal actions of the observation's mask.

pub mod fixed_pipeline;
pub mod q_learning;
pub mod q_thompson;
pub mod thompson_sampling;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::RunRng;
use crate::env::{ActionMask, EnvInfo, Observation};

pub use q_learning::{QLearning, QLearningParams};
pub use q_thompson::{QThompson, QThompsonParams};
pub use thompson_sampling::{ThompsonParams, ThompsonSampling};

/// One step of experience.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transition {
    pub state: usize,
    pub action: usize,
    pub reward: f64,
    pub next: Observation,
    /// The episode ended here (terminated or truncated). Tabular agents do not bootstrap past it:
    /// their states do not hold the step count, so the step limit is part of the task.
    pub done: bool,
}

pub trait Agent {
    /// The action to take while training (may explore).
    fn act(&mut self, obs: Observation, rng: &mut RunRng) -> usize;
    /// The action the learned policy prefers, without exploring.
    fn greedy(&self, obs: Observation) -> usize;
    fn observe(&mut self, transition: &Transition);
    /// Closes an episode (decays exploration); returns the episode's loss where the agent has one.
    fn end_episode(&mut self) -> Option<f64>;
    /// The current exploration rate, for agents that explore ε-greedily.
    fn epsilon(&self) -> Option<f64>;
    /// The agent's value of each action in `state` (Q-values or posterior means), for policy views.
    fn action_values(&self, state: usize) -> Vec<f64>;
}

/// The legal actions, or every action when the mask allows none (an environment may forbid all
/// actions after an illegal one; the agent must still act).
pub fn effective_mask(mask: ActionMask, n_actions: usize) -> ActionMask {
    if mask.count() == 0 { ActionMask::all(n_actions) } else { mask }
}

/// The legal action with the highest value; ties go to the lowest index so runs are reproducible.
pub fn masked_argmax(values: &[f64], mask: ActionMask) -> usize {
    let mask = effective_mask(mask, values.len());
    mask.legal()
        .filter(|&a| a < values.len())
        .fold(None, |best: Option<usize>, a| match best {
            Some(b) if values[b] >= values[a] => Some(b),
            _ => Some(a),
        })
        .expect("an effective mask allows at least one action")
}

/// A legal action drawn uniformly.
pub fn random_legal(mask: ActionMask, n_actions: usize, rng: &mut RunRng) -> usize {
    let mask = effective_mask(mask, n_actions);
    let k = rng.random_range(0..mask.count());
    mask.legal().nth(k).expect("k is below the number of legal actions")
}

/// The agents a run can train.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AgentId {
    QLearning,
    ThompsonSampling,
    QThompson,
}

impl AgentId {
    pub const ALL: [AgentId; 3] = [AgentId::QLearning, AgentId::ThompsonSampling, AgentId::QThompson];

    pub fn name(self) -> &'static str {
        match self {
            AgentId::QLearning => "q-learning",
            AgentId::ThompsonSampling => "thompson-sampling",
            AgentId::QThompson => "q-thompson",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            AgentId::QLearning => "Seed 003 §3.4: tabular Q-learning, epsilon-greedy, optimistic initial values",
            AgentId::ThompsonSampling => "Seed 003 §3.5: a Beta posterior per state-action, act on a sample",
            AgentId::QThompson => "Seed 003 §3.5: Q-learning whose exploratory choices come from Thompson sampling",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|id| id.name() == name).ok_or_else(|| {
            let valid: Vec<_> = Self::ALL.iter().map(|id| id.name()).collect();
            format!("unknown agent '{name}'; valid: {}", valid.join(", "))
        })
    }

    /// This agent with the seed's hyperparameters.
    pub fn default_spec(self) -> AgentSpec {
        match self {
            AgentId::QLearning => AgentSpec::QLearning(QLearningParams::default()),
            AgentId::ThompsonSampling => AgentSpec::ThompsonSampling(ThompsonParams::default()),
            AgentId::QThompson => AgentSpec::QThompson(QThompsonParams::default()),
        }
    }
}

/// An agent and its hyperparameters: the serialisable half of a run spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum AgentSpec {
    QLearning(QLearningParams),
    ThompsonSampling(ThompsonParams),
    QThompson(QThompsonParams),
}

impl AgentSpec {
    pub fn id(&self) -> AgentId {
        match self {
            AgentSpec::QLearning(_) => AgentId::QLearning,
            AgentSpec::ThompsonSampling(_) => AgentId::ThompsonSampling,
            AgentSpec::QThompson(_) => AgentId::QThompson,
        }
    }

    /// Checks every hyperparameter; the error names the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            AgentSpec::QLearning(p) => p.validate(),
            AgentSpec::ThompsonSampling(p) => p.validate(),
            AgentSpec::QThompson(p) => p.validate(),
        }
    }

    /// A fresh agent for an environment.
    pub fn build(&self, env: &EnvInfo) -> AnyAgent {
        let (states, actions) = (env.n_states, env.action_names.len());
        match self {
            AgentSpec::QLearning(p) => AnyAgent::QLearning(QLearning::new(*p, states, actions)),
            AgentSpec::ThompsonSampling(p) => AnyAgent::ThompsonSampling(ThompsonSampling::new(*p, states, actions)),
            AgentSpec::QThompson(p) => AnyAgent::QThompson(QThompson::new(*p, states, actions)),
        }
    }
}

/// Checks that `value` lies in `range`, naming the field otherwise.
pub(crate) fn check_range(field: &str, value: f64, range: std::ops::RangeInclusive<f64>) -> Result<(), String> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(format!("{field} must be between {} and {}, got {value}", range.start(), range.end()))
    }
}

/// Any agent, chosen at run time without boxing.
#[derive(Clone, Debug)]
pub enum AnyAgent {
    QLearning(QLearning),
    ThompsonSampling(ThompsonSampling),
    QThompson(QThompson),
}

macro_rules! each_agent {
    ($self:expr, $agent:ident => $body:expr) => {
        match $self {
            AnyAgent::QLearning($agent) => $body,
            AnyAgent::ThompsonSampling($agent) => $body,
            AnyAgent::QThompson($agent) => $body,
        }
    };
}

impl Agent for AnyAgent {
    fn act(&mut self, obs: Observation, rng: &mut RunRng) -> usize {
        each_agent!(self, a => a.act(obs, rng))
    }
    fn greedy(&self, obs: Observation) -> usize {
        each_agent!(self, a => a.greedy(obs))
    }
    fn observe(&mut self, transition: &Transition) {
        each_agent!(self, a => a.observe(transition))
    }
    fn end_episode(&mut self) -> Option<f64> {
        each_agent!(self, a => a.end_episode())
    }
    fn epsilon(&self) -> Option<f64> {
        each_agent!(self, a => a.epsilon())
    }
    fn action_values(&self, state: usize) -> Vec<f64> {
        each_agent!(self, a => a.action_values(state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn argmax_respects_the_mask_and_breaks_ties_low() {
        let values = [9.0, 1.0, 1.0, 5.0];
        assert_eq!(masked_argmax(&values, ActionMask::from_legal(&[false, true, true, false])), 1);
        assert_eq!(masked_argmax(&values, ActionMask::all(4)), 0);
        // An empty mask falls back to every action.
        assert_eq!(masked_argmax(&values, ActionMask(0)), 0);
    }

    #[test]
    fn random_choices_stay_legal_and_cover_the_mask() {
        let mut rng = RunRng::seed_from_u64(3);
        let mask = ActionMask::from_legal(&[false, true, false, true, true]);
        let mut seen = [0; 5];
        for _ in 0..300 {
            seen[random_legal(mask, 5, &mut rng)] += 1;
        }
        assert_eq!(seen[0] + seen[2], 0);
        assert!(seen[1] > 50 && seen[3] > 50 && seen[4] > 50, "{seen:?}");
    }

    #[test]
    fn unknown_agent_names_the_valid_ones() {
        let err = AgentId::parse("ppo").unwrap_err();
        assert!(err.contains("q-learning, thompson-sampling, q-thompson"), "{err}");
    }

    #[test]
    fn specs_round_trip_through_json() {
        for id in AgentId::ALL {
            let spec = id.default_spec();
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<AgentSpec>(&json).unwrap(), spec, "{json}");
            assert!(spec.validate().is_ok());
        }
    }
}
