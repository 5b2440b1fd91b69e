//! A code world model's accuracy on recorded transitions (seed 004 §3.3), by both rules:
//! - **the paper's** (§4): the mean over transitions of ⅓·[ŝ′ = s′] + ⅓·[r̂ = r] + ⅓·[d̂ = d];
//! - **the official code's**, which made the paper's tables (`check_transition_via_enum`,
//!   `check_code_world_model`): a done transition scores ½·[r̂ = r] + ½·[d̂ = d], its next state
//!   unexamined; any other ⅓·(share of the next state's elements that match) + ⅓·[r̂ = r] +
//!   ⅓·[d̂ = d]; the mean is taken within each reward value, then over the reward values, so rare
//!   rewards (Taxi's +20) weigh as much as common ones.
//!
//! Elements match exactly, or for float observations as numpy's `allclose` (rtol = atol = 1e-5);
//! numbers compare by value and a bool as 0 or 1, as Python's `==` does. A transition is
//! misclassified when its done label and reward are not both right, or, when not done, its next
//! state is not right either; the first one is what an improve prompt shows.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::gym::GymId;
use crate::gym::transitions::Transition;
use crate::python::Prediction;

/// numpy's `allclose` defaults, as the official code compares float states.
const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-5;

/// What "done" means in the recorded transitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Labelling {
    /// Done is `terminated`: a time limit's truncation is not a fact about the state, so no model
    /// of the dynamics can predict it.
    #[default]
    Terminated,
    /// Done is `terminated or truncated`, as the official buffers record it.
    TerminatedOrTruncated,
}

impl Labelling {
    pub fn done(self, transition: &Transition) -> bool {
        match self {
            Labelling::Terminated => transition.terminated,
            Labelling::TerminatedOrTruncated => transition.terminated || transition.truncated,
        }
    }
}

/// Which of the two accuracies a search maximises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// The official code's, which reproduces the paper's tables.
    #[default]
    Official,
    /// The paper's formula.
    Paper,
}

/// One transition's parts, as the model predicted them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// Whether the model predicted this transition at all (it raised before, or on it).
    pub predicted: bool,
    /// Per element of the next state whether it matches (one entry for a scalar state).
    pub next_obs: Vec<bool>,
    /// The predicted next state has more elements than the environment's (matched on its first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub longer_state: bool,
    pub reward: bool,
    pub done: bool,
    /// The done label it was scored against.
    pub done_label: bool,
    pub paper: f64,
    pub official: f64,
}

impl Scored {
    pub fn next_obs_matches(&self) -> bool {
        !self.longer_state && self.next_obs.iter().all(|&m| m)
    }

    /// The official code's `valid` is false.
    pub fn misclassified(&self) -> bool {
        !(self.reward && self.done && (self.done_label || self.next_obs_matches()))
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    pub paper: f64,
    pub official: f64,
    pub transitions: Vec<Scored>,
    /// Index of the first misclassified transition.
    pub first_miss: Option<usize>,
}

impl Accuracy {
    pub fn of(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Official => self.official,
            Metric::Paper => self.paper,
        }
    }
}

/// Python's `==` between two JSON scalars: numbers by value, a bool as 0 or 1.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn element_matches(continuous: bool, predicted: &Value, recorded: &Value) -> bool {
    match (number(predicted), number(recorded)) {
        (Some(p), Some(r)) if continuous => (p - r).abs() <= ATOL + RTOL * r.abs(),
        (Some(p), Some(r)) => p == r,
        _ => false,
    }
}

/// Per element of the recorded next state, whether the prediction matches it. A longer prediction
/// is matched on its first elements, as the official code indexes it; a shorter one matches in no
/// element (the official code raises on it, see [`short_prediction`]).
fn next_obs_matches(continuous: bool, predicted: &Value, recorded: &Value) -> Vec<bool> {
    match recorded {
        Value::Array(elements) => {
            let guessed = predicted.as_array().filter(|g| g.len() >= elements.len());
            (0..elements.len())
                .map(|i| guessed.and_then(|g| g.get(i)).is_some_and(|p| element_matches(continuous, p, &elements[i])))
                .collect()
        }
        scalar => vec![element_matches(continuous, predicted, scalar)],
    }
}

