//! Taxi-v3 (Gymnasium 0.29.1 `toy_text/taxi.py`): a taxi on a 5 × 5 grid with walls picks a
//! passenger up at one of four landmarks (R, G, Y, B) and drops them at another. The state is
//! ((row · 5 + col) · 5 + passenger) · 4 + destination, passenger 4 meaning in the taxi. −1 per
//! step, −10 for a pickup or dropoff where there is none to make, +20 for the dropoff at the
//! destination, which ends the episode.

use std::collections::{HashMap, VecDeque};

use rand::{Rng, SeedableRng};

use super::scene::{self, AGENT, GROUND, INK, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, not_an_observation};
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

/// The landmarks' letters, and where a passenger in the taxi is.
const LANDMARK_NAMES: [&str; 5] = ["R", "G", "Y", "B", "in taxi"];
/// The walls on a cell's east side, by row (`|` in the map), for drawing.
const EAST_WALLS: [&[usize]; 5] = [&[1], &[1], &[], &[0, 2], &[0, 2]];

impl Taxi {
    fn decode(state: i64) -> Self {
        Self { destination: state % 4, passenger: state / 4 % 5, col: state / 20 % 5, row: state / 100 }
    }

    pub fn encode(&self) -> i64 {
        ((self.row * 5 + self.col) * 5 + self.passenger) * 4 + self.destination
    }

    fn open(&self, map_col: i64) -> bool {
        MAP[1 + self.row as usize].as_bytes()[map_col as usize] == b':'
    }

    /// The first action of a shortest way to deliver the passenger (breadth-first over the rules).
    fn shortest_delivery(&self) -> usize {
        let mut first_action: HashMap<i64, Option<usize>> = HashMap::from([(self.encode(), None)]);
        let mut queue = VecDeque::from([self.clone()]);
        // Taxi never draws: the steps ignore this RNG.
        let mut unused = RunRng::seed_from_u64(0);
        while let Some(taxi) = queue.pop_front() {
            let via = first_action[&taxi.encode()];
            for action in 0..6 {
                let mut next = taxi.clone();
                let step = next.step(action, &mut unused);
                let first = via.unwrap_or(action);
                if step.terminated {
                    return first;
                }
                first_action.entry(next.encode()).or_insert_with(|| {
                    queue.push_back(next);
                    Some(first)
                });
            }
        }
        0
    }
}

