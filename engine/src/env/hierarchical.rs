//! Hierarchical inference, seed 000 §9: the planner's greedy policy drives the top-level task;
//! when it executes, every subtask is solved by the executive's greedy policy; integration and
//! evaluation follow. Both levels are played by the one episode loop; the result is a trace the
//! CLI prints (`rlcg hierarchical`). The program delivered is composed of the code the executive
//! left for each subtask and the integration's glue (`compute`), and judged by its own run in
//! Python ([`HierarchicalTrace::final_request`]): a subtask that failed makes it fail.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::episode::{Policy, play};
use super::executive::ExecutiveParams;
use super::planner::EXECUTION;
use super::{EnvId, EnvSpec, Environment, ExecutiveEnv, Observation, PlannerEnv, Step};
use crate::device::resolved;
use crate::python::{ProgramRequest, ProgramVerdict, TestCase};

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
    /// The planner's evaluation feedback, e.g. `Tests 4/4` (the simulated planner's episode).
    pub evaluation: String,
    /// The planner episode succeeded and every subtask passed its tests.
    pub passed: bool,
    /// The program delivered to the user: each subtask's code as the executive left it, then the
    /// glue; empty when the planner never executed.
    pub final_code: String,
    /// The task's tests on `final_code`, passed of total, once it has run ([`Self::judged`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_tests: Option<(u32, u32)>,
}

impl HierarchicalTrace {
    /// The delivered program's run against the task's tests.
    pub fn final_request(&self) -> ProgramRequest {
        let tests = crate::env::tasks::planner_task().tests.iter().map(|t| TestCase::Statement(t.clone())).collect();
        ProgramRequest::new(self.final_code.clone(), tests).verdict_only()
    }

    /// The trace with the delivered program's `verdict`: it passes only when that program does.
    pub fn judged(mut self, verdict: &ProgramVerdict) -> Self {
        self.final_tests = Some((verdict.number_passed, verdict.total));
        self.passed &= verdict.passed;
        self
    }
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
    let final_code = if top.subtasks.is_empty() {
        String::new()
    } else {
        env.task().compose(&top.subtasks.iter().map(|s| s.code.as_str()).collect::<Vec<_>>())
    };
    Ok(HierarchicalTrace {
        query: env.task().prompt.clone(),
        planner_steps: top.steps,
        subtasks: top.subtasks,
        final_code,
        integrated_code,
        evaluation: env.feedback().to_owned(),
        passed,
        final_tests: None,
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