/// The first transition (its index, the prediction's length and the recorded one) whose next state
/// the official scoring reads past the prediction's end: the model predicted fewer elements than
/// the state has, where the next state counts (not done). The official code raises an IndexError
/// there, so the model is a bug.
pub fn short_prediction(
    transitions: &[Transition],
    predictions: &[Prediction],
    labelling: Labelling,
) -> Option<(usize, usize, usize)> {
    transitions.iter().zip(predictions).enumerate().find_map(|(i, (t, p))| {
        let (recorded, predicted) = (t.next_obs.as_array()?.len(), p.next_obs.as_array().map_or(0, Vec::len));
        (!labelling.done(t) && predicted < recorded).then_some((i, predicted, recorded))
    })
}

/// One transition scored against the model's prediction (none: it was not predicted).
pub fn score_transition(
    id: GymId,
    transition: &Transition,
    prediction: Option<&Prediction>,
    labelling: Labelling,
) -> Scored {
    let done_label = labelling.done(transition);
    let Some(p) = prediction else {
        let width = transition.next_obs.as_array().map_or(1, Vec::len);
        let next_obs = vec![false; width];
        return Scored {
            predicted: false,
            next_obs,
            longer_state: false,
            reward: false,
            done: false,
            done_label,
            paper: 0.0,
            official: 0.0,
        };
    };
    let next_obs = next_obs_matches(id.continuous(), &p.next_obs, &transition.next_obs);
    let reward = number(&p.reward) == Some(transition.reward);
    let done = number(&p.done) == Some(f64::from(u8::from(done_label)));
    let hit = |b: bool| f64::from(u8::from(b));
    let state_share = next_obs.iter().filter(|&&m| m).count() as f64 / next_obs.len().max(1) as f64;
    let longer_state = p.next_obs.as_array().map(Vec::len) > transition.next_obs.as_array().map(Vec::len);
    let whole_state = !longer_state && next_obs.iter().all(|&m| m);
    let paper = (hit(whole_state) + hit(reward) + hit(done)) / 3.0;
    let official =
        if done_label { (hit(reward) + hit(done)) / 2.0 } else { (state_share + hit(reward) + hit(done)) / 3.0 };
    Scored { predicted: true, next_obs, longer_state, reward, done, done_label, paper, official }
}

