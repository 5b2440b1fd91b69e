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

use super::blackjack::Blackjack;
use super::{GymEnv, GymId, GymObs, TimeLimit};
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

/// An observation of `id` from its JSON.
pub fn obs_of(id: GymId, value: &Value) -> Result<GymObs, String> {
    let parsed = match id {
        GymId::CliffWalking | GymId::Taxi => value.as_i64().map(GymObs::Discrete),
        GymId::Blackjack => serde_json::from_value::<[i64; 3]>(value.clone()).ok().map(GymObs::Triple),
        GymId::CartPole | GymId::MountainCar | GymId::Acrobot => {
            serde_json::from_value::<Vec<f32>>(value.clone()).ok().map(GymObs::Floats)
        }
    };
    parsed.ok_or_else(|| format!("{value} is not an observation of {}", id.name()))
}

/// What differs between a recorded transition and the engine's, or `Ok` when nothing does.
pub fn check_transition(transition: &Transition) -> Result<(), String> {
    let id = GymId::parse(&transition.env)?;
    let (obs, next) = (obs_of(id, &transition.obs)?, obs_of(id, &transition.next_obs)?);
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
    if let (GymObs::Triple(before), GymObs::Triple(after)) = (&obs, &next) {
        if !Blackjack::possible(*before, transition.action, *after, transition.reward, transition.terminated) {
            problems.push("the rules allow no such hand".into());
        }
    } else {
        let mut env = GymEnv::from_obs(id, &obs)?;
        // Only Blackjack draws, so this RNG is never used.
        let step = env.step(transition.action, &mut RunRng::seed_from_u64(0));
        if !same_obs(&step.obs, &next) {
            problems.push(format!("next_obs {:?}, the engine's {:?}", next, step.obs));
        }
        if step.reward != transition.reward {
            problems.push(format!("reward {}, the engine's {}", transition.reward, step.reward));
        }
        if step.terminated != transition.terminated {
            problems.push(format!("terminated {}, the engine's {}", transition.terminated, step.terminated));
        }
    }
    if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
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
