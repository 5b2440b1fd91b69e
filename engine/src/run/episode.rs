//! One episode, played by any policy: training's (acting and learning), the greedy policy's, or
//! a scripted expert's that fills the replay memory.

use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AnyAgent, Transition};
use crate::env::{ActionMask, AnyEnv, Environment, Observation};
use crate::features::Featurizer;
use crate::rng::RunRng;

/// What happened in one episode.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeOutcome {
    #[serde(rename = "return")]
    pub episode_return: f64,
    pub length: u32,
    pub success: bool,
    pub agent_calls: u32,
    pub invalid_actions: u32,
    /// Index of the task into the environment's task list.
    pub task: u16,
    pub actions: Vec<u8>,
}

impl EpisodeOutcome {
    pub fn record(&mut self, action: usize, reward: f64, agent_call: bool, invalid: bool) {
        self.episode_return += reward;
        self.length += 1;
        self.agent_calls += u32::from(agent_call);
        self.invalid_actions += u32::from(invalid);
        self.actions.push(action as u8);
    }
}

/// How actions are chosen in an episode, and what the agent does with the experience. Choosing is
/// asynchronous because a training agent on WebGPU awaits its Q-values.
pub(super) trait Policy {
    async fn choose(&mut self, obs: Observation, features: &[f32]) -> Result<usize, String>;
    fn learn(&mut self, _transition: &Transition) {}
}

/// How often training acted in a state, and the legal actions there (for policy views).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StateVisits {
    pub count: u32,
    pub mask: ActionMask,
}

pub(super) struct Training<'a> {
    pub(super) agent: &'a mut AnyAgent,
    pub(super) rng: &'a mut RunRng,
    pub(super) visits: &'a mut [StateVisits],
}

impl Policy for Training<'_> {
    async fn choose(&mut self, obs: Observation, features: &[f32]) -> Result<usize, String> {
        let visits = &mut self.visits[obs.state];
        visits.count += 1;
        visits.mask = obs.mask;
        self.agent.act_async(obs, features, self.rng).await
    }
    fn learn(&mut self, transition: &Transition) {
        self.agent.observe(transition, self.rng);
    }
}

pub(super) struct Greedy<'a>(pub(super) &'a AnyAgent);

impl Policy for Greedy<'_> {
    async fn choose(&mut self, obs: Observation, features: &[f32]) -> Result<usize, String> {
        Ok(self.0.greedy(obs, features))
    }
}

/// Plays a scripted action sequence and stores its transitions in the agent's replay memory.
pub(super) struct Expert<'a> {
    pub(super) agent: &'a mut AnyAgent,
    pub(super) actions: std::vec::IntoIter<usize>,
}

impl Policy for Expert<'_> {
    async fn choose(&mut self, _obs: Observation, _features: &[f32]) -> Result<usize, String> {
        Ok(self.actions.next().expect("expert sequences end the episode"))
    }
    fn learn(&mut self, transition: &Transition) {
        self.agent.remember(transition);
    }
}

/// Plays one episode of `env`, already reset to `obs`; features are computed only with a featurizer.
pub(super) async fn play_episode(
    env: &mut AnyEnv,
    obs: Observation,
    policy: &mut impl Policy,
    featurizer: Option<&Featurizer>,
) -> Result<EpisodeOutcome, String> {
    let mut obs = obs;
    let dim = featurizer.map_or(0, Featurizer::dim);
    let (mut features, mut next_features) = (vec![0.0; dim], vec![0.0; dim]);
    if let Some(f) = featurizer {
        f.write(env, &mut features);
    }
    let mut outcome = EpisodeOutcome { task: env.task_index() as u16, ..EpisodeOutcome::default() };
    loop {
        let action = policy.choose(obs, &features).await?;
        let step = env.step(action);
        if let Some(f) = featurizer {
            f.write(env, &mut next_features);
        }
        policy.learn(&Transition {
            state: obs.state,
            action,
            reward: step.reward,
            next: step.observation,
            done: step.done(),
            features: &features,
            next_features: &next_features,
        });
        outcome.record(action, step.reward, step.info.agent_call, step.info.invalid_action);
        outcome.success |= step.info.success;
        if step.done() {
            return Ok(outcome);
        }
        obs = step.observation;
        std::mem::swap(&mut features, &mut next_features);
    }
}
