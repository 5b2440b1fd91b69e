"""Test harness shared by the playground's Python runners.

Pyodide in the browser (static/python/worker.mjs) and native python3 (the CLI and the Rust tests)
both run candidate programs through this package, loaded from the same files, so a verdict means the
same thing everywhere. It is two interpreters (see `crossing`): the judge, which reads requests,
runs the tests and writes verdicts, and a candidate per program, which runs the program and never
sees a test. Its modules, each with one job:
- `common`: the outcomes and limits, and the program's output and lines as they are recorded;
- `analysis`: seed 003's complexity metrics and APPS+'s conditional scopes, from the syntax tree;
- `judge`: a program's tests run and its verdict written (`run_program`);
- `crossing`: what may cross from the candidate to the judge, as plain data;
- `candidate`: the candidate's side, which runs the program and answers the judge's questions;
- `link`: the judge's side of a candidate, and a program's exceptions raised again in the tests;
- `confinement`: native candidates, each forked from a zygote and confined to a folder of its own;
- `world_models` and `planner`: seed 004's code world models, their predictions and planning;
- `banks`: program banks by mutation, for the simulated LLM;
- this file: requests read, checked and routed, and `main`, the native judge's loop.

A request is `{"code": str, "tests": [test, ...], "coverage": bool, "analysis": bool,
"output_limit": int}` (coverage and analysis, on by default, cost time a bare check can save) where a
test is either a Python statement run in the program's globals after the program (seed 000's
`run_tests_locally`: `from typing import List` is in scope), or `{"stdin": str, "stdout": str}`: the
whole program runs on that input and its output must equal `stdout` up to trailing whitespace (APPS);
with `"call": name` the program's function `name` is then called without arguments (APPS+ wraps a
standard-input solution in one).

The verdict has, besides `passed`, `number_passed` and `total`:
- `outcome` and `reward`: StepCoder's classes (seed 002, eq. 3): pass +1, failed_test -0.3,
  runtime_error -0.6, compile_error -1. Any runtime error outranks failed assertions, since a program
  that crashes on one test is broken whatever the others say; `timeout` is a runtime error (-0.6).
  `tampered` (-0.6, not the paper's) outranks them all: the program was caught reaching for its own
  verdict, and `caught` says how.
- `tests`: per test, whether it passed and the failing assertion or exception with its line; a
  failed test also gives its `input`, `expected` and `actual` output where they can be told (a
  stdin test's input and outputs; for an `assert <call> == <value>` statement, the call, the
  value and what the call returned), each cut to EXAMPLE_LIMIT characters (GIF-MCTS's improve
  prompt shows them).
- `stdout`, `stderr` (each cut to `output_limit` characters, `truncated` says so).
- `executed_lines`: the candidate's lines that ran (StepCoder's fine-grained optimisation mask).
- `complexity`: seed 003's metrics and score; `conditionals`: start and end lines of the
  if/elif, while and match statements.
- `scope`: APPS+'s conditional-statement attribute, `[kind, start, end]` for the twelve kinds of
  `SCOPE_KINDS` (StepCoder's curriculum points, seed 002 §3.1), sorted by start.
- `statements`: the logical lines (a simple statement, or a compound statement's header), each
  `{start, end, clause}`; `clause` marks a bare `else:`, `try:` or `finally:`, which never reports a
  line of its own and ran when the statement after it did (StepCoder's mask per line).
- `line_tokens`: Python tokens per line (names, operators, numbers, strings), the weight of a
  line in the share of tokens the mask keeps; given for code that does not compile too.

A request with `"mutants": true` asks instead for a program bank of the code (see `mutant_bank`):
the verdict of the code itself, plus `slots`, the code cut into slots with faulty versions of each,
and `own_tests`, tests drawn from the code on inputs its tests do not use (`own_test_pool`).

A request with `"batch": [request, ...]` runs each request in turn, in this interpreter, and
returns their verdicts in `batch` (the playground's own bank programs only: one program could
change the interpreter for the next).

A request with `"predict": [[state, action], ...]` runs the code as a code world model (seed 004
§3.4, see `run_world_model`): the verdict's `predictions` hold its (next_state, reward, done) for
each pair, which the engine scores against the recorded transitions.

A request with `"plan": {...}` plays one real episode with the code as a planner's model (seed 004
§3.5, see `run_planning_episode`): the verdict's `episode` holds the actions, rewards and
observations, and a model's exception ends it as a `runtime_error` with the line.

A request with `"task": {"definitions": str, "entry_point": str}` (statement tests) says what the
tests' names mean: the task's own definitions (HumanEval's prompt) run in the judge, and the tests
see them, the real builtins, the program's entry point, and only those of the program's other names
that mean nothing else (see `_test_scope`); the verdict's `notes` say which of the program's names a
test would have seen otherwise.

A request with `"naive": true` (statement tests only) is judged as common graders judge, in the
program's own interpreter, for the search's teaching switch (see `_naively`).

A request with `"data_tests": true` (statement tests that a model wrote: LATS's and Reflexion's own
tests) runs no code of a test: each must be `assert f(<literals>) == <literal>` on a function of the
program's, whose call the judge asks the program for, or it is recorded as `refused` (see
`_data_test`).

A request with `"autopep8": true` runs the code through `autopep8.fix_code` first, as seed 004's
official code does before it scores a program, and runs what comes out; the verdict's `formatted`
holds it when it differs from the code (see `_autopep8`).

Run natively (`main`), it first prints what it found confining it (`{"sandbox": ...}`), then reads one JSON
request per line on stdin and prints one verdict per line.
"""

