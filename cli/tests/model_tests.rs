//! The red team for unit tests a model wrote (`e2e/model-tests.json`), natively: each set runs
//! through the harness with python3 as LATS's and Reflexion's own tests do (`data_tests`), and each
//! test ends as its entry says: data tests are judged on what the program's function returned, and
//! anything else is refused without running. e2e/model-tests.spec.mjs runs the same in the page.

use cli::python::run_all;
use engine::python::{ProgramRequest, TestCase};
use serde_json::Value;

#[test]
fn tests_a_model_wrote_run_only_as_data_and_everything_else_is_refused() {
    let suite: Value = serde_json::from_str(include_str!("../../e2e/model-tests.json")).expect("the suite is JSON");
    let program = suite["program"].as_str().unwrap();
    let cases = suite["cases"].as_array().unwrap();
    let requests: Vec<ProgramRequest> = cases
        .iter()
        .map(|case| {
            let tests =
                case["tests"].as_array().unwrap().iter().map(|t| TestCase::Statement(t.as_str().unwrap().into()));
            ProgramRequest { data_tests: true, ..ProgramRequest::new(program, tests.collect()).verdict_only() }
        })
        .collect();
    let verdicts = run_all(&requests, 5_000, 2, |_| {});
    let mut refused = 0;
    for (case, verdict) in cases.iter().zip(verdicts) {
        let verdict = verdict.expect("python3 runs the harness");
        let kinds: Vec<String> = verdict
            .tests
            .iter()
            .map(|t| if t.passed { "passed".to_owned() } else { t.kind.clone().unwrap_or_default() })
            .collect();
        let expected: Vec<&str> = case["expect"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(kinds, expected, "{}: {verdict:?}", case["name"]);
        refused += kinds.iter().filter(|k| *k == "refused").count();
    }
    assert!(refused >= 15, "{refused}");
    assert!(!std::path::Path::new("written-by-a-test").exists(), "no test wrote a file");
}
