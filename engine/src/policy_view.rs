//! What a trained policy looks like, for the page's policy views: the value table of a tabular
//! agent over the states training visited, and one greedy episode per task stepped through with
//! the agent's values, the legal actions and the environment's texts at each step.

use serde::{Deserialize, Serialize};

use crate::agents::{Agent, AnyAgent};
use crate::device::resolved;
use crate::env::episode::{Policy, play};
use crate::env::{ActionMask, AnyEnv, Environment, Observation, Step};
use crate::rng::evaluation_rng;
use crate::run::{Features, Run};

/// A state's flags as (name, value) pairs, e.g. `("code", "yes")`.
pub type Flags = Vec<(String, String)>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyView {
    pub action_names: Vec<String>,
    /// Tabular agents only: one row per state visited in training, most visited first.
    pub table: Vec<StateRow>,
    /// One greedy episode per task, without learning.
    pub traces: Vec<GreedyTrace>,
    /// The exact value of each action in the start state (value iteration with the agent's
    /// discount), where the environment's odds are known in full: what the learned values of the
    /// start state estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimal_start: Option<Vec<f64>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateRow {
    pub state: usize,
    pub flags: Flags,
    /// Training steps taken from this state.
    pub visits: u32,
    /// The agent's value of each action (Q-value, or posterior mean for Thompson sampling); 0 for
    /// an action the mask rules out.
    pub values: Vec<f64>,
    pub legal: Vec<bool>,
    /// The action the greedy policy takes here.
    pub greedy: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GreedyTrace {
    pub task: String,
    pub steps: Vec<TraceStep>,
    pub success: bool,
    #[serde(rename = "return")]
    pub episode_return: f64,
    /// The observation the episode ended in, as numbers (Gymnasium environments; see
    /// [`TraceStep::observation`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub end_observation: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    /// The state the action was chosen in.
    pub flags: Flags,
    pub values: Vec<f64>,
    pub legal: Vec<bool>,
    pub action: usize,
    pub reward: f64,
    /// The environment's texts after the step (code, test feedback, ...), by name.
    pub texts: Vec<(String, String)>,
    /// The observation the action was chosen in, as numbers, for a drawing of the state
    /// (Gymnasium environments; empty for the others).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observation: Vec<f64>,
}

fn owned(flags: Vec<(&'static str, String)>) -> Flags {
    flags.into_iter().map(|(name, value)| (name.to_owned(), value)).collect()
}

/// The values as seed 003 §6.1 shows them: an action the mask rules out is never taken, so its
/// entry is never updated and reads 0.00 (not the table's initial value).
fn as_shown(mut values: Vec<f64>, mask: ActionMask) -> Vec<f64> {
    values.iter_mut().enumerate().filter(|(a, _)| !mask.allows(*a)).for_each(|(_, v)| *v = 0.0);
    values
}

fn legal(mask: ActionMask, n_actions: usize) -> Vec<bool> {
    (0..n_actions).map(|a| mask.allows(a)).collect()
}

impl Run {
    pub fn policy_view(&self) -> PolicyView {
        let info = self.env().info();
        let n_actions = info.action_names.len();
        let agent = self.agent();
        let mut table: Vec<StateRow> = if agent.embedding_dim().is_some() {
            Vec::new()
        } else {
            self.state_visits()
                .iter()
                .enumerate()
                .filter(|(_, v)| v.count > 0)
                .map(|(state, v)| {
                    let obs = crate::Observation { state, mask: v.mask };
                    StateRow {
                        state,
                        flags: owned(self.env().state_flags(state)),
                        visits: v.count,
                        values: as_shown(agent.action_values(obs, &[]), v.mask),
                        legal: legal(v.mask, n_actions),
                        greedy: agent.greedy(obs, &[]),
                    }
                })
                .collect()
        };
        table.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.state.cmp(&b.state)));
        let mut seeds = evaluation_rng(self.spec().seed);
        let traces =
            (0..info.tasks.len()).map(|task| self.greedy_trace(task, rand::RngCore::next_u64(&mut seeds))).collect();
        let spec = self.spec();
        let optimal_start = spec.agent.discount().and_then(|gamma| spec.env.start_values(gamma));
        PolicyView {
            action_names: info.action_names.iter().map(|&a| a.to_owned()).collect(),
            table,
            traces,
            optimal_start,
        }
    }

    /// One greedy episode of task `task`, step by step.
    pub fn greedy_trace(&self, task: usize, seed: u64) -> GreedyTrace {
        let mut env = self.env().clone();
        let obs = env.reset_task(seed, task);
        let info = env.info();
        let mut tracing = Tracing {
            agent: self.agent(),
            features: Features::new(self.featurizer()),
            n_actions: info.action_names.len(),
            text_names: info.text_names,
            chosen_by: None,
            steps: Vec::new(),
        };
        let outcome = resolved(play(&mut env, obs, &mut tracing));
        GreedyTrace {
            task: info.tasks[task].clone(),
            steps: tracing.steps,
            success: outcome.success,
            episode_return: outcome.episode_return,
            end_observation: env.observation_values(),
        }
    }
}

