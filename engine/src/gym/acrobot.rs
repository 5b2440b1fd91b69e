//! Acrobot-v1 (Gymnasium 0.29.1 `classic_control/acrobot.py`): two links hanging from a pivot,
//! torque −1, 0 or +1 on the joint between them; one RK4 step of 0.2 s of the "book" dynamics
//! (Sutton and Barto), angles wrapped to [−π, π] and speeds clipped. −1 per step, 0 when the tip
//! swings a link's length above the pivot, which ends the episode.

use std::f64::consts::PI;

use rand::Rng;

use super::{GymObs, GymStep, floats};
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
    /// Every state variable uniform in ±0.1, cast to f32 (as Gymnasium does).
    pub fn reset(rng: &mut RunRng) -> Self {
        Self { state: std::array::from_fn(|_| f64::from(rng.random_range(-0.1..0.1) as f32)) }
    }

    /// The state an observation `[cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2]` shows.
    pub fn from_obs(obs: &[f32]) -> Result<Self, String> {
        let [c1, s1, c2, s2, d1, d2] = floats::<6>(obs, "Acrobot")?;
        Ok(Self { state: [s1.atan2(c1), s2.atan2(c2), d1, d2] })
    }

    pub fn obs(&self) -> GymObs {
        GymObs::of_f64(&self.unrounded_obs())
    }

    /// `[cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2]` in f64.
    pub fn unrounded_obs(&self) -> [f64; 6] {
        let [t1, t2, d1, d2] = self.state;
        [t1.cos(), t1.sin(), t2.cos(), t2.sin(), d1, d2]
    }

    pub fn step(&mut self, action: usize) -> GymStep {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hanging_still_it_stays_and_the_angles_come_back_through_atan2() {
        // Hanging straight down at rest with no torque is an equilibrium.
        let mut env = Acrobot { state: [0.0; 4] };
        let step = env.step(1);
        assert!(env.state.iter().all(|v| v.abs() < 1e-12), "{:?}", env.state);
        assert_eq!((step.reward, step.terminated), (-1.0, false));
        let env = Acrobot { state: [2.5, -1.0, 0.5, -0.25] };
        let GymObs::Floats(obs) = env.obs() else { unreachable!() };
        let back = Acrobot::from_obs(&obs).unwrap();
        assert!(back.state.iter().zip(env.state).all(|(a, b)| (a - b).abs() < 1e-6));
        assert_eq!(wrap(3.5, -PI, PI), 3.5 - 2.0 * PI);
        // Both links straight up: the tip is two lengths above the pivot.
        let mut up = Acrobot { state: [PI, 0.0, 0.0, 0.0] };
        assert!(up.step(1).terminated);
    }
}
