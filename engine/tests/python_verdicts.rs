//! The recorded verdicts in `tasks/` must be what real Python says: every code variant of every
//! task runs through the shared harness (`static/python/harness.py`) with the machine's python3.

use engine::tasks::{executive_tasks, planner_task};

mod common;

use common::{as_verdict, python_verdicts};

#[test]
fn executive_verdicts_match_real_python() {
    let tasks = executive_tasks();
    let mut labels = Vec::new();
    let mut requests = Vec::new();
    for task in tasks.iter() {
        for (variant, code) in &task.code {
            labels.push((task, variant));
            requests.push((code.clone(), task.tests.clone()));
        }
    }
    let verdicts = python_verdicts(&requests);
    assert_eq!(verdicts.len(), requests.len());
    for ((task, variant), actual) in labels.into_iter().zip(&verdicts) {
        assert_eq!(task.verdicts[variant], as_verdict(actual), "{} / {variant}: python says {actual}", task.task_id);
    }
    // The data is not trivially all-passing: each task has a failing variant.
    for task in tasks.iter() {
        assert!(task.verdicts.values().any(|v| !v.passed), "{}", task.task_id);
    }
}

#[test]
fn planner_integrated_code_passes_its_tests_in_python() {
    let task = planner_task();
    let verdicts = python_verdicts(&[(task.integrated_code.clone(), task.tests.clone())]);
    assert_eq!(task.integrated_verdict, as_verdict(&verdicts[0]));
    assert!(task.integrated_verdict.passed);
}

#[test]
fn planner_subtask_verdicts_match_real_python() {
    let task = planner_task();
    let requests: Vec<_> = task.subtasks.iter().map(|s| (s.code.clone(), s.tests.clone())).collect();
    for (subtask, actual) in task.subtasks.iter().zip(python_verdicts(&requests)) {
        assert_eq!(subtask.verdict, as_verdict(&actual), "{}", subtask.name);
    }
}
