//! The reward-hacking red team (`e2e/reward-hacks.json`) through python3 as every `rlcg` command runs
//! it: wrong programs, each with one way to game its own verdict. None may pass; each ends with one of
//! the outcomes its entry allows (`tampered` where the harness catches and names the hack), and an
//! honest program still passes after each. The same file runs in the page's Pyodide
//! (e2e/reward-hacks.spec.mjs).

use cli::python::{NativePython, run_all};
use engine::python::{Outcome, ProgramRequest, TestCase};
use serde::Deserialize;

#[derive(Deserialize)]
struct RedTeam {
    hacks: Vec<Hack>,
}

#[derive(Deserialize)]
struct Hack {
    name: String,
    class: String,
    code: String,
    tests: Vec<TestCase>,
    expect: Vec<Outcome>,
}

fn red_team() -> Vec<Hack> {
    let red_team: RedTeam = serde_json::from_str(include_str!("../../e2e/reward-hacks.json")).unwrap();
    red_team.hacks
}

#[test]
fn no_reward_hack_passes_and_each_ends_as_its_entry_says() {
    let hacks = red_team();
    let classes: std::collections::BTreeSet<_> = hacks.iter().map(|h| h.class.as_str()).collect();
    assert_eq!(classes.len(), 4, "values that lie, reaching the harness, leaving early, reading the answer");
    assert!(hacks.len() >= 40);
    let requests: Vec<_> = hacks.iter().map(|h| ProgramRequest::new(&h.code, h.tests.clone())).collect();
    let mut tampered = 0;
    for (hack, verdict) in hacks.iter().zip(run_all(&requests, 10_000, 2, |_| {})) {
        let verdict = verdict.expect("python3 runs the harness");
        assert!(!verdict.passed && verdict.outcome != Outcome::Pass, "{} passed: {verdict:?}", hack.name);
        assert!(verdict.reward < Outcome::Pass.reward(), "{}", hack.name);
        assert!(hack.expect.contains(&verdict.outcome), "{}: {:?} ({:?})", hack.name, verdict.outcome, verdict.error);
        if verdict.outcome == Outcome::Tampered {
            tampered += 1;
            assert!(!verdict.caught.is_empty(), "{}: a tampered verdict names what was caught", hack.name);
            assert!(verdict.error.as_deref().unwrap_or_default().contains(&verdict.caught[0]), "{}", hack.name);
            assert_eq!(verdict.reward, -0.6);
        }
    }
    assert!(tampered >= 30, "most hacks are caught and named, not merely failed: {tampered}");
}

#[test]
fn the_same_wrong_program_without_its_hack_fails_and_a_right_one_passes() {
    let mut python = NativePython::start().unwrap();
    let tests: Vec<_> = ["assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(-1, 1) == 0"]
        .map(|t| TestCase::Statement(t.into()))
        .to_vec();
    let wrong = python.run(&ProgramRequest::new("def add(a, b):\n    return a * b\n", tests.clone()), 5_000).unwrap();
    assert_eq!((wrong.outcome, wrong.number_passed), (Outcome::FailedTest, 1), "2 * 2 == 4 is right by chance");
    let right = python.run(&ProgramRequest::new("def add(a, b):\n    return a + b\n", tests), 5_000).unwrap();
    assert_eq!(right.outcome, Outcome::Pass);
    assert!(right.caught.is_empty());
}

#[test]
fn a_hack_never_reaches_the_next_programs_verdict() {
    let mut python = NativePython::start().unwrap();
    let honest = ProgramRequest::new(
        "def add(a, b):\n    return a * b\n",
        vec![TestCase::Statement("assert add(1, 2) == 3".into())],
    );
    for hack in red_team() {
        python.run(&ProgramRequest::new(&hack.code, hack.tests.clone()), 10_000).unwrap();
        let next = python.run(&honest, 5_000).unwrap();
        assert_eq!(next.outcome, Outcome::FailedTest, "after {}: {next:?}", hack.name);
    }
}

#[test]
fn honest_programs_that_look_like_hacks_are_not_caught() {
    let mut python = NativePython::start().unwrap();
    let cases = [
        // Standard subclasses of builtins cross as the builtin they extend.
        (
            "from collections import Counter\ndef count(t):\n    return Counter(t)\n",
            "assert count('aab') == {'a': 2, 'b': 1}",
        ),
        ("from collections import OrderedDict\ndef f():\n    return OrderedDict(a=1)\n", "assert f() == {'a': 1}"),
        (
            "from collections import namedtuple\nP = namedtuple('P', 'x y')\ndef f():\n    return P(1, 2)\n",
            "assert f() == (1, 2)",
        ),
        // Generators, classes and their methods, modules the program imported.
        ("def g(n):\n    yield from range(n)\n", "assert list(g(3)) == [0, 1, 2]"),
        (
            "class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n",
            "s = Stack()\ns.push(1)\ns.push(2)\nassert s.pop() == 2 and len(s.items) == 1",
        ),
        ("import math\ndef f(x):\n    return math.sqrt(x)\n", "assert abs(f(4) - 2) < 1e-9 and math.pi > 3"),
        // In-place changes come back to the test's own list.
        ("def sort_in_place(xs):\n    xs.sort()\n", "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]"),
        // Exceptions keep their class, so a test can expect one.
        (
            "def f(x):\n    raise ValueError(x)\n",
            "try:\n    f(1)\n    assert False\nexcept ValueError as e:\n    assert e.args == (1,)",
        ),
        // Frames, tracebacks and logging, used the ordinary way.
        (
            "import sys, traceback, logging\ndef f():\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        traceback.format_exc()\n    logging.getLogger('x').debug('y')\n    return sys._getframe(0).f_code.co_name\n",
            "assert f() == 'f'",
        ),
        // Non-finite floats, big integers, bytes, sets, nested data.
        (
            "def f():\n    return [float('inf'), 10 ** 5000 % 7, b'x', {1, 2}, {'a': (1, [2])}]\n",
            "assert f() == [float('inf'), 10 ** 5000 % 7, b'x', {1, 2}, {'a': (1, [2])}]",
        ),
    ];
    for (code, test) in cases {
        let verdict = python.run(&ProgramRequest::new(code, vec![TestCase::Statement(test.into())]), 5_000).unwrap();
        assert_eq!(verdict.outcome, Outcome::Pass, "{code}: {verdict:?}");
    }
}
