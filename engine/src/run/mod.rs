//! Runs: a serialisable spec and the driver that trains an agent on an environment episode by
//! episode. Everything random in a run comes from one ChaCha8 stream seeded by the spec: it seeds
//! each episode's environment reset and every exploratory choice, so the same spec gives
//! bit-identical records on every platform.

use std::collections::VecDeque;

use rand::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AgentId, AgentSpec, AnyAgent, Checkpoint, RollingMetrics};
use crate::device::{Backend, resolved};
use crate::env::gym::{GymEnvironment, GymParams};
use crate::env::{AnyEnv, EnvId, EnvSpec, Environment, Observation};
use crate::episode_tree::EpisodeTree;
use crate::features::Featurizer;
use crate::params::Parameters;
use crate::rng::{RunRng, evaluation_rng};

mod episode;
mod metrics;
pub mod records_csv;
#[cfg(test)]
mod tests;

pub use crate::env::episode::EpisodeOutcome;
use crate::env::episode::play;
pub(crate) use episode::Features;
pub use episode::StateVisits;
use episode::{Expert, Greedy, Training};
use metrics::Totals;
pub use metrics::{EpisodeRecord, Evaluation, Fingerprint, RunSummary, fingerprint};

/// Everything that determines a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    #[serde(deserialize_with = "crate::env::spec_or_name")]
    pub env: EnvSpec,
    pub agent: AgentSpec,
    pub seed: u64,
    /// Training episodes.
    pub episodes: u32,
    /// Where neural agents compute (tabular agents ignore it).
    #[serde(default)]
    pub backend: Backend,
}

impl RunSpec {
    pub const MAX_EPISODES: u32 = 1_000_000;

    /// A spec with the seed's hyperparameters for `agent`.
    pub fn new(env: EnvId, agent: AgentId, seed: u64, episodes: u32) -> Self {
        Self { env: env.default_spec(), agent: agent.default_spec(env), seed, episodes, backend: Backend::default() }
    }

    /// The episode budget a run of `agent` on `env` needs to learn (the seeds' budgets).
    pub fn default_episodes(env: EnvId, agent: AgentId) -> u32 {
        env.default_episodes(agent.uses_backend())
    }

    /// Checks every field; the error names the field and its allowed range.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=Self::MAX_EPISODES).contains(&self.episodes) {
            return Err(format!("episodes must be between 1 and {}, got {}", Self::MAX_EPISODES, self.episodes));
        }
        self.env.validate()?;
        let env = self.env.id();
        if !self.agent.id().uses_backend() && !env.discrete_states() {
            return Err(format!(
                "{} learns a table of values per state, and {}'s states are continuous: train the dqn on it",
                self.agent.id().name(),
                env.name()
            ));
        }
        self.agent.validate()
    }
}

const WINDOW: usize = 100;

/// A run in progress. Iterate it to train one episode per item.
#[derive(Clone, Debug)]
pub struct Run {
    spec: RunSpec,
    env: AnyEnv,
    agent: AnyAgent,
    rng: RunRng,
    featurizer: Option<Featurizer>,
    episode: u32,
    window: VecDeque<(bool, f64)>,
    window_successes: u32,
    window_return_sum: f64,
    best_success_last100: f64,
    totals: Totals,
    tree: EpisodeTree,
    state_visits: Vec<StateVisits>,
    stopped: bool,
}

impl Run {
    pub fn new(spec: RunSpec) -> Result<Self, String> {
        spec.validate()?;
        let mut env = spec.env.make()?;
        let mut rng = RunRng::seed_from_u64(spec.seed);
        let mut agent = spec.agent.build(&env, spec.backend, &mut rng)?;
        let featurizer = agent.embedding_dim().map(|dim| Featurizer::new(&env, dim));
        seed_with_experts(&mut env, &mut agent, featurizer.as_ref(), &mut rng);
        let state_visits = vec![StateVisits::default(); env.info().n_states];
        Ok(Self {
            spec,
            env,
            agent,
            rng,
            featurizer,
            episode: 0,
            window: VecDeque::with_capacity(WINDOW),
            window_successes: 0,
            window_return_sum: 0.0,
            best_success_last100: 0.0,
            totals: Totals::default(),
            tree: EpisodeTree::default(),
            state_visits,
            stopped: false,
        })
    }

    /// Continues a run whose first `resume.episodes` records are kept elsewhere (the page's storage)
    /// without their agent: runs are deterministic, so training them again restores the agent
    /// exactly, and the fingerprint proves it.
    pub async fn resume(mut self, resume: &Resume) -> Result<Self, String> {
        let mut replayed = Vec::with_capacity(resume.episodes as usize);
        while replayed.len() < resume.episodes as usize {
            match self.train_episode().await? {
                Some(record) => replayed.push(record),
                None => break,
            }
        }
        let replayed_fingerprint = fingerprint(&replayed);
        if replayed.len() != resume.episodes as usize || replayed_fingerprint != resume.fingerprint {
            return Err(format!(
                "training the first {} episodes again gave other records (fingerprint {replayed_fingerprint}, stored {}), so the run cannot go on from them",
                resume.episodes, resume.fingerprint
            ));
        }
        Ok(self)
    }

