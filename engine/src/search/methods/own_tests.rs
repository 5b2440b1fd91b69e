//! Tests that a search writes for itself, as LATS and Reflexion use them (their official
//! `programming/` code): the LLM writes `assert` lines for the task, a few are sampled, every
//! program runs on them, and what came of it is fed back in the official format ("Tested passed:" …
//! "Tests failed:" … `# output: …`), with a reflection on why the program fails. These tests are
//! the method's only judge of a program; the task's own tests stay hidden from it.
//!
//! Ours, where the official code differs: a test the model wrote runs as data only (the judge asks
//! the program for the call and compares with the literal; `ProgramRequest::data_tests`), where the
//! official executor `exec`s any line with the program. A line that is not such a test is refused and
//! left out of the count, where the official code drops lines that do not compile before sampling.

use rand::seq::IndexedRandom;

use crate::python::ProgramVerdict;
use crate::rng::RunRng;
use crate::search::method::{ActionKind, Ask, Expansion, TextAct, TextAsk};
use crate::search::scorer::{FailingExample, Score};
use crate::search::tree::SelfTestedNode;

/// The tests in an LLM's reply: its lines that start with `assert` (the official parser keeps every
/// line that holds the word), `n` of them drawn at random when there are more (`sample_n_random`).
pub fn tests_in(reply: &str, n: usize, rng: &mut RunRng) -> Vec<String> {
    let lines: Vec<String> =
        reply.lines().map(str::trim).filter(|line| line.starts_with("assert")).map(str::to_owned).collect();
    if lines.len() <= n {
        return lines;
    }
    lines.choose_multiple(rng, n).cloned().collect()
}

/// A program's results on the tests a model wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelfTested {
    /// The tests it ran on, as the model wrote them.
    pub tests: Vec<String>,
    pub passed: Vec<String>,
    /// Each failed test with what the call gave (or the error).
    pub failed: Vec<(String, String)>,
    /// Tests the judge refused to run (not data).
    pub refused: Vec<String>,
}

impl SelfTested {
    /// The results of `tests` in `verdict`; a test without a result there (the program did not
    /// compile, or was stopped) failed with the program's error, as the official executor's does.
    pub fn of(tests: &[String], verdict: &ProgramVerdict) -> Self {
        let mut tested = Self { tests: tests.to_vec(), ..Self::default() };
        for test in tests {
            let result = verdict.tests.iter().find(|result| &result.test == test);
            match result {
                Some(result) if result.passed => tested.passed.push(test.clone()),
                Some(result) if result.kind.as_deref() == Some("refused") => tested.refused.push(test.clone()),
                _ => {
                    let output = result.and_then(|r| r.actual.clone().or_else(|| r.error.clone()));
                    let output = output.or_else(|| verdict.error.clone()).unwrap_or_else(|| "the test failed".into());
                    tested.failed.push((test.clone(), output));
                }
            }
        }
        tested
    }

    /// Every test it ran passed (so a program with no test to run passes, as in the official code).
    pub fn passes(&self) -> bool {
        self.failed.is_empty()
    }

    /// Why a program that [`SelfTested::passes`] is the method's answer, `program` naming it ("the
    /// root"): it passed the tests it ran, or it ran none, which the official code counts as a pass.
    pub fn why_the_answer(&self, program: &str) -> String {
        if !self.passed.is_empty() {
            return format!("{program} passed its internal tests: it is the answer");
        }
        let written = match self.refused.len() {
            0 => "the model wrote no test".to_owned(),
            refused => format!("the model wrote no test that runs as data: {refused} refused"),
        };
        format!(
            "{program} ran none of its own tests ({written}), which the official code counts as passing: it is the answer"
        )
    }

    /// The share of the tests run that passed: LATS's internal reward (0 when none ran, where the
    /// official code divides by zero).
    pub fn fraction(&self) -> f64 {
        let run = self.passed.len() + self.failed.len();
        if run == 0 { 0.0 } else { self.passed.len() as f64 / run as f64 }
    }

    /// The first test it failed, with what that gave: the one a reflection names.
    pub fn first_failure(&self) -> Option<&(String, String)> {
        self.failed.first()
    }

