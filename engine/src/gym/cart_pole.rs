//! CartPole-v1 (Gymnasium 0.29.1 `classic_control/cartpole.py`): a pole on a cart pushed left or
//! right, explicit Euler steps of τ = 0.02 s; the state is f64, the observation its f32 cast.

use rand::Rng;

use super::scene::{self, GROUND, INK, POLE, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, floats};
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

impl Gymnasium for CartPole {
    const NAME: &'static str = "CartPole-v1";
    const SUMMARY: &'static str = "Seed 004 (Gymnasium): push a cart left or right to keep its pole upright for 500 steps (continuous states: DQN only)";
    const ACTION_NAMES: &'static [&'static str] = &["push left", "push right"];
    const MAX_EPISODE_STEPS: Option<u32> = Some(500);
    const OBSERVATION: ObsKind = ObsKind::Floats(4);
    const TABULAR_STATES: usize = 1;
    const FEATURES: usize = 4;
    const DEFAULT_EPISODES: u32 = 300;
    const PAPER_ROW: usize = 0;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] =
        [(1.00, Some(1.11)), (0.92, Some(1.09)), (1.00, Some(0.99)), (1.00, Some(1.00))];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/CartPole-v1.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/CartPole-v1.bank.py");

    /// Every state variable uniform in ±0.05.
    fn reset(rng: &mut RunRng) -> Self {
        Self { state: std::array::from_fn(|_| rng.random_range(-0.05..0.05)) }
    }

    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        Ok(Self { state: floats::<4>(obs, Self::NAME)? })
    }

    fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.state)
    }

    fn unrounded_obs(&self) -> Vec<f64> {
        self.state.to_vec()
    }

    /// Action 1 pushes right, 0 left. The reward is 1 on every step, the terminating one included.
    fn step(&mut self, action: usize, _rng: &mut RunRng) -> GymStep {
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

    /// The pole still up when the time limit ends the episode.
    fn success(_reward: f64, _terminated: bool, truncated: bool) -> bool {
        truncated
    }

    /// Pushed toward where the pole falls.
    fn heuristic_action(&self) -> usize {
        let GymObs::Floats(o) = self.obs() else { unreachable!("CartPole's observations are floats") };
        usize::from(o[2] + 0.5 * o[3] > 0.0)
    }

    fn describe(values: &[f64]) -> String {
        format!(
            "cart at x = {:.3}, velocity {:.3}; pole at {:.1}°, angular velocity {:.3}",
            values[0],
            values[1],
            values[2].to_degrees(),
            values[3]
        )
    }

    /// Gymnasium's frame: x in ±2.4 across the width, the pole 1 unit long (twice its half-length).
    fn draw(values: &[f64], scene: &mut Scene) {
        let scale = scene::WIDTH / (2.0 * X_THRESHOLD);
        let track = 180.0;
        scene.line((0.0, track), (scene::WIDTH, track), 2.0, GROUND);
        let x = scene::WIDTH / 2.0 + values[0] * scale;
        scene.fill((x - 25.0, track - 12.0), (50.0, 24.0), INK);
        let angle = values[2];
        let pivot = (x, track - 8.0);
        scene.line(pivot, (x + scale * angle.sin(), track - 8.0 - scale * angle.cos()), 8.0, POLE);
        scene.disc(pivot, 5.0, scene::AGENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn one_euler_step_from_rest_worked_by_hand() {
        // At rest and upright, pushing right: temp = 10/1.1, θ̈ = −cos·temp / (0.5·(4/3 − 0.1/1.1)),
        // ẍ = temp − 0.05·θ̈/1.1; only the velocities change on the first Euler step.
        let mut env = CartPole { state: [0.0; 4] };
        let step = env.step(1, &mut gym_rng(0));
        let temp = 10.0 / 1.1;
        let theta_acc = -temp / (0.5 * (4.0 / 3.0 - 0.1 / 1.1));
        let x_acc = temp - 0.05 * theta_acc / 1.1;
        assert_eq!(env.state, [0.0, 0.02 * x_acc, 0.0, 0.02 * theta_acc]);
        assert_eq!((step.reward, step.terminated), (1.0, false));
        // Past 2.4 m the episode ends, with its reward.
        let mut env = CartPole { state: [2.39, 1.0, 0.0, 0.0] };
        assert!(env.step(1, &mut gym_rng(0)).terminated);
    }
}
