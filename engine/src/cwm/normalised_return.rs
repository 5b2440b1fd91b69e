//! How well a world model plans (seed 004 §5.3, sheet §3.5): the planner plays episodes of the
//! real environment with the model, with the true environment (the oracle) and, as a floor,
//! uniformly random actions; the model's normalised return is
//! `R(CWM) = (R(π_CWM) − R(π_rand)) / (R(π_true) − R(π_rand))` over the mean returns. It can pass 1
//! (the paper's CartPole: 1.11). The three policies play the same episodes: each episode's start
//! and cards come from its own stream ([`crate::rng::planning_rngs`]). An episode ends at
//! termination or at the environment's time limit (100 steps where it has none, as the paper's).
//!
//! An evaluation runs one episode per call of [`Evaluation::step`], so a page can show it grow
//! without blocking.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::planner::{PlannerParams, TrueEnvironment, plan};
use super::tabulated::TabulatedModel;
use crate::gym::GymId;
use crate::rng::planning_rngs;

/// Steps an episode may take in an environment without a time limit.
pub const STEPS_WITHOUT_LIMIT: u32 = 100;

/// The episodes and the planner: the paper's, or a quicker one for the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Protocol {
    /// Episodes per policy (the paper's 10).
    pub episodes: u32,
    pub planner: PlannerParams,
}

impl Protocol {
    pub fn paper() -> Self {
        Self { episodes: 10, planner: PlannerParams::default() }
    }

    /// 3 episodes and rollouts of 20 steps: a first figure in seconds, not the paper's.
    pub fn quick() -> Self {
        Self { episodes: 3, planner: PlannerParams { rollout_steps: 20, ..PlannerParams::default() } }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    Random,
    /// The planner with the true environment.
    Oracle,
    /// The planner with the world model.
    Model,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Random, Policy::Oracle, Policy::Model];
}

/// One episode played: its return and length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    pub policy: Policy,
    pub index: u32,
    pub reward: f64,
    pub steps: u32,
    /// The real environment's observations, from the start to the last, as numbers (for
    /// watching the episode; not in reports).
    #[serde(skip)]
    pub observations: Vec<Vec<f64>>,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// The evaluation of one model, episode by episode.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub env: GymId,
    pub protocol: Protocol,
    pub seed: u64,
    model: TabulatedModel,
    pub episodes: Vec<Episode>,
}

impl Evaluation {
    pub fn new(model: TabulatedModel, protocol: Protocol, seed: u64) -> Self {
        Self { env: model.env, protocol, seed, model, episodes: Vec::new() }
    }

    pub fn is_done(&self) -> bool {
        self.episodes.len() as u32 >= 3 * self.protocol.episodes
    }

    /// Plays the next episode (random ones first, then the oracle's, then the model's); false when
    /// all are played.
    pub fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        let played = self.episodes.len() as u32;
        let (policy, index) =
            (Policy::ALL[(played / self.protocol.episodes) as usize], played % self.protocol.episodes);
        let (reward, steps, observations) = self.play(policy, index);
        self.episodes.push(Episode { policy, index, reward, steps, observations });
        true
    }

    fn play(&self, policy: Policy, index: u32) -> (f64, u32, Vec<Vec<f64>>) {
        let (mut env_rng, mut rng) = planning_rngs(self.seed, index);
        let mut env = self.env.make(&mut env_rng);
        let oracle = TrueEnvironment { actions: self.env.actions() };
        let limit = self.env.max_episode_steps().unwrap_or(STEPS_WITHOUT_LIMIT);
        let mut total = 0.0;
        let mut observations = vec![env.obs().values()];
        for step in 1..=limit {
            let action = match policy {
                Policy::Random => rng.random_range(0..self.env.actions()),
                Policy::Oracle => plan(&oracle, &env, &self.protocol.planner, &mut rng),
                Policy::Model => plan(&self.model, &env.obs(), &self.protocol.planner, &mut rng),
            };
            let outcome = env.step(action, &mut env_rng);
            total += outcome.reward;
            observations.push(outcome.obs.values());
            if outcome.terminated {
                return (total, step, observations);
            }
        }
        (total, limit, observations)
    }

    /// The mean return of `policy` over its episodes played so far.
    pub fn mean_return(&self, policy: Policy) -> Option<f64> {
        mean(self.episodes.iter().filter(|e| e.policy == policy).map(|e| e.reward))
    }

    /// R(CWM), once all three have played; `None` before, or when the oracle does no better than
    /// random (the ratio means nothing then: the paper's "N/A").
    pub fn normalised(&self) -> Option<f64> {
        let (random, oracle, model) =
            (self.mean_return(Policy::Random)?, self.mean_return(Policy::Oracle)?, self.mean_return(Policy::Model)?);
        (self.is_done() && oracle > random).then(|| (model - random) / (oracle - random))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cwm::tabulated::tests::perfect_verdict;

    fn evaluate(env: GymId, protocol: Protocol, seed: u64) -> Evaluation {
        let model = TabulatedModel::from_verdict(env, &perfect_verdict(env)).unwrap();
        let mut evaluation = Evaluation::new(model, protocol, seed);
        while evaluation.step() {}
        evaluation
    }

    #[test]
    fn a_perfect_model_plans_exactly_as_the_oracle_and_normalises_to_one() {
        for env in [GymId::CliffWalking, GymId::Taxi] {
            let evaluation = evaluate(env, Protocol::quick(), 4);
            let returns = |policy| {
                evaluation
                    .episodes
                    .iter()
                    .filter(|e| e.policy == policy)
                    .map(|e| (e.reward, e.steps))
                    .collect::<Vec<_>>()
            };
            assert_eq!(returns(Policy::Model), returns(Policy::Oracle), "{}", env.name());
            assert_eq!(evaluation.normalised(), Some(1.0), "{}", env.name());
        }
    }

    #[test]
    fn an_episode_keeps_its_observations_from_the_start_to_the_end() {
        let evaluation = evaluate(GymId::CliffWalking, Protocol::quick(), 4);
        for episode in &evaluation.episodes {
            assert_eq!(episode.observations.len() as u32, episode.steps + 1);
            assert_eq!(episode.observations[0], [36.0], "CliffWalking starts at row 3, column 0");
        }
        let oracle = evaluation.episodes.iter().find(|e| e.policy == Policy::Oracle).unwrap();
        // The oracle's planner reaches the goal (state 47), in no fewer than the shortest path's 13 steps.
        assert_eq!(oracle.observations.last().unwrap(), &[47.0]);
        assert!(oracle.steps >= 13);
    }
}
