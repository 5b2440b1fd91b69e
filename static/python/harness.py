"""Test harness shared by the playground's Python runners.

Pyodide in the browser (static/python/worker.mjs) and native python3 (the CLI and the Rust tests)
both run candidate programs through this file, so a verdict means the same thing everywhere.

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
the verdict of the code itself, plus `slots`, the code cut into slots with faulty versions of each.

A request with `"batch": [request, ...]` runs each request in turn, in this interpreter, and
returns their verdicts in `batch` (the playground's own bank programs only: one program could
change the interpreter for the next).

A request with `"predict": [[state, action], ...]` runs the code as a code world model (seed 004
§3.4, see `run_world_model`): the verdict's `predictions` hold its (next_state, reward, done) for
each pair, which the engine scores against the recorded transitions.

A request with `"plan": {...}` plays one real episode with the code as a planner's model (seed 004
§3.5, see `run_planning_episode`): the verdict's `episode` holds the actions, rewards and
observations, and a model's exception ends it as a `runtime_error` with the line.

As a script it reads one JSON request per line on stdin and prints one verdict per line.
"""

import ast
import copy
import functools
import io
import json
import math
import os
import random
import struct
import sys
import time
import tokenize
import traceback

CANDIDATE = "<candidate>"
TEST = "<test>"
REWARDS = {"pass": 1.0, "failed_test": -0.3, "runtime_error": -0.6, "timeout": -0.6, "compile_error": -1.0}
DEFAULT_OUTPUT_LIMIT = 10_000
EXAMPLE_LIMIT = 1_000
CONTROL = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)
if sys.version_info >= (3, 11):
    CONTROL += (ast.TryStar,)


class ProgramExit(Exception):
    """Raised instead of leaving the interpreter: `sys.exit` and `os._exit` would end the runner."""


class BoundedOutput(io.TextIOBase):
    """A stdout/stderr replacement that keeps the first `limit` characters and counts the rest."""

    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def value(self):
        return "".join(self.parts)


class LineRecorder:
    """Records which lines of the candidate ran: sys.monitoring where the interpreter has it (each
    line reports once, then is disabled, so coverage costs almost nothing), sys.settrace before 3.12."""

    TOOL = 3  # sys.monitoring's free slot after the debugger (0), coverage.py (1) and profilers (2)

    def __init__(self):
        self.lines = set()

    def __enter__(self):
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            monitoring.use_tool_id(self.TOOL, "rlcg-coverage")
            monitoring.register_callback(self.TOOL, monitoring.events.LINE, self._on_line)
            monitoring.set_events(self.TOOL, monitoring.events.LINE)
            monitoring.restart_events()
        else:
            sys.settrace(self._on_call)
        return self

    def __exit__(self, *exc):
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            monitoring.set_events(self.TOOL, 0)
            monitoring.register_callback(self.TOOL, monitoring.events.LINE, None)
            monitoring.free_tool_id(self.TOOL)
        else:
            sys.settrace(None)
        return False

    def _on_line(self, code, line):
        if code.co_filename == CANDIDATE:
            self.lines.add(line)
        return sys.monitoring.DISABLE

    def _on_call(self, frame, event, arg):
        return self._on_trace if frame.f_code.co_filename == CANDIDATE else None

    def _on_trace(self, frame, event, arg):
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._on_trace


class NoRecorder:
    lines = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


DECISIONS = (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.match_case)
CONDITIONALS = (ast.If, ast.While, ast.Match)


def analyse(tree, source):
    """Seed 003's metrics and the conditional statements, from one walk of the tree plus the two
    nesting-aware passes. Cyclomatic: decision points + 1. Cognitive: SonarSource's rules (+1 per
    break in linear flow, plus the nesting level for nested ones). Lines: non-empty. Nesting: the
    deepest nesting of control structures. Score: 2 x cyclomatic + 3 x nesting + 1.5 x cognitive.
    Conditionals: start and end lines of if/elif, while and match statements, in source order."""
    decisions = 0
    found = []
    for node in ast.walk(tree):
        if isinstance(node, DECISIONS):
            decisions += 1
            if isinstance(node, CONDITIONALS):
                found.append({"start": node.lineno, "end": node.end_lineno})
        elif isinstance(node, ast.comprehension):
            decisions += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            decisions += len(node.values) - 1
        elif isinstance(node, ast.Match):
            found.append({"start": node.lineno, "end": node.end_lineno})
    cyclomatic = decisions + 1
    cognitive = _cognitive(tree, nesting=0, function=None)
    nesting = _max_nesting(tree, 0)
    lines = sum(1 for line in source.splitlines() if line.strip())
    metrics = {
        "cyclomatic": cyclomatic,
        "cognitive": cognitive,
        "lines_of_code": lines,
        "max_nesting": nesting,
        "score": 2 * cyclomatic + 3 * nesting + 1.5 * cognitive,
    }
    return metrics, sorted(found, key=lambda c: c["start"])


