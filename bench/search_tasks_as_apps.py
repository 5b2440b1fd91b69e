"""Writes the bundled search tasks (tasks/search.json) as APPS records with exactly ten call tests
each (a task's tests repeated in turn), for the browser benchmark: it times the same programs in
Pyodide and in python3 (`rlcg check`). Usage: python3 bench/search_tasks_as_apps.py OUT.json"""
import ast
import json
import sys
from pathlib import Path

TESTS = 10


def call_test(statement):
    """`assert f(args) == value` (or `is value`) as (name, args, value)."""
    test = ast.parse(statement).body[0].test
    if isinstance(test, ast.Compare) and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        call, expected = test.left, ast.literal_eval(test.comparators[0])
    else:
        raise ValueError(f"not a call test: {statement}")
    return call.func.id, [ast.literal_eval(arg) for arg in call.args], expected


def main(out):
    bundled = json.loads((Path(__file__).parent.parent / "tasks" / "search.json").read_text())
    records = []
    for task in bundled["tasks"]:
        tests = [call_test(t) for t in task["tests"]]
        tests = [tests[i % len(tests)] for i in range(TESTS)]
        reference = "".join(slot["correct"] for slot in task["slots"])
        records.append({
            "problem_id": task["id"],
            "question": task["description"],
            "solutions": json.dumps([reference]),
            "input_output": json.dumps({
                "fn_name": tests[0][0],
                "inputs": [args for _, args, _ in tests],
                "outputs": [expected for _, _, expected in tests],
            }),
            "starter_code": "",
        })
    Path(out).write_text(json.dumps(records, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
