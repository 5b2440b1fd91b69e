//! Acrobot-v1 (Gymnasium 0.29.1 `classic_control/acrobot.py`): two links hanging from a pivot,
//! torque −1, 0 or +1 on the joint between them; one RK4 step of 0.2 s of the "book" dynamics
//! (Sutton and Barto), angles wrapped to [−π, π] and speeds clipped. −1 per step, 0 when the tip
//! swings a link's length above the pivot, which ends the episode.

use std::f64::consts::PI;

use rand::Rng;

use super::scene::{self, AGENT, GOAL, INK, POLE, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, floats};
use crate::rng::RunRng;

const DT: f64 = 0.2;
const LINK_LENGTH_1: f64 = 1.0;
const LINK_MASS_1: f64 = 1.0;
const LINK_MASS_2: f64 = 1.0;
const LINK_COM_1: f64 = 0.5;
const LINK_COM_2: f64 = 0.5;
const LINK_MOI: f64 = 1.0;
const MAX_VEL_1: f64 = 4.0 * PI;
const MAX_VEL_2: f64 = 9.0 * PI;
const TORQUES: [f64; 3] = [-1.0, 0.0, 1.0];
const G: f64 = 9.8;

/// `[θ1, θ2, θ̇1, θ̇2]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Acrobot {
    pub state: [f64; 4],
}

/// The derivative of `[θ1, θ2, θ̇1, θ̇2]` under torque `a`.
fn derivatives(s: [f64; 4], a: f64) -> [f64; 4] {
    let (m1, m2, l1, lc1, lc2, i1, i2) =
        (LINK_MASS_1, LINK_MASS_2, LINK_LENGTH_1, LINK_COM_1, LINK_COM_2, LINK_MOI, LINK_MOI);
    let [theta1, theta2, dtheta1, dtheta2] = s;
    let d1 = m1 * lc1.powi(2) + m2 * (l1.powi(2) + lc2.powi(2) + 2.0 * l1 * lc2 * theta2.cos()) + i1 + i2;
    let d2 = m2 * (lc2.powi(2) + l1 * lc2 * theta2.cos()) + i2;
    let phi2 = m2 * lc2 * G * (theta1 + theta2 - PI / 2.0).cos();
    let phi1 = -m2 * l1 * lc2 * dtheta2.powi(2) * theta2.sin() - 2.0 * m2 * l1 * lc2 * dtheta2 * dtheta1 * theta2.sin()
        + (m1 * lc1 + m2 * l1) * G * (theta1 - PI / 2.0).cos()
        + phi2;
    let ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * dtheta1.powi(2) * theta2.sin() - phi2)
        / (m2 * lc2.powi(2) + i2 - d2.powi(2) / d1);
    let ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
    [dtheta1, dtheta2, ddtheta1, ddtheta2]
}

/// `x` moved by whole turns into [`low`, `high`] (Gymnasium's `wrap`).
fn wrap(mut x: f64, low: f64, high: f64) -> f64 {
    let span = high - low;
    while x > high {
        x -= span;
    }
    while x < low {
        x += span;
    }
    x
}

impl Acrobot {
    /// `[cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2]` in f64.
    fn observed(&self) -> [f64; 6] {
        let [t1, t2, d1, d2] = self.state;
        [t1.cos(), t1.sin(), t2.cos(), t2.sin(), d1, d2]
    }
}

/// The two angles of an observation `[cos θ1, sin θ1, cos θ2, sin θ2, …]`.
fn angles(values: &[f64]) -> (f64, f64) {
    (values[1].atan2(values[0]), values[3].atan2(values[2]))
}

