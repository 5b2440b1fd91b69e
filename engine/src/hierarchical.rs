//! Hierarchical inference, seed 000 §9: the planner's greedy policy drives the top-level task;
//! when it executes, every subtask is solved by the executive's greedy policy; integration and
//! evaluation follow. The result is a trace the page renders and the CLI prints.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::env::executive::ExecutiveRewards;
use crate::env::planner::EXECUTION;
use crate::env::{Environment, ExecutiveEnv, PlannerEnv};
use crate::run::Run;
use crate::tasks::{ExecutiveTask, planner_task};

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
    /// The planner's evaluation feedback, e.g. `Tests 5/5`.
    pub evaluation: String,
    /// The planner episode succeeded and every subtask passed its tests.
    pub passed: bool,
    /// The program delivered to the user.
    pub final_code: String,
}

/// Runs the hierarchy with the greedy policies of two trained runs (a planner run and an
/// executive run).
///
/// # Errors
/// If the runs are not a planner run and an executive run.
pub fn hierarchical_inference(planner: &Run, executive: &Run) -> Result<HierarchicalTrace, String> {
    if !matches!(planner.env().info().id, crate::EnvId::Planner) {
        return Err("the first run must be a planner run".into());
    }
    if !matches!(executive.env().info().id, crate::EnvId::Executive) {
        return Err("the second run must be an executive run".into());
    }
    let task = planner_task();
    let mut env = PlannerEnv::default();
    let names = env.info().action_names;
    let mut obs = env.reset(0);
    let mut trace = HierarchicalTrace {
        query: task.prompt.clone(),
        planner_steps: Vec::new(),
        subtasks: Vec::new(),
        integrated_code: String::new(),
        evaluation: String::new(),
        passed: false,
        final_code: String::new(),
    };
    let planner_success = loop {
        let action = planner.greedy_action(&env, obs);
        if action == EXECUTION && env.observation().mask.allows(EXECUTION) {
            trace.subtasks = task.subtasks.iter().map(|s| solve_subtask(executive, s.as_executive_task())).collect();
        }
        let step = env.step(action);
        trace.planner_steps.push(PlannerStep { action: names[action].to_owned(), reward: step.reward });
        if step.done() {
            break step.info.success;
        }
        obs = step.observation;
    };
    trace.integrated_code = env.integrated_code().to_owned();
    trace.evaluation = env.feedback().to_owned();
    trace.final_code = trace.integrated_code.clone();
    trace.passed = planner_success && !trace.subtasks.is_empty() && trace.subtasks.iter().all(|s| s.success);
    Ok(trace)
}

/// The executive's greedy episode on one subtask.
fn solve_subtask(executive: &Run, task: ExecutiveTask) -> SubtaskTrace {
    let (name, prompt) = (task.task_id.clone(), task.prompt.clone());
    let mut env = ExecutiveEnv::new(Arc::from([task]), Some(0), ExecutiveRewards::default());
    let names = env.info().action_names;
    let mut obs = env.reset(0);
    let mut steps = Vec::new();
    loop {
        let action = executive.greedy_action(&env, obs);
        let step = env.step(action);
        steps.push(ExecutiveStep {
            action: names[action].to_owned(),
            reward: step.reward,
            code: env.current_code().to_owned(),
            feedback: env.feedback().to_owned(),
        });
        if step.done() {
            let code = env.current_code().to_owned();
            return SubtaskTrace { name, prompt, steps, success: step.info.success, code };
        }
        obs = step.observation;
    }
}
