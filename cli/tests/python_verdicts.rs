//! The recorded verdicts in `tasks/` must be what real Python says: every program of every bundled
//! task runs through the shared harness with the machine's python3.

use cli::python::run_all;
use engine::python::ProgramRequest;
use engine::tasks::{executive_tasks, planner_task};

fn python_verdicts(requests: &[ProgramRequest]) -> Vec<engine::tasks::Verdict> {
    run_all(requests, 5_000, 2, |_| {}).into_iter().map(|v| v.expect("python3 runs the harness").verdict()).collect()
}

#[test]
fn executive_verdicts_match_real_python() {
    let tasks = executive_tasks();
    let mut labels = Vec::new();
    let mut requests = Vec::new();
    for task in tasks.iter() {
        for (variant, code) in &task.code {
            labels.push((task, variant));
            requests.push(ProgramRequest::with_statements(code.clone(), &task.tests));
        }
    }
    for ((task, variant), actual) in labels.into_iter().zip(python_verdicts(&requests)) {
        assert_eq!(task.verdicts[variant], actual, "{} / {variant}", task.task_id);
    }
    // The data is not trivially all-passing: each task has a failing variant.
    for task in tasks.iter() {
        assert!(task.verdicts.values().any(|v| !v.passed), "{}", task.task_id);
    }
}

#[test]
fn planner_integrated_code_passes_its_tests_in_python() {
    let task = planner_task();
    let verdicts = python_verdicts(&[ProgramRequest::with_statements(task.integrated_code.clone(), &task.tests)]);
    assert_eq!(task.integrated_verdict, verdicts[0]);
    assert!(task.integrated_verdict.passed);
}

#[test]
fn planner_subtask_verdicts_match_real_python() {
    let task = planner_task();
    let requests: Vec<_> =
        task.subtasks.iter().map(|s| ProgramRequest::with_statements(s.code.clone(), &s.tests)).collect();
    for (subtask, actual) in task.subtasks.iter().zip(python_verdicts(&requests)) {
        assert_eq!(subtask.verdict, actual, "{}", subtask.name);
    }
}
