//! A code world model of a small environment as a table (seed 004 sheet §3.5; the issue's "where
//! the state space is small, tabulate the model once and plan in Rust"): the harness predicts the
//! model's outcome for every state and action in one call, and the table then steps in Rust, for
//! the planner and for agents trained inside the model. CliffWalking and Taxi are deterministic:
//! one outcome per pair. Blackjack's model draws cards: each pair is asked
//! `Gymnasium::TABULATION_SAMPLES` times and the table draws among the outcomes.
//!
//! The states are the ones an episode can be in before its end (`Gymnasium::tabulated_states`):
//! CliffWalking's cells off the cliff and the goal (0–36), Taxi's 500, Blackjack's sums 4–21 against
//! each dealer card, with a usable ace from 12. A model that predicts a state outside them (a move off the grid) sends its episode
//! there and ends it: the table knows nothing beyond.

use std::collections::HashMap;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::mcts::{Model, obs_key};
use crate::gym::{GymId, GymObs};
use crate::python::{Outcome, ProgramRequest, ProgramVerdict};
use crate::rng::RunRng;

/// How long tabulating a model may take: every state and action in one run.
pub const TABULATE_LIMIT_MS: u32 = 60_000;

/// One outcome of a pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableEntry {
    pub next: GymObs,
    pub reward: f64,
    pub done: bool,
}

/// It serialises as its environment and, per state, the outcomes of each action (a run inside a
/// model carries its table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "Table", into = "Table")]
pub struct TabulatedModel {
    pub env: GymId,
    table: Table,
    /// Each state's position in `table`, by its key.
    index: HashMap<u64, usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Table {
    env: GymId,
    /// Per state: the state, and per action the outcomes the model gave.
    states: Vec<(GymObs, Vec<Vec<TableEntry>>)>,
}

impl From<Table> for TabulatedModel {
    fn from(table: Table) -> Self {
        let index = table.states.iter().enumerate().map(|(i, (state, _))| (obs_key(state), i)).collect();
        Self { env: table.env, table, index }
    }
}

impl From<TabulatedModel> for Table {
    fn from(model: TabulatedModel) -> Self {
        model.table
    }
}

/// The harness request that tabulates `program`, the world model of `env`.
pub fn request(env: GymId, program: &str) -> Result<ProgramRequest, String> {
    let states = env
        .tabulated_states()
        .ok_or_else(|| format!("{}'s states are continuous: it cannot be tabulated", env.name()))?;
    let mut pairs = Vec::new();
    for state in &states {
        let value = serde_json::to_value(state).expect("observations serialise");
        for action in 0..env.actions() {
            pairs.extend(std::iter::repeat_n((value.clone(), action), env.tabulation_samples()));
        }
    }
    Ok(ProgramRequest::world_model(program, pairs))
}

impl TabulatedModel {
    /// The table from the harness's answer to [`request`], or why there is none: the model raised
    /// (its error), or gave something that is not an observation, a reward or a done flag.
    pub fn from_verdict(env: GymId, verdict: &ProgramVerdict) -> Result<Self, String> {
        if verdict.outcome != Outcome::Pass {
            let why = verdict.error.clone().unwrap_or_else(|| verdict.outcome.label().to_owned());
            return Err(format!("the model cannot be tabulated: {why}"));
        }
        let states = env.tabulated_states().ok_or_else(|| format!("{} cannot be tabulated", env.name()))?;
        let predictions = verdict.predictions.as_deref().unwrap_or_default();
        let per_state = env.actions() * env.tabulation_samples();
        if predictions.len() != states.len() * per_state {
            return Err(format!(
                "the harness gave {} predictions for {} pairs",
                predictions.len(),
                states.len() * per_state
            ));
        }
        let mut rows = Vec::with_capacity(states.len());
        for (state, chunk) in states.iter().zip(predictions.chunks(per_state)) {
            let mut row = Vec::with_capacity(env.actions());
            for (action, outcomes) in chunk.chunks(env.tabulation_samples()).enumerate() {
                let read = |p: &crate::python::Prediction| -> Result<TableEntry, String> {
                    let shown = || format!("state {:?}, action {action}", state);
                    let next = env.obs_of(&p.next_obs).map_err(|e| format!("{}: {e}", shown()))?;
                    let reward = p
                        .reward
                        .as_f64()
                        .ok_or_else(|| format!("{}: the reward {} is not a number", shown(), p.reward))?;
                    let done = match &p.done {
                        serde_json::Value::Bool(b) => *b,
                        other => other
                            .as_f64()
                            .map(|d| d != 0.0)
                            .ok_or_else(|| format!("{}: done {other} is not a bool", shown()))?,
                    };
                    Ok(TableEntry { next, reward, done })
                };
                row.push(outcomes.iter().map(read).collect::<Result<Vec<_>, _>>()?);
            }
            rows.push((state.clone(), row));
        }
        Ok(Table { env, states: rows }.into())
    }

