//! How well a world model plans (seed 004 §5.3, sheet §3.5): the planner plays episodes of the
//! real environment with the model, with the true environment (the oracle) and, as a floor,
//! uniformly random actions; the model's normalised return is
//! `R(CWM) = (R(π_CWM) − R(π_rand)) / (R(π_true) − R(π_rand))` over the mean returns. It can pass 1
//! (the paper's CartPole: 1.11). The three policies play the same episodes: each episode's start
//! and cards come from its own stream ([`crate::rng::planning_rngs`]). An episode ends at
//! termination or at the environment's time limit (100 steps where it has none, as the paper's).
//!
//! Where the model is tabulated ([`super::tabulated`]: CliffWalking, Taxi, Blackjack) every episode
//! is played here with the Rust planner and environment. A continuous environment's model cannot
//! be tabulated, and one harness request per real step would cost a round trip (in the page, a
//! fresh interpreter) each: there each episode is one request ([`PlanRequest`]), in which the
//! harness runs the same planner with the model and, as the real environment, the reference model
//! of the simulated LLM's bank, which the Gymnasium fixture checks. All three policies play there,
//! so that they meet the same real environment.
//!
//! An evaluation is sans-IO, a [`PlanningRun`] that a host drives like any [`Effectful`] task, and
//! a page can show it grow.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::mcts::{PlannerParams, TrueEnvironment, plan};
use super::tabulated::{self, TABULATE_LIMIT_MS, TabulatedModel};
use crate::effects::{Effectful, Need, PythonBatch, only_verdict};
use crate::gym::GymId;
use crate::python::{Author, Outcome, ProgramRequest, ProgramVerdict};
use crate::rng::planning_rngs;

/// Steps an episode may take in an environment without a time limit.
pub const STEPS_WITHOUT_LIMIT: u32 = 100;
/// How long one episode planned in Python may take (the paper's Acrobot protocol takes about 17 s
/// in python3, the quick one about 4 s).
pub const EPISODE_LIMIT_MS: u32 = 300_000;

/// The episodes and the planner: the paper's, or a quicker one for the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Protocol {
    /// Episodes per policy (the paper's 10).
    pub episodes: u32,
    pub planner: PlannerParams,
    /// The oracle plans on a copy of the real environment that carries its random stream, so it
    /// foresees Blackjack's cards, as the official oracle does (see [`TrueEnvironment`]). false: it
    /// draws its own cards, a fair planner that cannot see the future (this project's earlier rule).
    #[serde(default = "crate::params::on")]
    pub oracle_foresight: bool,
}

impl Protocol {
    pub fn paper() -> Self {
        Self { episodes: 10, planner: PlannerParams::default(), oracle_foresight: true }
    }

    /// 3 episodes and rollouts of 20 steps: a first figure in seconds, not the paper's.
    pub fn quick() -> Self {
        Self { episodes: 3, planner: PlannerParams { rollout_steps: 20, ..PlannerParams::default() }, ..Self::paper() }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanningPolicy {
    Random,
    /// The planner with the true environment.
    Oracle,
    /// The planner with the world model.
    Model,
}

impl PlanningPolicy {
    pub const ALL: [PlanningPolicy; 3] = [PlanningPolicy::Random, PlanningPolicy::Oracle, PlanningPolicy::Model];

    pub fn label(self) -> &'static str {
        match self {
            PlanningPolicy::Random => "random",
            PlanningPolicy::Oracle => "oracle",
            PlanningPolicy::Model => "model",
        }
    }
}

/// One episode played: its return and length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    pub policy: PlanningPolicy,
    pub index: u32,
    pub reward: f64,
    pub steps: u32,
    /// How often the planner stepped its model (for an episode played in Python; 0 otherwise).
    #[serde(default)]
    pub model_steps: u64,
    /// The real environment's observations, from the start to the last, as numbers (for
    /// watching the episode; not in reports).
    #[serde(skip)]
    pub observations: Vec<Vec<f64>>,
}

