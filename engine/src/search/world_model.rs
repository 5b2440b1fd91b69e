//! Scoring a code world model (seed 004 §3.3–§3.4): the harness runs the program's `Environment`
//! on each recorded (state, action) and returns its predictions; their accuracy
//! ([`crate::gym::accuracy`]) is the program's score. A program that raises anywhere is a bug,
//! scored 0, and its error (with the line) is what a fix prompt shows, as in the official code. An
//! improve prompt shows the first misclassified transition in the official format: "Initial
//! state / Action" as the input, "Next state / Reward / Done" as the expected and actual outputs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::gym::GymId;
use crate::gym::accuracy::{Accuracy, Labelling, Metric, accuracy, short_prediction};
use crate::gym::transitions::Transition;
use crate::python::{Outcome, PredictionPart, ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;
use crate::search::scorer::{FailingExample, Score, Scorer};

/// How a world-model search scores: which accuracy it maximises and what "done" means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct WorldModelScoring {
    /// The accuracy the search maximises (both are always reported).
    pub metric: Metric,
    /// Whether a truncation counts as done (the official buffers) or not (the default).
    pub labelling: Labelling,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WorldModelScorer {
    pub env: GymId,
    pub transitions: Vec<Transition>,
    pub scoring: WorldModelScoring,
}

impl WorldModelScorer {
    /// Both accuracies of the predictions in `verdict`, per transition.
    pub fn accuracy(&self, verdict: &ProgramVerdict) -> Accuracy {
        let predictions = verdict.predictions.as_deref().unwrap_or_default();
        accuracy(self.env, &self.transitions, predictions, self.scoring.labelling)
    }
}

impl Scorer for WorldModelScorer {
    fn request(&self, program: &str) -> ProgramRequest {
        let pairs = self.transitions.iter().map(|t| (t.obs.clone(), t.action)).collect();
        ProgramRequest::world_model(program, pairs)
    }

    fn evaluate(&self, verdict: &ProgramVerdict, _rng: &mut RunRng) -> Score {
        if verdict.outcome != Outcome::Pass {
            let error = verdict
                .error
                .clone()
                .unwrap_or_else(|| format!("the program ended with a {}", verdict.outcome.label()));
            return Score::no_program(error);
        }
        let predictions = verdict.predictions.as_deref().unwrap_or_default();
        if let Some((i, predicted, recorded)) = short_prediction(&self.transitions, predictions, self.scoring.labelling)
        {
            let error = format!(
                "Error when checking transition {}: IndexError: the predicted next state has {predicted} elements, the environment's {recorded}",
                i + 1
            );
            return Score::no_program(error);
        }
        let accuracy = self.accuracy(verdict);
        let example = accuracy.first_miss.map(|i| {
            let (t, p, scored) = (&self.transitions[i], &predictions[i], &accuracy.transitions[i]);
            let done = Value::Bool(self.scoring.labelling.done(t));
            // The parts the official rule counts: a done transition's next state does not.
            let wrong = [
                (PredictionPart::NextState, scored.done_label || scored.next_obs_matches()),
                (PredictionPart::Reward, scored.reward),
                (PredictionPart::Done, scored.done),
            ];
            FailingExample {
                input: format!("Initial state:\n{}\nAction: {}", python_repr(&t.obs), t.action),
                expected: outcome_text(&t.next_obs, &Value::from(t.reward), &done),
                actual: outcome_text(&p.next_obs, &p.reward, &p.done),
                test: None,
                wrong: wrong.into_iter().filter(|(_, right)| !right).map(|(part, _)| part).collect(),
            }
        });
        Score { score: accuracy.of(self.scoring.metric), example, ..Score::default() }
    }

    fn perfect(&self) -> &'static str {
        "a model predicts every transition"
    }
}

fn outcome_text(next_obs: &Value, reward: &Value, done: &Value) -> String {
    format!("Next state:\n{}\nReward: {}\nDone: {}", python_repr(next_obs), python_repr(reward), python_repr(done))
}

