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
//! An evaluation is sans-IO: [`Evaluation::step`] plays one episode, or hands back the request
//! that plays it, whose verdict [`Evaluation::resume`] takes. A page can show it grow.

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::planner::{PlannerParams, TrueEnvironment, plan};
use super::tabulated::{self, TabulatedModel};
use crate::gym::GymId;
use crate::python::{Outcome, ProgramRequest, ProgramVerdict};
use crate::rng::planning_rngs;
use crate::search::world_model_tasks::world_model_task;

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
pub enum Policy {
    Random,
    /// The planner with the true environment.
    Oracle,
    /// The planner with the world model.
    Model,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Random, Policy::Oracle, Policy::Model];

    pub fn label(self) -> &'static str {
        match self {
            Policy::Random => "random",
            Policy::Oracle => "oracle",
            Policy::Model => "model",
        }
    }
}

/// One episode played: its return and length.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Episode {
    pub policy: Policy,
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
    pub policy: Policy,
    pub actions: usize,
    pub max_steps: u32,
    /// The seed of the episode's `random.Random` (the planner's draws and random actions).
    pub seed: u32,
    /// Round each observation the planner and the episode see to float32, as Gymnasium's spaces.
    pub float32: bool,
    pub planner: PlannerParams,
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

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// How the model plans.
#[derive(Clone, Debug)]
enum Planning {
    /// Tabulated: every episode is played here.
    Table(TabulatedModel),
    /// Each episode is a harness request; `reference` is the real environment's program.
    Python { program: String, reference: String },
}

/// What playing the next episode takes.
#[derive(Debug, PartialEq)]
pub enum Turn {
    /// It was played here.
    Played,
    /// The harness plays it: run `request` (only the model's episodes run a program from outside
    /// the playground) and pass the verdict to [`Evaluation::resume`].
    Python { policy: Policy, request: ProgramRequest },
    /// Every episode is played, or the model failed (see [`Evaluation::error`]).
    Done,
}

/// The evaluation of one model, episode by episode.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub env: GymId,
    pub protocol: Protocol,
    pub seed: u64,
    planning: Planning,
    pub episodes: Vec<Episode>,
    /// Why the evaluation stopped before its end: the model raised or ran out of time.
    pub error: Option<String>,
}

impl Evaluation {
    /// Planning with a tabulated model, here.
    pub fn new(model: TabulatedModel, protocol: Protocol, seed: u64) -> Self {
        Self { env: model.env, protocol, seed, planning: Planning::Table(model), episodes: Vec::new(), error: None }
    }

    /// Planning with `program` in the harness, an episode per request (continuous environments).
    pub fn in_python(env: GymId, program: String, protocol: Protocol, seed: u64) -> Self {
        let task = world_model_task(env);
        let reference = task.program(&vec![None; task.slots.len()]);
        Self {
            env,
            protocol,
            seed,
            planning: Planning::Python { program, reference },
            episodes: Vec::new(),
            error: None,
        }
    }

    /// Whether a model of `env` plans in the harness rather than as a table.
    pub fn plans_in_python(env: GymId) -> bool {
        tabulated::states(env).is_none()
    }

    pub fn is_done(&self) -> bool {
        self.error.is_some() || self.episodes.len() as u32 >= 3 * self.protocol.episodes
    }

    /// The next episode's policy and index: random ones first, then the oracle's, then the model's.
    fn next_episode(&self) -> (Policy, u32) {
        let played = self.episodes.len() as u32;
        (Policy::ALL[(played / self.protocol.episodes) as usize], played % self.protocol.episodes)
    }

