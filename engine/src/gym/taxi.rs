//! Taxi-v3 (Gymnasium 0.29.1 `toy_text/taxi.py`): a taxi on a 5 × 5 grid with walls picks a
//! passenger up at one of four landmarks (R, G, Y, B) and drops them at another. The state is
//! ((row · 5 + col) · 5 + passenger) · 4 + destination, passenger 4 meaning in the taxi. −1 per
//! step, −10 for a pickup or dropoff where there is none to make, +20 for the dropoff at the
//! destination, which ends the episode.

use rand::Rng;

use super::{GymObs, GymStep};
use crate::rng::RunRng;

/// Gymnasium's map: a `:` between two cells is open, a `|` a wall.
const MAP: [&str; 7] =
    ["+---------+", "|R: | : :G|", "| : | : : |", "| : : : : |", "| | : | : |", "|Y| : |B: |", "+---------+"];
/// R, G, Y, B as (row, col).
pub const LANDMARKS: [(i64, i64); 4] = [(0, 0), (0, 4), (4, 0), (4, 3)];
pub const STATES: i64 = 500;

#[derive(Clone, Debug, PartialEq)]
pub struct Taxi {
    pub row: i64,
    pub col: i64,
    /// A landmark's index, or 4 in the taxi.
    pub passenger: i64,
    pub destination: i64,
}

impl Taxi {
    /// Uniform over the 300 states where the passenger waits at a landmark other than the
    /// destination (Gymnasium's `initial_state_distrib`).
    pub fn reset(rng: &mut RunRng) -> Self {
        let passenger = rng.random_range(0..4);
        // One of the three other landmarks.
        let destination = (passenger + rng.random_range(1..4)) % 4;
        Self { row: rng.random_range(0..5), col: rng.random_range(0..5), passenger, destination }
    }

    fn decode(state: i64) -> Self {
        Self { destination: state % 4, passenger: state / 4 % 5, col: state / 20 % 5, row: state / 100 }
    }

    pub fn encode(&self) -> i64 {
        ((self.row * 5 + self.col) * 5 + self.passenger) * 4 + self.destination
    }

    pub fn from_state(state: i64) -> Result<Self, String> {
        if !(0..STATES).contains(&state) {
            return Err(format!("Taxi's states are 0–499, not {state}"));
        }
        Ok(Self::decode(state))
    }

    pub fn obs(&self) -> GymObs {
        GymObs::Discrete(self.encode())
    }

    fn open(&self, map_col: i64) -> bool {
        MAP[1 + self.row as usize].as_bytes()[map_col as usize] == b':'
    }

    /// Actions: 0 south, 1 north, 2 east, 3 west, 4 pickup, 5 dropoff.
    pub fn step(&mut self, action: usize) -> GymStep {
        let at = (self.row, self.col);
        let mut reward = -1.0;
        let mut terminated = false;
        match action {
            0 => self.row = (self.row + 1).min(4),
            1 => self.row = (self.row - 1).max(0),
            2 if self.open(2 * self.col + 2) => self.col = (self.col + 1).min(4),
            3 if self.open(2 * self.col) => self.col = (self.col - 1).max(0),
            4 if self.passenger < 4 && at == LANDMARKS[self.passenger as usize] => self.passenger = 4,
            4 => reward = -10.0,
            5 if self.passenger == 4 && at == LANDMARKS[self.destination as usize] => {
                self.passenger = self.destination;
                terminated = true;
                reward = 20.0;
            }
            // Dropped at another landmark: the passenger waits there.
            5 if self.passenger == 4 && LANDMARKS.contains(&at) => {
                self.passenger = LANDMARKS.iter().position(|&l| l == at).expect("a landmark") as i64;
            }
            5 => reward = -10.0,
            _ => {}
        }
        GymStep { obs: self.obs(), reward, terminated }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walls_pickup_and_dropoff_as_the_map_says() {
        // At R (0, 0) the east side is open, at (0, 1) it is a wall.
        let mut taxi = Taxi { row: 0, col: 0, passenger: 0, destination: 1 };
        assert_eq!(taxi.encode(), 1);
        taxi.step(2);
        assert_eq!(taxi.col, 1);
        taxi.step(2);
        assert_eq!(taxi.col, 1, "the wall between columns 1 and 2");
        assert_eq!(taxi.step(4).reward, -10.0, "no passenger here");
        let mut taxi = Taxi { row: 0, col: 0, passenger: 0, destination: 1 };
        assert_eq!((taxi.step(4).reward, taxi.passenger), (-1.0, 4));
        let mut at_y = Taxi { row: 4, col: 0, passenger: 4, destination: 1 };
        let step = at_y.step(5);
        assert_eq!((step.reward, step.terminated, at_y.passenger), (-1.0, false, 2), "left at Y");
        let mut at_g = Taxi { row: 0, col: 4, passenger: 4, destination: 1 };
        let step = at_g.step(5);
        assert_eq!((step.reward, step.terminated, at_g.passenger), (20.0, true, 1));
        assert_eq!(Taxi::decode(328), Taxi { row: 3, col: 1, passenger: 2, destination: 0 });
    }

    #[test]
    fn resets_cover_the_300_starts_and_nothing_else() {
        use rand::SeedableRng;
        let mut rng = RunRng::seed_from_u64(1);
        let starts: std::collections::HashSet<i64> = (0..20_000).map(|_| Taxi::reset(&mut rng).encode()).collect();
        assert_eq!(starts.len(), 300);
        assert!(
            starts
                .iter()
                .all(|&s| Taxi::decode(s).passenger < 4 && Taxi::decode(s).passenger != Taxi::decode(s).destination)
        );
    }
}