    /// A run of `spec` whose agent holds the policy in `checkpoint` (see [`Checkpoint`]): for live
    /// mode and policy views after a reload or an import. It has no records and trains no further,
    /// so its agent computes on the CPU whichever backend trained it.
    pub fn from_checkpoint(spec: RunSpec, checkpoint: &Checkpoint) -> Result<Self, String> {
        let mut run = Self::new(RunSpec { backend: Backend::Ndarray, ..spec.clone() })?;
        run.spec = spec;
        run.agent.load_checkpoint(checkpoint)?;
        run.stopped = true;
        Ok(run)
    }

    /// A finished run's trained agent, from its checkpoint if it has one that loads, else by
    /// training its recorded episodes again (as long as they took to train); the policy ends up on
    /// the CPU.
    pub async fn rebuild(
        spec: RunSpec,
        resume: &Resume,
        checkpoint: Option<&Checkpoint>,
    ) -> Result<(Self, Restoration), String> {
        let checkpoint_problem = match checkpoint.map(|c| Self::from_checkpoint(spec.clone(), c)) {
            Some(Ok(run)) => return Ok((run, Restoration::Checkpoint)),
            Some(Err(problem)) => Some(problem),
            None => None,
        };
        let mut run = Self::new(spec)?.resume(resume).await?;
        run.stop();
        run.copy_policy_to_cpu().await?;
        Ok((run, Restoration::Replay { episodes: resume.episodes, checkpoint_problem }))
    }

    /// What the agent learned so far, to store with the run.
    pub fn checkpoint(&self) -> Result<Checkpoint, String> {
        self.agent.checkpoint()
    }

    pub fn spec(&self) -> &RunSpec {
        &self.spec
    }

    pub fn env(&self) -> &AnyEnv {
        &self.env
    }

    pub fn agent(&self) -> &AnyAgent {
        &self.agent
    }

    pub fn tree(&self) -> &EpisodeTree {
        &self.tree
    }

    /// Per state index: how often training acted there.
    pub fn state_visits(&self) -> &[StateVisits] {
        &self.state_visits
    }

    pub(crate) fn featurizer(&self) -> Option<&Featurizer> {
        self.featurizer.as_ref()
    }

    pub fn episodes_done(&self) -> u32 {
        self.episode
    }

    /// The budget is spent or the run was stopped.
    pub fn is_finished(&self) -> bool {
        self.stopped || self.episode >= self.spec.episodes
    }

    /// Ends training before the budget is spent; agents that keep a best checkpoint switch to it.
    pub fn stop(&mut self) {
        if !self.is_finished() {
            self.agent.finish();
        }
        self.stopped = true;
    }

    /// Trains one episode; `None` once the budget is spent, an error if the device failed. Native
    /// hosts, which can wait, iterate the run instead.
    pub async fn train_episode(&mut self) -> Result<Option<EpisodeRecord>, String> {
        if self.is_finished() {
            return Ok(None);
        }
        let epsilon = self.agent.epsilon();
        let obs = self.env.reset(self.rng.next_u64());
        let mut training = Training {
            agent: &mut self.agent,
            rng: &mut self.rng,
            visits: &mut self.state_visits,
            features: Features::new(self.featurizer.as_ref()),
        };
        let outcome = play(&mut self.env, obs, &mut training).await?;
        let record = self.record(outcome, epsilon).await?;
        if self.is_finished() {
            self.agent.finish();
        }
        Ok(Some(record))
    }

    /// Copies the greedy policy of a run on a GPU to the CPU (see [`Dqn::copy_to_cpu`]); call it
    /// before greedy evaluations, policy views or checkpoints of a WebGPU run in a browser.
    pub async fn copy_policy_to_cpu(&mut self) -> Result<(), String> {
        match &mut self.agent {
            AnyAgent::Dqn(dqn) if self.spec.backend != Backend::Ndarray => dqn.copy_to_cpu().await,
            _ => Ok(()),
        }
    }

    /// Updates the rolling metrics and the tree with an episode, and closes it for the agent.
    async fn record(&mut self, outcome: EpisodeOutcome, epsilon: Option<f64>) -> Result<EpisodeRecord, String> {
        if self.window.len() == WINDOW {
            let (success, ret) = self.window.pop_front().expect("the window is full");
            self.window_successes -= u32::from(success);
            self.window_return_sum -= ret;
        }
        self.window.push_back((outcome.success, outcome.episode_return));
        self.window_successes += u32::from(outcome.success);
        self.window_return_sum += outcome.episode_return;
        let filled = self.window.len() as f64;
        let success_last100 = f64::from(self.window_successes) / filled;
        if self.window.len() == WINDOW {
            self.best_success_last100 = self.best_success_last100.max(success_last100);
        }
        let mean_return_last100 = self.window_return_sum / filled;
        let window_full = self.window.len() == WINDOW;
        let last50 = self.window.iter().rev().take(50);
        let mean_return_last50 = last50.clone().map(|&(_, ret)| ret).sum::<f64>() / last50.len() as f64;
        let progress = RollingMetrics { success_last100, mean_return_last50, window_full };
        let loss = self.agent.end_episode(&progress).await?;
        self.totals.add(&outcome);
        self.tree.add(self.episode, &outcome.actions, outcome.episode_return, outcome.success);
        let record =
            EpisodeRecord { episode: self.episode, outcome, epsilon, loss, success_last100, mean_return_last100 };
        self.episode += 1;
        Ok(record)
    }

