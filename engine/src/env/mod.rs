//! Environments with Gymnasium semantics: `reset(seed)`, then `step(action)` until the episode is
//! terminated (the task ended) or truncated (the step limit ran out).
//!
//! An observation has three views: a discrete state index for tabular agents, a dense `f32`
//! feature vector for neural agents, and the mask of legal actions. Environments keep their own
//! RNG, reseeded by every `reset`, so a run derives all randomness from its one seed.

pub mod episode;
pub mod executive;
pub mod gym;
pub mod hierarchical;
pub mod live;
pub mod live_rules;
pub mod orchestrator;
pub mod planner;
mod spec;
pub mod tasks;

use serde::{Deserialize, Serialize};

use crate::gym::GymId;
pub use executive::ExecutiveEnv;
pub use orchestrator::OrchestratorEnv;
pub use planner::PlannerEnv;
pub use spec::EnvSpec;
pub(crate) use spec::spec_or_name;

/// The set of legal actions in a state, one bit per action (environments have at most 8 actions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionMask(pub u8);

impl ActionMask {
    /// Every one of `n` actions is legal.
    pub fn all(n: usize) -> Self {
        Self(((1u16 << n) - 1) as u8)
    }

    pub fn from_legal(legal: &[bool]) -> Self {
        Self(legal.iter().enumerate().fold(0, |bits, (i, &ok)| bits | (u8::from(ok) << i)))
    }

    pub fn allows(self, action: usize) -> bool {
        self.0 & (1 << action) != 0
    }

    pub fn count(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The legal actions in increasing order.
    pub fn legal(self) -> impl Iterator<Item = usize> {
        (0..8).filter(move |&a| self.allows(a))
    }
}

/// What an agent sees after `reset` or `step`. Features are fetched separately with
/// [`Environment::features`] so that tabular runs never build them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// Index of the discrete state, below [`EnvInfo::n_states`].
    pub state: usize,
    /// Actions that are legal now.
    pub mask: ActionMask,
}

/// Facts about a step beyond its reward.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInfo {
    /// The episode ended in success.
    pub success: bool,
    /// This step's action was illegal (soft failure: penalised, the episode goes on).
    pub invalid_action: bool,
    /// This step called an LLM agent (as opposed to running tests or stopping).
    pub agent_call: bool,
}

/// The result of one `step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub observation: Observation,
    pub reward: f64,
    /// The task ended (stop, success or failure).
    pub terminated: bool,
    /// The step limit ended the episode.
    pub truncated: bool,
    pub info: StepInfo,
}

impl Step {
    pub fn done(&self) -> bool {
        self.terminated || self.truncated
    }
}

/// The step accounting of seed 000's environments: every step costs `step`; an illegal action
/// costs `invalid` and the episode goes on; reaching `max_steps` truncates it with `step_limit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepCosts {
    pub step: f64,
    pub invalid: f64,
    pub step_limit: f64,
    pub max_steps: u32,
}

impl StepCosts {
    /// The reward of a step whose action earned `action_reward` (`None`: illegal), whether the step
    /// limit truncated the episode, and the step's info (the caller fills in `success`).
    pub(crate) fn settle(
        self,
        action_reward: Option<f64>,
        agent_call: bool,
        steps: u32,
        terminated: bool,
    ) -> (f64, bool, StepInfo) {
        let invalid_action = action_reward.is_none();
        let truncated = !terminated && steps >= self.max_steps;
        let mut reward = self.step + action_reward.unwrap_or(self.invalid);
        if truncated {
            reward += self.step_limit;
        }
        (reward, truncated, StepInfo { success: false, invalid_action, agent_call: agent_call && !invalid_action })
    }
}

/// Static description of an environment, for agents and for display.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnvInfo {
    pub id: EnvId,
    pub action_names: &'static [&'static str],
    pub n_states: usize,
    pub feature_dim: usize,
    /// What each text that [`Environment::texts`] returns is (prompt, code, feedback, ...).
    pub text_names: &'static [&'static str],
    /// Names of the tasks an episode may draw (one for single-task environments).
    pub tasks: Vec<String>,
}

pub trait Environment {
    fn info(&self) -> EnvInfo;
    /// Starts an episode; the seed fixes every random draw until the next reset.
    fn reset(&mut self, seed: u64) -> Observation;
    /// Applies `action`; an illegal action is penalised, never a panic.
    ///
    /// # Panics
    /// If called after the episode ended or with `action` outside the action space.
    fn step(&mut self, action: usize) -> Step;
    fn observation(&self) -> Observation;
    /// Writes the dense features of the current state into `out` (length `feature_dim`).
    fn features(&self, out: &mut [f32]);
    /// Index into [`EnvInfo::tasks`] of the current episode's task.
    fn task_index(&self) -> usize {
        0
    }
    /// Starts an episode on task `task` (an index into [`EnvInfo::tasks`]).
    fn reset_task(&mut self, seed: u64, _task: usize) -> Observation {
        self.reset(seed)
    }
    /// The texts a neural agent may embed, one per [`EnvInfo::text_names`] ("" when not yet there).
    fn texts(&self) -> Vec<&str> {
        Vec::new()
    }
    /// The seed's expert action sequence for the current task, where the seed gives one.
    fn expert_actions(&self) -> Option<Vec<usize>> {
        None
    }
    /// The named flags that state index `state` stands for, for policy views.
    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)>;
    /// The current observation as numbers, where a view can draw it (the Gymnasium
    /// environments); empty for the others.
    fn observation_values(&self) -> Vec<f64> {
        Vec::new()
    }
}