SCOPE_KINDS = (
    (ast.If, "If Statement Body"),
    ((ast.For, ast.AsyncFor), "For Loop Body"),
    (ast.While, "While Loop Body"),
    ((ast.FunctionDef, ast.AsyncFunctionDef), "Function Body"),
    (ast.ClassDef, "Class Body"),
    (ast.Try, "Try Block"),
    (ast.ExceptHandler, "Except Block"),
    (ast.ListComp, "List Comprehension"),
    (ast.DictComp, "Dict Comprehension"),
    (ast.SetComp, "Set Comprehension"),
    (ast.GeneratorExp, "Generator Expression"),
    (ast.Lambda, "Lambda Expression"),
)
"""APPS+'s `scope` kinds and the nodes they are: each elif is an If of its own, an If ends with its
else branch, a Try with its handlers. APPS+'s released records match this walk exactly."""


def apps_scope(tree):
    """`[kind, start line, end line]` of every node of SCOPE_KINDS, sorted by start (then the
    outer first), as seed 002 §3.1 sorts the conditional statements."""
    found = []
    for node in ast.walk(tree):
        for types, kind in SCOPE_KINDS:
            if isinstance(node, types):
                found.append([kind, node.lineno, node.end_lineno])
    return sorted(found, key=lambda entry: (entry[1], -entry[2]))


