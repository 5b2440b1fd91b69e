//! The recorded verdicts in `tasks/` must be what real Python says: every code variant of every
//! task runs through the shared harness (`static/python/harness.py`) with the machine's python3.

use std::io::Write;
use std::process::{Command, Stdio};

use engine::tasks::{Verdict, executive_tasks, planner_task};
use serde_json::{Value, json};

const HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../static/python/harness.py");

/// Runs each (code, tests) pair through the harness in one python3 process.
fn python_verdicts(requests: &[(String, Vec<String>)]) -> Vec<Value> {
    let mut child = Command::new("python3")
        .arg(HARNESS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 must be installed to check the task data");
    let mut stdin = child.stdin.take().unwrap();
    for (code, tests) in requests {
        writeln!(stdin, "{}", json!({ "code": code, "tests": tests })).unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "the harness failed");
    String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn as_verdict(value: &Value) -> Verdict {
    serde_json::from_value(value.clone()).unwrap()
}

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
