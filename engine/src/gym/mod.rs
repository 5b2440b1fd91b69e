//! The six discrete-action environments of seed 004's benchmark (CWMB), identical to Gymnasium
//! 0.29.1: the same ids, spaces, rewards, termination and time limits, one file per environment.
//! A step returns `terminated`; the time limit's truncation is the [`TimeLimit`]'s, kept apart.
//! Continuous states are f64 inside and f32 in the observation, as in Gymnasium; Blackjack draws
//! from the run's RNG.
//!
//! `transitions.rs` replays recorded transitions (Gymnasium's own, `bench/gym_transitions.py`)
//! through these environments, setting each one's state from the observation.

use serde::{Deserialize, Serialize};

use crate::rng::RunRng;

pub mod accuracy;
pub mod acrobot;
pub mod blackjack;
pub mod cart_pole;
pub mod cliff_walking;
pub mod dataset;
pub mod mountain_car;
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GymId {
    #[serde(rename = "Blackjack-v1")]
    Blackjack,
    #[serde(rename = "CliffWalking-v0")]
    CliffWalking,
    #[serde(rename = "Taxi-v3")]
    Taxi,
    #[serde(rename = "CartPole-v1")]
    CartPole,
    #[serde(rename = "MountainCar-v0")]
    MountainCar,
    #[serde(rename = "Acrobot-v1")]
    Acrobot,
}

impl GymId {
    pub const ALL: [GymId; 6] =
        [GymId::Blackjack, GymId::CliffWalking, GymId::Taxi, GymId::CartPole, GymId::MountainCar, GymId::Acrobot];

    /// Gymnasium's id.
    pub fn name(self) -> &'static str {
        match self {
            GymId::Blackjack => "Blackjack-v1",
            GymId::CliffWalking => "CliffWalking-v0",
            GymId::Taxi => "Taxi-v3",
            GymId::CartPole => "CartPole-v1",
            GymId::MountainCar => "MountainCar-v0",
            GymId::Acrobot => "Acrobot-v1",
        }
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|id| id.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|id| id.name()).collect();
            format!("unknown Gymnasium environment '{name}'; valid: {}", names.join(", "))
        })
    }

    pub fn actions(self) -> usize {
        match self {
            GymId::Blackjack | GymId::CartPole => 2,
            GymId::MountainCar | GymId::Acrobot => 3,
            GymId::CliffWalking => 4,
            GymId::Taxi => 6,
        }
    }

    /// Gymnasium's `TimeLimit` (`max_episode_steps` of the registration); none for Blackjack and
    /// CliffWalking.
    pub fn max_episode_steps(self) -> Option<u32> {
        match self {
            GymId::Blackjack | GymId::CliffWalking => None,
            GymId::Taxi | GymId::MountainCar => Some(200),
            GymId::CartPole | GymId::Acrobot => Some(500),
        }
    }

    /// Whether its observations are floats (compared within a tolerance) rather than integers.
    pub fn continuous(self) -> bool {
        matches!(self, GymId::CartPole | GymId::MountainCar | GymId::Acrobot)
    }

    /// A fresh environment, reset from `rng`.
    pub fn make(self, rng: &mut RunRng) -> GymEnv {
        match self {
            GymId::Blackjack => GymEnv::Blackjack(blackjack::Blackjack::reset(rng)),
            GymId::CliffWalking => GymEnv::CliffWalking(cliff_walking::CliffWalking::reset()),
            GymId::Taxi => GymEnv::Taxi(taxi::Taxi::reset(rng)),
            GymId::CartPole => GymEnv::CartPole(cart_pole::CartPole::reset(rng)),
            GymId::MountainCar => GymEnv::MountainCar(mountain_car::MountainCar::reset(rng)),
            GymId::Acrobot => GymEnv::Acrobot(acrobot::Acrobot::reset(rng)),
        }
    }
}