TOKEN_TYPES = {tokenize.NAME, tokenize.OP, tokenize.NUMBER, tokenize.STRING}
TOKEN_TYPES |= {getattr(tokenize, t) for t in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END") if hasattr(tokenize, t)}
CLAUSES = ({"else", ":"}, {"try", ":"}, {"finally", ":"})


def logical_lines(code):
    """(statements, line_tokens): each logical line's first and last physical line, and whether it
    is a bare clause (see the module docstring); and the tokens that start on each physical line.
    Tokenising stops quietly at the first error, so code that does not compile still has its
    tokens up to there, and whitespace-separated words after."""
    lines = code.splitlines()
    counts = [0] * len(lines)
    statements = []
    start, words = None, []
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in TOKEN_TYPES:
                row = token.start[0]
                if row <= len(counts):
                    counts[row - 1] += 1
                if start is None:
                    start, words = row, []
                words.append(token.string)
            elif token.type == tokenize.NEWLINE and start is not None:
                statements.append({"start": start, "end": token.start[0], "clause": set(words) in CLAUSES and len(words) == 2})
                start = None
    except (tokenize.TokenError, SyntaxError):
        reached = max((s["end"] for s in statements), default=0)
        for row in range(reached, len(lines)):
            counts[row] = counts[row] or len(lines[row].split())
    return statements, counts


def _cognitive(node, nesting, function):
    total = 0
    if isinstance(node, ast.If):
        total += 1 + nesting
        total += _cognitive(node.test, nesting, function)
        total += sum(_cognitive(child, nesting + 1, function) for child in node.body)
        total += _else_branch(node.orelse, nesting, function)
        return total
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        total += 1 + nesting
        header = [node.test] if isinstance(node, ast.While) else [node.target, node.iter]
        total += sum(_cognitive(child, nesting, function) for child in header)
        total += sum(_cognitive(child, nesting + 1, function) for child in node.body)
        if node.orelse:
            total += 1 + sum(_cognitive(child, nesting + 1, function) for child in node.orelse)
        return total
    if isinstance(node, (ast.IfExp, ast.ExceptHandler, ast.Match)):
        total += 1 + nesting
        return total + sum(_cognitive(child, nesting + 1, function) for child in ast.iter_child_nodes(node))
    if isinstance(node, ast.BoolOp):
        total += 1  # a sequence of like operators counts once; ast nests unlike ones
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function:
        total += 1  # recursion
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        inner = nesting + 1 if function is not None else nesting
        return sum(_cognitive(child, inner, node.name) for child in node.body)
    if isinstance(node, ast.Lambda):
        return total + _cognitive(node.body, nesting + 1, function)
    return total + sum(_cognitive(child, nesting, function) for child in ast.iter_child_nodes(node))


def _else_branch(orelse, nesting, function):
    if not orelse:
        return 0
    if len(orelse) == 1 and isinstance(orelse[0], ast.If):  # elif: +1, no nesting penalty
        elif_node = orelse[0]
        return (
            1
            + _cognitive(elif_node.test, nesting, function)
            + sum(_cognitive(child, nesting + 1, function) for child in elif_node.body)
            + _else_branch(elif_node.orelse, nesting, function)
        )
    return 1 + sum(_cognitive(child, nesting + 1, function) for child in orelse)


def _max_nesting(node, depth):
    deepest = depth
    for child in ast.iter_child_nodes(node):
        inner = depth + 1 if isinstance(child, CONTROL) else depth
        if isinstance(node, ast.If) and child in node.orelse and isinstance(child, ast.If):
            inner = depth  # an elif is a branch of its if, not a level below it
        deepest = max(deepest, _max_nesting(child, inner))
    return deepest


def _candidate_line(tb):
    """The last line of the candidate program in a traceback, if any."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == CANDIDATE:
            line = frame.lineno
    return line


def _describe(exc):
    if isinstance(exc, ProgramExit):
        return str(exc)
    message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = _candidate_line(exc.__traceback__)
    return f"{message} (line {line})" if line is not None else message


def _exit_guard(code=0):
    raise ProgramExit(f"the program called exit({code!r})")


class _Sandbox:
    """Redirects the standard streams and turns exits into exceptions while candidate code runs."""

    def __init__(self, output_limit):
        self.stdout = BoundedOutput(output_limit)
        self.stderr = BoundedOutput(output_limit)

    def __enter__(self):
        self.saved = (sys.stdin, sys.stdout, sys.stderr, sys.exit, os._exit)
        sys.stdout, sys.stderr = self.stdout, self.stderr
        sys.stdin = io.StringIO("")
        sys.exit = os._exit = _exit_guard
        return self

    def __exit__(self, *exc):
        sys.stdin, sys.stdout, sys.stderr, sys.exit, os._exit = self.saved
        return False


def _run_statement(compiled, scope):
    """Run compiled code; map every way it can end to (error kind, message)."""
    try:
        exec(compiled, scope)
    except AssertionError as exc:
        return "assertion", f"AssertionError: {exc}" if str(exc) else "AssertionError"
    except KeyboardInterrupt:
        raise  # the host's interrupt: the run is over, see run_program
    except (Exception, SystemExit, GeneratorExit) as exc:  # SystemExit: `raise SystemExit` or exit()
        return "runtime", _describe(exc)
    return None, None


def _verdict(total):
    """A verdict before the run: a compile error until the code compiles."""
    return {
        "passed": False,
        "number_passed": 0,
        "total": total,
        "outcome": "compile_error",
        "reward": REWARDS["compile_error"],
        "error": None,
        "tests": [],
        "stdout": "",
        "stderr": "",
        "truncated": False,
        "executed_lines": [],
        "complexity": None,
        "conditionals": [],
        "scope": [],
        "statements": [],
        "line_tokens": [],
        "duration_ms": 0.0,
    }


def _compiled(code, analysis, verdict, started):
    """`code` compiled (and analysed, with `analysis`), or None with the compile error in `verdict`."""
    try:
        # Building the Python AST objects costs more than compiling: only when analysis needs them.
        tree = ast.parse(code, CANDIDATE) if analysis else None
        program = compile(tree if analysis else code, CANDIDATE, "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        message = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
        verdict["error"] = f"{message} (line {line})" if line else message
        verdict["duration_ms"] = (time.perf_counter() - started) * 1000
        if analysis:
            verdict["line_tokens"] = logical_lines(code)[1]
        return None
    if analysis:
        verdict["complexity"], verdict["conditionals"] = analyse(tree, code)
        verdict["scope"] = apps_scope(tree)
        verdict["statements"], verdict["line_tokens"] = logical_lines(code)
    return program


def _settle(verdict, sandbox, started):
    """The verdict's reward, pass flag, output and duration, once its outcome is known."""
    verdict["reward"] = REWARDS[verdict["outcome"]]
    verdict["passed"] = verdict["outcome"] == "pass"
    verdict["stdout"] = sandbox.stdout.value()
    verdict["stderr"] = sandbox.stderr.value()
    verdict["truncated"] = bool(sandbox.stdout.dropped or sandbox.stderr.dropped)
    verdict["duration_ms"] = (time.perf_counter() - started) * 1000


def run_program(code, tests, coverage=True, analysis=True, output_limit=DEFAULT_OUTPUT_LIMIT):
    """Run `code` against `tests`; return a JSON-ready verdict (see the module docstring)."""
    started = time.perf_counter()
    verdict = _verdict(len(tests))
    program = _compiled(code, analysis, verdict, started)
    if program is None:
        return verdict

    sandbox = _Sandbox(output_limit)
    recorder = LineRecorder() if coverage else NoRecorder()
    program_error = None
    interrupted = False
    try:
        with sandbox, recorder:
            if all(isinstance(test, str) for test in tests):
                program_error, interrupted = _statement_tests(program, tests, verdict)
            else:
                interrupted = _stdin_tests(program, tests, verdict, sandbox)
    except KeyboardInterrupt:
        interrupted = True

    runtime_failure = program_error is not None or any(t["kind"] == "runtime" for t in verdict["tests"])
    if interrupted:
        verdict["outcome"] = "timeout"
        verdict["error"] = "the run was stopped at the time limit"
    elif program_error is not None:
        verdict["outcome"] = "runtime_error"
        verdict["error"] = program_error
    elif runtime_failure:
        verdict["outcome"] = "runtime_error"
    elif verdict["number_passed"] == verdict["total"]:
        verdict["outcome"] = "pass"
    else:
        verdict["outcome"] = "failed_test"
    verdict["executed_lines"] = sorted(recorder.lines)
    _settle(verdict, sandbox, started)
    return verdict


def _record(verdict, test, kind, message, example=None):
    passed = kind is None
    result = {"test": test, "passed": passed, "kind": kind, "error": message}
    if not passed and example is not None:
        result.update({key: _bounded(value) for key, value in zip(("input", "expected", "actual"), example)})
    verdict["tests"].append(result)
    verdict["number_passed"] += passed


def _bounded(text):
    text = str(text)
    return text if len(text) <= EXAMPLE_LIMIT else text[:EXAMPLE_LIMIT] + "…"


@functools.lru_cache(maxsize=4096)
def _compiled_test(test):
    """A test statement compiled, or the SyntaxError it raises. Tests are the same text for every
    program of a task, so a batch compiles each once (code objects are immutable)."""
    try:
        return compile(test, TEST, "exec")
    except SyntaxError as exc:
        return exc


@functools.lru_cache(maxsize=4096)
def _equality_parts(test):
    """For `assert <call> == <value>`: the call's source and both sides compiled, else None."""
    try:
        node = ast.parse(test).body[0]
    except (SyntaxError, IndexError):
        return None
    compare = getattr(node, "test", None) if isinstance(node, ast.Assert) else None
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1 and isinstance(compare.ops[0], ast.Eq)):
        return None
    call, value = compare.left, compare.comparators[0]
    return ast.unparse(call), compile(ast.Expression(call), TEST, "eval"), compile(ast.Expression(value), TEST, "eval")


