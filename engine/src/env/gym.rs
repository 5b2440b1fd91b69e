//! Seed 004's six Gymnasium environments ([`crate::gym`]) as playground environments, so the
//! agents train on them with the page's runs, plots and views: Q-learning and Thompson sampling
//! on the discrete-state ones (CliffWalking, Taxi, Blackjack), the DQN on all six.
//!
//! An environment steps either the real dynamics or a code world model tabulated over its states
//! ([`crate::cwm::tabulated`]): an agent trained inside a model starts its episodes as the real
//! environment does and sees only the model's outcomes (seed 004's point: a model written once
//! replaces real experience).
//!
//! Each environment's file says what its state index, features, flags and success are
//! ([`crate::gym::Gymnasium`]): CliffWalking's and Taxi's own index, one-hot; Blackjack's three
//! values; the float observation of the others. Success: CliffWalking's goal, Taxi's delivery, a
//! Blackjack win, CartPole's pole still up at the time limit, MountainCar's flag, Acrobot's line.

use std::sync::Arc;

use rand::SeedableRng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ActionMask, EnvId, EnvInfo, Environment, Observation, Step, StepInfo};
use crate::cwm::mcts::Model;
use crate::cwm::tabulated::TabulatedModel;
use crate::gym::{GymEnv, GymId, GymObs, TimeLimit};
use crate::rng::RunRng;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GymParams {
    /// The Gymnasium environment (chosen with the environment, not a field).
    #[schemars(skip)]
    pub env: GymId,
    /// Steps after which an episode of an environment without a time limit of its own
    /// (CliffWalking, Blackjack) is cut, so that a policy that walks in circles cannot train
    /// forever; the others keep Gymnasium's limit (Taxi and MountainCar 200, CartPole and Acrobot 500).
    pub max_steps_without_limit: u32,
    /// The world model the agent trains inside, tabulated; none: the real environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub model: Option<Arc<TabulatedModel>>,
}

impl GymParams {
    pub fn new(env: GymId) -> Self {
        Self { env, max_steps_without_limit: 1_000, model: None }
    }

    pub fn validate(&self) -> Result<(), String> {
        crate::params::check_range(
            "max_steps_without_limit",
            f64::from(self.max_steps_without_limit),
            1.0..=100_000.0,
        )?;
        match &self.model {
            Some(model) if model.env != self.env => {
                Err(format!("the world model is of {}, not {}", model.env.name(), self.env.name()))
            }
            _ => Ok(()),
        }
    }
}

#[derive(Clone, Debug)]
pub struct GymEnvironment {
    params: GymParams,
    /// The real environment: where episodes start, and what steps when there is no model.
    env: GymEnv,
    /// What the agent sees: the real observation, or the model's.
    obs: GymObs,
    rng: RunRng,
    limit: TimeLimit,
}

impl GymEnvironment {
    pub fn new(params: GymParams) -> Self {
        let mut rng = RunRng::seed_from_u64(0);
        let env = params.env.make(&mut rng);
        let obs = env.obs();
        let limit = Self::limit(&params);
        Self { params, env, obs, rng, limit }
    }

    fn limit(params: &GymParams) -> TimeLimit {
        let max = params.env.max_episode_steps().unwrap_or(params.max_steps_without_limit);
        TimeLimit { max_steps: Some(max), elapsed: 0 }
    }
}

impl Environment for GymEnvironment {
    fn info(&self) -> EnvInfo {
        let id = self.params.env;
        EnvInfo {
            id: EnvId::Gym(id),
            action_names: id.action_names(),
            n_states: id.tabular_states(),
            feature_dim: id.feature_dim(),
            text_names: &[],
            tasks: vec![id.name().to_owned()],
        }
    }

    fn reset(&mut self, seed: u64) -> Observation {
        self.rng = RunRng::seed_from_u64(seed);
        self.env = self.params.env.make(&mut self.rng);
        self.obs = self.env.obs();
        self.limit = Self::limit(&self.params);
        self.observation()
    }

    fn step(&mut self, action: usize) -> Step {
        let id = self.params.env;
        assert!(action < id.actions(), "action {action} is outside {}'s {} actions", id.name(), id.actions());
        let (obs, reward, terminated) = match &self.params.model {
            Some(model) => model.step(&self.obs, action, &mut self.rng),
            None => {
                let step = self.env.step(action, &mut self.rng);
                (step.obs, step.reward, step.terminated)
            }
        };
        self.obs = obs;
        let truncated = self.limit.step() && !terminated;
        let info =
            StepInfo { success: id.success(reward, terminated, truncated), invalid_action: false, agent_call: false };
        Step { observation: self.observation(), reward, terminated, truncated, info }
    }

    fn observation(&self) -> Observation {
        Observation { state: self.params.env.state_index(&self.obs), mask: ActionMask::all(self.params.env.actions()) }
    }

    fn features(&self, out: &mut [f32]) {
        self.params.env.features(&self.obs, out);
    }

    fn observation_values(&self) -> Vec<f64> {
        self.obs.values()
    }

    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)> {
        self.params.env.state_flags(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cwm::tabulated::tests::perfect_verdict;

    #[test]
    fn taxi_flags_read_its_state_index() {
        let taxi = GymEnvironment::new(GymParams::new(GymId::Taxi));
        // State 328: row 3, column 1, passenger at Y (2), destination R (0), as Gymnasium's docs.
        let flags = taxi.state_flags(328);
        assert_eq!(
            flags,
            [("row", "3".into()), ("column", "1".into()), ("passenger", "Y".into()), ("destination", "R".into())]
        );
    }

    #[test]
    fn cliff_walking_steps_as_gymnasium_and_its_goal_is_success() {
        let mut env = GymEnvironment::new(GymParams::new(GymId::CliffWalking));
        assert_eq!(env.reset(3).state, 36);
        let step = env.step(1);
        assert_eq!((step.observation.state, step.reward, step.terminated), (36, -100.0, false));
        let path = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1];
        let rewards: f64 = path.iter().map(|&a| env.step(a).reward).sum();
        let last = env.step(2);
        assert_eq!((rewards + last.reward, last.terminated, last.info.success), (-13.0, true, true));
    }

    #[test]
    fn an_episode_without_a_time_limit_is_cut_at_the_safety_limit() {
        let mut env =
            GymEnvironment::new(GymParams { max_steps_without_limit: 5, ..GymParams::new(GymId::CliffWalking) });
        env.reset(0);
        let steps: Vec<Step> = (0..5).map(|_| env.step(0)).collect();
        assert!(steps[..4].iter().all(|s| !s.done()) && steps[4].truncated);
    }

    #[test]
    fn inside_a_perfect_model_an_episode_is_the_real_one() {
        let model = TabulatedModel::from_verdict(GymId::Taxi, &perfect_verdict(GymId::Taxi)).unwrap();
        let mut inside = GymEnvironment::new(GymParams { model: Some(Arc::new(model)), ..GymParams::new(GymId::Taxi) });
        let mut real = GymEnvironment::new(GymParams::new(GymId::Taxi));
        assert_eq!(inside.reset(9), real.reset(9));
        for action in [0, 1, 2, 3, 4, 5, 0, 0, 2, 4] {
            assert_eq!(inside.step(action), real.step(action));
        }
    }
}
