//! The six discrete-action environments of seed 004's benchmark (CWMB), identical to Gymnasium
//! 0.29.1: the same ids, spaces, rewards, termination and time limits. Each is one file whose type
//! implements [`Gymnasium`] (its dynamics and every fact about it), and one line of the list at
//! [`gymnasium_environments!`], which makes [`GymId`] and [`GymEnv`].
//! A step returns `terminated`; the time limit's truncation is the [`TimeLimit`]'s, kept apart.
//! Continuous states are f64 inside and f32 in the observation, as in Gymnasium; Blackjack draws
//! from the run's RNG.
//!
//! `transitions.rs` replays recorded transitions (Gymnasium's own, `bench/gym_transitions.py`)
//! through these environments, setting each one's state from the observation.

use serde::{Deserialize, Serialize};

use crate::rng::RunRng;
pub use scene::Scene;

pub mod accuracy;
pub mod acrobot;
pub mod blackjack;
pub mod cart_pole;
pub mod cliff_walking;
pub mod dataset;
pub mod mountain_car;
pub mod scene;
pub mod taxi;
pub mod transitions;

/// An observation as Gymnasium gives it: an integer state, Blackjack's triple, or a float vector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum GymObs {
    Discrete(i64),
    Triple([i64; 3]),
    Floats(Vec<f32>),
}

impl GymObs {
    /// A continuous state's observation: its f32 cast, as Gymnasium's `np.array(…, dtype=np.float32)`.
    pub fn of_f64(values: &[f64]) -> Self {
        GymObs::Floats(values.iter().map(|&v| v as f32).collect())
    }

    /// The observation as numbers, for views: the state index, the triple, or the floats.
    pub fn values(&self) -> Vec<f64> {
        match self {
            GymObs::Discrete(s) => vec![*s as f64],
            GymObs::Triple(t) => t.iter().map(|&v| v as f64).collect(),
            GymObs::Floats(v) => v.iter().map(|&v| f64::from(v)).collect(),
        }
    }
}

/// What one step gives, before the time limit.
#[derive(Clone, Debug, PartialEq)]
pub struct GymStep {
    pub obs: GymObs,
    pub reward: f64,
    pub terminated: bool,
}

/// The shape of an environment's observations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObsKind {
    /// One integer state.
    Discrete,
    /// Blackjack's (sum, card, ace).
    Triple,
    /// A vector of this many floats.
    Floats(usize),
}

impl ObsKind {
    /// How many numbers an observation holds ([`GymObs::values`]).
    pub fn values(self) -> usize {
        match self {
            ObsKind::Discrete => 1,
            ObsKind::Triple => 3,
            ObsKind::Floats(n) => n,
        }
    }

    /// An observation of this shape from its JSON.
    pub fn parse(self, value: &serde_json::Value) -> Option<GymObs> {
        match self {
            ObsKind::Discrete => value.as_i64().map(GymObs::Discrete),
            ObsKind::Triple => serde_json::from_value(value.clone()).ok().map(GymObs::Triple),
            ObsKind::Floats(_) => serde_json::from_value(value.clone()).ok().map(GymObs::Floats),
        }
    }
}

/// One Gymnasium environment of the benchmark, in its own file: its dynamics and every fact that
/// the playground shows or needs about it. [`gymnasium_environments!`] below lists them.
/// How an environment's R(CWM) is reproduced: episodes per policy, over seeds 1 to `seeds`, and
/// the decimals its mean returns are shown with (the paper's 10 episodes and one seed by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanningReproduction {
    pub episodes: u32,
    pub seeds: u64,
    pub decimals: usize,
}

