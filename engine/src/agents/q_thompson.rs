//! The combination of seed 003 §3.5: Q-learning estimates the values and acts greedily on them;
//! when it explores (with probability ε), the action comes from Thompson sampling instead of a
//! uniform draw, so exploration favours actions that have paid off in this state. Both learn from
//! every transition.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    Agent, AgentId, Checkpoint, Experience, QLearning, QLearningParams, RollingMetrics, ThompsonParams,
    ThompsonSampling,
};
use crate::env::Observation;
use crate::rng::RunRng;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct QThompsonParams {
    /// The value learner and its exploration rate.
    pub q_learning: QLearningParams,
    /// The beliefs that pick exploratory actions.
    pub thompson: ThompsonParams,
}

impl QThompsonParams {
    pub fn validate(&self) -> Result<(), String> {
        self.q_learning.validate().map_err(|e| format!("q_learning.{e}"))?;
        self.thompson.validate().map_err(|e| format!("thompson.{e}"))
    }
}

#[derive(Clone, Debug)]
pub struct QThompson {
    values: QLearning,
    beliefs: ThompsonSampling,
}

impl QThompson {
    pub fn new(params: QThompsonParams, n_states: usize, n_actions: usize) -> Self {
        Self {
            values: QLearning::new(params.q_learning, n_states, n_actions),
            beliefs: ThompsonSampling::new(params.thompson, n_states, n_actions),
        }
    }
}

impl Agent for QThompson {
    async fn act(&mut self, obs: Observation, _features: &[f32], rng: &mut RunRng) -> Result<usize, String> {
        Ok(if self.values.explores(rng) { self.beliefs.sample_action(obs, rng) } else { self.values.greedy(obs, &[]) })
    }

    fn greedy(&self, obs: Observation, _features: &[f32]) -> usize {
        self.values.greedy(obs, &[])
    }

    fn observe(&mut self, transition: &Experience, rng: &mut RunRng) {
        self.values.observe(transition, rng);
        self.beliefs.observe(transition, rng);
    }

    async fn end_episode(&mut self, progress: &RollingMetrics) -> Result<Option<f64>, String> {
        self.beliefs.end_episode(progress).await?;
        self.values.end_episode(progress).await
    }

    fn epsilon(&self) -> Option<f64> {
        self.values.epsilon()
    }

    fn action_values(&self, obs: Observation, _features: &[f32]) -> Vec<f64> {
        self.values.action_values(obs, &[])
    }

    fn checkpoint(&self) -> Result<Checkpoint, String> {
        Ok(Checkpoint::QThompson { q: self.values.table().to_vec(), beliefs: self.beliefs.table().to_vec() })
    }

    fn load_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String> {
        match checkpoint {
            // Both tables or neither.
            Checkpoint::QThompson { q, beliefs } => {
                let (mut values, mut posteriors) = (self.values.clone(), self.beliefs.clone());
                values.load_checkpoint(&Checkpoint::QTable { q: q.clone() })?;
                posteriors.load_checkpoint(&Checkpoint::Beliefs { beliefs: beliefs.clone() })?;
                (self.values, self.beliefs) = (values, posteriors);
                Ok(())
            }
            other => Err(other.mismatch(AgentId::QThompson)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_errors_name_the_path() {
        let mut params = QThompsonParams::default();
        params.thompson.reward_scale = 0.0;
        assert!(params.validate().unwrap_err().starts_with("thompson.reward_scale"));
    }
}