impl Gymnasium for Acrobot {
    const NAME: &'static str = "Acrobot-v1";
    const SUMMARY: &'static str = "Seed 004 (Gymnasium): swing a two-link pendulum's free end above a line by torque at its middle joint (continuous states: DQN only)";
    const ACTION_NAMES: &'static [&'static str] = &["torque −1", "torque 0", "torque +1"];
    const MAX_EPISODE_STEPS: Option<u32> = Some(500);
    const OBSERVATION: ObsKind = ObsKind::Floats(6);
    const TABULAR_STATES: usize = 1;
    const FEATURES: usize = 6;
    const DEFAULT_EPISODES: u32 = 300;
    const PAPER_ROW: usize = 5;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] = [(0.54, None), (0.73, None), (0.53, None), (0.42, None)];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/Acrobot-v1.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/Acrobot-v1.bank.py");

    /// Every state variable uniform in ±0.1, cast to f32 (as Gymnasium does).
    fn reset(rng: &mut RunRng) -> Self {
        Self { state: std::array::from_fn(|_| f64::from(rng.random_range(-0.1..0.1) as f32)) }
    }

    /// The state an observation `[cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2]` shows.
    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        let [c1, s1, c2, s2, d1, d2] = floats::<6>(obs, Self::NAME)?;
        Ok(Self { state: [s1.atan2(c1), s2.atan2(c2), d1, d2] })
    }

    fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.observed())
    }

    fn unrounded_obs(&self) -> Vec<f64> {
        self.observed().to_vec()
    }

    fn step(&mut self, action: usize, _rng: &mut RunRng) -> GymStep {
        let torque = TORQUES[action];
        let s = self.state;
        let shifted = |k: [f64; 4], h: f64| std::array::from_fn(|i| s[i] + h * k[i]);
        let k1 = derivatives(s, torque);
        let k2 = derivatives(shifted(k1, DT / 2.0), torque);
        let k3 = derivatives(shifted(k2, DT / 2.0), torque);
        let k4 = derivatives(shifted(k3, DT), torque);
        let next: [f64; 4] = std::array::from_fn(|i| s[i] + DT / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
        self.state = [
            wrap(next[0], -PI, PI),
            wrap(next[1], -PI, PI),
            next[2].clamp(-MAX_VEL_1, MAX_VEL_1),
            next[3].clamp(-MAX_VEL_2, MAX_VEL_2),
        ];
        let [t1, t2, ..] = self.state;
        let terminated = -t1.cos() - (t2 + t1).cos() > 1.0;
        GymStep { obs: self.obs(), reward: if terminated { 0.0 } else { -1.0 }, terminated }
    }

    /// Torque against the first link's swing (which pumps energy in): +1 while it swings back.
    fn heuristic_action(&self) -> usize {
        let GymObs::Floats(o) = self.obs() else { unreachable!("Acrobot's observations are floats") };
        if o[4] < 0.0 { 2 } else { 0 }
    }

    fn describe(values: &[f64]) -> String {
        let (first, second) = angles(values);
        let height = -first.cos() - (first + second).cos();
        format!(
            "θ1 = {:.1}°, θ2 = {:.1}°; the tip is at height {height:.2} (the line is at 1)",
            first.to_degrees(),
            second.to_degrees()
        )
    }

    /// Gymnasium's drawing: two links of length 1 hanging from the pivot, the goal line at height 1.
    fn draw(values: &[f64], scene: &mut Scene) {
        let scale = (scene::HEIGHT - 20.0) / 4.4;
        let pivot = (scene::WIDTH / 2.0, scene::HEIGHT / 2.0);
        let (first, second) = angles(values);
        let point = |(x, y): (f64, f64), angle: f64| (x + scale * angle.sin(), y + scale * angle.cos());
        let elbow = point(pivot, first);
        let tip = point(elbow, first + second);
        scene.line((pivot.0 - 2.2 * scale, pivot.1 - scale), (pivot.0 + 2.2 * scale, pivot.1 - scale), 1.0, GOAL);
        scene.line(pivot, elbow, 8.0, INK);
        scene.line(elbow, tip, 8.0, POLE);
        scene.disc(pivot, 5.0, AGENT);
        scene.disc(elbow, 5.0, AGENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn hanging_still_it_stays_and_the_angles_come_back_through_atan2() {
        // Hanging straight down at rest with no torque is an equilibrium.
        let mut env = Acrobot { state: [0.0; 4] };
        let step = env.step(1, &mut gym_rng(0));
        assert!(env.state.iter().all(|v| v.abs() < 1e-12), "{:?}", env.state);
        assert_eq!((step.reward, step.terminated), (-1.0, false));
        let env = Acrobot { state: [2.5, -1.0, 0.5, -0.25] };
        let back = Acrobot::from_obs(&env.obs()).unwrap();
        assert!(back.state.iter().zip(env.state).all(|(a, b)| (a - b).abs() < 1e-6));
        assert_eq!(wrap(3.5, -PI, PI), 3.5 - 2.0 * PI);
        // Both links straight up: the tip is two lengths above the pivot.
        let mut up = Acrobot { state: [PI, 0.0, 0.0, 0.0] };
        assert!(up.step(1, &mut gym_rng(0)).terminated);
    }
}