/// A JSON value as Python prints it: `True`, `[1, 2]`, `-1.0`; a string (a prediction the harness
/// could only show as its repr) as it is.
pub fn python_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) if n.is_f64() => format!("{:?}", n.as_f64().unwrap_or_default()),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(python_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(_) => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use serde_json::json;

    use super::*;
    use crate::python::Prediction;

    fn scorer() -> WorldModelScorer {
        let t = |obs: i64, action, reward, next: i64, terminated| Transition {
            env: "CliffWalking-v0".into(),
            obs: json!(obs),
            action,
            reward,
            next_obs: json!(next),
            terminated,
            truncated: false,
            t: None,
        };
        let transitions = vec![t(36, 0, -1.0, 24, false), t(24, 2, -100.0, 36, false), t(46, 2, -1.0, 47, true)];
        WorldModelScorer { env: GymId::CliffWalking, transitions, scoring: WorldModelScoring::default() }
    }

    fn verdict(scorer: &WorldModelScorer, predictions: Vec<Prediction>, error: Option<&str>) -> ProgramVerdict {
        let request = scorer.request("class Environment: ...");
        let outcome = if error.is_some() { Outcome::RuntimeError } else { Outcome::Pass };
        let mut verdict = ProgramVerdict::from_host(&request, outcome, error.unwrap_or_default().into(), 1.0);
        verdict.error = error.map(str::to_owned);
        verdict.number_passed = predictions.len() as u32;
        verdict.predictions = Some(predictions);
        verdict
    }

    fn p(next_obs: i64, reward: f64, done: bool) -> Prediction {
        Prediction { next_obs: json!(next_obs), reward: json!(reward), done: json!(done) }
    }

    #[test]
    fn a_perfect_model_scores_one_and_shows_no_example() {
        let scorer = scorer();
        let perfect = verdict(&scorer, vec![p(24, -1.0, false), p(36, -100.0, false), p(47, -1.0, true)], None);
        let score = scorer.evaluate(&perfect, &mut RunRng::seed_from_u64(0));
        assert_eq!((score.score, score.bug, score.example), (1.0, false, None));
    }

    #[test]
    fn a_reward_bug_is_scored_by_hand_and_its_first_miss_shown_in_the_official_format() {
        let scorer = scorer();
        // The cliff costs −1 instead of −100: transition 2 scores ⅔ (state and done right).
        let wrong = verdict(&scorer, vec![p(24, -1.0, false), p(36, -1.0, false), p(47, -1.0, true)], None);
        let score = scorer.evaluate(&wrong, &mut RunRng::seed_from_u64(0));
        // Classes: −1 (transitions 1 and 3, both right: 1), −100 (⅔): (1 + ⅔) / 2.
        assert!((score.score - 5.0 / 6.0).abs() < 1e-12, "{}", score.score);
        let example = score.example.unwrap();
        assert_eq!(example.input, "Initial state:\n24\nAction: 2");
        assert_eq!(example.expected, "Next state:\n36\nReward: -100.0\nDone: False");
        assert_eq!(example.actual, "Next state:\n36\nReward: -1.0\nDone: False");
        let paper =
            WorldModelScorer { scoring: WorldModelScoring { metric: Metric::Paper, ..scorer.scoring }, ..scorer };
        let score = paper.evaluate(&wrong, &mut RunRng::seed_from_u64(0));
        assert!((score.score - (1.0 + 2.0 / 3.0 + 1.0) / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_model_that_raises_on_the_third_transition_is_a_bug_with_its_error() {
        let scorer = scorer();
        let error = "Error when calling `step` on transition 3: KeyError: 47 (line 9)";
        let crashed = verdict(&scorer, vec![p(24, -1.0, false), p(36, -100.0, false)], Some(error));
        let score = scorer.evaluate(&crashed, &mut RunRng::seed_from_u64(0));
        assert_eq!((score.score, score.bug, score.error.as_deref()), (0.0, true, Some(error)));
        // Its accuracy on what it did predict is still there to show.
        assert!((scorer.accuracy(&crashed).paper - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn values_print_as_python_prints_them() {
        assert_eq!(python_repr(&json!([0.5, -1.0, 2])), "[0.5, -1.0, 2]");
        assert_eq!(python_repr(&json!([true, null])), "[True, None]");
        assert_eq!(python_repr(&json!("nan")), "nan");
    }
}
