//! Hierarchical inference, seed 000 §9: the planner's greedy policy drives the top-level task;
//! when it executes, every subtask is solved by the executive's greedy policy; integration and
//! evaluation follow. Both levels are played by the one episode loop; the result is a trace the
//! CLI prints (`rlcg hierarchical`).
//!
//! The program delivered is composed of the code the executive left for each subtask and the
//! integration's glue (`compute`), and the planner's evaluation judges that program by its own run
//! in Python, not a stored verdict: so it goes in two steps. [`solve_subtasks`] plays the executive
//! on every subtask and composes the program ([`SolvedSubtasks::request`], a need the host runs);
//! [`hierarchical_inference`] plays the planner with that program as its integration and its
//! verdict as its evaluation. The executive's greedy episodes do not depend on the planner, so
//! solving them first changes nothing but when they are played.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::episode::{Policy, play};
use super::executive::ExecutiveParams;
use super::planner::EXECUTION;
use super::tasks::PlannerTask;
use super::{EnvId, EnvSpec, Environment, ExecutiveEnv, Observation, PlannerEnv, Step};
use crate::device::resolved;
use crate::python::{ProgramRequest, ProgramVerdict, TestCase, Verdict};

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
    /// The subtasks, once the planner executed (none otherwise).
    pub subtasks: Vec<SubtaskTrace>,
    /// The planner's evaluation feedback, the delivered program's run against the task's tests,
    /// e.g. `Tests 4/4` (empty when the planner never evaluated).
    pub evaluation: String,
    /// The planner episode succeeded (its evaluation passed) and every subtask passed its tests.
    pub passed: bool,
    /// The program delivered to the user: each subtask's code as the executive left it, then the
    /// glue; empty when the planner never executed.
    pub final_code: String,
    /// The task's tests on `final_code`, passed of total, when the planner executed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_tests: Option<(u32, u32)>,
}

/// The executive's episodes on every subtask, and the program they compose with the glue.
#[derive(Clone, Debug, PartialEq)]
pub struct SolvedSubtasks {
    pub subtasks: Vec<SubtaskTrace>,
    pub program: String,
}

impl SolvedSubtasks {
    /// The composed program's run against the task's tests: the planner's evaluation.
    pub fn request(&self) -> ProgramRequest {
        let tests = crate::env::tasks::planner_task().tests.iter().map(|t| TestCase::Statement(t.clone())).collect();
        ProgramRequest::new(self.program.clone(), tests).verdict_only()
    }
}

/// Plays `executive`, the greedy policy of a run whose spec is `executive_spec`, on each of §9's
/// subtasks, and composes the delivered program.
///
/// # Errors
/// If the spec is not the executive's.
pub fn solve_subtasks(
    executive_spec: &EnvSpec,
    executive: impl Fn(&ExecutiveEnv, Observation) -> usize,
) -> Result<SolvedSubtasks, String> {
    let EnvSpec::Executive(params) = executive_spec else {
        return Err(format!("hierarchical inference needs an {} run for the subtasks", LEVELS.1.name()));
    };
    let task = crate::env::tasks::planner_task();
    let subtasks: Vec<SubtaskTrace> =
        task.subtasks.iter().map(|s| solve_subtask(params, &executive, s.as_executive_task())).collect();
    let program = task.compose(&subtasks.iter().map(|s| s.code.as_str()).collect::<Vec<_>>());
    Ok(SolvedSubtasks { subtasks, program })
}

/// Plays `planner`, the greedy policy of a run whose spec is `planner_spec`, on §9's task: its
/// execution delivers `solved`, its integration is `solved`'s program, and its evaluation reads
/// `verdict`, that program's run ([`SolvedSubtasks::request`]).
///
/// # Errors
/// If the spec is not the planner's.
pub fn hierarchical_inference(
    (planner_spec, planner): (&EnvSpec, impl Fn(&PlannerEnv, Observation) -> usize),
    solved: SolvedSubtasks,
    verdict: &ProgramVerdict,
) -> Result<HierarchicalTrace, String> {
    let EnvSpec::Planner(planner_rewards) = planner_spec else {
        return Err(format!("hierarchical inference needs a {} run for the top level", LEVELS.0.name()));
    };
    let judged = Verdict { passed: verdict.passed, number_passed: verdict.number_passed, total: verdict.total };
    let task = PlannerTask {
        integrated_code: solved.program.clone(),
        integrated_verdict: judged,
        ..(*crate::env::tasks::planner_task()).clone()
    };
    let mut env = PlannerEnv::new(Arc::new(task), *planner_rewards);
    let obs = env.reset(0);
    let mut top = TopLevel { decide: planner, solved, executed: false, steps: Vec::new() };
    let outcome = resolved(play(&mut env, obs, &mut top));
    let (subtasks, final_code) =
        if top.executed { (top.solved.subtasks, top.solved.program) } else { (Vec::new(), String::new()) };
    let passed = outcome.success && !subtasks.is_empty() && subtasks.iter().all(|s| s.success);
    Ok(HierarchicalTrace {
        query: env.task().prompt.clone(),
        planner_steps: top.steps,
        final_tests: top.executed.then_some((judged.number_passed, judged.total)),
        subtasks,
        final_code,
        evaluation: env.feedback().to_owned(),
        passed,
    })
}

/// The planner's greedy policy; executing the plan delivers the solved subtasks.
struct TopLevel<P> {
    decide: P,
    solved: SolvedSubtasks,
    executed: bool,
    steps: Vec<PlannerStep>,
}

impl<P: Fn(&PlannerEnv, Observation) -> usize> Policy<PlannerEnv> for TopLevel<P> {
    async fn choose(&mut self, env: &PlannerEnv, obs: Observation) -> Result<usize, String> {
        let action = (self.decide)(env, obs);
        self.executed |= action == EXECUTION && obs.mask.allows(EXECUTION);
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
