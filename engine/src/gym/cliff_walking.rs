//! CliffWalking-v0 (Gymnasium 0.29.1 `toy_text/cliffwalking.py`): a 4 × 12 grid from the bottom
//! left (36) to the bottom right (47); the cells between them are a cliff that costs −100 and sends
//! the walker back to the start, without ending the episode. −1 per step otherwise.

use super::{GymObs, GymStep};

const ROWS: i64 = 4;
const COLS: i64 = 12;
pub const START: i64 = 36;
pub const GOAL: i64 = 47;

#[derive(Clone, Debug, PartialEq)]
pub struct CliffWalking {
    pub state: i64,
}

impl CliffWalking {
    pub fn reset() -> Self {
        Self { state: START }
    }

    pub fn from_state(state: i64) -> Result<Self, String> {
        if !(0..ROWS * COLS).contains(&state) {
            return Err(format!("CliffWalking's states are 0–47, not {state}"));
        }
        Ok(Self { state })
    }

    pub fn obs(&self) -> GymObs {
        GymObs::Discrete(self.state)
    }

    /// Actions: 0 up, 1 right, 2 down, 3 left; a move off the grid stays in place.
    pub fn step(&mut self, action: usize) -> GymStep {
        let (dr, dc) = [(-1, 0), (0, 1), (1, 0), (0, -1)][action];
        let row = (self.state / COLS + dr).clamp(0, ROWS - 1);
        let col = (self.state % COLS + dc).clamp(0, COLS - 1);
        let cliff = row == ROWS - 1 && (1..COLS - 1).contains(&col);
        let (state, reward) = if cliff { (START, -100.0) } else { (row * COLS + col, -1.0) };
        self.state = state;
        GymStep { obs: self.obs(), reward, terminated: state == GOAL }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cliff_costs_100_and_sends_back_and_the_goal_ends() {
        let mut env = CliffWalking::reset();
        let step = env.step(1);
        assert_eq!((env.state, step.reward, step.terminated), (START, -100.0, false));
        assert_eq!(env.step(3).obs, GymObs::Discrete(36), "off the grid stays");
        let mut env = CliffWalking::from_state(35).unwrap();
        let step = env.step(2);
        assert_eq!((env.state, step.reward, step.terminated), (GOAL, -1.0, true));
        assert!(CliffWalking::from_state(48).is_err());
    }
}
