//! The one episode loop of the simulated environments. Every episode is played here, whoever
//! chooses the actions: training (acting and learning), the greedy policy, a scripted expert that
//! fills a replay memory, a fixed baseline, or the traces of hierarchical inference. A policy sees
//! each step's result through [`Policy::stepped`], where it learns, records or traces.

use serde::{Deserialize, Serialize};

use super::{Environment, Observation, Step};

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

/// How actions are chosen in an episode of `E`. Choosing is asynchronous because a training agent
/// on WebGPU awaits its Q-values; every other policy answers at once.
// The futures run on one thread (the worker's, or the CLI's): no `Send` bound is needed.
#[allow(async_fn_in_trait)]
pub trait Policy<E: Environment> {
    /// The action in `env`'s current state, `obs`.
    async fn choose(&mut self, env: &E, obs: Observation) -> Result<usize, String>;
    /// `action`, chosen in `obs`, gave `step`; `env` is in the state after it.
    fn stepped(&mut self, _env: &E, _obs: Observation, _action: usize, _step: &Step) {}
    /// The policy makes no more moves, so the episode ends where it is (a script that ran out).
    fn has_stopped(&mut self) -> bool {
        false
    }
}

/// Plays one episode of `env`, already reset to `obs`, to its end.
pub async fn play<E: Environment>(
    env: &mut E,
    obs: Observation,
    policy: &mut impl Policy<E>,
) -> Result<EpisodeOutcome, String> {
    let mut obs = obs;
    let mut outcome = EpisodeOutcome { task: env.task_index() as u16, ..EpisodeOutcome::default() };
    loop {
        if policy.has_stopped() {
            return Ok(outcome);
        }
        let action = policy.choose(env, obs).await?;
        let step = env.step(action);
        policy.stepped(env, obs, action, &step);
        outcome.record(action, step.reward, step.info.agent_call, step.info.invalid_action);
        outcome.success |= step.info.success;
        if step.done() {
            return Ok(outcome);
        }
        obs = step.observation;
    }
}

/// Plays `actions` in order, whatever the states, and stops when they run out (a fixed pipeline).
pub struct Scripted<I: Iterator>(std::iter::Peekable<I>);

impl<I: Iterator<Item = usize>> Scripted<I> {
    pub fn new(actions: impl IntoIterator<IntoIter = I>) -> Self {
        Self(actions.into_iter().peekable())
    }
}

impl<E: Environment, I: Iterator<Item = usize>> Policy<E> for Scripted<I> {
    async fn choose(&mut self, _env: &E, _obs: Observation) -> Result<usize, String> {
        Ok(self.0.next().expect("has_stopped is asked first"))
    }
    fn has_stopped(&mut self) -> bool {
        self.0.peek().is_none()
    }
}

/// A fixed policy that a seed compares the learned one with, and what its runs cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baseline {
    /// Its actions, all of them made in every episode: it does not look at results. The episode
    /// ends when they are made, if the environment has not ended it before.
    pub actions: &'static [usize],
    /// What each action still made after the environment ended the episode costs; each counts as
    /// an agent call.
    pub reward_after_end: f64,
}

impl Baseline {
    /// One episode of the baseline on `env` from `seed`.
    pub fn play(&self, env: &mut impl Environment, seed: u64) -> EpisodeOutcome {
        let obs = env.reset(seed);
        let mut outcome = crate::device::resolved(play(env, obs, &mut Scripted::new(self.actions.iter().copied())));
        for &action in &self.actions[outcome.length as usize..] {
            outcome.record(action, self.reward_after_end, true, false);
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use crate::env::orchestrator::{OrchestratorEnv, OrchestratorParams, PIPELINE};
    use crate::env::{EnvId, EnvSpec};

    fn certain() -> EnvSpec {
        let params =
            OrchestratorParams { planner_success: 1.0, coder_success_with_plan: 1.0, ..OrchestratorParams::default() };
        EnvSpec::Orchestrator(params)
    }

    #[test]
    fn the_pipeline_makes_all_its_calls_and_is_charged_for_those_after_success() {
        let spec = certain();
        let EnvSpec::Orchestrator(params) = spec else { unreachable!() };
        let outcome = spec.baseline().unwrap().play(&mut OrchestratorEnv::new(params), 0);
        assert!(outcome.success);
        assert_eq!(outcome.agent_calls, 5);
        assert_eq!(outcome.actions, PIPELINE.map(|a| a as u8));
        // plan 0.1, code 0.2, tests pass 9.9, then two redundant calls of -0.3.
        assert!((outcome.episode_return - (0.1 + 0.2 + 9.9 - 0.6)).abs() < 1e-9, "{}", outcome.episode_return);
    }

    #[test]
    fn a_script_that_runs_out_ends_the_episode_where_it_is() {
        let params = OrchestratorParams { planner_success: 0.0, max_iterations: 20, ..OrchestratorParams::default() };
        let baseline = EnvSpec::Orchestrator(params).baseline().unwrap();
        let outcome = baseline.play(&mut OrchestratorEnv::new(params), 3);
        assert_eq!((outcome.length, outcome.agent_calls), (5, 5));
        assert!(EnvId::Executive.default_spec().baseline().is_none());
    }
}