TYPING_IMPORT = compile("from typing import List", TEST, "exec")


def _equality_example(test, scope, kind, message):
    """For a failed `assert <call> == <value>`: the call's source, the value's repr, and what the
    call returned (or the exception it raised, which `message` already describes). The call runs a
    second time, so a function with state may answer differently than it did in the test."""
    parts = _equality_parts(test)
    if parts is None:
        return None
    source, call, value = parts
    try:
        expected = repr(eval(value, scope))
        actual = message if kind == "runtime" else repr(eval(call, scope))
    except KeyboardInterrupt:
        raise
    except BaseException:  # a second run of the call that fails differently: no example
        return None
    return source, expected, actual


def _statement_tests(program, tests, verdict):
    scope = {"__name__": "__main__"}
    exec(TYPING_IMPORT, scope)
    kind, message = _run_statement(program, scope)
    if kind is not None:  # the program itself failed: no test can run
        message = message if kind == "runtime" else f"the program raised {message}"
        for test in tests:
            verdict["tests"].append({"test": test, "passed": False, "kind": "not_run", "error": None})
        return message, False
    for test in tests:
        compiled = _compiled_test(test)
        if isinstance(compiled, SyntaxError):
            _record(verdict, test, "runtime", f"the test itself does not compile: {compiled.msg}")
            continue
        kind, message = _run_statement(compiled, scope)
        example = _equality_example(test, scope, kind, message) if kind is not None else None
        _record(verdict, test, kind, message, example)
    return None, False


def _stdin_tests(program, tests, verdict, sandbox):
    for test in tests:
        expected = str(test.get("stdout", ""))
        sys.stdin = io.StringIO(str(test.get("stdin", "")))
        captured = BoundedOutput(max(sandbox.stdout.limit, len(expected) + 1))
        sys.stdout = captured
        scope = {"__name__": "__main__"}
        kind, message = _run_statement(program, scope)
        if kind is None and test.get("call"):
            kind, message = _run_statement(compile(f"{test['call']}()", TEST, "exec"), scope)
        sys.stdout = sandbox.stdout
        sandbox.stdout.write(captured.value())
        got = captured.value().rstrip()
        if kind is None and got != expected.rstrip():
            kind, message = "assertion", f"expected output {expected.rstrip()[:200]!r}, got {got[:200]!r}"
        label = f"stdin: {str(test.get('stdin', ''))[:80]!r}"
        actual = message if kind == "runtime" else got
        _record(verdict, label, kind, message, (test.get("stdin", ""), expected.rstrip(), actual))
    return False


# ---- Code world models (seed 004 §3.3-3.4): a program's predictions on transitions ----


def _json_ready(value):
    """A prediction as JSON: tuples become lists, a non-finite float or any other object its repr
    (which then matches nothing), so a strange prediction is scored rather than refused."""
    if hasattr(value, "tolist"):  # a numpy array or scalar, should a model bring its own
        value = value.tolist()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return _bounded(repr(value))


def _model_error(exc, code, during):
    """The official code's error for a fix prompt: the exception with its line, and that line."""
    text = f"{during}: {_describe(exc)}"
    line = _candidate_line(exc.__traceback__)
    lines = code.splitlines()
    if line is not None and 0 < line <= len(lines) and lines[line - 1].strip():
        text += f"\nThe line of code that caused the error is:\n`{lines[line - 1].strip()}`"
    return text