/// Both accuracies of a model's predictions on `transitions`, in order; transitions past the
/// predictions (the model raised) score 0.
pub fn accuracy(id: GymId, transitions: &[Transition], predictions: &[Prediction], labelling: Labelling) -> Accuracy {
    let scored: Vec<Scored> =
        transitions.iter().enumerate().map(|(i, t)| score_transition(id, t, predictions.get(i), labelling)).collect();
    let n = scored.len().max(1) as f64;
    let paper = scored.iter().map(|s| s.paper).sum::<f64>() / n;
    // Class-balanced: the mean within each reward value, then over the values.
    let mut classes: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for (t, s) in transitions.iter().zip(&scored) {
        let class = classes.entry(t.reward.to_bits()).or_default();
        class.0 += s.official;
        class.1 += 1;
    }
    let official = if classes.is_empty() {
        0.0
    } else {
        classes.values().map(|&(sum, count)| sum / count as f64).sum::<f64>() / classes.len() as f64
    };
    let first_miss = scored.iter().position(Scored::misclassified);
    Accuracy { paper, official, transitions: scored, first_miss }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn transition(obs: Value, action: usize, reward: f64, next_obs: Value, terminated: bool) -> Transition {
        Transition {
            env: "CliffWalking-v0".into(),
            obs,
            action,
            reward,
            next_obs,
            terminated,
            truncated: false,
            t: None,
        }
    }

    fn prediction(next_obs: Value, reward: Value, done: Value) -> Prediction {
        Prediction { next_obs, reward, done }
    }

    #[test]
    fn both_metrics_worked_by_hand_on_three_transitions() {
        // Rewards −1, −1, −100: classes −1 (two transitions) and −100 (one).
        let transitions = [
            transition(json!(36), 0, -1.0, json!(24), false),
            transition(json!(24), 1, -1.0, json!(25), false),
            transition(json!(24), 2, -100.0, json!(36), false),
        ];
        let predictions = [
            prediction(json!(24), json!(-1), json!(false)), // all right: 1, 1
            prediction(json!(25), json!(-1.0), json!(0)),   // all right, 0 == False: 1, 1
            prediction(json!(36), json!(-1), json!(false)), // reward wrong: ⅔, ⅔
        ];
        let acc = accuracy(GymId::CliffWalking, &transitions, &predictions, Labelling::Terminated);
        assert!((acc.paper - (1.0 + 1.0 + 2.0 / 3.0) / 3.0).abs() < 1e-12, "{}", acc.paper);
        // Class −1: mean 1; class −100: ⅔; over the classes (1 + ⅔) / 2 = ⅚.
        assert!((acc.official - 5.0 / 6.0).abs() < 1e-12, "{}", acc.official);
        assert_eq!(acc.first_miss, Some(2));
    }

    #[test]
    fn a_done_transition_scores_reward_and_done_only_by_the_official_rule() {
        let t = transition(json!([0.1, 0.2]), 1, 1.0, json!([0.3, 0.4]), true);
        // Next state wrong, reward and done right.
        let p = prediction(json!([9.0, 9.0]), json!(1.0), json!(true));
        let s = score_transition(GymId::CartPole, &t, Some(&p), Labelling::Terminated);
        assert_eq!((s.official, s.paper), (1.0, 2.0 / 3.0));
        assert!(!s.misclassified(), "the official code ignores a done transition's next state");
    }

    #[test]
    fn float_states_get_partial_credit_within_allclose() {
        let t = transition(json!([0.0, 0.0, 0.0, 0.0]), 1, 1.0, json!([1.0, 2.0, 3.0, 100.0]), false);
        // Off by 5e-5 at 3 (outside 1e-5 + 3e-5) and by 1e-4 at 100 (within 1e-5 + 1e-3).
        let p = prediction(json!([1.0, 2.000_001, 3.000_05, 100.000_1]), json!(1), json!(false));
        let s = score_transition(GymId::CartPole, &t, Some(&p), Labelling::Terminated);
        assert_eq!(s.next_obs, [true, true, false, true]);
        assert!((s.official - (0.75 + 1.0 + 1.0) / 3.0).abs() < 1e-12);
        assert!((s.paper - 2.0 / 3.0).abs() < 1e-12);
        // A shorter state matches in no element (and is a bug, below); a longer one is matched on
        // its first elements, as the official code indexes it, but is not the whole state.
        let short = prediction(json!([1.0, 2.0, 3.0]), json!(1), json!(false));
        assert_eq!(score_transition(GymId::CartPole, &t, Some(&short), Labelling::Terminated).next_obs, [false; 4]);
        let long = prediction(json!([1.0, 2.0, 3.0, 100.0, 7.0]), json!(1), json!(false));
        let s = score_transition(GymId::CartPole, &t, Some(&long), Labelling::Terminated);
        assert_eq!(s.next_obs, [true; 4]);
        assert_eq!((s.official, s.paper), (1.0, 2.0 / 3.0));
        assert!(s.misclassified());
        let (ts, ps) = ([t.clone(), t.clone()], [long, short]);
        assert_eq!(short_prediction(&ts, &ps, Labelling::Terminated), Some((1, 3, 4)));
        assert_eq!(short_prediction(&ts[..1], &ps[..1], Labelling::Terminated), None);
    }

    #[test]
    fn a_truncation_is_done_only_under_the_official_labelling() {
        let mut t = transition(json!(5), 0, -1.0, json!(6), false);
        t.truncated = true;
        let p = prediction(json!(6), json!(-1), json!(false));
        let apart = score_transition(GymId::Taxi, &t, Some(&p), Labelling::Terminated);
        assert_eq!(apart.official, 1.0);
        let official = score_transition(GymId::Taxi, &t, Some(&p), Labelling::TerminatedOrTruncated);
        assert_eq!((official.official, official.misclassified()), (0.5, true));
    }

    #[test]
    fn transitions_the_model_did_not_reach_score_zero() {
        let transitions =
            [transition(json!(1), 0, -1.0, json!(2), false), transition(json!(2), 0, -1.0, json!(3), false)];
        let acc = accuracy(
            GymId::CliffWalking,
            &transitions,
            &[prediction(json!(2), json!(-1), json!(false))],
            Labelling::Terminated,
        );
        assert_eq!((acc.official, acc.paper, acc.first_miss), (0.5, 0.5, Some(1)));
        assert!(!acc.transitions[1].predicted);
    }
}