pub trait Gymnasium: Clone + std::fmt::Debug + PartialEq + Sized {
    /// Gymnasium's id.
    const NAME: &'static str;
    /// One line for the environment pickers and `rlcg envs`.
    const SUMMARY: &'static str;
    /// The names of its actions, by index.
    const ACTION_NAMES: &'static [&'static str];
    /// Gymnasium's `TimeLimit` (`max_episode_steps` of the registration), where it has one.
    const MAX_EPISODE_STEPS: Option<u32>;
    const OBSERVATION: ObsKind;
    /// Its states' count for tabular agents (1 where they are continuous: only the DQN learns there).
    const TABULAR_STATES: usize;
    /// The length of a neural agent's feature vector ([`Gymnasium::features`]).
    const FEATURES: usize;
    /// The episodes a run trains by default (enough for the seed's agents to learn it).
    const DEFAULT_EPISODES: u32;
    /// The path an optimal policy takes, in words, where there is one to name.
    const CANONICAL_PATH: Option<&'static str> = None;
    /// Its row in seed 004's Tables 9 and 10 (from 0, in the paper's order).
    const PAPER_ROW: usize;
    /// Seed 004's Tables 9 and 10 for it: accuracy and R(CWM) (`None`: N/A) of the best model each
    /// method found, in the order of `cwm::paper_results::COLUMNS`.
    const PAPER_RESULTS: [(f64, Option<f64>); 4];
    /// Its world-model task's description, `tasks/world_models/<id>.md` (see
    /// `search::world_model_tasks`).
    const WORLD_MODEL_DESCRIPTION: &'static str;
    /// The simulated LLM's bank for that task, `tasks/world_models/<id>.bank.py`.
    const WORLD_MODEL_BANK: &'static str;
    /// How often each state-action pair is asked of a tabulated world model (more than once where
    /// the model draws at random).
    const TABULATION_SAMPLES: usize = 1;
    /// How docs/reproductions.md's planning table reproduces its R(CWM).
    const PLANNING_REPRODUCTION: PlanningReproduction = PlanningReproduction { episodes: 10, seeds: 1, decimals: 1 };

    fn reset(rng: &mut RunRng) -> Self;
    /// The environment in the state an observation shows, as far as it shows it.
    fn from_obs(obs: &GymObs) -> Result<Self, String>;
    fn obs(&self) -> GymObs;
    /// The observation before Gymnasium's float32 cast (a discrete one as it is).
    fn unrounded_obs(&self) -> Vec<f64> {
        self.obs().values()
    }
    /// One step; `action` must be below the number of actions.
    fn step(&mut self, action: usize, rng: &mut RunRng) -> GymStep;
    /// Whether the step that ended an episode so was a success (for the plots' success rate).
    fn success(_reward: f64, terminated: bool, _truncated: bool) -> bool {
        terminated
    }
    /// What a person would try first: the dataset's heuristic trajectories follow it.
    fn heuristic_action(&self) -> usize;
    /// What differs between a recorded transition and these rules: by default, the step replayed
    /// from `obs` must give the same outcome.
    fn transition_problems(obs: &GymObs, action: usize, next: &GymObs, reward: f64, terminated: bool) -> Vec<String> {
        transitions::replay_problems::<Self>(obs, action, next, reward, terminated)
    }
    /// The states a world model is tabulated over, or `None` where they are continuous.
    fn tabulated_states() -> Option<Vec<GymObs>> {
        None
    }
    /// The discrete state index of an observation, below [`Gymnasium::TABULAR_STATES`].
    fn state_index(obs: &GymObs) -> usize {
        match obs {
            GymObs::Discrete(s) => *s as usize,
            GymObs::Triple(_) | GymObs::Floats(_) => 0,
        }
    }
    /// A neural agent's features of an observation: one-hot for a discrete state, the floats as
    /// they are.
    fn features(obs: &GymObs, out: &mut [f32]) {
        out.fill(0.0);
        match obs {
            GymObs::Discrete(s) => out[*s as usize] = 1.0,
            GymObs::Triple(values) => out[..3].copy_from_slice(&values.map(|v| v as f32)),
            GymObs::Floats(v) => out[..v.len()].copy_from_slice(v),
        }
    }
    /// The named facts that a state index stands for, for policy views.
    fn state_flags(_state: usize) -> Vec<(&'static str, String)> {
        Vec::new()
    }
    /// The state in words, from the observation as numbers (a caption, and for screen readers).
    fn describe(values: &[f64]) -> String;
    /// The state drawn, from the observation as numbers (as many as [`ObsKind::values`]).
    fn draw(values: &[f64], scene: &mut Scene);
}