impl Gymnasium for Taxi {
    const NAME: &'static str = "Taxi-v3";
    const SUMMARY: &'static str = "Seed 004 (Gymnasium): drive a taxi on a 5 × 5 grid with walls, pick a passenger up and drop them at their destination";
    const ACTION_NAMES: &'static [&'static str] = &["south", "north", "east", "west", "pick up", "drop off"];
    const MAX_EPISODE_STEPS: Option<u32> = Some(200);
    const OBSERVATION: ObsKind = ObsKind::Discrete;
    const TABULAR_STATES: usize = STATES as usize;
    const FEATURES: usize = STATES as usize;
    const DEFAULT_EPISODES: u32 = 3000;
    const PAPER_ROW: usize = 3;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] =
        [(0.92, Some(0.67)), (0.44, Some(0.23)), (0.99, Some(0.87)), (0.99, Some(0.67))];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/Taxi-v3.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/Taxi-v3.bank.py");

    /// Uniform over the 300 states where the passenger waits at a landmark other than the
    /// destination (Gymnasium's `initial_state_distrib`).
    fn reset(rng: &mut RunRng) -> Self {
        let passenger = rng.random_range(0..4);
        // One of the three other landmarks.
        let destination = (passenger + rng.random_range(1..4)) % 4;
        Self { row: rng.random_range(0..5), col: rng.random_range(0..5), passenger, destination }
    }

    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        let GymObs::Discrete(state) = *obs else { return Err(not_an_observation(obs, Self::NAME)) };
        if !(0..STATES).contains(&state) {
            return Err(format!("Taxi's states are 0–499, not {state}"));
        }
        Ok(Self::decode(state))
    }

    fn obs(&self) -> GymObs {
        GymObs::Discrete(self.encode())
    }

    /// Actions: 0 south, 1 north, 2 east, 3 west, 4 pickup, 5 dropoff.
    fn step(&mut self, action: usize, _rng: &mut RunRng) -> GymStep {
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

    /// The shortest delivery.
    fn heuristic_action(&self) -> usize {
        self.shortest_delivery()
    }

    fn tabulated_states() -> Option<Vec<GymObs>> {
        Some((0..STATES).map(GymObs::Discrete).collect())
    }

    fn state_flags(state: usize) -> Vec<(&'static str, String)> {
        let taxi = Self::decode(state as i64);
        vec![
            ("row", taxi.row.to_string()),
            ("column", taxi.col.to_string()),
            ("passenger", LANDMARK_NAMES[taxi.passenger as usize].to_owned()),
            ("destination", LANDMARK_NAMES[taxi.destination as usize].to_owned()),
        ]
    }

    fn describe(values: &[f64]) -> String {
        let taxi = Self::decode(values[0] as i64);
        let landmark = |i: i64| if i == 4 { "the taxi" } else { LANDMARK_NAMES[i as usize] };
        format!(
            "taxi at row {}, column {}; passenger at {}; destination {}",
            taxi.row,
            taxi.col,
            landmark(taxi.passenger),
            landmark(taxi.destination)
        )
    }

    fn draw(values: &[f64], scene: &mut Scene) {
        let taxi = Self::decode(values[0] as i64);
        let grid = scene.grid(5, 5);
        let (cell, (x0, y0)) = (grid.cell, grid.origin);
        let centre = |(row, col): (i64, i64)| grid.centre(row as usize, col as usize);
        for (index, &landmark) in LANDMARKS.iter().enumerate() {
            let chosen = index as i64 == taxi.destination;
            let colour = if chosen { scene::GOAL } else { GROUND };
            let (x, y) = centre(landmark);
            let side = cell * 0.9;
            scene.outline((x - side / 2.0, y - side / 2.0), (side, side), if chosen { 3.0 } else { 1.0 }, colour);
            scene.text(LANDMARK_NAMES[index], (x, y - cell * 0.3), 12, colour);
        }
        scene.outline((x0, y0), (cell * 5.0, cell * 5.0), 4.0, INK);
        for (row, walls) in EAST_WALLS.iter().enumerate() {
            for &col in walls.iter() {
                let x = x0 + cell * (col as f64 + 1.0);
                scene.line((x, y0 + cell * row as f64), (x, y0 + cell * (row as f64 + 1.0)), 4.0, INK);
            }
        }
        let (x, y) = centre((taxi.row, taxi.col));
        let colour = if taxi.passenger == 4 { scene::GOAL } else { "#f9ab00" };
        scene.fill((x - cell * 0.3, y - cell * 0.18), (cell * 0.6, cell * 0.36), colour);
        if let Some(&waiting) = LANDMARKS.get(taxi.passenger as usize) {
            scene.disc(centre(waiting), cell * 0.12, AGENT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn walls_pickup_and_dropoff_as_the_map_says() {
        // At R (0, 0) the east side is open, at (0, 1) it is a wall.
        let mut taxi = Taxi { row: 0, col: 0, passenger: 0, destination: 1 };
        assert_eq!(taxi.encode(), 1);
        taxi.step(2, &mut gym_rng(0));
        assert_eq!(taxi.col, 1);
        taxi.step(2, &mut gym_rng(0));
        assert_eq!(taxi.col, 1, "the wall between columns 1 and 2");
        assert_eq!(taxi.step(4, &mut gym_rng(0)).reward, -10.0, "no passenger here");
        let mut taxi = Taxi { row: 0, col: 0, passenger: 0, destination: 1 };
        assert_eq!((taxi.step(4, &mut gym_rng(0)).reward, taxi.passenger), (-1.0, 4));
        let mut at_y = Taxi { row: 4, col: 0, passenger: 4, destination: 1 };
        let step = at_y.step(5, &mut gym_rng(0));
        assert_eq!((step.reward, step.terminated, at_y.passenger), (-1.0, false, 2), "left at Y");
        let mut at_g = Taxi { row: 0, col: 4, passenger: 4, destination: 1 };
        let step = at_g.step(5, &mut gym_rng(0));
        assert_eq!((step.reward, step.terminated, at_g.passenger), (20.0, true, 1));
        assert_eq!(Taxi::decode(328), Taxi { row: 3, col: 1, passenger: 2, destination: 0 });
    }

    #[test]
    fn resets_cover_the_300_starts_and_nothing_else() {
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
