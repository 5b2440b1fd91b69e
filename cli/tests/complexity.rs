//! The harness's complexity analyzer (seed 003's metrics, `static/python/harness/analysis.py`) on one
//! program per construct, each against numbers worked by hand from its rules: cyclomatic = 1 +
//! decision points (if, conditional expression, loop, except, match case, each comprehension and
//! its filters, each extra operand of a boolean operator); cognitive = SonarSource's increments
//! (+1 per break in linear flow, plus the nesting level for nested ones; +1 per boolean operator
//! sequence, per `else`/`elif`, per recursive call); nesting = the deepest control structure.

use cli::python::NativePython;
use engine::python::ProgramRequest;

/// (name, program, cyclomatic, cognitive, max_nesting, non-empty lines)
const CASES: [(&str, &str, u32, u32, u32, u32); 7] = [
    (
        // for (+1, nesting 0) holding while (+1 + 1 of nesting).
        "loops",
        "def f(xs):\n    total = 0\n    for x in xs:\n        while x > 0:\n            x -= 1\n            total += x\n    return total\n",
        3,
        3,
        2,
        7,
    ),
    (
        // `a and b or c` is two operator sequences: two decisions, +2 cognitive; the if +1.
        "boolean operators",
        "def g(a, b, c):\n    if a and b or c:\n        return 1\n    return 0\n",
        4,
        3,
        1,
        4,
    ),
    (
        // Two comprehensions (+1 each) with one and two filters (+3): cyclomatic 6; no cognitive
        // increment, no nesting.
        "comprehensions",
        "def h(xs):\n    return [x * y for x in xs if x > 0 for y in xs if y < x if y]\n",
        6,
        0,
        0,
        2,
    ),
    (
        // Two handlers (+1 each, both measures); else and finally add nothing; try nests 1.
        "try/except/else/finally",
        "def k(s):\n    try:\n        n = int(s)\n    except ValueError:\n        n = 0\n    except TypeError:\n        n = -1\n    else:\n        n += 1\n    finally:\n        pass\n    return n\n",
        3,
        2,
        1,
        12,
    ),
    (
        // for (+1) holding if (+1 + 1) with elif (+1) and else (+1); the loop's else +1.
        "else branches",
        "def m(xs, t):\n    for x in xs:\n        if x == t:\n            break\n        elif x > t:\n            continue\n        else:\n            pass\n    else:\n        return -1\n    return 0\n",
        4,
        6,
        2,
        11,
    ),
    (
        // Three cases (+3 cyclomatic); the match itself +1 cognitive, guards add nothing.
        "match",
        "def n(cmd):\n    match cmd:\n        case \"go\":\n            return 1\n        case \"stop\" if True:\n            return 2\n        case _:\n            return 0\n",
        4,
        1,
        1,
        8,
    ),
    (
        // if (+1), for (+1+1), while (+1+2), a conditional expression inside (+1+3) and the
        // recursive call (+1): cognitive 11; three levels of nesting.
        "nesting and recursion",
        "def fact(n):\n    if n > 1:\n        for i in range(2):\n            while i:\n                i = 0 if i > 5 else i - 1\n        return n * fact(n - 1)\n    return 1\n",
        5,
        11,
        3,
        7,
    ),
];

#[test]
fn complexity_matches_the_numbers_worked_by_hand() {
    let mut python = NativePython::start().expect("python3 runs the harness");
    for (name, code, cyclomatic, cognitive, nesting, lines) in CASES {
        let verdict = python.run(&ProgramRequest::with_statements(code, &[]), 5_000).unwrap();
        let c = verdict.complexity.unwrap_or_else(|| panic!("{name}: no complexity ({verdict:?})"));
        assert_eq!(
            (c.cyclomatic, c.cognitive, c.max_nesting, c.lines_of_code),
            (cyclomatic, cognitive, nesting, lines),
            "{name}"
        );
        let score = 2.0 * f64::from(cyclomatic) + 3.0 * f64::from(nesting) + 1.5 * f64::from(cognitive);
        assert_eq!(c.score, score, "{name}");
    }
}