/// What a view shows before there is a state to show.
const NO_STATE: &str = "no state to draw";

/// The list of the playground's Gymnasium environments: each variant of [`GymId`] and [`GymEnv`]
/// with the type that implements [`Gymnasium`] for it. Every fact of an environment is read
/// through here, so a new environment is its file and one line of this list.
macro_rules! gymnasium_environments {
    ($($variant:ident => $kind:ty),+ $(,)?) => {
        /// A Gymnasium environment; it serialises as Gymnasium's id.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(into = "&'static str", try_from = "String")]
        pub enum GymId {
            $($variant),+
        }

        impl GymId {
            pub const ALL: [GymId; [$(stringify!($variant)),+].len()] = [$(GymId::$variant),+];

            pub fn name(self) -> &'static str {
                match self { $(GymId::$variant => <$kind>::NAME),+ }
            }
            pub fn summary(self) -> &'static str {
                match self { $(GymId::$variant => <$kind>::SUMMARY),+ }
            }
            pub fn action_names(self) -> &'static [&'static str] {
                match self { $(GymId::$variant => <$kind>::ACTION_NAMES),+ }
            }
            /// Gymnasium's `TimeLimit`; none for the environments registered without one.
            pub fn max_episode_steps(self) -> Option<u32> {
                match self { $(GymId::$variant => <$kind>::MAX_EPISODE_STEPS),+ }
            }
            pub fn observation(self) -> ObsKind {
                match self { $(GymId::$variant => <$kind>::OBSERVATION),+ }
            }
            pub fn tabular_states(self) -> usize {
                match self { $(GymId::$variant => <$kind>::TABULAR_STATES),+ }
            }
            pub fn feature_dim(self) -> usize {
                match self { $(GymId::$variant => <$kind>::FEATURES),+ }
            }
            pub fn default_episodes(self) -> u32 {
                match self { $(GymId::$variant => <$kind>::DEFAULT_EPISODES),+ }
            }
            pub fn canonical_path(self) -> Option<&'static str> {
                match self { $(GymId::$variant => <$kind>::CANONICAL_PATH),+ }
            }
            pub fn paper_row(self) -> usize {
                match self { $(GymId::$variant => <$kind>::PAPER_ROW),+ }
            }
            pub fn paper_results(self) -> [(f64, Option<f64>); 4] {
                match self { $(GymId::$variant => <$kind>::PAPER_RESULTS),+ }
            }
            pub fn world_model_description(self) -> &'static str {
                match self { $(GymId::$variant => <$kind>::WORLD_MODEL_DESCRIPTION),+ }
            }
            pub fn world_model_bank(self) -> &'static str {
                match self { $(GymId::$variant => <$kind>::WORLD_MODEL_BANK),+ }
            }
            pub fn tabulation_samples(self) -> usize {
                match self { $(GymId::$variant => <$kind>::TABULATION_SAMPLES),+ }
            }
            pub fn planning_reproduction(self) -> PlanningReproduction {
                match self { $(GymId::$variant => <$kind>::PLANNING_REPRODUCTION),+ }
            }
            pub fn success(self, reward: f64, terminated: bool, truncated: bool) -> bool {
                match self { $(GymId::$variant => <$kind>::success(reward, terminated, truncated)),+ }
            }
            pub fn transition_problems(
                self, obs: &GymObs, action: usize, next: &GymObs, reward: f64, terminated: bool,
            ) -> Vec<String> {
                match self { $(GymId::$variant => <$kind>::transition_problems(obs, action, next, reward, terminated)),+ }
            }
            pub fn tabulated_states(self) -> Option<Vec<GymObs>> {
                match self { $(GymId::$variant => <$kind>::tabulated_states()),+ }
            }
            pub fn state_index(self, obs: &GymObs) -> usize {
                match self { $(GymId::$variant => <$kind>::state_index(obs)),+ }
            }
            pub fn features(self, obs: &GymObs, out: &mut [f32]) {
                match self { $(GymId::$variant => <$kind>::features(obs, out)),+ }
            }
            pub fn state_flags(self, state: usize) -> Vec<(&'static str, String)> {
                match self { $(GymId::$variant => <$kind>::state_flags(state)),+ }
            }
            /// The state in words, or a note where `values` are too few to say one.
            pub fn describe(self, values: &[f64]) -> String {
                if values.len() < self.observation().values() {
                    return NO_STATE.to_owned();
                }
                match self { $(GymId::$variant => <$kind>::describe(values)),+ }
            }
            /// The state drawn, or a note where `values` are too few to draw one.
            pub fn scene(self, values: &[f64]) -> Scene {
                let mut scene = Scene::default();
                if values.len() < self.observation().values() {
                    scene.text(NO_STATE, (scene::WIDTH / 2.0, scene::HEIGHT / 2.0), 14, scene::GROUND);
                    return scene;
                }
                match self { $(GymId::$variant => <$kind>::draw(values, &mut scene)),+ }
                scene
            }
            /// A fresh environment, reset from `rng`.
            pub fn make(self, rng: &mut RunRng) -> GymEnv {
                match self { $(GymId::$variant => GymEnv::$variant(<$kind>::reset(rng))),+ }
            }
        }

        /// Any of the environments, for hosts that hold one of each kind.
        #[derive(Clone, Debug, PartialEq)]
        pub enum GymEnv {
            $($variant($kind)),+
        }

        impl GymEnv {
            pub fn id(&self) -> GymId {
                match self { $(GymEnv::$variant(_) => GymId::$variant),+ }
            }
            pub fn obs(&self) -> GymObs {
                match self { $(GymEnv::$variant(e) => e.obs()),+ }
            }
            /// The observation before Gymnasium's float32 cast, from the f64 state (a discrete one
            /// as it is): what a real environment in another language starts from, to the last bit.
            pub fn unrounded_obs(&self) -> Vec<f64> {
                match self { $(GymEnv::$variant(e) => e.unrounded_obs()),+ }
            }
            /// One step; `action` must be below `id().actions()`.
            pub fn step(&mut self, action: usize, rng: &mut RunRng) -> GymStep {
                match self { $(GymEnv::$variant(e) => e.step(action, rng)),+ }
            }
            pub fn heuristic_action(&self) -> usize {
                match self { $(GymEnv::$variant(e) => e.heuristic_action()),+ }
            }
            /// The environment in the state an observation shows, as far as it shows it (a
            /// Blackjack hand is one that gives the observation; an Acrobot's angles come back
            /// through atan2).
            pub fn from_obs(id: GymId, obs: &GymObs) -> Result<Self, String> {
                Ok(match id { $(GymId::$variant => GymEnv::$variant(<$kind>::from_obs(obs)?)),+ })
            }
        }
    };
}

