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

/// A bank's own-test pool holds by the harness: its reference passes every test of the pool, as
/// data tests (the way the tests a model writes run), and each logic fault fails exactly its
/// `own_fails`. Returns how many logic faults the pool catches.
fn assert_own_tests_hold(bank: &engine::search::offline::bank::BankTask) -> usize {
    use engine::python::{FaultKind, TestCase};
    let pool: Vec<TestCase> = bank.own_tests.iter().cloned().map(TestCase::Statement).collect();
    let as_data = |code: String| ProgramRequest {
        data_tests: true,
        ..ProgramRequest::new(code, pool.clone()).with_task(bank.task_code.clone()).verdict_only()
    };
    let correct = vec![None; bank.slots.len()];
    let mut requests = vec![as_data(bank.program(&correct))];
    let mut expected = vec![(format!("{} reference", bank.id), Vec::new())];
    for (slot, f, choices) in bank.single_faults() {
        let fault = &bank.slots[slot].faults[f];
        if fault.kind == FaultKind::Logic {
            requests.push(as_data(bank.program(&choices)));
            expected.push((format!("{} slot {slot} fault {f}", bank.id), fault.own_fails.clone()));
        }
    }
    for ((label, own_fails), verdict) in expected.iter().zip(run_all(&requests, 5_000, 2, |_| {})) {
        let verdict = verdict.expect("python3 runs the harness");
        assert_eq!(verdict.tests.len(), pool.len(), "{label}: {verdict:?}");
        let failed: Vec<usize> = (0..pool.len()).filter(|&i| !verdict.tests[i].passed).collect();
        assert_eq!(&failed, own_fails, "{label}: the pool's tests it fails, {:?}", verdict.tests);
    }
    expected.iter().filter(|(_, own_fails)| !own_fails.is_empty()).count()
}