/// What an evaluation came to: the mean returns, R(CWM) and how far it got. A search record keeps
/// it for its best model, for the comparison with the paper's Tables 9 and 10.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanningSummary {
    pub protocol: Protocol,
    pub random: Option<f64>,
    pub oracle: Option<f64>,
    pub model: Option<f64>,
    pub normalised: Option<f64>,
    /// Episodes played, of `3 × protocol.episodes`.
    pub played: u32,
    /// How often the planner stepped the model in Python.
    pub model_steps: u64,
    pub error: Option<String>,
}

/// One real episode for the harness to play (its `plan` mode): the request's `code` is the model
/// the planner uses when `policy` is the model's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRequest {
    /// The real environment: a program with the world-model interface that keeps its own state
    /// from `start` on.
    pub environment: String,
    /// The start observation, before Gymnasium's float32 cast.
    pub start: Vec<f64>,
    pub policy: PlanningPolicy,
    pub actions: usize,
    pub max_steps: u32,
    /// The seed of the episode's `random.Random` (the planner's draws and random actions).
    pub seed: u32,
    /// Round each observation the planner and the episode see to float32, as Gymnasium's spaces.
    pub float32: bool,
    pub planner: PlannerParams,
    /// The planner's choices drawn from SplitMix64 seeded with `seed` (`mcts::SplitMix64`) rather
    /// than `random.Random`: what a test sets to hold the harness's planner to the engine's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub splitmix64: bool,
}

impl PlanRequest {
    /// The harness request that plays this episode, with `code` as the model (for the model's
    /// episodes; empty otherwise).
    pub fn into_request(self, code: String) -> ProgramRequest {
        let plan = serde_json::to_value(self).expect("plan requests serialise");
        ProgramRequest { plan: Some(plan), ..ProgramRequest::new(code, Vec::new()).verdict_only() }
    }
}

/// An episode as the harness played it, as far as it got.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayedEpisode {
    pub actions: Vec<usize>,
    pub rewards: Vec<f64>,
    /// The observation after each step.
    pub observations: Vec<Vec<f64>>,
    pub terminated: bool,
    pub model_steps: u64,
}

