//! CartPole-v1 (Gymnasium 0.29.1 `classic_control/cartpole.py`): a pole on a cart pushed left or
//! right, explicit Euler steps of τ = 0.02 s; the state is f64, the observation its f32 cast.

use rand::Rng;

use super::{GymObs, GymStep, floats};
use crate::rng::RunRng;

const GRAVITY: f64 = 9.8;
const MASS_CART: f64 = 1.0;
const MASS_POLE: f64 = 0.1;
const TOTAL_MASS: f64 = MASS_POLE + MASS_CART;
/// Half the pole's length.
const LENGTH: f64 = 0.5;
const POLE_MASS_LENGTH: f64 = MASS_POLE * LENGTH;
const FORCE_MAG: f64 = 10.0;
const TAU: f64 = 0.02;
const X_THRESHOLD: f64 = 2.4;
const THETA_THRESHOLD: f64 = 12.0 * 2.0 * std::f64::consts::PI / 360.0;

/// `[x, ẋ, θ, θ̇]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CartPole {
    pub state: [f64; 4],
}

impl CartPole {
    /// Every state variable uniform in ±0.05.
    pub fn reset(rng: &mut RunRng) -> Self {
        Self { state: std::array::from_fn(|_| rng.random_range(-0.05..0.05)) }
    }

    pub fn from_obs(obs: &[f32]) -> Result<Self, String> {
        Ok(Self { state: floats::<4>(obs, "CartPole")? })
    }

    pub fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.state)
    }

    /// Action 1 pushes right, 0 left. The reward is 1 on every step, the terminating one included.
    pub fn step(&mut self, action: usize) -> GymStep {
        let [x, x_dot, theta, theta_dot] = self.state;
        let force = if action == 1 { FORCE_MAG } else { -FORCE_MAG };
        let (sin, cos) = theta.sin_cos();
        let temp = (force + POLE_MASS_LENGTH * theta_dot.powi(2) * sin) / TOTAL_MASS;
        let theta_acc = (GRAVITY * sin - cos * temp) / (LENGTH * (4.0 / 3.0 - MASS_POLE * cos.powi(2) / TOTAL_MASS));
        let x_acc = temp - POLE_MASS_LENGTH * theta_acc * cos / TOTAL_MASS;
        self.state = [x + TAU * x_dot, x_dot + TAU * x_acc, theta + TAU * theta_dot, theta_dot + TAU * theta_acc];
        let [x, _, theta, _] = self.state;
        let terminated =
            !(-X_THRESHOLD..=X_THRESHOLD).contains(&x) || !(-THETA_THRESHOLD..=THETA_THRESHOLD).contains(&theta);
        GymStep { obs: self.obs(), reward: 1.0, terminated }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_euler_step_from_rest_worked_by_hand() {
        // At rest and upright, pushing right: temp = 10/1.1, θ̈ = −cos·temp / (0.5·(4/3 − 0.1/1.1)),
        // ẍ = temp − 0.05·θ̈/1.1; only the velocities change on the first Euler step.
        let mut env = CartPole { state: [0.0; 4] };
        let step = env.step(1);
        let temp = 10.0 / 1.1;
        let theta_acc = -temp / (0.5 * (4.0 / 3.0 - 0.1 / 1.1));
        let x_acc = temp - 0.05 * theta_acc / 1.1;
        assert_eq!(env.state, [0.0, 0.02 * x_acc, 0.0, 0.02 * theta_acc]);
        assert_eq!((step.reward, step.terminated), (1.0, false));
        // Past 2.4 m the episode ends, with its reward.
        let mut env = CartPole { state: [2.39, 1.0, 0.0, 0.0] };
        assert!(env.step(1).terminated);
    }
}
