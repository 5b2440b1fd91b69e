//! CliffWalking-v0 (Gymnasium 0.29.1 `toy_text/cliffwalking.py`): a 4 × 12 grid from the bottom
//! left (36) to the bottom right (47); the cells between them are a cliff that costs −100 and sends
//! the walker back to the start, without ending the episode. −1 per step otherwise.

use super::scene::{self, AGENT, INK, Scene};
use super::{GymObs, GymStep, Gymnasium, ObsKind, not_an_observation};
use crate::rng::RunRng;

const ROWS: i64 = 4;
const COLS: i64 = 12;
pub const START: i64 = 36;
pub const GOAL: i64 = 47;

#[derive(Clone, Debug, PartialEq)]
pub struct CliffWalking {
    pub state: i64,
}

impl Gymnasium for CliffWalking {
    const NAME: &'static str = "CliffWalking-v0";
    const SUMMARY: &'static str = "Seed 004 (Gymnasium): walk a 4 × 12 grid from the bottom left to the bottom right without falling off the cliff between them";
    const ACTION_NAMES: &'static [&'static str] = &["up", "right", "down", "left"];
    const MAX_EPISODE_STEPS: Option<u32> = None;
    const OBSERVATION: ObsKind = ObsKind::Discrete;
    const TABULAR_STATES: usize = (ROWS * COLS) as usize;
    const FEATURES: usize = (ROWS * COLS) as usize;
    const DEFAULT_EPISODES: u32 = 500;
    const CANONICAL_PATH: Option<&'static str> =
        Some("CliffWalking's optimal path: up, eleven times right, down; 13 steps, a return of −13.");
    const PAPER_ROW: usize = 1;
    const PAPER_RESULTS: [(f64, Option<f64>); 4] =
        [(1.00, Some(1.01)), (1.00, Some(0.97)), (1.00, Some(0.98)), (1.00, Some(0.89))];
    const WORLD_MODEL_DESCRIPTION: &'static str = include_str!("../../../tasks/world_models/CliffWalking-v0.md");
    const WORLD_MODEL_BANK: &'static str = include_str!("../../../tasks/world_models/CliffWalking-v0.bank.py");

    fn reset(_rng: &mut RunRng) -> Self {
        Self { state: START }
    }

    fn from_obs(obs: &GymObs) -> Result<Self, String> {
        let GymObs::Discrete(state) = *obs else { return Err(not_an_observation(obs, Self::NAME)) };
        if !(0..ROWS * COLS).contains(&state) {
            return Err(format!("CliffWalking's states are 0–47, not {state}"));
        }
        Ok(Self { state })
    }

    fn obs(&self) -> GymObs {
        GymObs::Discrete(self.state)
    }

    /// Actions: 0 up, 1 right, 2 down, 3 left; a move off the grid stays in place.
    fn step(&mut self, action: usize, _rng: &mut RunRng) -> GymStep {
        let (dr, dc) = [(-1, 0), (0, 1), (1, 0), (0, -1)][action];
        let row = (self.state / COLS + dr).clamp(0, ROWS - 1);
        let col = (self.state % COLS + dc).clamp(0, COLS - 1);
        let cliff = row == ROWS - 1 && (1..COLS - 1).contains(&col);
        let (state, reward) = if cliff { (START, -100.0) } else { (row * COLS + col, -1.0) };
        self.state = state;
        GymStep { obs: self.obs(), reward, terminated: state == GOAL }
    }

    /// The safe path along the top rows: up from the start, right along row 2, down at the end.
    fn heuristic_action(&self) -> usize {
        match (self.state / COLS, self.state % COLS) {
            (3, 0) => 0,
            (_, 11) => 2,
            (row, _) if row < 2 => 2,
            _ => 1,
        }
    }

    /// The cells before the episode's end: all but the cliff and the goal (0–36).
    fn tabulated_states() -> Option<Vec<GymObs>> {
        Some((0..=START).map(GymObs::Discrete).collect())
    }

    fn state_flags(state: usize) -> Vec<(&'static str, String)> {
        let (row, column) = (state / COLS as usize, state % COLS as usize);
        vec![("row", row.to_string()), ("column", column.to_string())]
    }

    fn describe(values: &[f64]) -> String {
        let state = values[0] as usize;
        format!("row {}, column {}", state / COLS as usize, state % COLS as usize)
    }

    fn draw(values: &[f64], scene: &mut Scene) {
        let grid = scene.grid(ROWS as usize, COLS as usize);
        let cell = grid.cell;
        let (x0, y0) = grid.origin;
        scene.fill((x0 + cell, y0 + 3.0 * cell), (10.0 * cell, cell), "#795548");
        scene.text("the cliff", grid.centre(3, 6), 14, "#ffffff");
        scene.text("S", grid.centre(3, 0), 16, INK);
        scene.text("G", grid.centre(3, 11), 16, scene::GOAL);
        let state = values[0] as usize;
        scene.disc(grid.centre(state / COLS as usize, state % COLS as usize), cell * 0.3, AGENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::gym_rng;

    #[test]
    fn the_cliff_costs_100_and_sends_back_and_the_goal_ends() {
        let rng = &mut gym_rng(0);
        let mut env = CliffWalking::reset(rng);
        let step = env.step(1, rng);
        assert_eq!((env.state, step.reward, step.terminated), (START, -100.0, false));
        assert_eq!(env.step(3, rng).obs, GymObs::Discrete(36), "off the grid stays");
        let mut env = CliffWalking::from_obs(&GymObs::Discrete(35)).unwrap();
        let step = env.step(2, rng);
        assert_eq!((env.state, step.reward, step.terminated), (GOAL, -1.0, true));
        assert!(CliffWalking::from_obs(&GymObs::Discrete(48)).is_err());
    }
}
