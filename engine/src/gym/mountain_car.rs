//! MountainCar-v0 (Gymnasium 0.29.1 `classic_control/mountain_car.py`): an underpowered car in a
//! valley, pushed left, not at all, or right; −1 per step until it reaches the flag at 0.5.

use rand::Rng;

use super::scene::{self, AGENT, GOAL, GROUND, INK, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, floats};
use crate::rng::RunRng;

const MIN_POSITION: f64 = -1.2;
const MAX_POSITION: f64 = 0.6;
const MAX_SPEED: f64 = 0.07;
const GOAL_POSITION: f64 = 0.5;
const GOAL_VELOCITY: f64 = 0.0;
const FORCE: f64 = 0.001;
const GRAVITY: f64 = 0.0025;

/// `[position, velocity]`.
#[derive(Clone, Debug, PartialEq)]
pub struct MountainCar {
    pub state: [f64; 2],
}

/// The hill's height at `position` (Gymnasium's `_height`).
fn height(position: f64) -> f64 {
    (3.0 * position).sin() * 0.45 + 0.55
}

impl Gymnasium for MountainCar {
    const NAME: &'static str = "MountainCar-v0";
    const SUMMARY: &'static str = "Seed 004 (Gymnasium): swing an underpowered car up to the flag on the right hill (continuous states: DQN only)";
    const ACTION_NAMES: &'static [&'static str] = &["accelerate left", "coast", "accelerate right"];
    const MAX_EPISODE_STEPS: Option<u32> = Some(200);
    const OBSERVATION: ObsKind = ObsKind::Floats(2);
    const TABULAR_STATES: usize = 1;
    const FEATURES: usize = 2;
    const DEFAULT_EPISODES: u32 = 300;
    const PAPER_ROW: usize = 2;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] = [(1.00, None), (0.83, None), (1.00, None), (1.00, None)];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/MountainCar-v0.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/MountainCar-v0.bank.py");

    /// Position uniform in [−0.6, −0.4), at rest.
    fn reset(rng: &mut RunRng) -> Self {
        Self { state: [rng.random_range(-0.6..-0.4), 0.0] }
    }

    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        Ok(Self { state: floats::<2>(obs, Self::NAME)? })
    }

    fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.state)
    }

    fn unrounded_obs(&self) -> Vec<f64> {
        self.state.to_vec()
    }

    fn step(&mut self, action: usize, _rng: &mut RunRng) -> GymStep {
        let [mut position, mut velocity] = self.state;
        velocity += (action as f64 - 1.0) * FORCE + (3.0 * position).cos() * -GRAVITY;
        velocity = velocity.clamp(-MAX_SPEED, MAX_SPEED);
        position = (position + velocity).clamp(MIN_POSITION, MAX_POSITION);
        // The left wall stops the car.
        if position == MIN_POSITION && velocity < 0.0 {
            velocity = 0.0;
        }
        self.state = [position, velocity];
        let terminated = position >= GOAL_POSITION && velocity >= GOAL_VELOCITY;
        GymStep { obs: self.obs(), reward: -1.0, terminated }
    }

    /// Pushed with its motion: left from rest, which reaches the flag within 100 steps from starts
    /// right of about −0.47.
    fn heuristic_action(&self) -> usize {
        let GymObs::Floats(o) = self.obs() else { unreachable!("MountainCar's observations are floats") };
        if o[1] > 0.0 { 2 } else { 0 }
    }

    fn describe(values: &[f64]) -> String {
        format!("position {:.3}, velocity {:.4}; the flag is at {GOAL_POSITION}", values[0], values[1])
    }

    /// Gymnasium's frame: positions −1.2 to 0.6 across the width, the hill's heights upward.
    fn draw(values: &[f64], scene: &mut Scene) {
        let to_canvas = |position: f64| {
            let span = MAX_POSITION - MIN_POSITION;
            (
                (position - MIN_POSITION) / span * scene::WIDTH,
                scene::HEIGHT - 15.0 - height(position) * (scene::HEIGHT - 70.0),
            )
        };
        let hill = (0..=100).map(|i| to_canvas(MIN_POSITION + (MAX_POSITION - MIN_POSITION) * f64::from(i) / 100.0));
        scene.polyline(hill.collect(), 2.0, GROUND);
        let (fx, fy) = to_canvas(GOAL_POSITION);
        scene.line((fx, fy), (fx, fy - 40.0), 2.0, INK);
        scene.fill((fx, fy - 40.0), (22.0, 12.0), GOAL);
        let (x, y) = to_canvas(values[0]);
        scene.disc((x, y - 9.0), 9.0, AGENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn a_step_worked_by_hand_and_the_walls() {
        // At the valley's bottom (cos(3·(−π/6)) = 0), pushing right adds 0.001.
        let bottom = -std::f64::consts::PI / 6.0;
        let mut env = MountainCar { state: [bottom, 0.0] };
        let step = env.step(2, &mut gym_rng(0));
        assert!((env.state[1] - 0.001).abs() < 1e-15 && (env.state[0] - (bottom + env.state[1])).abs() < 1e-15);
        assert_eq!((step.reward, step.terminated), (-1.0, false));
        let mut env = MountainCar { state: [-1.19, -0.05] };
        env.step(0, &mut gym_rng(0));
        assert_eq!(env.state, [-1.2, 0.0], "the left wall stops the car");
        let mut env = MountainCar { state: [0.49, 0.02] };
        assert!(env.step(1, &mut gym_rng(0)).terminated);
    }
}
