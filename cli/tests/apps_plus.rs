//! Real APPS+ records (`tasks/apps_plus/valid_sample.json`: 205 records of the authors'
//! `valid_all.json`, Apache-2.0, licence beside it) graded as their authors grade them: every
//! canonical solution passes its own tests, but for the exceptions below, each with its reason,
//! and the slow ones, which may time out.

mod common;

use std::collections::BTreeMap;

use common::{last_json_line, rlcg};

/// The records whose canonical solutions do not pass here, and why.
const EXCEPTIONS: [(&str, &str); 4] = [
    ("valid_all-37", "No module named 'numpy'"), // not a package of the harness
    ("valid_all-106", "No module named 'scipy'"),
    // The authors' grader puts a preamble of standard-library imports before every program
    // (`from collections import … defaultdict`, …); the harness runs the program as it is.
    ("valid_all-330", "name 'defaultdict' is not defined"),
    // That preamble binds `hq` and heapq's functions, not `heapq`: it fails under the authors' grader too.
    ("valid_all-457", "name 'heapq' is not defined"),
];

/// Solutions that take seconds of python3 (up to about 25 s on a loaded two-core machine): they
/// pass, or time out at the check's 5 s.
const SLOW: [&str; 4] = ["valid_all-33", "valid_all-38", "valid_all-135", "valid_all-150"];

#[test]
fn real_apps_plus_canonical_solutions_pass_their_tests_but_the_listed_exceptions() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/apps_plus/valid_sample.json");
    let output = rlcg(&["check", "--tasks", file, "--verbose", "--json"]);
    let report = last_json_line(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    // `--verbose` names each task that did not pass: `id: outcome (why)`.
    let failed: BTreeMap<&str, &str> = stdout
        .lines()
        .filter_map(|line| line.split_once(": ").filter(|(id, _)| id.starts_with("valid_all-")))
        .collect();
    let exceptions: BTreeMap<&str, &str> = EXCEPTIONS.into_iter().collect();
    for (id, why) in &failed {
        match exceptions.get(id) {
            Some(reason) => assert!(why.contains(reason), "{id}: {why}"),
            None => assert!(SLOW.contains(id) && why.starts_with("timeout"), "{id} did not pass: {why}"),
        }
    }
    assert!(exceptions.keys().all(|id| failed.contains_key(id)), "{stdout}");
    let passed = report["pass"].as_u64().unwrap();
    assert_eq!(report["total"].as_u64(), Some(205), "{report}");
    assert_eq!(passed + failed.len() as u64, 205, "{report}");
    assert!(passed >= 205 - (EXCEPTIONS.len() + SLOW.len()) as u64, "{report}");
}

#[test]
fn records_that_the_old_grading_failed_now_pass() {
    // Trailing spaces on lines of standard output (57, 91, 326) and strings inside a list argument
    // kept with their quotes (434): the audit's four.
    let all =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tasks/apps_plus/valid_sample.json")).unwrap();
    let records: Vec<serde_json::Value> = serde_json::from_str(&all).unwrap();
    let picked: Vec<&serde_json::Value> = records
        .iter()
        .filter(|r| {
            ["valid_all-57", "valid_all-91", "valid_all-326", "valid_all-434"].contains(&r["task_id"].as_str().unwrap())
        })
        .collect();
    let file = std::env::temp_dir().join(format!("rlcg-apps-plus-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_string(&picked).unwrap()).unwrap();
    let output = rlcg(&["check", "--tasks", file.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&file).unwrap();
    let report = last_json_line(&output);
    assert_eq!((report["total"].as_u64(), report["pass"].as_u64()), (Some(4), Some(4)), "{report}");
}