gymnasium_environments! {
    CliffWalking => cliff_walking::CliffWalking,
    Taxi => taxi::Taxi,
    Blackjack => blackjack::Blackjack,
    CartPole => cart_pole::CartPole,
    MountainCar => mountain_car::MountainCar,
    Acrobot => acrobot::Acrobot,
}

impl From<GymId> for &'static str {
    fn from(id: GymId) -> Self {
        id.name()
    }
}

impl TryFrom<String> for GymId {
    type Error = String;

    fn try_from(name: String) -> Result<Self, String> {
        Self::parse(&name)
    }
}

impl GymId {
    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|id| id.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|id| id.name()).collect();
            format!("unknown Gymnasium environment '{name}'; valid: {}", names.join(", "))
        })
    }

    pub fn actions(self) -> usize {
        self.action_names().len()
    }

    /// Whether its observations are floats (compared within a tolerance) rather than integers.
    pub fn continuous(self) -> bool {
        matches!(self.observation(), ObsKind::Floats(_))
    }

    /// An observation of it from its JSON.
    pub fn obs_of(self, value: &serde_json::Value) -> Result<GymObs, String> {
        self.observation().parse(value).ok_or_else(|| format!("{value} is not an observation of {}", self.name()))
    }
}

/// An observation that is not of `name`'s kind, as an error.
fn not_an_observation(obs: &GymObs, name: &str) -> String {
    format!("{obs:?} is not an observation of {name}")
}