    /// The outcomes of `state` and `action`; none for a state off the table.
    pub fn outcomes(&self, state: &GymObs, action: usize) -> Option<&[TableEntry]> {
        let row = *self.index.get(&obs_key(state))?;
        self.table.states[row].1.get(action).map(Vec::as_slice)
    }
}

impl Model for TabulatedModel {
    type State = GymObs;

    fn actions(&self) -> usize {
        self.env.actions()
    }

    fn step(&self, state: &GymObs, action: usize, rng: &mut RunRng) -> (GymObs, f64, bool) {
        match self.outcomes(state, action) {
            Some([one]) => (one.next.clone(), one.reward, one.done),
            Some(many) if !many.is_empty() => {
                let o = &many[rng.random_range(0..many.len())];
                (o.next.clone(), o.reward, o.done)
            }
            // Off the table: the episode ends where the model sent it.
            _ => (state.clone(), 0.0, true),
        }
    }

    fn key(&self, state: &GymObs) -> u64 {
        obs_key(state)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use rand::SeedableRng;
    use serde_json::json;

    use super::*;
    use crate::gym::GymEnv;
    use crate::python::Prediction;

    /// What the harness would answer for a perfect model: the engine's own environment, pair by pair.
    pub(crate) fn perfect_verdict(env: GymId) -> ProgramVerdict {
        let request = request(env, "class Environment: ...").unwrap();
        let mut rng = RunRng::seed_from_u64(1);
        let predictions = request
            .predict
            .as_ref()
            .unwrap()
            .iter()
            .map(|(state, action)| {
                let mut real = GymEnv::from_obs(env, &env.obs_of(state).unwrap()).unwrap();
                let step = real.step(*action, &mut rng);
                Prediction {
                    next_obs: serde_json::to_value(&step.obs).unwrap(),
                    reward: json!(step.reward),
                    done: json!(step.terminated),
                }
            })
            .collect();
        let mut verdict = ProgramVerdict::from_host(&request, Outcome::Pass, String::new(), 1.0);
        verdict.error = None;
        verdict.passed = true;
        verdict.predictions = Some(predictions);
        verdict
    }

    #[test]
    fn a_tabulated_model_steps_as_the_live_environment_from_every_state() {
        for env in [GymId::CliffWalking, GymId::Taxi] {
            let table = TabulatedModel::from_verdict(env, &perfect_verdict(env)).unwrap();
            let mut rng = RunRng::seed_from_u64(0);
            for state in env.tabulated_states().unwrap() {
                for action in 0..env.actions() {
                    let mut live = GymEnv::from_obs(env, &state).unwrap();
                    let step = live.step(action, &mut rng);
                    assert_eq!(
                        table.step(&state, action, &mut rng),
                        (step.obs, step.reward, step.terminated),
                        "{state:?} {action}"
                    );
                }
            }
        }
        assert!(GymId::CartPole.tabulated_states().is_none());
        assert!(request(GymId::Acrobot, "").unwrap_err().contains("continuous"));
        let table = TabulatedModel::from_verdict(GymId::CliffWalking, &perfect_verdict(GymId::CliffWalking)).unwrap();
        let json = serde_json::to_string(&table).unwrap();
        assert_eq!(serde_json::from_str::<TabulatedModel>(&json).unwrap(), table);
    }

    #[test]
    fn a_model_that_raised_or_answered_nonsense_is_refused_with_the_reason() {
        let mut verdict = perfect_verdict(GymId::CliffWalking);
        verdict.predictions.as_mut().unwrap()[5].next_obs = json!("up");
        let error = TabulatedModel::from_verdict(GymId::CliffWalking, &verdict).unwrap_err();
        assert!(error.starts_with("state Discrete(1), action 1: \"up\" is not an observation"), "{error}");
        verdict.outcome = Outcome::RuntimeError;
        verdict.error = Some("Error when calling `step` on transition 3: KeyError".into());
        let error = TabulatedModel::from_verdict(GymId::CliffWalking, &verdict).unwrap_err();
        assert!(error.contains("KeyError"), "{error}");
    }
}
