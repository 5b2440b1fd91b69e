"""Writes the bundled search tasks' own-test pools into tasks/search.json (issue 72, item 1).

The simulated LLM writes LATS's and Reflexion's unit tests from a pool kept apart from the tests
that score a program: the calls below, written for the purpose on inputs the task's tests do not
use, each with the value the task's reference returns. Each logic fault then gets `own_fails`, the
pool's tests (by index) it alone fails: what a failing test the model wrote implicates.
`cli/tests/python_verdicts.rs` checks both through the harness: the reference passes every pool
test, and each fault fails exactly its `own_fails`.

Usage: python3 scripts/search-bank/own_tests.py    (rewrites tasks/search.json in place)
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TASKS = ROOT / "tasks" / "search.json"

# Eight calls a task, none of them one its tests make.
CALLS = {
    "running_max": [([5, 1, 2],), ([2, 2],), ([-3],), ([1, 2, 3, 4],), ([9, 8, 7],), ([-1, 0, -2, 3],), ([0],), ([6, 1, 6, 2],)],
    "is_balanced": [("()",), ("([{}])",), ("((a)",), ("x",), ("{]",), ("[()]{}",), ("(()",), ("])",)],
    "merge_intervals": [
        ([[2, 4], [1, 3]],), ([[0, 0]],), ([[1, 2], [3, 4]],), ([[1, 5], [2, 3], [6, 7]],),
        ([[3, 4], [1, 2], [2, 3]],), ([[-2, 0], [0, 2]],), ([[5, 6], [5, 9]],), ([[1, 1], [1, 1]],),
    ],
    "roman_to_int": [("I",), ("VI",), ("XIV",), ("XC",), ("CD",), ("MMM",), ("CDXLIV",), ("DCCC",)],
    "binary_search": [
        ([1, 3, 5, 7], 3), ([1, 3, 5, 7], 8), ([1, 3, 5, 7], 0), ([5], 4),
        ([2, 4, 6, 8, 10], 10), ([2, 4, 6, 8, 10], 2), ([-5, -1, 0], -1), ([1, 2], 2),
    ],
    "rle_encode": [("b",), ("aa",), ("abbb",), ("aab",), ("xyzzy",), ("1112",), ("  a",), ("abab",)],
    "second_largest": [([4, 4, 3],), ([10, 20],), ([0, 0],), ([3, 1, 2],), ([-5, -5, -6],), ([100],), ([1, 1, 2, 2],), ([6, 5, 4, 3],)],
    "flatten": [([[]],), ([1, [2]],), ([[1], [2, [3]]],), (["x", ["y", []]],), ([[[[7]]]],), ([0, [0], 0],), ([[1, 2, [3, 4]], 5],), ([None, [True]],)],
    "caesar": [("a", 1), ("z", 1), ("ABC", 2), ("Hi!", 26), ("abc", 0), ("xyz", -3), ("x9", 2), ("a b", 52)],
    "valid_ipv4": [("10.0.0.1",), ("1.2.3.4",), ("0.1.2.300",), ("a.b.c.d",), ("1.2.3.04",), ("0.0.0.256",), ("127.0.0",), ("8.8.8.8.",)],
}

STEPS = 100_000

sys.path.insert(0, str(ROOT / "static" / "python"))
from harness.banks import StepLimit, call_source, pool_test  # noqa: E402  (the harness's own rules)


def function_of(program, name):
    scope = {}
    exec(compile(program, "<bank>", "exec"), scope)
    return scope[name]


def limited(call):
    """`call()` stopped after STEPS lines (a fault may loop for ever): (value, None) or (None, why)."""
    try:
        with StepLimit(STEPS):
            return call(), None
    except Exception as exc:  # noqa: BLE001  (a fault may raise anything)
        return None, exc


def passes(function, name, test):
    """Whether `test` holds of `function`, called `name`."""
    return limited(lambda: exec(test, {name: function}))[1] is None


def main():
    bank = json.loads(TASKS.read_text())
    for task in bank["tasks"]:
        calls = CALLS.get(task["id"])
        if calls is None:
            continue
        name = task["id"]
        reference = function_of("".join(slot["correct"] for slot in task["slots"]), name)
        values = [limited(lambda: reference(*args)) for args in calls]
        assert all(error is None for _, error in values), f"{name}: the reference raises on a call of the pool"
        lines = [pool_test(call_source(name, args), value) for args, (value, _) in zip(calls, values)]
        assert not set(lines) & set(task["tests"]), f"{name}: a pool test is one of the task's tests"
        # The pool right after the tests it is kept apart from.
        order = list(task)
        order.insert(order.index("tests") + 1, "own_tests")
        task["own_tests"] = lines
        reordered = {key: task[key] for key in dict.fromkeys(order)}
        task.clear()
        task.update(reordered)
        for index, slot in enumerate(task["slots"]):
            for fault in slot["faults"]:
                fault.pop("own_fails", None)
                if fault["kind"] != "logic":
                    continue
                texts = [s["correct"] for s in task["slots"]]
                texts[index] = fault["text"]
                function = function_of("".join(texts), name)
                fails = [i for i, test in enumerate(lines) if not passes(function, name, test)]
                if fails:
                    fault["own_fails"] = fails
    TASKS.write_text(json.dumps(bank, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
