//! Hierarchical inference, seed 000 §9: the planner's greedy policy drives the top-level task;
//! when it executes, every subtask is solved by the executive's greedy policy; integration and
//! evaluation follow. Both levels are played by the one episode loop; the result is a trace the
//! CLI prints (`rlcg hierarchical`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::episode::{Policy, play};
use super::executive::ExecutiveParams;
use super::planner::EXECUTION;
use super::{EnvId, EnvSpec, Environment, ExecutiveEnv, Observation, PlannerEnv, Step};
use crate::device::resolved;

/// The environments of the two levels: the top level's, then the subtasks'.
pub const LEVELS: (EnvId, EnvId) = (EnvId::Planner, EnvId::Executive);

/// One executive step on a subtask.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutiveStep {
    pub action: String,
    pub reward: f64,
    /// The code after the step ("" before generate).
    pub code: String,
    /// The test feedback after the step, e.g. `Tests 3/3`.
    pub feedback: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubtaskTrace {
    pub name: String,
    pub prompt: String,
    pub steps: Vec<ExecutiveStep>,
    pub success: bool,
    pub code: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannerStep {
    pub action: String,
    pub reward: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HierarchicalTrace {
    pub query: String,
    pub planner_steps: Vec<PlannerStep>,
    pub subtasks: Vec<SubtaskTrace>,
    pub integrated_code: String,
    /// The planner's evaluation feedback, e.g. `Tests 4/4`.
    pub evaluation: String,
    /// The planner episode succeeded and every subtask passed its tests.
    pub passed: bool,
    /// The program delivered to the user.
    pub final_code: String,
}

/// Runs the hierarchy: `planner` and `executive` are the greedy policies of runs on the two
/// [`LEVELS`], whose specs are `planner_spec` and `executive_spec`.
///
/// # Errors
/// If the specs are not of the two levels' environments.
pub fn hierarchical_inference(
    (planner_spec, planner): (&EnvSpec, impl Fn(&PlannerEnv, Observation) -> usize),
    (executive_spec, executive): (&EnvSpec, impl Fn(&ExecutiveEnv, Observation) -> usize),
) -> Result<HierarchicalTrace, String> {
    let (EnvSpec::Planner(planner_rewards), EnvSpec::Executive(executive_params)) = (planner_spec, executive_spec)
    else {
        let (top, sub) = LEVELS;
        return Err(format!("hierarchical inference needs a {} run and an {} run", top.name(), sub.name()));
    };
    let mut env = PlannerEnv::new(crate::env::tasks::planner_task(), *planner_rewards);
    let obs = env.reset(0);
    let mut top =
        TopLevel { decide: planner, executive: (executive_params, executive), steps: Vec::new(), subtasks: Vec::new() };
    let outcome = resolved(play(&mut env, obs, &mut top));
    let integrated_code = env.integrated_code().to_owned();
    let passed = outcome.success && !top.subtasks.is_empty() && top.subtasks.iter().all(|s| s.success);
    Ok(HierarchicalTrace {
        query: env.task().prompt.clone(),
        planner_steps: top.steps,
        subtasks: top.subtasks,
        final_code: integrated_code.clone(),
        integrated_code,
        evaluation: env.feedback().to_owned(),
        passed,
    })
}

/// The planner's greedy policy; executing the plan first solves every subtask.
struct TopLevel<'a, P, E> {
    decide: P,
    executive: (&'a ExecutiveParams, E),
    steps: Vec<PlannerStep>,
    subtasks: Vec<SubtaskTrace>,
}

impl<P: Fn(&PlannerEnv, Observation) -> usize, E: Fn(&ExecutiveEnv, Observation) -> usize> Policy<PlannerEnv>
    for TopLevel<'_, P, E>
{
    async fn choose(&mut self, env: &PlannerEnv, obs: Observation) -> Result<usize, String> {
        let action = (self.decide)(env, obs);
        if action == EXECUTION && obs.mask.allows(EXECUTION) {
            let (params, decide) = &self.executive;
            self.subtasks =
                env.task().subtasks.iter().map(|s| solve_subtask(params, decide, s.as_executive_task())).collect();
        }
        Ok(action)
    }

    fn stepped(&mut self, env: &PlannerEnv, _obs: Observation, action: usize, step: &Step) {
        self.steps.push(PlannerStep { action: env.info().action_names[action].to_owned(), reward: step.reward });
    }
}

/// The executive's greedy policy on a subtask, recording each step.
struct SubLevel<'a, E> {
    decide: &'a E,
    steps: Vec<ExecutiveStep>,
}

impl<E: Fn(&ExecutiveEnv, Observation) -> usize> Policy<ExecutiveEnv> for SubLevel<'_, E> {
    async fn choose(&mut self, env: &ExecutiveEnv, obs: Observation) -> Result<usize, String> {
        Ok((self.decide)(env, obs))
    }

    fn stepped(&mut self, env: &ExecutiveEnv, _obs: Observation, action: usize, step: &Step) {
        self.steps.push(ExecutiveStep {
            action: env.info().action_names[action].to_owned(),
            reward: step.reward,
            code: env.current_code().to_owned(),
            feedback: env.feedback().to_owned(),
        });
    }
}

/// The executive's greedy episode on one subtask.
fn solve_subtask(
    params: &ExecutiveParams,
    decide: &impl Fn(&ExecutiveEnv, Observation) -> usize,
    task: crate::env::tasks::ExecutiveTask,
) -> SubtaskTrace {
    let (name, prompt) = (task.task_id.clone(), task.prompt.clone());
    let mut env = ExecutiveEnv::new(Arc::from([task]), Some(0), params.rewards);
    let obs = env.reset(0);
    let mut sub = SubLevel { decide, steps: Vec::new() };
    let outcome = resolved(play(&mut env, obs, &mut sub));
    SubtaskTrace { name, prompt, steps: sub.steps, success: outcome.success, code: env.current_code().to_owned() }
}
