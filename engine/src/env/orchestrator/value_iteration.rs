//! Exact action values of the orchestrator simulator (seed 003), for comparison with what an agent
//! learned: value iteration over the simulator's full state (the four flags, the call count and
//! whether the code is correct, which the agent does not see), with the simulator's own odds
//! ([`OrchestratorParams::outcomes`]) and rules (`is_useful`, `apply`, `settle`). The episode ends
//! within `max_iterations` calls, so the iteration is a finite recursion over the calls left.
//!
//! Seed 003 §6.1 reports Q(s0, coder) = 8.00 and Q(s0, planner) = 0.01; these rules give both
//! openings values near 9 (planning first still leads to code and passing tests), so no learner
//! that bootstraps from them ends with 0.01 for the planner (`EnvId::start_values_note`).

use std::collections::HashMap;

use super::{Odds, OrchestratorParams, OrchestratorState};

/// The simulator's full state: what the agent sees, and whether the current code is correct.
type Full = (OrchestratorState, bool);

/// Q*(s0, a) for every action, discounting by `gamma` as the agent does; the value of a state is
/// the best over the actions its mask allows, as the agents' greedy choice is.
pub fn start_values(params: &OrchestratorParams, gamma: f64) -> [f64; 4] {
    let mut memo = HashMap::new();
    std::array::from_fn(|action| q_value(params, gamma, (OrchestratorState::default(), false), action, &mut memo))
}

fn value(params: &OrchestratorParams, gamma: f64, full: Full, memo: &mut HashMap<Full, f64>) -> f64 {
    if let Some(&v) = memo.get(&full) {
        return v;
    }
    let v = full.0.mask().legal().map(|a| q_value(params, gamma, full, a, memo)).fold(f64::NEG_INFINITY, f64::max);
    memo.insert(full, v);
    v
}

fn q_value(
    params: &OrchestratorParams,
    gamma: f64,
    (state, correct): Full,
    action: usize,
    memo: &mut HashMap<Full, f64>,
) -> f64 {
    let mut outcome_value =
        |probability: f64, action_reward: Option<f64>, mut next: OrchestratorState, correct: bool| {
            let (reward, terminated, truncated) = next.settle(action_reward, params);
            let future =
                if terminated || truncated { 0.0 } else { gamma * value(params, gamma, (next, correct), memo) };
            probability * (reward + future)
        };
    if !state.is_useful(action) {
        return outcome_value(1.0, None, state, correct);
    }
    let branches = match params.outcomes(state, correct, action) {
        Odds::Certain(only) => vec![only],
        Odds::Either(first, second) => vec![first, second],
    };
    branches
        .into_iter()
        .map(|(probability, outcome, correct_after)| {
            let mut next = state;
            let reward = next.apply(outcome, params);
            outcome_value(probability, Some(reward), next, correct_after)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::orchestrator::{CODER, DEBUGGER, PLANNER, TESTER};

    /// Worked by hand with certain odds, γ = 1: coder (−0.1 + 0.3), then tester (−0.1 + 10) ends
    /// the episode: 10.1. Planning first adds a call (−0.1 + 0.2): 10.2. Testing or debugging in s0
    /// is redundant (−0.3), and then the best continuation, planning first: −0.3 + 10.2 = 9.9.
    #[test]
    fn certain_odds_give_the_values_worked_by_hand() {
        let certain = OrchestratorParams {
            planner_success: 1.0,
            coder_success_with_plan: 1.0,
            coder_success_without_plan: 1.0,
            ..OrchestratorParams::default()
        };
        let q = start_values(&certain, 1.0);
        for (action, expected) in [(CODER, 10.1), (PLANNER, 10.2), (TESTER, 9.9), (DEBUGGER, 9.9)] {
            assert!((q[action] - expected).abs() < 1e-9, "{q:?}");
        }
    }

    /// The seed's odds and the agents' γ = 0.95: both openings are worth about 9, coder a little
    /// more, as docs/reproductions.md reports (9.36 and 9.09).
    #[test]
    fn the_seeds_odds_value_coder_first_a_little_above_planner_first() {
        let q = start_values(&OrchestratorParams::default(), 0.95);
        assert!((q[CODER] - 9.36).abs() < 0.005 && (q[PLANNER] - 9.09).abs() < 0.005, "{q:?}");
    }
}
