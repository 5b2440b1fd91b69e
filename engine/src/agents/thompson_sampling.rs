//! Thompson sampling, seed 003 §3.5: a Beta(α, β) belief per state–action about whether the action
//! pays off. Act: draw θ(s, a) ~ Beta(α, β) for each legal action and take the largest. Update:
//! if the reward exceeds `threshold`, α += the scaled reward, else β += the scaled penalty, where
//! scaling divides by `reward_scale` and caps at 1 (so the +10 of a success counts as one win).

use rand_distr::{Beta, Distribution};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Agent, AgentId, Checkpoint, Experience, RollingMetrics, load_table, masked_argmax};
use crate::env::Observation;
use crate::params::check_range;
use crate::rng::RunRng;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ThompsonParams {
    /// α of the Beta prior (1 and 1 is uniform).
    pub prior_alpha: f64,
    /// β of the Beta prior.
    pub prior_beta: f64,
    /// Rewards above this count as wins.
    pub threshold: f64,
    /// A reward of this size counts as one whole win or loss.
    pub reward_scale: f64,
}

impl Default for ThompsonParams {
    fn default() -> Self {
        Self { prior_alpha: 1.0, prior_beta: 1.0, threshold: 0.0, reward_scale: 10.0 }
    }
}

impl ThompsonParams {
    pub fn validate(&self) -> Result<(), String> {
        check_range("prior_alpha", self.prior_alpha, 0.01..=100.0)?;
        check_range("prior_beta", self.prior_beta, 0.01..=100.0)?;
        check_range("threshold", self.threshold, -100.0..=100.0)?;
        check_range("reward_scale", self.reward_scale, 0.01..=1000.0)
    }
}

#[derive(Clone, Debug)]
pub struct ThompsonSampling {
    params: ThompsonParams,
    n_actions: usize,
    /// Row-major `n_states × n_actions` pairs (α, β).
    beliefs: Vec<(f64, f64)>,
}

impl ThompsonSampling {
    pub fn new(params: ThompsonParams, n_states: usize, n_actions: usize) -> Self {
        Self { params, n_actions, beliefs: vec![(params.prior_alpha, params.prior_beta); n_states * n_actions] }
    }

    /// Every posterior (α, β), row-major `n_states × n_actions`.
    pub fn table(&self) -> &[(f64, f64)] {
        &self.beliefs
    }

    pub fn belief(&self, state: usize, action: usize) -> (f64, f64) {
        self.beliefs[state * self.n_actions + action]
    }

    /// The legal action whose sampled θ is largest (one draw per action, legal or not, so the
    /// stream of draws does not depend on the mask).
    pub fn sample_action(&self, obs: Observation, rng: &mut RunRng) -> usize {
        let thetas: Vec<f64> = (0..self.n_actions)
            .map(|a| {
                let (alpha, beta) = self.belief(obs.state, a);
                Beta::new(alpha, beta).expect("α and β stay positive").sample(rng)
            })
            .collect();
        masked_argmax(&thetas, obs.mask)
    }
}

impl Agent for ThompsonSampling {
    async fn act(&mut self, obs: Observation, _features: &[f32], rng: &mut RunRng) -> Result<usize, String> {
        Ok(self.sample_action(obs, rng))
    }

    fn greedy(&self, obs: Observation, _features: &[f32]) -> usize {
        masked_argmax(&self.action_values(obs, &[]), obs.mask)
    }

    fn observe(&mut self, t: &Experience, _rng: &mut RunRng) {
        let scaled = (t.reward.abs() / self.params.reward_scale).min(1.0);
        let (alpha, beta) = &mut self.beliefs[t.state * self.n_actions + t.action];
        if t.reward > self.params.threshold {
            *alpha += scaled;
        } else {
            *beta += scaled;
        }
    }

    async fn end_episode(&mut self, _progress: &RollingMetrics) -> Result<Option<f64>, String> {
        Ok(None)
    }

    fn epsilon(&self) -> Option<f64> {
        None
    }

    /// Posterior means α / (α + β).
    fn action_values(&self, obs: Observation, _features: &[f32]) -> Vec<f64> {
        (0..self.n_actions)
            .map(|a| {
                let (alpha, beta) = self.belief(obs.state, a);
                alpha / (alpha + beta)
            })
            .collect()
    }

    fn checkpoint(&self) -> Result<Checkpoint, String> {
        Ok(Checkpoint::Beliefs { beliefs: self.beliefs.clone() })
    }

    fn load_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String> {
        match checkpoint {
            Checkpoint::Beliefs { beliefs } => {
                load_table("posteriors", beliefs, &mut self.beliefs, |&(alpha, beta)| {
                    alpha.is_finite() && beta.is_finite() && alpha > 0.0 && beta > 0.0
                })
            }
            other => Err(other.mismatch(AgentId::ThompsonSampling)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::completed;
    use crate::env::ActionMask;
    use rand::SeedableRng;

    impl ThompsonSampling {
        fn observe_now(&mut self, t: &Experience) {
            self.observe(t, &mut RunRng::seed_from_u64(0));
        }
    }

    fn transition(action: usize, reward: f64) -> Experience<'static> {
        let next = Observation { state: 0, mask: ActionMask::all(2) };
        Experience { state: 0, action, reward, next, done: true, features: &[], next_features: &[] }
    }

    #[test]
    fn wins_raise_alpha_and_losses_raise_beta_scaled_and_capped() {
        let mut agent = ThompsonSampling::new(ThompsonParams::default(), 1, 2);
        agent.observe_now(&transition(0, 9.9));
        agent.observe_now(&transition(0, 25.0));
        agent.observe_now(&transition(1, -0.1));
        agent.observe_now(&transition(1, -5.0));
        let (a0, b0) = agent.belief(0, 0);
        assert!((a0 - (1.0 + 0.99 + 1.0)).abs() < 1e-12 && b0 == 1.0);
        let (a1, b1) = agent.belief(0, 1);
        assert!(a1 == 1.0 && (b1 - (1.0 + 0.01 + 0.5)).abs() < 1e-12);
    }

    #[test]
    fn sampling_prefers_the_action_that_wins() {
        let mut agent = ThompsonSampling::new(ThompsonParams::default(), 1, 2);
        for _ in 0..30 {
            agent.observe_now(&transition(0, -10.0));
            agent.observe_now(&transition(1, 10.0));
        }
        let mut rng = RunRng::seed_from_u64(1);
        let obs = Observation { state: 0, mask: ActionMask::all(2) };
        let picks = (0..200).filter(|_| completed(agent.act(obs, &[], &mut rng)) == Ok(1)).count();
        assert!(picks > 195, "{picks}");
        assert_eq!(agent.greedy(obs, &[]), 1);
        let only_0 = Observation { state: 0, mask: ActionMask::from_legal(&[true, false]) };
        assert_eq!(completed(agent.act(only_0, &[], &mut rng)), Ok(0));
    }
}
