//! The recorded verdicts in `tasks/` must be what real Python says: every program of every bundled
//! task runs through the shared harness with the machine's python3; seed 003's reference programs pass
//! and its drafts fail.

use cli::python::run_all;
use engine::env::tasks::{BundledProgram, executive_programs, planner_programs, seed003_tasks};
use engine::python::ProgramRequest;

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

#[test]
fn seed003_references_pass_and_drafts_fail_in_real_python() {
    let tasks = seed003_tasks();
    let requests: Vec<_> = tasks
        .iter()
        .flat_map(|t| [&t.reference, &t.draft].map(|code| ProgramRequest::with_statements(code.clone(), &t.tests)))
        .collect();
    let verdicts: Vec<_> = run_all(&requests, 5_000, 2, |_| {})
        .into_iter()
        .map(|v| v.expect("python3 runs the harness").verdict())
        .collect();
    for (task, pair) in tasks.iter().zip(verdicts.chunks(2)) {
        assert!(pair[0].passed, "{}: the reference passes: {:?}", task.id, pair[0]);
        assert!(!pair[1].passed, "{}: the draft fails a test: {:?}", task.id, pair[1]);
    }
}

#[test]
fn the_search_banks_correct_programs_pass_and_each_fault_fails_as_labelled() {
    use engine::python::Outcome;
    use engine::search::bank::{FaultKind, search_tasks};
    let tasks = search_tasks();
    let mut requests = Vec::new();
    let mut labels = Vec::new();
    for task in tasks.iter() {
        let correct = vec![None; task.slots.len()];
        requests.push(ProgramRequest::with_statements(task.program(&correct), &task.tests));
        labels.push((task.id.clone(), None));
        for (slot, s) in task.slots.iter().enumerate() {
            for (f, fault) in s.faults.iter().enumerate() {
                let mut choices = correct.clone();
                choices[slot] = Some(f);
                requests.push(ProgramRequest::with_statements(task.program(&choices), &task.tests));
                labels.push((format!("{} slot {slot} fault {f}", task.id), Some(fault.kind)));
            }
        }
    }
    let verdicts = run_all(&requests, 5_000, 2, |_| {});
    for ((label, kind), verdict) in labels.iter().zip(verdicts) {
        let verdict = verdict.expect("python3 runs the harness");
        match kind {
            None => assert!(verdict.passed, "{label}: {verdict:?}"),
            Some(FaultKind::Syntax) => assert_eq!(verdict.outcome, Outcome::CompileError, "{label}"),
            Some(FaultKind::Logic) => {
                assert!(
                    !verdict.passed && verdict.number_passed > 0,
                    "{label}: a logic fault fails some tests, not all"
                );
                assert!(
                    !matches!(verdict.outcome, Outcome::CompileError | Outcome::Timeout),
                    "{label}: {:?}",
                    verdict.outcome
                );
            }
        }
    }
    assert_eq!(labels.len(), 10 + 65, "ten reference programs and 65 faults");
}
