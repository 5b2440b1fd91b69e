"""Test harness shared by the playground's Python runners.

Pyodide in the browser and the CLI's native python3 both run candidate programs through this file, so
a verdict means the same thing everywhere. It follows seed 000's `run_tests_locally`: the program is
executed with `from typing import List` in scope, then each test statement runs in the same globals.

As a script it reads one JSON request per line on stdin, `{"code": str, "tests": [str]}`, and prints
one JSON verdict per line.
"""

import json
import sys
import traceback


def run_tests(code, tests):
    """Run `code`, then every test in `tests`; return a JSON-ready verdict."""
    verdict = {"passed": False, "number_passed": 0, "total": len(tests), "failures": [], "error": None}
    scope = {}
    try:
        exec("from typing import List", scope)
        exec(code, scope)
    except Exception as exc:  # the program itself failed: no test can run
        verdict["error"] = f"{type(exc).__name__}: {exc}"
        verdict["trace"] = traceback.format_exc(limit=3)
        return verdict
    for test in tests:
        try:
            exec(test, scope)
            verdict["number_passed"] += 1
        except AssertionError:
            verdict["failures"].append({"test": test, "error": "AssertionError"})
        except Exception as exc:
            verdict["failures"].append({"test": test, "error": f"{type(exc).__name__}: {exc}"})
    verdict["passed"] = verdict["number_passed"] == verdict["total"]
    return verdict


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        print(json.dumps(run_tests(request["code"], request["tests"])), flush=True)


if __name__ == "__main__":
    main()