    /// What a tree node shows of it, with the node's reflection, whether its hidden tests passed
    /// when the method looked, and LATS's backed-up value.
    pub fn node(tested: Option<&Self>, reflection: &str, hidden: Option<bool>, value: Option<f64>) -> SelfTestedNode {
        SelfTestedNode {
            tests: tested.map(|t| t.tests.clone()).unwrap_or_default(),
            feedback: tested.map(Self::feedback).unwrap_or_default(),
            refused: tested.map(|t| t.refused.clone()).unwrap_or_default(),
            internal: tested.map(Self::fraction),
            reflection: reflection.to_owned(),
            hidden,
            value,
        }
    }

    /// The results as the official executor words them, which the prompts show.
    pub fn feedback(&self) -> String {
        let mut text = String::from("Tested passed:");
        for test in &self.passed {
            text.push_str(&format!("\n{test}"));
        }
        text.push_str("\n\nTests failed:");
        for (test, output) in &self.failed {
            text.push_str(&format!("\n{test} # output: {output}"));
        }
        text
    }
}

/// The call that rewrites `program` from its results (LATS's generation with the path's context,
/// Reflexion's retry): an improve, whose example is its first failing test and what that gave, so
/// that the simulated LLM can tell which fault the test implicates.
pub fn rewrite(program: &str, tested: Option<&SelfTested>) -> Expansion {
    let example = tested.and_then(SelfTested::first_failure).map(|(test, output)| FailingExample {
        input: test.clone(),
        expected: String::new(),
        actual: output.clone(),
        test: None,
        wrong: Vec::new(),
    });
    let internal = tested.map_or(0.0, SelfTested::fraction);
    let parent = Score { score: internal, example, ..Score::default() };
    Expansion { kind: ActionKind::Improve, code: program.to_owned(), parent: Some(parent) }
}

/// The call that reflects on `program` and its results.
pub fn reflect(program: &str, tested: Option<&SelfTested>) -> Ask {
    Ask::Text(TextAsk {
        act: TextAct::Reflect,
        code: program.to_owned(),
        feedback: tested.map(SelfTested::feedback).unwrap_or_default(),
        failing: tested.and_then(SelfTested::first_failure).map(|(test, _)| test.clone()),
    })
}

/// One program of a path as the generation prompt recalls it.
pub struct Attempt<'a> {
    pub program: &'a str,
    pub feedback: String,
    pub reflection: &'a str,
}

/// The accumulated context of a generation prompt (`generate_with_accumulated_context`): each
/// earlier attempt with its test results and reflection, the earliest first.
pub fn history(attempts: &[Attempt]) -> String {
    let entries: Vec<String> = attempts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let n = i + 1;
            format!(
                "[previous impl {n}]:\n```python\n{}\n```\n[unit test results from previous impl {n}]:\n{}\n[reflection on previous impl {n}]:\n{}",
                a.program.trim_end(),
                a.feedback,
                a.reflection
            )
        })
        .collect();
    entries.join("\n\n")
}