import json
import os
import sys

from .banks import mutant_bank
from .candidate import candidate_server
from .common import DEFAULT_OUTPUT_LIMIT, ERROR_LIMIT, REWARDS
from .judge import fresh_verdict, run_program
from .link import bridge
from .planner import PLANNER_KEYS, run_planning_episode
from .world_models import run_world_model

# What the hosts call: `main` natively; in the page the judge's `handle` through `bridge`, and the
# candidate interpreter's `candidate_server` (static/python/pair.mjs).
__all__ = ["bridge", "candidate_server", "handle", "main", "reply"]


def reply(verdict):
    """The JSON text a host reads for a verdict, whatever the program printed or raised: every error
    text cut to ERROR_LIMIT characters (the cut said), and every lone surrogate (`'\\ud800'`, which a
    program can print or raise but no UTF-8 text or JSON parser outside Python carries) replaced by
    U+FFFD, while a pair of them becomes the character it encodes. So no program makes its verdict,
    or a batch's, unreadable."""
    _cut_errors(verdict)
    text = json.dumps(verdict, ensure_ascii=False)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _cut_errors(verdict):
    """Cuts the error texts of a verdict, its tests' and its batch's (see `reply`)."""
    if not isinstance(verdict, dict):
        return
    for record in [verdict, *verdict.get("tests", [])]:
        error = record.get("error") if isinstance(record, dict) else None
        if isinstance(error, str) and len(error) > ERROR_LIMIT:
            record["error"] = f"{error[:ERROR_LIMIT]}… ({len(error) - ERROR_LIMIT} more characters cut)"
    for inner in verdict.get("batch") or []:
        _cut_errors(inner)


def _plan_problem(plan):
    """What is wrong with a `plan` request, or None."""
    if not isinstance(plan, dict) or not isinstance(plan.get("environment"), str):
        return "`plan` needs a string `environment`"
    if plan.get("policy") not in ("random", "oracle", "model"):
        return "`plan.policy` must be random, oracle or model"
    if not isinstance(plan.get("start"), list) or not isinstance(plan.get("seed"), int):
        return "`plan` needs a list `start` and an integer `seed`"
    if not all(isinstance(plan.get(key), int) and plan[key] > 0 for key in ("actions", "max_steps")):
        return "`plan.actions` and `plan.max_steps` must be positive integers"
    planner = plan.get("planner")
    if not isinstance(planner, dict) or not all(isinstance(planner.get(key), (int, float)) for key in PLANNER_KEYS):
        return "`plan.planner` needs " + ", ".join(PLANNER_KEYS)
    return None


def handle(request, connect):
    """One request object to one verdict (see `_handle`); each candidate interpreter it used is
    retired once it is judged."""
    links = []

    def connect_once():
        links.append(connect())
        return links[-1]

    try:
        return _handle(request, connect_once)
    finally:
        for link in links:
            link.retire()


def _autopep8(code):
    """The code as seed 004's official code scores it: through `autopep8.fix_code` (which repairs
    indentation slips and reflows the layout; it reads the text, it runs nothing), or as it is when
    autopep8 fails on it, the official code's fallback. Imported on first use, by the judge only:
    candidates are forked before it, and never see it."""
    import autopep8  # noqa: PLC0415  (bundled: the page's standard library, build/python-lib natively)

    try:
        return autopep8.fix_code(code)
    except Exception:  # noqa: BLE001  (whatever autopep8 trips on, the program is scored as written)
        return code