/// The environments of the seed reports; the default is the page's first choice. It serialises as
/// its name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum EnvId {
    /// Seed 000 §3: generate / test / debug / search / stop on three HumanEval-style tasks.
    Executive,
    /// Seed 000 §7: planning / execution / integration / evaluation / stop.
    Planner,
    /// Seed 003: which of planner / coder / tester / debugger to call next.
    #[default]
    Orchestrator,
    /// Seed 004: one of the six Gymnasium environments of its benchmark.
    Gym(GymId),
}

impl From<EnvId> for String {
    fn from(id: EnvId) -> Self {
        id.name().to_owned()
    }
}

impl TryFrom<String> for EnvId {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::parse(&name)
    }
}

/// What the playground shows and needs about one of the seeds' environments, beside its dynamics
/// ([`Environment`]); each implements it in its own file. The Gymnasium environments say the same
/// through [`crate::gym::Gymnasium`].
pub trait SeedEnvironment {
    const NAME: &'static str;
    /// One line for the environment pickers and `rlcg envs`.
    const SUMMARY: &'static str;
    /// The report that specifies it, as the page's anchor (`seed-000`).
    const SOURCE: &'static str;
    const ACTION_NAMES: &'static [&'static str];
    /// The fixed pipeline that drives live mode without a trained policy, in words.
    const LIVE_PIPELINE: Option<&'static str> = None;
    /// What the exact start values ([`EnvSpec::start_values`]) say about the values the seed
    /// reports, where it reports some.
    const START_VALUES_NOTE: Option<&'static str> = None;
    /// The paths an optimal policy takes, in words, where the seed names them.
    const CANONICAL_PATHS: Option<&'static str> = None;
    /// Whether its test actions can use verdicts measured in Python instead of the recorded ones.
    const MEASURES_VERDICTS: bool = false;
    /// The episode budget a run needs to learn it (the seed's), for a tabular or a neural agent.
    fn default_episodes(neural_agent: bool) -> u32;
    /// The programs of its bundled task data, each with its tests and recorded verdict.
    fn bundled_programs() -> Vec<tasks::BundledProgram> {
        Vec::new()
    }
}

/// A fact of an environment: from its [`SeedEnvironment`] impl as `$seed`, or from its Gymnasium
/// id as `$gym`.
macro_rules! env_fact {
    ($id:expr, $seed:ident => $of_seed:expr, $gym:pat => $of_gym:expr) => {
        match $id {
            EnvId::Executive => {
                type $seed = ExecutiveEnv;
                $of_seed
            }
            EnvId::Planner => {
                type $seed = PlannerEnv;
                $of_seed
            }
            EnvId::Orchestrator => {
                type $seed = OrchestratorEnv;
                $of_seed
            }
            EnvId::Gym($gym) => $of_gym,
        }
    };
}

impl EnvId {
    /// The seeds' environments, then the Gymnasium ones in their list's order.
    pub const ALL: [EnvId; 3 + GymId::ALL.len()] = {
        let mut all = [EnvId::Executive; 3 + GymId::ALL.len()];
        all[1] = EnvId::Planner;
        all[2] = EnvId::Orchestrator;
        let mut i = 0;
        while i < GymId::ALL.len() {
            all[3 + i] = EnvId::Gym(GymId::ALL[i]);
            i += 1;
        }
        all
    };

