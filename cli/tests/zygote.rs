//! A program that ends or stops the zygote (issue 48). The sandbox keeps every candidate from the
//! zygote (cli/tests/sandbox.rs shows it); this test opens that door with `--unsafe-python`, in a
//! test binary of its own since the setting is the process's, to show what happens if a program
//! ever got through: its verdict says so, and every later program is judged as if nothing had
//! happened, by a fresh judge whose zygote was forked before any request.
#![cfg(target_os = "linux")]

use cli::python::NativePython;
use engine::python::{Outcome, ProgramRequest, TestCase};

#[test]
fn a_killed_or_stopped_zygote_is_noticed_and_every_later_program_is_judged_as_before() {
    cli::sandbox::run_unconfined();
    let mut python = NativePython::start().unwrap();
    let tests = vec![TestCase::Statement("assert f(1) == 2".into())];
    let right = ProgramRequest::new("def f(x):\n    return x + 1\n", tests.clone());
    let wrong = ProgramRequest::new("def f(x):\n    return x\n", tests.clone());
    for signal in [9, 19] {
        // Beneath the audit hooks (a second interpreter), which refuse os.kill.
        let attack = format!(
            "import _xxsubinterpreters as i\ni.run_string(i.create(), 'import os, time\\nos.kill(os.getppid(), {signal})\\ntime.sleep(0.2)')\ndef f(x):\n    return x + 1\n"
        );
        let verdict = python.run(&ProgramRequest::new(attack, tests.clone()), 20_000).unwrap();
        assert_eq!(verdict.outcome, Outcome::Tampered, "signal {signal}: {verdict:?}");
        assert!(verdict.caught.iter().any(|c| c.contains("zygote")), "{verdict:?}");
        for (request, outcome) in [(&right, Outcome::Pass), (&wrong, Outcome::FailedTest), (&right, Outcome::Pass)] {
            assert_eq!(python.run(request, 20_000).unwrap().outcome, outcome, "after signal {signal}");
        }
    }
}