impl PlayedEpisode {
    /// The episode in the harness's verdict on a [`PlanRequest`] (empty when the model failed
    /// before the first step).
    pub fn of(verdict: &ProgramVerdict) -> Result<Self, String> {
        match &verdict.episode {
            None => Ok(Self::default()),
            Some(episode) => serde_json::from_value(episode.clone())
                .map_err(|e| format!("the harness returned an episode this page cannot read: {e}")),
        }
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// How the model plans.
#[derive(Clone, Debug)]
enum Planning {
    /// A model of a small environment, waiting for the harness to tabulate it.
    Tabulating,
    /// Tabulated: every episode is played here.
    Table(TabulatedModel),
    /// Each episode is a harness request; `reference` is the real environment's program.
    Python { program: String, reference: String },
}

/// The evaluation of one model, episode by episode: an [`Effectful`] task. A small environment's
/// model is first tabulated by the harness (its first need), then each episode is played here
/// ([`Need::Compute`]); a continuous environment's episodes are each one harness request.
#[derive(Clone, Debug)]
pub struct PlanningRun {
    pub env: GymId,
    pub protocol: Protocol,
    pub seed: u64,
    planning: Planning,
    /// The request that tabulates the model or plays the next episode, while one is needed.
    pending: Option<PythonBatch>,
    pub episodes: Vec<Episode>,
    /// Why the evaluation stopped before its end: the model raised or ran out of time.
    pub error: Option<String>,
}

impl PlanningRun {
    /// The evaluation of `program`, a model of `env`: tabulated and planned here where `env` is
    /// small, otherwise planned in the harness an episode per request against `reference`, the
    /// program that plays the real environment (the bank's reference model).
    pub fn new(env: GymId, program: String, reference: String, protocol: Protocol, seed: u64) -> Result<Self, String> {
        let (planning, pending) = if Self::plans_in_python(env) {
            (Planning::Python { program, reference }, None)
        } else {
            let batch = PythonBatch::untrusted(tabulated::request(env, &program)?).with_limit(TABULATE_LIMIT_MS);
            (Planning::Tabulating, Some(batch))
        };
        let mut run = Self { env, protocol, seed, planning, pending, episodes: Vec::new(), error: None };
        run.ask();
        Ok(run)
    }

    /// Planning with a model tabulated already.
    pub fn with_table(model: TabulatedModel, protocol: Protocol, seed: u64) -> Self {
        let env = model.env;
        Self { env, protocol, seed, planning: Planning::Table(model), pending: None, episodes: Vec::new(), error: None }
    }

    /// The model as a table, once the harness has tabulated it (agents can train inside it).
    pub fn table(&self) -> Option<&TabulatedModel> {
        match &self.planning {
            Planning::Table(model) => Some(model),
            _ => None,
        }
    }

    /// Whether a model of `env` plans in the harness rather than as a table.
    pub fn plans_in_python(env: GymId) -> bool {
        env.tabulated_states().is_none()
    }

    pub fn is_done(&self) -> bool {
        self.error.is_some() || self.episodes.len() as u32 >= 3 * self.protocol.episodes
    }

    /// The next episode's policy and index: random ones first, then the oracle's, then the model's.
    fn next_episode(&self) -> (PlanningPolicy, u32) {
        let played = self.episodes.len() as u32;
        (PlanningPolicy::ALL[(played / self.protocol.episodes) as usize], played % self.protocol.episodes)
    }

    /// The request that plays the next episode in the harness, where the model plans there.
    fn ask(&mut self) {
        let Planning::Python { program, reference } = &self.planning else { return };
        if self.is_done() {
            self.pending = None;
            return;
        }
        let (policy, index) = self.next_episode();
        let (mut env_rng, mut rng) = planning_rngs(self.seed, index);
        let plan = PlanRequest {
            environment: reference.clone(),
            start: self.env.make(&mut env_rng).unrounded_obs(),
            policy,
            actions: self.env.actions(),
            max_steps: self.env.max_episode_steps().unwrap_or(STEPS_WITHOUT_LIMIT),
            seed: rng.random(),
            float32: self.env.continuous(),
            planner: self.protocol.planner.clone(),
            splitmix64: false,
        };
        // Only the model's episodes run a program from outside the playground.
        let (code, author) = match policy {
            PlanningPolicy::Model => (program.clone(), Author::Untrusted),
            _ => (String::new(), Author::Playground),
        };
        let requests = vec![plan.into_request(code)];
        self.pending = Some(PythonBatch { requests, limit_ms: EPISODE_LIMIT_MS, author });
    }

    /// The harness's tabulation of the model.
    fn tabulated(&mut self, verdict: &ProgramVerdict) {
        match TabulatedModel::from_verdict(self.env, verdict) {
            Ok(model) => self.planning = Planning::Table(model),
            Err(why) => self.error = Some(why),
        }
    }

    /// The episode the harness played. A model that raised or ran out of time ends the evaluation
    /// with its error; the episode so far is kept, to be watched.
    fn played(&mut self, verdict: &ProgramVerdict) {
        let (policy, index) = self.next_episode();
        let played = match PlayedEpisode::of(verdict) {
            Ok(played) => played,
            Err(why) => {
                self.error = Some(why);
                return;
            }
        };
        if verdict.outcome != Outcome::Pass {
            let why = verdict.error.clone().unwrap_or_else(|| verdict.outcome.label().to_owned());
            self.error = Some(format!("{} episode {} of {}: {why}", policy.label(), index + 1, self.protocol.episodes));
        }
        let (mut env_rng, _) = planning_rngs(self.seed, index);
        let start = self.env.make(&mut env_rng).obs().values();
        let mut observations = vec![start];
        observations.extend(played.observations);
        self.episodes.push(Episode {
            policy,
            index,
            // Folded from +0: an episode cut before its first step returns 0, not −0.
            reward: played.rewards.iter().fold(0.0, |sum, r| sum + r),
            steps: played.actions.len() as u32,
            model_steps: played.model_steps,
            observations,
        });
    }

    fn play(&self, model: &TabulatedModel, policy: PlanningPolicy, index: u32) -> (f64, u32, Vec<Vec<f64>>) {
        let (mut env_rng, mut rng) = planning_rngs(self.seed, index);
        let mut env = self.env.make(&mut env_rng);
        let oracle = TrueEnvironment { actions: self.env.actions(), foresight: self.protocol.oracle_foresight };
        let limit = self.env.max_episode_steps().unwrap_or(STEPS_WITHOUT_LIMIT);
        let mut total = 0.0;
        let mut observations = vec![env.obs().values()];
        for step in 1..=limit {
            let action = match policy {
                PlanningPolicy::Random => rng.random_range(0..self.env.actions()),
                PlanningPolicy::Oracle => {
                    plan(&oracle, &(env.clone(), env_rng.clone()), &self.protocol.planner, &mut rng)
                }
                PlanningPolicy::Model => plan(model, &env.obs(), &self.protocol.planner, &mut rng),
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

    /// The mean return of `policy` over its episodes played so far (with its whole budget of steps:
    /// an episode cut short by its model's error does not count).
    pub fn mean_return(&self, policy: PlanningPolicy) -> Option<f64> {
        let failed = self.error.is_some().then(|| self.episodes.len() - 1);
        mean(
            self.episodes
                .iter()
                .enumerate()
                .filter(|(i, e)| e.policy == policy && Some(*i) != failed)
                .map(|(_, e)| e.reward),
        )
    }

    pub fn summary(&self) -> PlanningSummary {
        PlanningSummary {
            protocol: self.protocol.clone(),
            random: self.mean_return(PlanningPolicy::Random),
            oracle: self.mean_return(PlanningPolicy::Oracle),
            model: self.mean_return(PlanningPolicy::Model),
            normalised: self.normalised(),
            played: self.episodes.len() as u32,
            model_steps: self.episodes.iter().map(|e| e.model_steps).sum(),
            error: self.error.clone(),
        }
    }

    /// R(CWM), once all three have played; `None` before, after an error, or when the oracle does
    /// no better than random (the ratio means nothing then: the paper's "N/A").
    pub fn normalised(&self) -> Option<f64> {
        let (random, oracle, model) = (
            self.mean_return(PlanningPolicy::Random)?,
            self.mean_return(PlanningPolicy::Oracle)?,
            self.mean_return(PlanningPolicy::Model)?,
        );
        (self.is_done() && self.error.is_none() && oracle > random).then(|| (model - random) / (oracle - random))
    }
}

impl Effectful for PlanningRun {
    fn need(&self) -> Need<'_> {
        match (&self.pending, &self.planning) {
            _ if self.is_done() => Need::Done,
            (Some(batch), _) => Need::Python(batch),
            (None, Planning::Table(_)) => Need::Compute,
            // Not reached: a tabulating or Python run always has its request pending.
            (None, _) => Need::Done,
        }
    }

    fn python_done(&mut self, verdicts: Vec<ProgramVerdict>, now_ms: f64) {
        self.pending = None;
        match only_verdict(verdicts) {
            Ok(verdict) if matches!(self.planning, Planning::Tabulating) => self.tabulated(&verdict),
            Ok(verdict) => self.played(&verdict),
            Err(why) => return self.end(&why, now_ms),
        }
        self.ask();
    }

    /// Plays the next episode here, with the tabulated model.
    fn compute(&mut self, now_ms: f64) {
        let Planning::Table(model) = &self.planning else {
            return self.end("this model plans in Python", now_ms);
        };
        let (policy, index) = self.next_episode();
        let (reward, steps, observations) = self.play(model, policy, index);
        self.episodes.push(Episode { policy, index, reward, steps, model_steps: 0, observations });
    }

    fn end(&mut self, reason: &str, _now_ms: f64) {
        if !self.is_done() {
            self.error = Some(reason.to_owned());
            self.pending = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cwm::tabulated::tests::perfect_verdict;

    fn evaluate(env: GymId, protocol: Protocol, seed: u64) -> PlanningRun {
        let model = TabulatedModel::from_verdict(env, &perfect_verdict(env)).unwrap();
        let mut evaluation = PlanningRun::with_table(model, protocol, seed);
        while evaluation.need() == Need::Compute {
            evaluation.compute(0.0);
        }
        assert_eq!(evaluation.need(), Need::Done);
        evaluation
    }

    #[test]
    fn a_small_environments_model_is_first_tabulated_by_the_harness_then_planned_here() {
        let mut run =
            PlanningRun::new(GymId::Taxi, "class Environment: ...".into(), String::new(), Protocol::quick(), 4)
                .unwrap();
        let Need::Python(batch) = run.need() else { panic!("the tabulation first") };
        assert_eq!((batch.requests.len(), batch.limit_ms, batch.author), (1, TABULATE_LIMIT_MS, Author::Untrusted));
        run.python_done(vec![perfect_verdict(GymId::Taxi)], 0.0);
        let mut played = 0;
        while run.need() == Need::Compute {
            run.compute(0.0);
            played += 1;
        }
        assert_eq!((played, run.normalised()), (9, evaluate(GymId::Taxi, Protocol::quick(), 4).normalised()));
        // A model the harness could not tabulate ends the run with the reason.
        let mut broken =
            PlanningRun::new(GymId::Taxi, "raise ValueError".into(), String::new(), Protocol::quick(), 4).unwrap();
        let request = ProgramRequest::new("", Vec::new());
        broken.python_done(vec![ProgramVerdict::from_host(&request, Outcome::RuntimeError, "no".into(), 1.0)], 0.0);
        assert_eq!(broken.need(), Need::Done);
        assert!(broken.error.is_some());
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
            assert_eq!(returns(PlanningPolicy::Model), returns(PlanningPolicy::Oracle), "{}", env.name());
            assert_eq!(evaluation.normalised(), Some(1.0), "{}", env.name());
        }
    }

    /// A harness stand-in: `length(policy)` steps of reward 1, each observation the step number.
    fn played(steps: usize) -> ProgramVerdict {
        let episode = PlayedEpisode {
            actions: vec![0; steps],
            rewards: vec![1.0; steps],
            observations: (1..=steps).map(|i| vec![i as f64; 4]).collect(),
            terminated: true,
            model_steps: 25 * steps as u64,
        };
        let request = ProgramRequest::new("", Vec::new());
        ProgramVerdict {
            episode: Some(serde_json::to_value(episode).unwrap()),
            ..ProgramVerdict::from_host(&request, Outcome::Pass, String::new(), 1.0)
        }
    }

    #[test]
    fn a_continuous_model_plans_in_python_an_episode_per_request_from_the_rust_start() {
        assert!(PlanningRun::plans_in_python(GymId::CartPole) && !PlanningRun::plans_in_python(GymId::Taxi));
        let (model, reference) = ("class Environment: ...", "class Environment: # the real one");
        let mut evaluation =
            PlanningRun::new(GymId::CartPole, model.into(), reference.into(), Protocol::quick(), 5).unwrap();
        let mut asked = Vec::new();
        while let Need::Python(batch) = evaluation.need() {
            let request = &batch.requests[0];
            let plan: PlanRequest = serde_json::from_value(request.plan.clone().unwrap()).unwrap();
            let policy = plan.policy;
            let index = evaluation.episodes.len() as u32 % 3;
            let start = GymId::CartPole.make(&mut planning_rngs(5, index).0);
            assert_eq!(plan.start, start.unrounded_obs(), "the start is the Rust episode's, to the last bit");
            assert_eq!((plan.policy, plan.actions, plan.max_steps, plan.float32), (policy, 2, 500, true));
            assert_eq!(plan.planner.rollout_steps, 20);
            assert_eq!(plan.environment, reference, "the real environment is the reference model");
            // Only the model's episodes carry a program from outside the playground.
            assert_eq!(request.code.is_empty(), policy != PlanningPolicy::Model);
            assert_eq!(batch.author == Author::Untrusted, policy == PlanningPolicy::Model);
            asked.push(policy);
            let steps = match policy {
                PlanningPolicy::Random => 10,
                PlanningPolicy::Oracle => 100,
                PlanningPolicy::Model => 150,
            };
            evaluation.python_done(vec![played(steps)], 0.0);
        }
        assert_eq!(
            asked,
            [PlanningPolicy::Random; 3]
                .into_iter()
                .chain([PlanningPolicy::Oracle; 3])
                .chain([PlanningPolicy::Model; 3])
                .collect::<Vec<_>>()
        );
        assert_eq!(evaluation.need(), Need::Done);
        // By hand: (150 − 10) / (100 − 10) = 14/9, above 1 as the paper's CartPole can be.
        assert_eq!(evaluation.normalised(), Some(14.0 / 9.0));
        let first = &evaluation.episodes[0];
        assert_eq!((first.steps, first.model_steps, first.observations.len()), (10, 250, 11));
        assert_eq!(first.observations[0], GymId::CartPole.make(&mut planning_rngs(5, 0).0).obs().values());
    }

    #[test]
    fn a_model_that_raises_while_planning_ends_the_evaluation_with_its_error() {
        let mut evaluation =
            PlanningRun::new(GymId::Acrobot, String::new(), String::new(), Protocol::quick(), 1).unwrap();
        for _ in 0..7 {
            assert!(matches!(evaluation.need(), Need::Python(_)));
            evaluation.python_done(vec![played(40)], 0.0);
        }
        let request = ProgramRequest::new("", Vec::new());
        let raised = ProgramVerdict {
            episode: Some(
                serde_json::to_value(PlayedEpisode {
                    actions: vec![1; 3],
                    rewards: vec![-1.0; 3],
                    ..PlayedEpisode::default()
                })
                .unwrap(),
            ),
            ..ProgramVerdict::from_host(
                &request,
                Outcome::RuntimeError,
                "Error when planning step 4 with the model: ZeroDivisionError: division by zero (line 9)".into(),
                1.0,
            )
        };
        evaluation.python_done(vec![raised], 0.0);
        assert_eq!(evaluation.need(), Need::Done);
        assert_eq!(
            evaluation.error.as_deref(),
            Some(
                "model episode 2 of 3: Error when planning step 4 with the model: ZeroDivisionError: division by zero (line 9)"
            )
        );
        // The cut episode is kept to be watched, but counts in no mean, and there is no R(CWM).
        assert_eq!(evaluation.episodes.last().unwrap().steps, 3);
        assert_eq!(evaluation.mean_return(PlanningPolicy::Model), Some(40.0));
        assert_eq!(evaluation.normalised(), None);
    }

    #[test]
    fn an_episode_keeps_its_observations_from_the_start_to_the_end() {
        let evaluation = evaluate(GymId::CliffWalking, Protocol { episodes: 3, ..Protocol::paper() }, 1);
        for episode in &evaluation.episodes {
            assert_eq!(episode.observations.len() as u32, episode.steps + 1);
            assert_eq!(episode.observations[0], [36.0], "CliffWalking starts at row 3, column 0");
        }
        // An oracle's episode that ends before the time limit ends at the goal (state 47), in no
        // fewer than the shortest path's 13 steps.
        let ended: Vec<&Episode> =
            evaluation.episodes.iter().filter(|e| e.policy == PlanningPolicy::Oracle && e.steps < 100).collect();
        assert!(!ended.is_empty());
        for oracle in ended {
            assert_eq!(oracle.observations.last().unwrap(), &[47.0]);
            assert!(oracle.steps >= 13);
        }
    }
}
