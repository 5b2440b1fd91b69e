//! Runs programs through the shared Python harness (`static/python/harness.py`) with python3.

use std::io::Write;
use std::process::{Command, Stdio};

use engine::tasks::Verdict;
use serde_json::{Value, json};

const HARNESS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../static/python/harness.py");

/// Runs each (code, tests) pair through the harness in one python3 process.
pub fn python_verdicts(requests: &[(String, Vec<String>)]) -> Vec<Value> {
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

pub fn as_verdict(value: &Value) -> Verdict {
    serde_json::from_value(value.clone()).unwrap()
}