/// Any of the six, for hosts that hold one of each kind.
#[derive(Clone, Debug, PartialEq)]
pub enum GymEnv {
    Blackjack(blackjack::Blackjack),
    CliffWalking(cliff_walking::CliffWalking),
    Taxi(taxi::Taxi),
    CartPole(cart_pole::CartPole),
    MountainCar(mountain_car::MountainCar),
    Acrobot(acrobot::Acrobot),
}

impl GymEnv {
    pub fn id(&self) -> GymId {
        match self {
            GymEnv::Blackjack(_) => GymId::Blackjack,
            GymEnv::CliffWalking(_) => GymId::CliffWalking,
            GymEnv::Taxi(_) => GymId::Taxi,
            GymEnv::CartPole(_) => GymId::CartPole,
            GymEnv::MountainCar(_) => GymId::MountainCar,
            GymEnv::Acrobot(_) => GymId::Acrobot,
        }
    }

    pub fn obs(&self) -> GymObs {
        match self {
            GymEnv::Blackjack(e) => e.obs(),
            GymEnv::CliffWalking(e) => e.obs(),
            GymEnv::Taxi(e) => e.obs(),
            GymEnv::CartPole(e) => e.obs(),
            GymEnv::MountainCar(e) => e.obs(),
            GymEnv::Acrobot(e) => e.obs(),
        }
    }

    /// The observation before Gymnasium's float32 cast, from the f64 state (a discrete one as it
    /// is): what a real environment in another language starts from, to the last bit.
    pub fn unrounded_obs(&self) -> Vec<f64> {
        match self {
            GymEnv::CartPole(e) => e.state.to_vec(),
            GymEnv::MountainCar(e) => e.state.to_vec(),
            GymEnv::Acrobot(e) => e.unrounded_obs().to_vec(),
            GymEnv::Blackjack(_) | GymEnv::CliffWalking(_) | GymEnv::Taxi(_) => self.obs().values(),
        }
    }

    /// One step; `action` must be below `id().actions()`.
    pub fn step(&mut self, action: usize, rng: &mut RunRng) -> GymStep {
        match self {
            GymEnv::Blackjack(e) => e.step(action, rng),
            GymEnv::CliffWalking(e) => e.step(action),
            GymEnv::Taxi(e) => e.step(action),
            GymEnv::CartPole(e) => e.step(action),
            GymEnv::MountainCar(e) => e.step(action),
            GymEnv::Acrobot(e) => e.step(action),
        }
    }

    /// The environment in the state an observation shows, as far as it shows it (a Blackjack
    /// hand is one that gives the observation; an Acrobot's angles come back through atan2).
    pub fn from_obs(id: GymId, obs: &GymObs) -> Result<Self, String> {
        Ok(match (id, obs) {
            (GymId::Blackjack, GymObs::Triple(t)) => GymEnv::Blackjack(blackjack::Blackjack::from_obs(*t)?),
            (GymId::CliffWalking, GymObs::Discrete(s)) => {
                GymEnv::CliffWalking(cliff_walking::CliffWalking::from_state(*s)?)
            }
            (GymId::Taxi, GymObs::Discrete(s)) => GymEnv::Taxi(taxi::Taxi::from_state(*s)?),
            (GymId::CartPole, GymObs::Floats(v)) => GymEnv::CartPole(cart_pole::CartPole::from_obs(v)?),
            (GymId::MountainCar, GymObs::Floats(v)) => GymEnv::MountainCar(mountain_car::MountainCar::from_obs(v)?),
            (GymId::Acrobot, GymObs::Floats(v)) => GymEnv::Acrobot(acrobot::Acrobot::from_obs(v)?),
            (id, obs) => return Err(format!("{obs:?} is not an observation of {}", id.name())),
        })
    }
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

/// A float vector of `n` values from an observation, or what is wrong with it.
fn floats<const N: usize>(values: &[f32], what: &str) -> Result<[f64; N], String> {
    let values: [f32; N] =
        values.try_into().map_err(|_| format!("{what} observations have {N} values, not {}", values.len()))?;
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
}
