//! Recorded transitions, one JSON object per line: `{env, obs, action, reward, next_obs,
//! terminated, truncated}` and, optionally, `t`, the steps the episode had taken before this one
//! (which the time limit needs). [`check`] replays a file through the engine's environments, each
//! transition from the state its `obs` shows: float observations must agree within [`TOLERANCE`],
//! everything else exactly; a Blackjack transition must be one the rules allow (its cards are
//! random). `bench/gym_transitions.py` records such a file from Gymnasium itself.

use std::collections::BTreeMap;

use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{GymId, GymObs, Gymnasium, TimeLimit};
use crate::rng::RunRng;

/// How far a float observation may be from Gymnasium's.
pub const TOLERANCE: f64 = 1e-5;
/// Mismatches a report lists.
pub const LISTED: usize = 20;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub env: String,
    pub obs: Value,
    pub action: usize,
    pub reward: f64,
    pub next_obs: Value,
    pub terminated: bool,
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<u32>,
}

/// What differs between a recorded transition and the engine's, or `Ok` when nothing does.
pub fn check_transition(transition: &Transition) -> Result<(), String> {
    let id = GymId::parse(&transition.env)?;
    let (obs, next) = (id.obs_of(&transition.obs)?, id.obs_of(&transition.next_obs)?);
    if transition.action >= id.actions() {
        return Err(format!("action {} is not one of {}'s {}", transition.action, id.name(), id.actions()));
    }
    let mut problems = Vec::new();
    match transition.t {
        Some(t) => {
            let truncated = TimeLimit { max_steps: id.max_episode_steps(), elapsed: t }.step();
            if truncated != transition.truncated {
                problems.push(format!("truncated {} at step {}, expected {truncated}", transition.truncated, t + 1));
            }
        }
        None if id.max_episode_steps().is_none() && transition.truncated => {
            problems.push(format!("truncated, but {} has no time limit", id.name()));
        }
        None => {}
    }
    problems.extend(id.transition_problems(&obs, transition.action, &next, transition.reward, transition.terminated));
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
}

/// What differs between the step `K` takes from `obs` and the recorded one: every environment's
/// check but where the outcome is drawn at random.
pub(super) fn replay_problems<K: Gymnasium>(
    obs: &GymObs,
    action: usize,
    next: &GymObs,
    reward: f64,
    terminated: bool,
) -> Vec<String> {
    let mut env = match K::from_obs(obs) {
        Ok(env) => env,
        Err(problem) => return vec![problem],
    };
    // Only an environment that draws uses this RNG, and those are judged by their rules instead.
    let step = env.step(action, &mut RunRng::seed_from_u64(0));
    let mut problems = Vec::new();
    if !same_obs(&step.obs, next) {
        problems.push(format!("next_obs {next:?}, the engine's {:?}", step.obs));
    }
    if step.reward != reward {
        problems.push(format!("reward {reward}, the engine's {}", step.reward));
    }
    if step.terminated != terminated {
        problems.push(format!("terminated {terminated}, the engine's {}", step.terminated));
    }
    problems
}

fn same_obs(a: &GymObs, b: &GymObs) -> bool {
    match (a, b) {
        (GymObs::Floats(a), GymObs::Floats(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (f64::from(*x) - f64::from(*y)).abs() <= TOLERANCE)
        }
        _ => a == b,
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub total: usize,
    pub matched: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// 1-based line of the file.
    pub line: usize,
    pub env: String,
    pub problem: String,
}

/// `rlcg gym check`'s report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckReport {
    pub total: usize,
    pub matched: usize,
    pub per_env: BTreeMap<String, Tally>,
    /// The first [`LISTED`].
    pub mismatches: Vec<Mismatch>,
}

impl CheckReport {
    pub fn all_match(&self) -> bool {
        self.total > 0 && self.matched == self.total
    }
}

/// Every line of a transitions file checked; a line that is not a transition is a mismatch too.
pub fn check(text: &str) -> CheckReport {
    let mut report = CheckReport::default();
    for (index, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let parsed: Result<Transition, String> =
            serde_json::from_str(line).map_err(|e| format!("not a transition: {e}"));
        let env = parsed.as_ref().map_or_else(|_| "?".to_owned(), |t| t.env.clone());
        let outcome = parsed.and_then(|t| check_transition(&t));
        let tally = report.per_env.entry(env.clone()).or_default();
        tally.total += 1;
        report.total += 1;
        match outcome {
            Ok(()) => {
                tally.matched += 1;
                report.matched += 1;
            }
            Err(problem) if report.mismatches.len() < LISTED => {
                report.mismatches.push(Mismatch { line: index + 1, env, problem });
            }
            Err(_) => {}
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transition_recorded_from_gymnasium_replays_in_the_engine() {
        let report = check(include_str!("../../../tasks/gym/transitions.jsonl"));
        assert!(report.all_match(), "{:#?}", report.mismatches);
        assert_eq!(report.per_env.len(), 6);
        assert!(report.per_env.values().all(|t| t.total >= 300), "{:?}", report.per_env);
    }

    #[test]
    fn lines_are_replayed_and_differences_named() {
        let text = [
            r#"{"env": "CliffWalking-v0", "obs": 36, "action": 1, "reward": -100, "next_obs": 36, "terminated": false, "truncated": false}"#,
            r#"{"env": "CliffWalking-v0", "obs": 35, "action": 2, "reward": -1, "next_obs": 47, "terminated": false, "truncated": false}"#,
            r#"{"env": "Taxi-v3", "obs": 1, "action": 4, "reward": -1, "next_obs": 17, "terminated": false, "truncated": true, "t": 199}"#,
            r#"{"env": "MountainCar-v0", "obs": [-1.19, -0.05], "action": 0, "reward": -1.0, "next_obs": [-1.2, 0.0], "terminated": false, "truncated": false}"#,
            r#"{"env": "Blackjack-v1", "obs": [15, 5, 0], "action": 1, "reward": -1.0, "next_obs": [25, 5, 0], "terminated": true, "truncated": false}"#,
            r#"{"env": "Pong-v5", "obs": 0, "action": 0, "reward": 0, "next_obs": 0, "terminated": false, "truncated": false}"#,
            "not json",
        ]
        .join("\n");
        let report = check(&text);
        assert_eq!((report.total, report.matched), (7, 4));
        assert_eq!(report.per_env["CliffWalking-v0"], Tally { total: 2, matched: 1 });
        let problems: Vec<(usize, &str)> = report.mismatches.iter().map(|m| (m.line, m.problem.as_str())).collect();
        assert_eq!(problems[0], (2, "terminated false, the engine's true"));
        assert!(problems[1].1.starts_with("unknown Gymnasium environment 'Pong-v5'"));
        assert_eq!(problems[2].0, 7);
        assert!(!report.all_match());
    }
}
