//! The run's policies for the one episode loop ([`crate::env::episode::play`]): training's (acting
//! and learning), the greedy policy's, and a scripted expert's that fills the replay memory.

use crate::agents::{Agent, AnyAgent, Experience};
use crate::env::episode::Policy;
use crate::env::{ActionMask, AnyEnv, Observation, Step};
use crate::features::Featurizer;
use crate::rng::RunRng;

/// How often training acted in a state, and the legal actions there (for policy views).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StateVisits {
    pub count: u32,
    pub mask: ActionMask,
}

/// The dense features of the state an episode is in and of the one after a step, for agents that
/// embed states (empty otherwise, and never computed).
pub(crate) struct Features<'a> {
    featurizer: Option<&'a Featurizer>,
    current: Vec<f32>,
    next: Vec<f32>,
    /// `current` holds the features of the state the environment is in.
    fresh: bool,
}

impl<'a> Features<'a> {
    pub(crate) fn new(featurizer: Option<&'a Featurizer>) -> Self {
        let dim = featurizer.map_or(0, Featurizer::dim);
        Self { featurizer, current: vec![0.0; dim], next: vec![0.0; dim], fresh: false }
    }

    /// The features of `env`'s current state, for a policy that does not follow the episode step
    /// by step (computed each time).
    pub(crate) fn now(&mut self, env: &AnyEnv) -> &[f32] {
        self.fresh = false;
        self.current(env)
    }

    /// The features of `env`'s current state, computed once per state.
    fn current(&mut self, env: &AnyEnv) -> &[f32] {
        if let (false, Some(f)) = (self.fresh, self.featurizer) {
            f.write(env, &mut self.current);
        }
        self.fresh = true;
        &self.current
    }

    /// The transition of a step from `obs` to `env`'s state now, and then moves on to that state.
    fn step<R>(
        &mut self,
        env: &AnyEnv,
        obs: Observation,
        action: usize,
        step: &Step,
        use_it: impl FnOnce(&Experience) -> R,
    ) -> R {
        if let Some(f) = self.featurizer {
            f.write(env, &mut self.next);
        }
        let transition = Experience {
            state: obs.state,
            action,
            reward: step.reward,
            next: step.observation,
            done: step.done(),
            features: &self.current,
            next_features: &self.next,
        };
        let result = use_it(&transition);
        std::mem::swap(&mut self.current, &mut self.next);
        result
    }
}

pub(super) struct Training<'a> {
    pub(super) agent: &'a mut AnyAgent,
    pub(super) rng: &'a mut RunRng,
    pub(super) visits: &'a mut [StateVisits],
    pub(super) features: Features<'a>,
}

impl Policy<AnyEnv> for Training<'_> {
    async fn choose(&mut self, env: &AnyEnv, obs: Observation) -> Result<usize, String> {
        let visits = &mut self.visits[obs.state];
        visits.count += 1;
        visits.mask = obs.mask;
        self.agent.act(obs, self.features.current(env), self.rng).await
    }
    fn stepped(&mut self, env: &AnyEnv, obs: Observation, action: usize, step: &Step) {
        let (agent, rng) = (&mut *self.agent, &mut *self.rng);
        self.features.step(env, obs, action, step, |transition| agent.observe(transition, rng));
    }
}

pub(super) struct Greedy<'a> {
    pub(super) agent: &'a AnyAgent,
    pub(super) features: Features<'a>,
}

impl Policy<AnyEnv> for Greedy<'_> {
    async fn choose(&mut self, env: &AnyEnv, obs: Observation) -> Result<usize, String> {
        Ok(self.agent.greedy(obs, self.features.now(env)))
    }
}

/// Plays a scripted action sequence and stores its transitions in the agent's replay memory.
pub(super) struct Expert<'a> {
    pub(super) agent: &'a mut AnyAgent,
    pub(super) actions: std::vec::IntoIter<usize>,
    pub(super) features: Features<'a>,
}

impl Policy<AnyEnv> for Expert<'_> {
    async fn choose(&mut self, env: &AnyEnv, _obs: Observation) -> Result<usize, String> {
        self.features.current(env);
        self.actions.next().ok_or_else(|| "the expert's actions ran out before the episode ended".to_owned())
    }
    fn stepped(&mut self, env: &AnyEnv, obs: Observation, action: usize, step: &Step) {
        let agent = &mut *self.agent;
        self.features.step(env, obs, action, step, |transition| agent.remember(transition));
    }
}