def _new_model(program, code):
    """Runs a world model's compiled `program` and creates its `Environment`: (the model, None), or
    (None, the error a fix prompt shows, with its line in `code`)."""
    scope = {"__name__": "__main__"}
    try:
        exec(program, scope)
        environment = scope.get("Environment")
        if not isinstance(environment, type):
            return None, "The program defines no class `Environment`"
        return environment(), None
    except KeyboardInterrupt:
        raise
    except (Exception, SystemExit, GeneratorExit) as exc:
        return None, _model_error(exc, code, "Error when creating the `Environment`")


def _predict(program, code, steps, predictions):
    """One `Environment()` for all pairs, and per pair `set_state(deepcopy(state))` then
    `step(action)`, as the official code scores a model. The first exception ends the run. A
    model that draws from `random` (Blackjack's cards) draws the same every run: the generator is
    seeded with 0, so a search that scores it is reproducible."""
    random.seed(0)
    model, error = _new_model(program, code)
    if error is not None:
        return error
    for index, (state, action) in enumerate(steps):
        call = "set_state"
        try:
            model.set_state(copy.deepcopy(state))
            call = "step"
            output = model.step(action)
            if not isinstance(output, (tuple, list)) or len(output) != 3:
                shown = _bounded(repr(output))
                return f"Error when calling `step` on transition {index + 1}: it returned {shown}, not (next_state, reward, done)"
            next_state, reward, done = (_json_ready(v) for v in output)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit, GeneratorExit) as exc:
            return _model_error(exc, code, f"Error when calling `{call}` on transition {index + 1}")
        predictions.append({"next_obs": next_state, "reward": reward, "done": done})
    return None


def run_world_model(code, steps, output_limit=DEFAULT_OUTPUT_LIMIT):
    """Run `code` as a code world model on `steps`, pairs of (state, action). `number_passed` counts
    the pairs it predicted; the outcome is `pass` when it predicted all of them (whether rightly is
    the engine's to judge), `runtime_error` when it raised (its error, with the line, is what a fix
    prompt shows), and `compile_error` or `timeout` as for any program."""
    started = time.perf_counter()
    verdict = _verdict(len(steps))
    verdict["predictions"] = predictions = []
    program = _compiled(code, False, verdict, started)
    if program is None:
        return verdict
    _run_model(verdict, started, output_limit, lambda: _predict(program, code, steps, predictions))
    verdict["number_passed"] = len(predictions)
    return verdict


def _run_model(verdict, started, output_limit, run):
    """Runs a model's predictions or episode in the sandbox (`run()` returns the model's error, or
    None) and settles the verdict: `timeout` at the time limit, `runtime_error` with the error, or
    `pass`."""
    sandbox = _Sandbox(output_limit)
    error, interrupted = None, False
    try:
        with sandbox:
            error = run()
    except KeyboardInterrupt:
        interrupted = True
    if interrupted:
        verdict["outcome"], verdict["error"] = "timeout", "the run was stopped at the time limit"
    elif error is not None:
        verdict["outcome"], verdict["error"] = "runtime_error", error
    else:
        verdict["outcome"] = "pass"
    _settle(verdict, sandbox, started)


# ---- Planning with a code world model (seed 004 §3.5): one real episode per request ----
#
# The engine's planner (engine/src/cwm/planner.rs) line for line, in Python: the models of
# continuous environments cannot be tabulated, and one request per real step would cost a round trip
# (and in the page a fresh interpreter) each time. The real environment is the reference model
# (`plan.environment`, the bank's correct program), which the Gymnasium fixture checks.

PLANNER_KEYS = ("simulations", "exploration", "discount", "rollout_steps", "temperature", "visit_epsilon", "unvisited_value")


class _ModelRaised(Exception):
    """A model's exception while planning, with what it was doing."""

    def __init__(self, exc, during):
        super().__init__(during)
        self.exc, self.during = exc, during


def _float32(values):
    """An observation as Gymnasium's float32 spaces give it (each float rounded to 32 bits)."""
    return [struct.unpack("f", struct.pack("f", v))[0] if isinstance(v, float) else v for v in values]


class _Simulator:
    """A model the planner steps: `set_state(deepcopy(frame))` then `step(action)`, so that each
    predicted frame feeds the next prediction (the official `CWMSimulatorMCTS`)."""

    def __init__(self, model):
        self.model, self.steps = model, 0

    def step(self, frame, action):
        self.steps += 1
        try:
            self.model.set_state(copy.deepcopy(frame))
            output = self.model.step(action)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit, GeneratorExit) as exc:
            raise _ModelRaised(exc, "set_state or step") from exc
        if not isinstance(output, (tuple, list)) or len(output) != 3:
            raise _ModelRaised(TypeError(f"step returned {_bounded(repr(output))}, not (next_state, reward, done)"), "step")
        next_frame, reward, done = output
        try:
            return next_frame, float(reward), bool(done)
        except (TypeError, ValueError) as exc:
            raise _ModelRaised(exc, "step") from exc


