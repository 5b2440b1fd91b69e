//! MountainCar-v0 (Gymnasium 0.29.1 `classic_control/mountain_car.py`): an underpowered car in a
//! valley, pushed left, not at all, or right; −1 per step until it reaches the flag at 0.5.

use rand::Rng;

use super::{GymObs, GymStep, floats};
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

impl MountainCar {
    /// Position uniform in [−0.6, −0.4), at rest.
    pub fn reset(rng: &mut RunRng) -> Self {
        Self { state: [rng.random_range(-0.6..-0.4), 0.0] }
    }

    pub fn from_obs(obs: &[f32]) -> Result<Self, String> {
        Ok(Self { state: floats::<2>(obs, "MountainCar")? })
    }

    pub fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.state)
    }

    pub fn step(&mut self, action: usize) -> GymStep {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_worked_by_hand_and_the_walls() {
        // At the valley's bottom (cos(3·(−π/6)) = 0), pushing right adds 0.001.
        let bottom = -std::f64::consts::PI / 6.0;
        let mut env = MountainCar { state: [bottom, 0.0] };
        let step = env.step(2);
        assert!((env.state[1] - 0.001).abs() < 1e-15 && (env.state[0] - (bottom + env.state[1])).abs() < 1e-15);
        assert_eq!((step.reward, step.terminated), (-1.0, false));
        let mut env = MountainCar { state: [-1.19, -0.05] };
        env.step(0);
        assert_eq!(env.state, [-1.2, 0.0], "the left wall stops the car");
        let mut env = MountainCar { state: [0.49, 0.02] };
        assert!(env.step(1).terminated);
    }
}
