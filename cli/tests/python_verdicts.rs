//! The recorded verdicts in `tasks/` must be what real Python says: every program of every bundled
//! task runs through the shared harness with the machine's python3.

use cli::python::run_all;
use engine::env::tasks::{BundledProgram, executive_programs, planner_programs};

fn assert_recorded_verdicts_are_pythons(programs: &[BundledProgram]) {
    let requests: Vec<_> = programs.iter().map(BundledProgram::request).collect();
    for (program, verdict) in programs.iter().zip(run_all(&requests, 5_000, 2, |_| {})) {
        let verdict = verdict.expect("python3 runs the harness").verdict();
        assert_eq!(program.recorded, verdict, "{} / {}", program.task_id, program.variant);
    }
}

#[test]
fn executive_verdicts_match_real_python() {
    let programs = executive_programs();
    assert_eq!(programs.len(), 10);
    assert_recorded_verdicts_are_pythons(&programs);
    // The data is not trivially all-passing: each task has a failing variant.
    for task_id in programs.iter().map(|p| &p.task_id) {
        assert!(programs.iter().any(|p| &p.task_id == task_id && !p.recorded.passed), "{task_id}");
    }
}

#[test]
fn planner_verdicts_match_real_python() {
    let programs = planner_programs();
    assert_eq!(programs.len(), 4, "the integrated program and three subtasks");
    assert!(programs[0].recorded.passed, "the integrated code passes the planner's tests");
    assert_recorded_verdicts_are_pythons(&programs);
}