def _uct(node, params):
    ln_n = math.log(max(node[2], 1))
    best, best_score = 0, None
    for index, (visits, value_sum, _) in enumerate(node[3]):
        q = value_sum / visits if visits else params["unvisited_value"]
        score = q + params["exploration"] * math.sqrt(ln_n / (visits + params["visit_epsilon"]))
        if best_score is None or score > best_score:
            best, best_score = index, score
    return best


def _rollout(simulator, frame, actions, params, rng):
    total, weight = 0.0, 1.0
    for _ in range(params["rollout_steps"]):
        frame, reward, done = simulator.step(frame, rng.randrange(actions))
        total += weight * reward
        weight *= params["discount"]
        if done:
            break
    return total


def _simulate(simulator, tree, at, actions, params, rng):
    """One simulation from node `at` (a node is [frame, terminal, visits, [[visits, value_sum,
    children by key], ...]]); its return, r + γ·v."""
    node = tree[at]
    action = _uct(node, params)
    next_frame, reward, done = simulator.step(node[0], action)
    key = repr(_json_ready(next_frame))
    child = node[3][action][2].get(key)
    if child is not None and tree[child][1]:
        value = 0.0
    elif child is not None:
        value = _simulate(simulator, tree, child, actions, params, rng)
    else:
        value = 0.0 if done else _rollout(simulator, next_frame, actions, params, rng)
        tree.append([next_frame, done, 1, [[0, 0.0, {}] for _ in range(actions)]])
        node[3][action][2][key] = len(tree) - 1
    total = reward + params["discount"] * value
    node[2] += 1
    node[3][action][0] += 1
    node[3][action][1] += total
    return total


def _planned_action(simulator, frame, actions, params, rng):
    """A fresh tree of `simulations` simulations, then an action drawn from softmax(Q / T)."""
    tree = [[frame, False, 0, [[0, 0.0, {}] for _ in range(actions)]]]
    for _ in range(params["simulations"]):
        _simulate(simulator, tree, 0, actions, params, rng)
    qs = [(s / v if v else 0.0) / params["temperature"] for v, s, _ in tree[0][3]]
    top = max(qs)
    weights = [math.exp(q - top) for q in qs]
    draw = rng.random() * sum(weights)
    for action, weight in enumerate(weights):
        if draw < weight:
            return action
        draw -= weight
    return len(weights) - 1


def _play(model_program, plan, episode):
    """Plays the episode into `episode` (its lists grow as it goes, so a stopped run keeps them);
    returns the model's error, or None."""
    rng = random.Random(plan["seed"])
    random.seed(plan["seed"])
    params = {key: plan["planner"][key] for key in PLANNER_KEYS}
    actions, policy, rounded = plan["actions"], plan["policy"], plan.get("float32", False)
    scope = {"__name__": "__main__"}
    exec(compile(plan["environment"], "<environment>", "exec"), scope)
    real = scope["Environment"]()
    real.set_state(copy.deepcopy(plan["start"]))
    simulator = None
    if policy == "oracle":
        # A copy of the real environment: the reference model fed the real, unrounded observation.
        simulator = _Simulator(scope["Environment"]())
    elif policy == "model":
        model, error = _new_model(model_program, plan["model_code"])
        if error is not None:
            return error
        simulator = _Simulator(model)
    exact = list(plan["start"])
    for step in range(1, plan["max_steps"] + 1):
        if simulator is None:
            action = rng.randrange(actions)
        else:
            frame = exact if policy == "oracle" else (_float32(exact) if rounded else copy.deepcopy(exact))
            try:
                action = _planned_action(simulator, frame, actions, params, rng)
            except _ModelRaised as raised:
                episode["model_steps"] = simulator.steps
                return _model_error(raised.exc, plan["model_code"], f"Error when planning step {step} with the model")
            episode["model_steps"] = simulator.steps
        observation, reward, done = real.step(action)
        exact = _json_ready(observation)
        episode["actions"].append(action)
        episode["rewards"].append(float(reward))
        episode["observations"].append(_float32(exact) if rounded else exact)
        if done:
            episode["terminated"] = True
            break
    return None


def run_planning_episode(code, plan, output_limit=DEFAULT_OUTPUT_LIMIT):
    """One real episode planned with the model `code` (or the oracle, or at random; see `_play`).
    The verdict's `episode` holds its actions, rewards, the observations after each step, whether
    it terminated and how many model steps the planner took; `runtime_error` carries the model's
    exception with its line, the episode then ending where it stopped."""
    started = time.perf_counter()
    verdict = _verdict(1)
    episode = verdict["episode"] = {"actions": [], "rewards": [], "observations": [], "terminated": False, "model_steps": 0}
    program = _compiled(code, False, verdict, started) if plan["policy"] == "model" else None
    if plan["policy"] == "model" and program is None:
        return verdict
    plan = dict(plan, model_code=code)

    def play():
        try:
            return _play(program, plan, episode)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # the reference environment or the request, never the model
            return f"The real environment could not play the episode: {_describe(exc)}"

    _run_model(verdict, started, output_limit, play)
    verdict["number_passed"] = int(verdict["passed"])
    return verdict