def _handle(request, connect):
    """One request object to one verdict, or a clear error for a malformed request. `connect()` gives
    a link to a fresh candidate interpreter; a batch and a bank share one (the playground's own
    programs), every other request has one of its own."""
    if not isinstance(request, dict) or not isinstance(request.get("code"), str):
        return {"request_error": "a request needs a string `code`"}
    if request.get("autopep8"):
        try:
            formatted = _autopep8(request["code"])
        except ImportError:
            return {"request_error": "autopep8 is not installed for this Python (scripts/setup installs it into build/python-lib), or turn autopep8 off"}
        verdict = _handle(dict(request, code=formatted, autopep8=False), connect)
        if formatted != request["code"] and "request_error" not in verdict:
            verdict["formatted"] = formatted
        return verdict
    tests = request.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, (str, dict)) for t in tests):
        return {"request_error": "`tests` must be a list of statements or {stdin, stdout} objects"}
    if any(isinstance(t, dict) and not str(t.get("call", "x")).isidentifier() for t in tests):
        return {"request_error": "a test's `call` must be a Python name"}
    task = request.get("task")
    if task is not None and not (
        isinstance(task, dict) and all(isinstance(task.get(key), (str, type(None))) for key in ("definitions", "entry_point"))
    ):
        return {"request_error": "`task` must be {definitions: str, entry_point: str or null}"}
    if "batch" in request:
        if not isinstance(request["batch"], list):
            return {"request_error": "`batch` must be a list of requests"}
        verdict = fresh_verdict(len(request["batch"]))
        link = connect()
        verdict["batch"] = [_handle(inner, lambda: link) for inner in request["batch"]]
        verdict["outcome"], verdict["passed"], verdict["reward"] = "pass", True, REWARDS["pass"]
        return verdict
    if "predict" in request:
        steps = request["predict"]
        if not isinstance(steps, list) or not all(isinstance(p, list) and len(p) == 2 for p in steps):
            return {"request_error": "`predict` must be a list of [state, action] pairs"}
        return run_world_model(request["code"], steps, connect(), int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)))
    if "plan" in request:
        problem = _plan_problem(request["plan"])
        if problem:
            return {"request_error": problem}
        link = connect() if request["plan"]["policy"] == "model" else None
        return run_planning_episode(request["code"], request["plan"], link, int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)))
    if request.get("mutants"):
        link = connect()
        verdict = run_program(request["code"], tests, link, coverage=False, analysis=False, task=task)
        if verdict["passed"]:
            verdict["slots"], verdict["own_tests"] = mutant_bank(request["code"], tests, link, task)
        return verdict
    return run_program(
        request["code"],
        tests,
        connect(),
        coverage=bool(request.get("coverage", True)),
        analysis=bool(request.get("analysis", True)),
        output_limit=int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)),
        naive=bool(request.get("naive", False)),
        task=task,
        data_tests=bool(request.get("data_tests", False)),
    )


def main():
    """Serve requests over stdin/stdout. The limits and the zygote come first, before any request is
    read or the protocol streams exist (a candidate inherits neither); then the protocol streams are
    moved off file descriptors 0 and 1, so nothing writing to fd 1 or reading fd 0 can corrupt them."""
    try:
        import resource  # noqa: PLC0415  (POSIX only)

        limit = int(os.environ.get("RLCG_MEMORY_LIMIT_BYTES", 2 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    sys.setrecursionlimit(3000)
    # Packages the host installed for the judge (autopep8), after the standard library; the
    # variable goes, so that programs find only the sandbox's own.
    if os.environ.get("RLCG_PYTHON_LIB"):
        sys.path.append(os.environ.pop("RLCG_PYTHON_LIB"))
    # Only the native host confines: Pyodide never loads this module (nor the kernel calls it makes).
    from .confinement import Zygote, confinement_report, restrict_judge  # noqa: PLC0415

    confinement = json.loads(os.environ.pop("RLCG_CONFINEMENT", "null"))
    zygote = Zygote(confinement)
    restrict_judge(confinement)
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8", errors="replace")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    protocol_out.write(json.dumps({"sandbox": confinement_report(zygote, confinement)}) + "\n")
    protocol_out.flush()
    for line in protocol_in:
        if not line.strip():
            continue
        try:
            verdict = handle(json.loads(line), zygote.connect)
        except json.JSONDecodeError as exc:
            verdict = {"request_error": f"the request is not JSON: {exc}"}
        except MemoryError:
            verdict = {"request_error": "the harness ran out of memory"}
        if zygote.ended():
            # No program should reach the zygote; if one did, its verdict says so, and the host
            # starts a fresh judge (and zygote, forked before any request) for the next program.
            if "outcome" in verdict:
                verdict.update(outcome="tampered", reward=REWARDS["tampered"], passed=False)
                verdict["caught"] = verdict.get("caught", []) + ["the zygote that starts programs ended or stopped, or the program outlived its verdict"]
                verdict["error"] = "the program tampered with its test run: " + "; ".join(verdict["caught"])
            verdict = {"restart": True, **verdict}
        protocol_out.write(reply(verdict) + "\n")
        protocol_out.flush()
        if verdict.get("restart"):
            return