    /// Plays the next episode here, or says which request plays it.
    pub fn step(&mut self) -> Turn {
        if self.is_done() {
            return Turn::Done;
        }
        let (policy, index) = self.next_episode();
        match &self.planning {
            Planning::Table(model) => {
                let (reward, steps, observations) = self.play(model, policy, index);
                self.episodes.push(Episode { policy, index, reward, steps, model_steps: 0, observations });
                Turn::Played
            }
            Planning::Python { program, reference } => {
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
                };
                let code = if policy == Policy::Model { program.clone() } else { String::new() };
                Turn::Python { policy, request: ProgramRequest::planning_episode(code, plan) }
            }
        }
    }

    /// Takes the verdict of the request [`Evaluation::step`] gave. A model that raised or ran out
    /// of time ends the evaluation with its error; the episode so far is kept, to be watched.
    pub fn resume(&mut self, verdict: &ProgramVerdict) {
        let (policy, index) = self.next_episode();
        let played = verdict.episode.clone().unwrap_or_default();
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

    fn play(&self, model: &TabulatedModel, policy: Policy, index: u32) -> (f64, u32, Vec<Vec<f64>>) {
        let (mut env_rng, mut rng) = planning_rngs(self.seed, index);
        let mut env = self.env.make(&mut env_rng);
        let oracle = TrueEnvironment { actions: self.env.actions(), foresight: self.protocol.oracle_foresight };
        let limit = self.env.max_episode_steps().unwrap_or(STEPS_WITHOUT_LIMIT);
        let mut total = 0.0;
        let mut observations = vec![env.obs().values()];
        for step in 1..=limit {
            let action = match policy {
                Policy::Random => rng.random_range(0..self.env.actions()),
                Policy::Oracle => plan(&oracle, &(env.clone(), env_rng.clone()), &self.protocol.planner, &mut rng),
                Policy::Model => plan(model, &env.obs(), &self.protocol.planner, &mut rng),
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
    pub fn mean_return(&self, policy: Policy) -> Option<f64> {
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
            random: self.mean_return(Policy::Random),
            oracle: self.mean_return(Policy::Oracle),
            model: self.mean_return(Policy::Model),
            normalised: self.normalised(),
            played: self.episodes.len() as u32,
            model_steps: self.episodes.iter().map(|e| e.model_steps).sum(),
            error: self.error.clone(),
        }
    }

    /// R(CWM), once all three have played; `None` before, after an error, or when the oracle does
    /// no better than random (the ratio means nothing then: the paper's "N/A").
    pub fn normalised(&self) -> Option<f64> {
        let (random, oracle, model) =
            (self.mean_return(Policy::Random)?, self.mean_return(Policy::Oracle)?, self.mean_return(Policy::Model)?);
        (self.is_done() && self.error.is_none() && oracle > random).then(|| (model - random) / (oracle - random))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cwm::tabulated::tests::perfect_verdict;

    fn evaluate(env: GymId, protocol: Protocol, seed: u64) -> Evaluation {
        let model = TabulatedModel::from_verdict(env, &perfect_verdict(env)).unwrap();
        let mut evaluation = Evaluation::new(model, protocol, seed);
        while evaluation.step() == Turn::Played {}
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
            episode: Some(episode),
            ..ProgramVerdict::from_host(&request, Outcome::Pass, String::new(), 1.0)
        }
    }

    #[test]
    fn a_continuous_model_plans_in_python_an_episode_per_request_from_the_rust_start() {
        assert!(Evaluation::plans_in_python(GymId::CartPole) && !Evaluation::plans_in_python(GymId::Taxi));
        let mut evaluation =
            Evaluation::in_python(GymId::CartPole, "class Environment: ...".into(), Protocol::quick(), 5);
        let mut asked = Vec::new();
        while let Turn::Python { policy, request } = evaluation.step() {
            let plan = request.plan.as_ref().unwrap();
            let index = evaluation.episodes.len() as u32 % 3;
            let start = GymId::CartPole.make(&mut planning_rngs(5, index).0);
            assert_eq!(plan.start, start.unrounded_obs(), "the start is the Rust episode's, to the last bit");
            assert_eq!((plan.policy, plan.actions, plan.max_steps, plan.float32), (policy, 2, 500, true));
            assert_eq!(plan.planner.rollout_steps, 20);
            assert!(plan.environment.contains("class Environment"), "the real environment is the reference model");
            // Only the model's episodes carry a program from outside the playground.
            assert_eq!(request.code.is_empty(), policy != Policy::Model);
            asked.push(policy);
            let steps = match policy {
                Policy::Random => 10,
                Policy::Oracle => 100,
                Policy::Model => 150,
            };
            evaluation.resume(&played(steps));
        }
        assert_eq!(
            asked,
            [Policy::Random; 3].into_iter().chain([Policy::Oracle; 3]).chain([Policy::Model; 3]).collect::<Vec<_>>()
        );
        assert_eq!(evaluation.step(), Turn::Done);
        // By hand: (150 − 10) / (100 − 10) = 14/9, above 1 as the paper's CartPole can be.
        assert_eq!(evaluation.normalised(), Some(14.0 / 9.0));
        let first = &evaluation.episodes[0];
        assert_eq!((first.steps, first.model_steps, first.observations.len()), (10, 250, 11));
        assert_eq!(first.observations[0], GymId::CartPole.make(&mut planning_rngs(5, 0).0).obs().values());
    }

    #[test]
    fn a_model_that_raises_while_planning_ends_the_evaluation_with_its_error() {
        let mut evaluation = Evaluation::in_python(GymId::Acrobot, String::new(), Protocol::quick(), 1);
        for _ in 0..7 {
            assert!(matches!(evaluation.step(), Turn::Python { .. }));
            evaluation.resume(&played(40));
        }
        let request = ProgramRequest::new("", Vec::new());
        let raised = ProgramVerdict {
            episode: Some(PlayedEpisode { actions: vec![1; 3], rewards: vec![-1.0; 3], ..PlayedEpisode::default() }),
            ..ProgramVerdict::from_host(
                &request,
                Outcome::RuntimeError,
                "Error when planning step 4 with the model: ZeroDivisionError: division by zero (line 9)".into(),
                1.0,
            )
        };
        evaluation.resume(&raised);
        assert_eq!(evaluation.step(), Turn::Done);
        assert_eq!(
            evaluation.error.as_deref(),
            Some(
                "model episode 2 of 3: Error when planning step 4 with the model: ZeroDivisionError: division by zero (line 9)"
            )
        );
        // The cut episode is kept to be watched, but counts in no mean, and there is no R(CWM).
        assert_eq!(evaluation.episodes.last().unwrap().steps, 3);
        assert_eq!(evaluation.mean_return(Policy::Model), Some(40.0));
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
            evaluation.episodes.iter().filter(|e| e.policy == Policy::Oracle && e.steps < 100).collect();
        assert!(!ended.is_empty());
        for oracle in ended {
            assert_eq!(oracle.observations.last().unwrap(), &[47.0]);
            assert!(oracle.steps >= 13);
        }
    }
}