# ---- Program banks by mutation (seed 004 spec §6: the simulated LLM's bank for imported tasks) ----

MUTANT_STEPS = 200_000
"""Lines a mutant may run over all its tests; one that runs longer (a loop a mutation made endless) is
dropped, since a program the search writes must end."""
LOGIC_FAULTS_PER_SLOT = 3

COMPARISON_FLIPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
OPERATOR_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}


class _StepLimit:
    """Counts the lines a program runs and stops it past `limit` (the harness has no clock of its own)."""

    def __init__(self, limit):
        self.limit = limit
        self.steps = 0
        self.exceeded = False

    def _trace(self, frame, event, arg):
        if event == "line":
            self.steps += 1
            if self.steps > self.limit:
                self.exceeded = True
                raise RuntimeError("step limit")
        return self._trace

    def __enter__(self):
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)
        return False


def _slot_starts(tree, line_count):
    """The first line of each slot: every statement starts one (a compound statement's header is a
    slot of its own, its body's statements the next ones); line 1 starts the first."""
    starts = {1}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            decorators = getattr(node, "decorator_list", [])
            starts.add(min([node.lineno] + [d.lineno for d in decorators]))
    return sorted(s for s in starts if s <= line_count)


def _logic_mutations(node):
    """(mutated copy, hard) for each logic fault of one node: a comparison flipped at its boundary,
    an arithmetic or boolean operator swapped, an integer off by one (hard: a failing test seldom
    says which number is wrong), a branch's condition negated, a name misspelt (a NameError)."""
    import copy  # noqa: PLC0415  (only banks need it)

    def changed(update, hard=False):
        mutated = copy.deepcopy(node)
        update(mutated)
        return mutated, hard

    if isinstance(node, ast.Compare) and type(node.ops[0]) in COMPARISON_FLIPS:
        yield changed(lambda m: m.ops.__setitem__(0, COMPARISON_FLIPS[type(m.ops[0])]()))
    elif isinstance(node, ast.BinOp) and type(node.op) in OPERATOR_SWAPS:
        yield changed(lambda m: setattr(m, "op", OPERATOR_SWAPS[type(m.op)]()))
    elif isinstance(node, ast.BoolOp):
        yield changed(lambda m: setattr(m, "op", ast.Or() if isinstance(m.op, ast.And) else ast.And()))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield changed(lambda m: setattr(m, "value", m.value + 1), hard=True)
    elif isinstance(node, (ast.If, ast.While)):
        yield changed(lambda m: setattr(m, "test", ast.UnaryOp(ast.Not(), m.test)))
    elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in dir(__builtins__):
        yield changed(lambda m: setattr(m, "id", m.id + "_"))


def _replace_segment(line, node, text):
    """`line` with the source of `node` (on that one line) replaced by `text`; offsets are UTF-8 bytes."""
    raw = line.encode()
    return (raw[: node.col_offset] + text.encode() + raw[node.end_col_offset :]).decode()


def _syntax_fault(text):
    """The slot's text made uncompilable the way people slip: a header's colon dropped, a closing
    bracket lost, an expression left unfinished."""
    body = text.rstrip("\n")
    if body.rstrip().endswith(":"):
        return body.rstrip()[:-1] + "\n"
    if ")" in body:
        at = body.rindex(")")
        return body[:at] + body[at + 1 :] + "\n"
    return body + " +\n"