    pub fn summary(&self) -> RunSummary {
        let means = self.totals.evaluation();
        let filled = self.window.len().max(1) as f64;
        RunSummary {
            env: self.spec.env.id(),
            agent: self.spec.agent.id(),
            seed: self.spec.seed,
            episodes: self.episode,
            success_last100: f64::from(self.window_successes) / filled,
            // Before 100 episodes there is no full window; report the partial one.
            best_success_last100: if self.window.len() < WINDOW {
                f64::from(self.window_successes) / filled
            } else {
                self.best_success_last100
            },
            mean_return: means.mean_return,
            mean_length: means.mean_length,
            mean_agent_calls: means.mean_agent_calls,
        }
    }

    /// Plays the greedy policy, without learning, on `episodes` fresh episodes drawn from a stream
    /// of the run's seed that training never uses. A run trained inside a world model is
    /// evaluated on the real environment: what it learned there is what counts.
    pub fn evaluate_greedy(&self, episodes: u32) -> Evaluation {
        let mut rng = evaluation_rng(self.spec.seed);
        let mut env = match &self.spec.env {
            EnvSpec::Gym(p) if p.model.is_some() => {
                AnyEnv::Gym(GymEnvironment::new(GymParams { model: None, ..p.clone() }))
            }
            _ => self.env.clone(),
        };
        Evaluation::of((0..episodes).map(|_| {
            let obs = env.reset(rng.next_u64());
            resolved(play(&mut env, obs, &mut self.greedy()))
        }))
    }

    /// Plays the environment's baseline ([`EnvSpec::baseline`]) on the episodes that
    /// [`evaluate_greedy`](Self::evaluate_greedy) plays, so both policies meet the same ones; `None`
    /// where the environment has no baseline.
    pub fn evaluate_baseline(&self, episodes: u32) -> Option<Evaluation> {
        let baseline = self.spec.env.baseline()?;
        let mut rng = evaluation_rng(self.spec.seed);
        let mut env = self.env.clone();
        Some(Evaluation::of((0..episodes).map(|_| baseline.play(&mut env, rng.next_u64()))))
    }

    fn greedy(&self) -> Greedy<'_> {
        Greedy { agent: &self.agent, features: Features::new(self.featurizer.as_ref()) }
    }

    /// The greedy action of the trained agent in `env`'s current state (`env` may be any
    /// environment of the run's kind, for example one on another task).
    pub fn greedy_action(&self, env: &impl Environment, obs: Observation) -> usize {
        self.greedy_action_on(obs, &env.texts(), |out| env.features(out))
    }

    /// The greedy action in a state given by its observation, texts and environment features (a
    /// live episode's state, which no [`Environment`] holds).
    pub fn greedy_action_on(&self, obs: Observation, texts: &[&str], env_features: impl FnOnce(&mut [f32])) -> usize {
        let mut features = vec![0.0; self.featurizer.map_or(0, |f| f.dim())];
        if let Some(f) = &self.featurizer {
            f.write_parts(texts, env_features, &mut features);
        }
        self.agent.greedy(obs, &features)
    }

    /// Plays one greedy episode of task `task` from `seed`, without learning.
    pub fn greedy_episode(&self, task: usize, seed: u64) -> EpisodeOutcome {
        let mut env = self.env.clone();
        let obs = env.reset_task(seed, task);
        resolved(play(&mut env, obs, &mut self.greedy()))
    }
}

/// Stores the agent's expert episodes per task (seed 000 Listing 7) in its replay memory.
fn seed_with_experts(env: &mut AnyEnv, agent: &mut AnyAgent, featurizer: Option<&Featurizer>, rng: &mut RunRng) {
    let per_task = agent.expert_episodes_per_task();
    for task in 0..env.info().tasks.len() {
        for _ in 0..per_task {
            let obs = env.reset_task(rng.next_u64(), task);
            let Some(actions) = env.expert_actions() else { return };
            let mut expert = Expert { agent, actions: actions.into_iter(), features: Features::new(featurizer) };
            resolved(play(env, obs, &mut expert));
        }
    }
}

/// How [`Run::rebuild`] brought a trained agent back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum Restoration {
    /// Loaded from the run's stored checkpoint.
    Checkpoint,
    /// Trained the recorded episodes again: there was no checkpoint, or it could not be loaded.
    Replay {
        episodes: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checkpoint_problem: Option<String>,
    },
}

/// Where a run stopped: how many episodes are recorded, and their fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resume {
    pub episodes: u32,
    pub fingerprint: String,
}

impl Iterator for Run {
    type Item = EpisodeRecord;

    /// Trains one episode, waiting for the device (every device but a browser's GPU answers at once).
    fn next(&mut self) -> Option<EpisodeRecord> {
        resolved(self.train_episode())
    }
}