/// A verdict on tests `assert f(i) == i`, the i-th passed as `passed[i]` says (a failed one gave 0).
#[cfg(test)]
pub(super) fn verdict_on(passed: &[bool]) -> ProgramVerdict {
    use crate::python::{Outcome, ProgramRequest, TestResult};
    let tests = passed
        .iter()
        .enumerate()
        .map(|(i, &p)| TestResult {
            test: format!("assert f({i}) == {i}"),
            passed: p,
            kind: (!p).then(|| "assertion".into()),
            actual: (!p).then(|| "0".into()),
            ..TestResult::default()
        })
        .collect();
    let host = ProgramVerdict::from_host(&ProgramRequest::new("", Vec::new()), Outcome::FailedTest, String::new(), 0.0);
    ProgramVerdict { tests, error: None, ..host }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::python::{Outcome, ProgramRequest, ProgramVerdict, TestResult};

    fn result(test: &str, passed: bool, kind: Option<&str>, actual: Option<&str>) -> TestResult {
        TestResult {
            test: test.into(),
            passed,
            kind: kind.map(str::to_owned),
            error: None,
            input: None,
            expected: None,
            actual: actual.map(str::to_owned),
        }
    }

    #[test]
    fn the_feedback_is_the_official_executors_and_refused_tests_are_left_out_of_the_count() {
        let verdict = ProgramVerdict {
            tests: vec![
                result("assert add(1, 2) == 3", true, None, None),
                result("assert add(1, 2) == 4", false, Some("assertion"), Some("3")),
                result("assert open('x') == 1", false, Some("refused"), None),
            ],
            error: None,
            ..ProgramVerdict::from_host(&ProgramRequest::new("", Vec::new()), Outcome::FailedTest, String::new(), 0.0)
        };
        let asked = ["assert add(1, 2) == 3", "assert add(1, 2) == 4", "assert open('x') == 1"].map(String::from);
        let tested = SelfTested::of(&asked, &verdict);
        assert_eq!(
            tested.feedback(),
            "Tested passed:\nassert add(1, 2) == 3\n\nTests failed:\nassert add(1, 2) == 4 # output: 3"
        );
        assert_eq!(tested.fraction(), 0.5);
        assert!(!tested.passes());
        assert_eq!(tested.refused, ["assert open('x') == 1"]);
        // Nothing run: it passes, and its reward is 0.
        let none = SelfTested::default();
        assert!(none.passes());
        assert_eq!(none.fraction(), 0.0);
        // ...and the method's answer says why it is one (issue 72: "the root passed its internal
        // tests" beside "0% passed" read as a contradiction).
        assert_eq!(
            none.why_the_answer("the root"),
            "the root ran none of its own tests (the model wrote no test), which the official code counts as passing: it is the answer"
        );
        let all_refused = SelfTested::of(&asked[2..], &verdict);
        assert!(all_refused.passes());
        assert_eq!(
            all_refused.why_the_answer("a child"),
            "a child ran none of its own tests (the model wrote no test that runs as data: 1 refused), which the official code counts as passing: it is the answer"
        );
        let passing = SelfTested::of(&asked[..1], &verdict);
        assert_eq!(passing.why_the_answer("the program"), "the program passed its internal tests: it is the answer");
        // A program that did not compile has no test results: each test failed with its error.
        let broken = ProgramVerdict {
            error: Some("SyntaxError: invalid syntax (line 2)".into()),
            ..ProgramVerdict::from_host(&ProgramRequest::new("", Vec::new()), Outcome::CompileError, String::new(), 0.0)
        };
        let tested = SelfTested::of(&asked[..1], &broken);
        assert_eq!(tested.failed, [(asked[0].clone(), "SyntaxError: invalid syntax (line 2)".to_owned())]);
        assert!(!tested.passes());
    }

    #[test]
    fn tests_are_the_replys_assert_lines_n_drawn_when_there_are_more() {
        let reply =
            "Here they are:\n```python\nassert f(1) == 1\n  assert f(2) == 4\n# f(3) is 9\nassert f(3) == 9\n```";
        let mut rng = RunRng::seed_from_u64(1);
        assert_eq!(tests_in(reply, 5, &mut rng), ["assert f(1) == 1", "assert f(2) == 4", "assert f(3) == 9"]);
        let two = tests_in(reply, 2, &mut rng);
        assert_eq!(two.len(), 2);
        assert!(two.iter().all(|t| t.starts_with("assert f(")) && two[0] != two[1]);
    }

    #[test]
    fn the_history_lists_each_attempt_in_the_official_layout() {
        let attempts = [
            Attempt {
                program: "def f(x):\n    return x\n",
                feedback: "Tested passed:\n\nTests failed:".into(),
                reflection: "r1",
            },
            Attempt { program: "def f(x):\n    return 2 * x", feedback: "fb2".into(), reflection: "" },
        ];
        assert_eq!(
            history(&attempts),
            "[previous impl 1]:\n```python\ndef f(x):\n    return x\n```\n[unit test results from previous impl 1]:\nTested passed:\n\nTests failed:\n[reflection on previous impl 1]:\nr1\n\n[previous impl 2]:\n```python\ndef f(x):\n    return 2 * x\n```\n[unit test results from previous impl 2]:\nfb2\n[reflection on previous impl 2]:\n"
        );
    }
}