    pub fn name(self) -> &'static str {
        env_fact!(self, K => K::NAME, id => id.name())
    }

    /// Whether its states are few enough for a table of values (every environment but
    /// CartPole, MountainCar and Acrobot, whose states are floats).
    pub fn discrete_states(self) -> bool {
        !matches!(self, EnvId::Gym(id) if id.continuous())
    }

    pub fn summary(self) -> &'static str {
        env_fact!(self, K => K::SUMMARY, id => id.summary())
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|id| id.name() == name).ok_or_else(|| {
            let valid: Vec<_> = Self::ALL.iter().map(|id| id.name()).collect();
            format!("unknown environment '{name}'; valid: {}", valid.join(", "))
        })
    }

    /// The names of the environment's actions, by index.
    pub fn action_names(self) -> &'static [&'static str] {
        env_fact!(self, K => K::ACTION_NAMES, id => id.action_names())
    }

    /// The report that specifies the environment, as the page's anchor (`seed-000`).
    pub fn source(self) -> &'static str {
        env_fact!(self, K => K::SOURCE, _ => "seed-004")
    }

    /// The fixed pipeline that drives live mode without a trained policy, in words.
    pub fn live_pipeline(self) -> Option<&'static str> {
        env_fact!(self, K => K::LIVE_PIPELINE, _ => None)
    }

    /// Whether a trained policy of this environment can drive a real LLM (live mode).
    pub fn has_live_mode(self) -> bool {
        self.default_spec().live_rules().is_some()
    }

    /// What the exact start values ([`EnvSpec::start_values`]) say about the values the seed
    /// reports, where it reports some.
    pub fn start_values_note(self) -> Option<&'static str> {
        env_fact!(self, K => K::START_VALUES_NOTE, _ => None)
    }

    /// The paths an optimal policy takes, in words, where the seed names them.
    pub fn canonical_paths(self) -> Option<&'static str> {
        env_fact!(self, K => K::CANONICAL_PATHS, id => id.canonical_path())
    }

    /// The programs of its bundled task data, each with its tests and recorded verdict.
    pub fn bundled_programs(self) -> Vec<tasks::BundledProgram> {
        env_fact!(self, K => K::bundled_programs(), _ => Vec::new())
    }

    /// Whether its test actions can use verdicts measured in Python instead of the recorded ones.
    pub fn measures_verdicts(self) -> bool {
        env_fact!(self, K => K::MEASURES_VERDICTS, _ => false)
    }

    /// The programs a host runs in Python to measure the verdicts its test actions use, in order
    /// ([`EnvSpec::set_measured_verdicts`]); empty where they use none.
    pub fn measured_programs(self) -> Vec<tasks::BundledProgram> {
        if self.measures_verdicts() { self.bundled_programs() } else { Vec::new() }
    }

    /// The episode budget a run needs to learn (the seeds' budgets); a neural agent learns the
    /// executive and the planner from its expert episodes in fewer (the playground DQN: 500).
    pub fn default_episodes(self, neural_agent: bool) -> u32 {
        env_fact!(self, K => K::default_episodes(neural_agent), id => id.default_episodes())
    }
}

/// Any of the environments, so runs can pick one at run time without boxing.
#[derive(Clone, Debug)]
pub enum AnyEnv {
    Executive(ExecutiveEnv),
    Planner(PlannerEnv),
    Orchestrator(OrchestratorEnv),
    Gym(gym::GymEnvironment),
}

macro_rules! each_env {
    ($self:expr, $env:ident => $body:expr) => {
        match $self {
            AnyEnv::Executive($env) => $body,
            AnyEnv::Planner($env) => $body,
            AnyEnv::Orchestrator($env) => $body,
            AnyEnv::Gym($env) => $body,
        }
    };
}

impl Environment for AnyEnv {
    fn info(&self) -> EnvInfo {
        each_env!(self, e => e.info())
    }
    fn reset(&mut self, seed: u64) -> Observation {
        each_env!(self, e => e.reset(seed))
    }
    fn step(&mut self, action: usize) -> Step {
        each_env!(self, e => e.step(action))
    }
    fn observation(&self) -> Observation {
        each_env!(self, e => e.observation())
    }
    fn features(&self, out: &mut [f32]) {
        each_env!(self, e => e.features(out))
    }
    fn task_index(&self) -> usize {
        each_env!(self, e => e.task_index())
    }
    fn reset_task(&mut self, seed: u64, task: usize) -> Observation {
        each_env!(self, e => e.reset_task(seed, task))
    }
    fn texts(&self) -> Vec<&str> {
        each_env!(self, e => e.texts())
    }
    fn expert_actions(&self) -> Option<Vec<usize>> {
        each_env!(self, e => e.expert_actions())
    }
    fn state_flags(&self, state: usize) -> Vec<(&'static str, String)> {
        each_env!(self, e => e.state_flags(state))
    }
    fn observation_values(&self) -> Vec<f64> {
        each_env!(self, e => e.observation_values())
    }
}

/// A boolean flag as the policy views show it.
pub(crate) fn flag(name: &'static str, value: bool) -> (&'static str, String) {
    (name, if value { "yes" } else { "no" }.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_round_trips_legal_flags() {
        let mask = ActionMask::from_legal(&[true, false, true, false, true]);
        assert_eq!(mask.legal().collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(mask.count(), 3);
        assert_eq!(ActionMask::all(5).count(), 5);
    }

    #[test]
    fn unknown_env_names_the_valid_ones() {
        let err = EnvId::parse("gridworld").unwrap_err();
        assert!(err.contains("executive, planner, orchestrator, CliffWalking-v0"), "{err}");
        assert_eq!(EnvId::parse("planner"), Ok(EnvId::Planner));
        assert_eq!(EnvId::parse("Taxi-v3"), Ok(EnvId::Gym(GymId::Taxi)));
        assert_eq!(serde_json::to_string(&EnvId::Gym(GymId::Taxi)).unwrap(), "\"Taxi-v3\"");
        assert_eq!(serde_json::from_str::<EnvId>("\"executive\"").unwrap(), EnvId::Executive);
    }
}