def mutant_bank(code, tests):
    """The code cut into slots (one per statement line, see `_slot_starts`), each with its correct
    text and up to LOGIC_FAULTS_PER_SLOT logic faults and one syntax fault. A logic fault is kept only
    when some test fails with it and it ends within MUTANT_STEPS lines; a syntax fault only when the
    program no longer compiles. Faults come in source order, so a bank is the same every time."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    starts = _slot_starts(tree, len(lines))
    spans = [(start, end - 1) for start, end in zip(starts, starts[1:] + [len(lines) + 1])]
    texts = ["".join(lines[a - 1 : b]) for a, b in spans]

    def program_with(slot, text):
        return "".join(texts[:slot] + [text] + texts[slot + 1 :])

    def fails_in_time(program):
        """Whether some test fails with `program`, every test ending within MUTANT_STEPS lines. One
        test at a time: Python drops a trace function that raised, so each test gets its own."""
        failed = False
        for test in tests:
            limit = _StepLimit(MUTANT_STEPS)
            with limit:
                verdict = run_program(program, [test], coverage=False, analysis=False)
            if limit.exceeded:
                return False
            failed = failed or verdict["outcome"] in ("failed_test", "runtime_error")
        return failed

    # Every single-line mutation, misspelt names (crashes) after the others, then in source order.
    # Annotations are left alone: a misspelt type is a crash no test result points to.
    annotations = {
        id(inner)
        for node in ast.walk(tree)
        for note in [getattr(node, "annotation", None), getattr(node, "returns", None)]
        if note is not None
        for inner in ast.walk(note)
    }
    candidates = []
    for node in ast.walk(tree):
        target = node.test if isinstance(node, (ast.If, ast.While)) else node
        if isinstance(node, ast.stmt) and target is node or getattr(target, "lineno", None) is None:
            continue
        if id(node) in annotations:
            continue
        if target.lineno != target.end_lineno:
            continue
        for mutated, hard in _logic_mutations(node):
            replacement = mutated.test if target is not node else mutated
            crash = isinstance(node, ast.Name)
            candidates.append((crash, target.lineno, target.col_offset, target, replacement, hard))
    candidates.sort(key=lambda c: c[:3])
    slots = [{"correct": text, "faults": []} for text in texts]
    for _, line, _, target, replacement, hard in candidates:
        slot = next(i for i, (a, b) in enumerate(spans) if a <= line <= b)
        faults = slots[slot]["faults"]
        if len(faults) >= LOGIC_FAULTS_PER_SLOT:
            continue
        slot_lines = texts[slot].splitlines(keepends=True)
        offset = line - spans[slot][0]
        slot_lines[offset] = _replace_segment(slot_lines[offset], target, ast.unparse(replacement))
        text = "".join(slot_lines)
        if all(f["text"] != text for f in faults) and fails_in_time(program_with(slot, text)):
            faults.append({"text": text, "kind": "logic", "repair": 0.5 if hard else 1.0})
    for slot, text in enumerate(texts):
        broken = _syntax_fault(text)
        if text.strip() and not text.lstrip().startswith("#"):
            try:
                compile(program_with(slot, broken), CANDIDATE, "exec")
            except SyntaxError:
                slots[slot]["faults"].append({"text": broken, "kind": "syntax", "repair": 1.0})
    return slots


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


def handle(request):
    """One request object to one verdict, or a clear error for a malformed request."""
    if not isinstance(request, dict) or not isinstance(request.get("code"), str):
        return {"request_error": "a request needs a string `code`"}
    tests = request.get("tests", [])
    if not isinstance(tests, list) or not all(isinstance(t, (str, dict)) for t in tests):
        return {"request_error": "`tests` must be a list of statements or {stdin, stdout} objects"}
    if any(isinstance(t, dict) and not str(t.get("call", "x")).isidentifier() for t in tests):
        return {"request_error": "a test's `call` must be a Python name"}
    if "batch" in request:
        if not isinstance(request["batch"], list):
            return {"request_error": "`batch` must be a list of requests"}
        verdict = _verdict(len(request["batch"]))
        verdict["batch"] = [handle(inner) for inner in request["batch"]]
        verdict["outcome"], verdict["passed"], verdict["reward"] = "pass", True, REWARDS["pass"]
        return verdict
    if "predict" in request:
        steps = request["predict"]
        if not isinstance(steps, list) or not all(isinstance(p, list) and len(p) == 2 for p in steps):
            return {"request_error": "`predict` must be a list of [state, action] pairs"}
        return run_world_model(request["code"], steps, int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)))
    if "plan" in request:
        problem = _plan_problem(request["plan"])
        if problem:
            return {"request_error": problem}
        return run_planning_episode(request["code"], request["plan"], int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)))
    if request.get("mutants"):
        verdict = run_program(request["code"], tests, coverage=False, analysis=False)
        if verdict["passed"]:
            verdict["slots"] = mutant_bank(request["code"], tests)
        return verdict
    return run_program(
        request["code"],
        tests,
        coverage=bool(request.get("coverage", True)),
        analysis=bool(request.get("analysis", True)),
        output_limit=int(request.get("output_limit", DEFAULT_OUTPUT_LIMIT)),
    )


def main():
    """Serve requests over stdin/stdout. The protocol streams are moved off file descriptors 0 and 1
    first, so a program writing to fd 1 or reading fd 0 cannot corrupt them."""
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    try:
        import resource  # noqa: PLC0415  (POSIX only)

        limit = int(os.environ.get("RLCG_MEMORY_LIMIT_BYTES", 2 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    sys.setrecursionlimit(3000)
    for line in protocol_in:
        if not line.strip():
            continue
        try:
            verdict = handle(json.loads(line))
        except json.JSONDecodeError as exc:
            verdict = {"request_error": f"the request is not JSON: {exc}"}
        except MemoryError:
            verdict = {"request_error": "the harness ran out of memory"}
        protocol_out.write(json.dumps(verdict) + "\n")
        protocol_out.flush()


if __name__ == "__main__":
    main()