/// The greedy policy, recording each step with the state and the values it chose by.
struct Tracing<'a> {
    agent: &'a AnyAgent,
    features: Features<'a>,
    n_actions: usize,
    text_names: &'static [&'static str],
    /// The flags, values and observation of the state of the action being taken.
    chosen_by: Option<(Flags, Vec<f64>, Vec<f64>)>,
    steps: Vec<TraceStep>,
}

impl Policy<AnyEnv> for Tracing<'_> {
    async fn choose(&mut self, env: &AnyEnv, obs: Observation) -> Result<usize, String> {
        let features = self.features.now(env);
        let values = as_shown(self.agent.action_values(obs, features), obs.mask);
        self.chosen_by = Some((owned(env.state_flags(obs.state)), values, env.observation_values()));
        Ok(self.agent.greedy(obs, features))
    }

    fn stepped(&mut self, env: &AnyEnv, obs: Observation, action: usize, step: &Step) {
        let (flags, values, observation) = self.chosen_by.take().expect("a step follows its choice");
        let texts = self.text_names.iter().zip(env.texts()).map(|(name, text)| ((*name).to_owned(), text.to_owned()));
        self.steps.push(TraceStep {
            flags,
            values,
            legal: legal(obs.mask, self.n_actions),
            action,
            reward: step.reward,
            texts: texts.collect(),
            observation,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{AgentId, EnvId, Run, RunSpec};

    #[test]
    fn orchestrator_table_lists_visited_states_and_the_greedy_trace_succeeds() {
        let mut run = Run::new(RunSpec::new(EnvId::Orchestrator, AgentId::QLearning, 1, 3000)).unwrap();
        run.by_ref().for_each(drop);
        let view = run.policy_view();
        assert_eq!(view.action_names, ["planner", "coder", "tester", "debugger"]);
        // The start state is the most visited: every episode begins there.
        let start = &view.table[0];
        assert_eq!((start.state, start.visits), (0, 3000));
        assert_eq!(start.flags[0], ("plan".to_owned(), "no".to_owned()));
        assert_eq!(start.greedy, 1, "coder first");
        assert!(view.table.iter().all(|row| row.legal[row.greedy]));
        // Seed 003 §6.1: tester and debugger are masked in s0, never updated, and read 0.00 (the
        // table itself still holds its initial 5.0 there).
        assert_eq!(&start.values[2..], [0.0, 0.0]);
        let initial = crate::Observation { state: 0, mask: crate::ActionMask(0b0011) };
        assert_eq!(&crate::Agent::action_values(run.agent(), initial, &[])[2..], [5.0, 5.0]);
        assert!(view.traces[0].steps[0].values[2..].iter().all(|&v| v == 0.0));
        let trace = &view.traces[0];
        assert_eq!(trace.steps[0].action, 1);
        assert!(trace.steps.len() <= 10);
    }

    #[test]
    fn executive_traces_show_code_and_feedback_for_each_task() {
        let mut run = Run::new(RunSpec::new(EnvId::Executive, AgentId::QLearning, 1, 3000)).unwrap();
        run.by_ref().for_each(drop);
        let view = run.policy_view();
        assert_eq!(view.traces.len(), 3);
        for trace in &view.traces {
            assert!(trace.success, "{}: {:?}", trace.task, trace.steps.iter().map(|s| s.action).collect::<Vec<_>>());
            let names: Vec<_> = trace.steps[0].texts.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["prompt", "code", "feedback"]);
            assert!(trace.steps[0].texts[1].1.contains("def "), "generate writes code");
            assert!(trace.steps.iter().any(|s| !s.texts[2].1.is_empty()), "a test gives feedback");
        }
    }

    #[test]
    fn neural_agents_have_no_table_but_trace_their_q_values() {
        let mut run = Run::new(RunSpec::new(EnvId::Executive, AgentId::Dqn, 1, 5)).unwrap();
        run.by_ref().for_each(drop);
        let view = run.policy_view();
        assert!(view.table.is_empty());
        assert_eq!(view.traces[0].steps[0].values.len(), 5);
    }
}