/// Gymnasium's `TimeLimit`: an episode is truncated when its step count reaches the limit, whether
/// or not it terminated on that step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimit {
    pub max_steps: Option<u32>,
    pub elapsed: u32,
}

impl TimeLimit {
    pub fn of(id: GymId) -> Self {
        Self { max_steps: id.max_episode_steps(), elapsed: 0 }
    }

    /// Counts a step; whether it truncates the episode.
    pub fn step(&mut self) -> bool {
        self.elapsed += 1;
        self.max_steps.is_some_and(|max| self.elapsed >= max)
    }
}

/// Runs `steps` steps of uniformly random actions on `id`, starting a new episode whenever one
/// ends or is truncated; returns the episodes begun (what a speed benchmark times).
pub fn random_steps(id: GymId, steps: u32, rng: &mut RunRng) -> u32 {
    use rand::Rng;
    let mut env = id.make(rng);
    let mut limit = TimeLimit::of(id);
    let mut episodes = 1;
    for _ in 0..steps {
        let step = env.step(rng.random_range(0..id.actions()), rng);
        if limit.step() || step.terminated {
            env = id.make(rng);
            limit = TimeLimit::of(id);
            episodes += 1;
        }
    }
    episodes
}

/// The `N` floats of an observation of `name`, or what is wrong with it.
fn floats<const N: usize>(obs: &GymObs, name: &str) -> Result<[f64; N], String> {
    let GymObs::Floats(values) = obs else { return Err(not_an_observation(obs, name)) };
    let values: [f32; N] = values
        .as_slice()
        .try_into()
        .map_err(|_| format!("{name} observations have {N} values, not {}", values.len()))?;
    Ok(values.map(f64::from))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn random_steps_begin_episodes_as_they_end_and_the_time_limit_truncates() {
        // Random CartPole episodes last about 20 steps; Taxi's random ones meet the 200-step limit.
        let cart_pole = random_steps(GymId::CartPole, 10_000, &mut gym_rng(1));
        assert!((200..2000).contains(&cart_pole), "{cart_pole}");
        assert_eq!(cart_pole, random_steps(GymId::CartPole, 10_000, &mut gym_rng(1)));
        let mut limit = TimeLimit::of(GymId::Taxi);
        assert!((0..199).all(|_| !limit.step()) && limit.step());
        assert!(!TimeLimit::of(GymId::CliffWalking).step());
        assert_eq!(GymId::parse("Taxi-v3"), Ok(GymId::Taxi));
    }

    #[test]
    fn states_are_described_as_gymnasium_encodes_them() {
        // Taxi 328: ((3·5 + 1)·5 + 2)·4 + 0, Gymnasium's documented example.
        assert_eq!(GymId::Taxi.describe(&[328.0]), "taxi at row 3, column 1; passenger at Y; destination R");
        assert_eq!(GymId::CliffWalking.describe(&[36.0]), "row 3, column 0");
        assert_eq!(
            GymId::Blackjack.describe(&[15.0, 1.0, 0.0]),
            "player's sum 15, dealer shows an ace, usable ace: no"
        );
        // Acrobot hanging down: both angles 0, the tip at height −2.
        assert_eq!(
            GymId::Acrobot.describe(&[1.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
            "θ1 = 0.0°, θ2 = 0.0°; the tip is at height -2.00 (the line is at 1)"
        );
        assert_eq!(GymId::CartPole.describe(&[0.1]), NO_STATE);
    }

    #[test]
    fn every_environment_draws_its_state_and_a_missing_one_is_said() {
        // CliffWalking's walker at the start: the last shape, a disc in the bottom left cell.
        let start = GymId::CliffWalking.scene(&[36.0]);
        assert_eq!(
            start.shapes.last(),
            Some(&scene::Shape::Disc { centre: (20.0, 180.0), radius: 12.0, colour: scene::AGENT })
        );
        for id in GymId::ALL {
            let values = id.make(&mut gym_rng(1)).obs().values();
            assert!(id.scene(&values).shapes.len() > 3, "{}", id.name());
            let missing = id.scene(&[]);
            assert!(matches!(&missing.shapes[..], [scene::Shape::Text { text, .. }] if text == NO_STATE));
        }
    }
}