#[test]
fn the_search_banks_correct_programs_pass_and_each_fault_fails_as_labelled() {
    use engine::python::{Outcome, TestCase};
    use engine::search::offline::bank::{FaultKind, search_tasks};
    let tasks = search_tasks();
    let mut requests = Vec::new();
    let mut labels = Vec::new();
    let mut fails = Vec::new();
    for task in tasks.iter() {
        let correct = vec![None; task.slots.len()];
        requests.push(ProgramRequest::new(task.program(&correct), task.tests.clone()));
        labels.push((task.id.clone(), None));
        fails.push(Vec::new());
        for (slot, f, choices) in task.single_faults() {
            requests.push(ProgramRequest::new(task.program(&choices), task.tests.clone()));
            labels.push((format!("{} slot {slot} fault {f}", task.id), Some(task.slots[slot].faults[f].kind)));
            fails.push(task.slots[slot].faults[f].fails.clone());
        }
    }
    let verdicts = run_all(&requests, 5_000, 2, |_| {});
    for (((label, kind), verdict), fails) in labels.iter().zip(verdicts).zip(fails) {
        let verdict = verdict.expect("python3 runs the harness");
        match kind {
            None => assert!(verdict.passed, "{label}: {verdict:?}"),
            Some(FaultKind::Syntax) => assert_eq!(verdict.outcome, Outcome::CompileError, "{label}"),
            Some(FaultKind::Crash) => assert_eq!(verdict.outcome, Outcome::RuntimeError, "{label}"),
            Some(FaultKind::Logic) => {
                // The tests a logic fault alone fails are what its `fails` records.
                let failed: Vec<usize> = (0..verdict.tests.len()).filter(|&i| !verdict.tests[i].passed).collect();
                assert_eq!(failed, fails, "{label}");
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
    // Each task's own-test pool: eight tests none of its tests makes, which catch 38 of its 40
    // logic faults (a run of ten or more in rle_encode, and five dot-separated parts in valid_ipv4,
    // pass them all, as tests a person writes miss a case).
    let mut caught = 0;
    for task in tasks.iter() {
        assert_eq!(task.own_tests.len(), 8, "{}", task.id);
        let pool: Vec<TestCase> = task.own_tests.iter().cloned().map(TestCase::Statement).collect();
        assert!(pool.iter().all(|own| !task.tests.contains(own)), "{}: a pool test is a task test", task.id);
        caught += assert_own_tests_hold(task);
    }
    assert_eq!(caught, 38);
}

#[test]
fn every_sample_task_gets_a_bank_by_mutation_whose_faults_behave_as_labelled() {
    use engine::python::Outcome;
    use engine::search::offline::bank::{BankTask, FaultKind, MUTANTS_LIMIT_MS};
    use engine::task_import::parse_task_file;
    let mut tasks = Vec::new();
    for file in ["humaneval.jsonl", "apps.json"] {
        let path = format!("{}/../tasks/samples/{file}", env!("CARGO_MANIFEST_DIR"));
        tasks.extend(parse_task_file(file, &std::fs::read_to_string(path).unwrap()).unwrap());
    }
    let requests: Vec<ProgramRequest> = tasks.iter().map(|t| BankTask::mutants_request(t).unwrap()).collect();
    let verdicts = run_all(&requests, MUTANTS_LIMIT_MS, 2, |_| {});
    let (mut logic, mut syntax) = (0, 0);
    let (mut pools, mut caught, mut pooled_logic) = (0, 0, 0);
    for (task, verdict) in tasks.iter().zip(verdicts) {
        let bank = BankTask::from_mutants(task, &verdict.unwrap()).unwrap_or_else(|e| panic!("{e}"));
        if !bank.own_tests.is_empty() {
            pools += 1;
            caught += assert_own_tests_hold(&bank);
            pooled_logic += bank.slots.iter().flat_map(|s| &s.faults).filter(|f| f.kind == FaultKind::Logic).count();
        }
        let correct = vec![None; bank.slots.len()];
        assert_eq!(bank.program(&correct).trim(), task.solution.trim(), "{}", task.id);
        let mut requests = Vec::new();
        let mut kinds = Vec::new();
        for (slot, s) in bank.slots.iter().enumerate() {
            for (f, fault) in s.faults.iter().enumerate() {
                let mut choices = correct.clone();
                choices[slot] = Some(f);
                assert_eq!(bank.parse(&bank.program(&choices)), Some(choices.clone()), "{} reads back", task.id);
                requests.push(ProgramRequest::new(bank.program(&choices), task.tests.clone()).verdict_only());
                kinds.push((slot, fault.kind, fault.fails.clone()));
            }
        }
        for ((slot, kind, fails), verdict) in kinds.into_iter().zip(run_all(&requests, 5_000, 2, |_| {})) {
            let verdict = verdict.unwrap();
            let label = format!("{} slot {slot}", task.id);
            match kind {
                FaultKind::Syntax => {
                    syntax += 1;
                    assert_eq!(verdict.outcome, Outcome::CompileError, "{label}");
                }
                FaultKind::Logic => {
                    logic += 1;
                    assert!(!verdict.passed, "{label}: a logic fault fails a test");
                    let failed: Vec<usize> = (0..verdict.tests.len()).filter(|&i| !verdict.tests[i].passed).collect();
                    assert_eq!(failed, fails, "{label}: the tests its bank says it fails");
                    assert!(!matches!(verdict.outcome, Outcome::CompileError | Outcome::Timeout), "{label}");
                }
                FaultKind::Crash => panic!("{label}: mutation makes no crash faults, only logic and syntax ones"),
            }
        }
    }
    // 16 sample tasks; every one has faults of both kinds between them.
    assert_eq!(tasks.len(), 16);
    // The twelve HumanEval tasks and the APPS one tested by calls of a function (two_sum) get an
    // own-test pool (those tested by standard input or of a class's method, none) that catches
    // nearly all of their logic faults.
    assert_eq!(pools, 13);
    assert!(caught * 10 >= pooled_logic * 9, "{caught} of {pooled_logic} logic faults caught by the pools");
    assert!(logic >= 16 && syntax >= 16, "{logic} logic and {syntax} syntax faults");
}

#[test]
fn autopep8_repairs_an_indentation_slip_before_the_program_is_scored_as_the_official_code_does() {
    // An over-indented line: a SyntaxError as written, a passing program once autopep8 has fixed it.
    let slipped = "def inc(x):\n    y = x + 1\n     return y\n";
    let tests = ["assert inc(1) == 2".to_owned(), "assert inc(-1) == 0".to_owned()];
    let plain = ProgramRequest::with_statements(slipped, &tests);
    let formatted = ProgramRequest { autopep8: true, ..plain.clone() };
    let tidy =
        ProgramRequest { autopep8: true, ..ProgramRequest::with_statements("def inc(x):\n    return x + 1\n", &tests) };
    let verdicts: Vec<_> =
        run_all(&[plain, formatted, tidy], 5_000, 2, |_| {}).into_iter().map(|v| v.expect("python3 runs")).collect();
    assert_eq!(verdicts[0].outcome, engine::python::Outcome::CompileError);
    assert!(verdicts[0].formatted.is_none());
    assert!(verdicts[1].passed, "{:?}", verdicts[1]);
    assert_eq!(verdicts[1].formatted.as_deref(), Some("def inc(x):\n    y = x + 1\n    return y\n"));
    // A program autopep8 leaves as it is carries no `formatted`.
    assert!(verdicts[2].passed && verdicts[2].formatted.is_none());
}

#[test]
fn every_bank_program_reads_back_after_autopep8_formats_it() {
    // The simulated LLM reads the programs it is shown, which autopep8 formatted, back into the slot
    // choices it wrote: for every program with at most one fault of every bundled bank.
    use engine::search::offline::bank::search_tasks;
    use engine::search::world_model_tasks::world_model_tasks;
    let (mut requests, mut expected) = (Vec::new(), Vec::new());
    for task in search_tasks().iter().chain(world_model_tasks().iter()) {
        let correct = vec![None; task.slots.len()];
        let programs = std::iter::once(correct).chain(task.single_faults().map(|(_, _, choices)| choices));
        for choices in programs {
            let request = ProgramRequest { autopep8: true, ..ProgramRequest::new(task.program(&choices), Vec::new()) };
            requests.push(request.verdict_only());
            expected.push((task.clone(), choices));
        }
    }
    let (mut reformatted, mut unread) = (0, Vec::new());
    for ((task, choices), verdict) in expected.into_iter().zip(run_all(&requests, 20_000, 2, |_| {})) {
        let Some(formatted) = verdict.expect("python3 runs the harness").formatted else { continue };
        reformatted += 1;
        if task.parse(&formatted).as_ref() != Some(&choices) {
            unread.push(format!("{} {choices:?}:\n{formatted}", task.id));
        }
    }
    assert!(
        unread.is_empty(),
        "{} of {reformatted} formatted programs do not read back:\n{}",
        unread.len(),
        unread.join("\n")
    );
    assert!(reformatted > 50, "{reformatted}");
}
