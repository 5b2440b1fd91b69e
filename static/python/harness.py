"""Test harness shared by the playground's Python runners.

Pyodide in the browser (static/python/worker.mjs) and native python3 (the CLI and the Rust tests)
both run candidate programs through this file, so a verdict means the same thing everywhere. It is
two interpreters (see "Two interpreters" below): the judge, which reads requests, runs the tests and
writes verdicts, and a candidate per program, which runs the program and never sees a test.

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

A request with `"task": {"definitions": str, "entry_point": str}` (statement tests) says what the
tests' names mean: the task's own definitions (HumanEval's prompt) run in the judge, and the tests
see them, the real builtins, the program's entry point, and only those of the program's other names
that mean nothing else (see `_test_scope`); the verdict's `notes` say which of the program's names a
test would have seen otherwise.

A request with `"naive": true` (statement tests only) is judged as common graders judge, in the
program's own interpreter, for the search's teaching switch (see `_naively`).

A request with `"autopep8": true` runs the code through `autopep8.fix_code` first, as seed 004's
official code does before it scores a program, and runs what comes out; the verdict's `formatted`
holds it when it differs from the code (see `_autopep8`).

As a script it first prints what it found confining it (`{"sandbox": ...}`), then reads one JSON
request per line on stdin and prints one verdict per line.
"""

import ast
import builtins
import collections
import copy
import functools
import gc
import io
import json
import math
import os
import random
import shutil
import socket
import struct
import sys
import time
import tokenize
import traceback

CANDIDATE = "<candidate>"
TEST = "<test>"
REWARDS = {
    "pass": 1.0,
    "failed_test": -0.3,
    "runtime_error": -0.6,
    "timeout": -0.6,
    "tampered": -0.6,
    "compile_error": -1.0,
}
DEFAULT_OUTPUT_LIMIT = 10_000
EXAMPLE_LIMIT = 1_000
CONTROL = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)
if sys.version_info >= (3, 11):
    CONTROL += (ast.TryStar,)


class ProgramExit(Exception):
    """Raised instead of leaving the interpreter: `sys.exit` and `os._exit` would end the runner."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


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
    line reports once, then is disabled, so coverage costs almost nothing), sys.settrace before 3.12.
    Started once per program, and resumed only while the program's code runs."""

    TOOL = 3  # sys.monitoring's free slot after the debugger (0), coverage.py (1) and profilers (2)

    def __init__(self):
        self.lines = set()
        self.monitoring = getattr(sys, "monitoring", None)
        self.started = False

    def start(self):
        if self.monitoring is not None:
            self.monitoring.use_tool_id(self.TOOL, "rlcg-coverage")
            self.monitoring.register_callback(self.TOOL, self.monitoring.events.LINE, self._on_line)
            self.monitoring.restart_events()
        self.started = True

    def resume(self):
        if self.monitoring is not None:
            self.monitoring.set_events(self.TOOL, self.monitoring.events.LINE)
        else:
            sys.settrace(self._on_call)

    def pause(self):
        if self.monitoring is not None:
            self.monitoring.set_events(self.TOOL, 0)
        else:
            sys.settrace(None)

    def stop(self):
        if self.started and self.monitoring is not None:
            self.monitoring.set_events(self.TOOL, 0)
            self.monitoring.register_callback(self.TOOL, self.monitoring.events.LINE, None)
            self.monitoring.free_tool_id(self.TOOL)
        self.started = False

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
    """No coverage (and no step limit): every hook does nothing."""

    lines = ()

    def start(self):
        pass

    resume = pause = stop = start

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
    if isinstance(exc, ProgramError):  # the program's, raised again in the judge (see _Link)
        return exc.description
    if isinstance(exc, ProgramExit):
        return str(exc)
    message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = _candidate_line(exc.__traceback__)
    return f"{message} (line {line})" if line is not None else message


def _exit_guard(code=0):
    raise ProgramExit(f"the program called exit({code!r})", code)


class _Sandbox:
    """Redirects the standard streams and turns exits into exceptions while candidate code runs."""

    def __init__(self, output_limit):
        self.stdout = BoundedOutput(output_limit)
        self.stderr = BoundedOutput(output_limit)
        self.stdin = io.StringIO("")

    def __enter__(self):
        self.saved = (sys.stdin, sys.stdout, sys.stderr, sys.exit, os._exit)
        sys.stdout, sys.stderr = self.stdout, self.stderr
        sys.stdin = self.stdin
        sys.exit = os._exit = _exit_guard
        return self

    def __exit__(self, *exc):
        sys.stdin, sys.stdout, sys.stderr, sys.exit, os._exit = self.saved
        return False


def _kind_and_message(exc):
    """A test's failure as (kind, message): an assertion, or a runtime error with the program's line."""
    if isinstance(exc, AssertionError) and not isinstance(exc, ProgramError):
        return "assertion", f"AssertionError: {exc}" if str(exc) else "AssertionError"
    return "runtime", _describe(exc)


def _run_statement(compiled, scope):
    """Run compiled test code in the judge; map every way it can end to (error kind, message)."""
    try:
        exec(compiled, scope)
    except (KeyboardInterrupt, CandidateGone, _OutOfProtocol):
        raise  # the host's interrupt, or the candidate's end: the run is over, see run_program
    except (Exception, SystemExit, GeneratorExit) as exc:  # SystemExit: `raise SystemExit` or exit()
        return _kind_and_message(exc)
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
        "caught": [],
        "notes": [],
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


def _compile_error(exc):
    line = getattr(exc, "lineno", None)
    message = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
    return f"{message} (line {line})" if line else message


def _not_compiled(verdict, error, code, analysis, started):
    """The verdict of code that does not compile (the error names its line)."""
    verdict.update({"error": error, "complexity": None, "conditionals": [], "scope": [], "statements": []})
    verdict["duration_ms"] = (time.perf_counter() - started) * 1000
    verdict["line_tokens"] = logical_lines(code)[1] if analysis else []


def _analysed(code, analysis, verdict, started):
    """With `analysis`, the code's metrics in `verdict` (the judge reads the code, never runs it);
    False with the error in `verdict` when it does not parse."""
    if not analysis:
        return True
    try:
        tree = ast.parse(code, CANDIDATE)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        _not_compiled(verdict, _compile_error(exc), code, analysis, started)
        return False
    verdict["complexity"], verdict["conditionals"] = analyse(tree, code)
    verdict["scope"] = apps_scope(tree)
    verdict["statements"], verdict["line_tokens"] = logical_lines(code)
    return True


class _NotCompiled(Exception):
    """The candidate could not compile the program (its message names the line)."""


def _finish(link):
    """The program's output, the lines it ran and what its interpreter caught, from the candidate; an
    empty record when it can no longer answer."""
    empty = {"stdout": "", "stderr": "", "truncated": False, "executed_lines": [], "caught": []}
    if link is None:
        return empty
    try:
        finished = link.ask("finish")
    except (CandidateGone, KeyboardInterrupt):
        return empty
    except _OutOfProtocol as broken:
        link.catch(str(broken))
        return empty
    record = dict(empty)
    for key, kind in (("stdout", str), ("stderr", str), ("truncated", bool), ("executed_lines", list), ("caught", list)):
        if isinstance(finished.get(key), kind):
            record[key] = finished[key]
    record["executed_lines"] = [line for line in record["executed_lines"] if type(line) is int]
    record["caught"] = [str(what)[:300] for what in record["caught"]][:10]
    return record


def _settle(verdict, sandbox, started, finished, caught):
    """The verdict's reward, pass flag, output and duration, once its outcome is known. What the judge
    or the candidate caught the program doing outranks every other outcome."""
    if caught:
        verdict["outcome"] = "tampered"
        verdict["caught"] = caught
        verdict["error"] = "the program tampered with its test run: " + "; ".join(caught)
    verdict["reward"] = REWARDS[verdict["outcome"]]
    verdict["passed"] = verdict["outcome"] == "pass"
    limit = sandbox.stdout.limit
    stdout = finished["stdout"] + sandbox.stdout.value()
    stderr = finished["stderr"] + sandbox.stderr.value()
    verdict["stdout"], verdict["stderr"] = stdout[:limit], stderr[:limit]
    verdict["truncated"] = bool(
        finished["truncated"] or sandbox.stdout.dropped or sandbox.stderr.dropped or len(stdout) > limit or len(stderr) > limit
    )
    verdict["duration_ms"] = (time.perf_counter() - started) * 1000


def run_program(code, tests, link, coverage=True, analysis=True, output_limit=DEFAULT_OUTPUT_LIMIT, step_limit=None, naive=False, task=None):
    """Run `code` against `tests` (the program in `link`'s candidate interpreter, the tests here);
    return a JSON-ready verdict (see the module docstring). With `naive`, see `_naively`; `task`, see
    `_test_scope`."""
    started = time.perf_counter()
    verdict = _verdict(len(tests))
    if not _analysed(code, analysis, verdict, started):
        return verdict
    sandbox = _Sandbox(output_limit)
    program_error = None
    interrupted = False
    statements = all(isinstance(test, str) for test in tests)
    try:
        with sandbox:
            loaded = link.ask(
                "load",
                code=code,
                run=statements,
                tests_follow=bool(tests),
                coverage=coverage,
                output_limit=output_limit,
                step_limit=step_limit,
            )
            if "compile_error" in loaded:
                _not_compiled(verdict, str(loaded["compile_error"]), code, analysis, started)
                return verdict
            if statements:
                program_error = _statement_tests(link, loaded, tests, verdict, task, code)
            else:
                _stdin_tests(link, tests, verdict, sandbox)
    except KeyboardInterrupt:
        interrupted = True
    except CandidateGone as gone:
        program_error = str(gone)
    except _OutOfProtocol as broken:
        link.catch(str(broken))
    finished = _finish(link)

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
    verdict["executed_lines"] = finished["executed_lines"]
    _settle(verdict, sandbox, started, finished, link.caught + finished["caught"])
    if naive and statements:
        _naively(verdict, link, code, tests)
    return verdict


def _naively(verdict, link, code, tests):
    """Replaces the verdict's pass, count, outcome and reward with a naive grader's (`naive` in the
    candidate: the program's own interpreter decides), keeping the real one's as `strict_outcome`
    and what it caught. Only for the search's teaching switch: a program that games the naive
    grader passes here, and `strict_outcome` says it did not pass."""
    verdict["strict_outcome"] = verdict["outcome"]
    try:
        reply = link.ask("naive", code=code, tests=tests)
    except (CandidateGone, _OutOfProtocol, KeyboardInterrupt):
        reply = {}
    _finish(link)
    results = reply.get("results") if isinstance(reply.get("results"), list) else []
    passed = [result is True for result in results[: len(tests)]]
    if reply.get("exited") is True:
        passed += [True] * (len(tests) - len(passed))  # the rest never ran; the status said 0
    verdict["number_passed"] = sum(passed)
    if verdict["outcome"] != "compile_error":
        verdict["outcome"] = "pass" if len(passed) == len(tests) and all(passed) else "failed_test"
    verdict["reward"] = REWARDS[verdict["outcome"]]
    verdict["passed"] = verdict["outcome"] == "pass"


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


@functools.lru_cache(maxsize=4096)
def _literal_call(test):
    """For `assert name(<literals>) == <value>` (or `is`): (name, args, kwargs, identity, the value
    compiled), else None. Tests of this shape only call the program with data the test holds, so
    the judge can ask for all their calls at once."""
    try:
        node = ast.parse(test).body
    except (SyntaxError, ValueError):
        return None
    compare = node[0].test if len(node) == 1 and isinstance(node[0], ast.Assert) and node[0].msg is None else None
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1 and isinstance(compare.ops[0], (ast.Eq, ast.Is))):
        return None
    call = compare.left
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or any(k.arg is None for k in call.keywords):
        return None
    try:
        args = tuple(ast.literal_eval(arg) for arg in call.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    identity = isinstance(compare.ops[0], ast.Is)
    return call.func.id, args, kwargs, identity, compile(ast.Expression(compare.comparators[0]), TEST, "eval")


def _judged(link, reply, plan, scope):
    """A batched test's (kind, message), as running `assert call == value` would give them."""
    _, _, _, identity, value = plan
    try:
        returned = link.result(reply)
        expected = eval(value, scope)
        if not (returned is expected if identity else returned == expected):
            raise AssertionError
    except (KeyboardInterrupt, CandidateGone, _OutOfProtocol):
        raise
    except (Exception, SystemExit, GeneratorExit) as exc:
        return _kind_and_message(exc)
    return None, None


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


@functools.lru_cache(maxsize=256)
def _task_definitions(definitions, entry_point):
    """The task's own definitions (HumanEval's prompt: its imports and helpers) compiled for the
    judge, without the entry point's stub, and each top-level definition's shape; or the reason
    they cannot be used."""
    try:
        tree = ast.parse(definitions, TEST)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return f"the task's own definitions do not compile: {_compile_error(exc)}"
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    tree.body = [node for node in tree.body if not (isinstance(node, defined) and node.name == entry_point)]
    return compile(tree, TEST, "exec"), _shapes(tree.body)


def _shapes(body):
    """Each name that a top-level statement of `body` binds (a definition, an import, an assignment),
    with the statement's shape, to tell a program that repeats the task's definitions from one that
    changes them."""
    shapes = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)]
        else:
            continue
        shapes.update(dict.fromkeys(names, ast.dump(node)))
    return shapes


@functools.lru_cache(maxsize=4096)
def _names_in(test):
    """Every name a test's code refers to, in its own functions too."""
    try:
        return frozenset(node.id for node in ast.walk(ast.parse(test)) if isinstance(node, ast.Name))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return frozenset()


def _program_shapes(code):
    try:
        return _shapes(ast.parse(code, CANDIDATE).body)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}


def _test_scope(link, names, tests, task, code, verdict):
    """The tests' scope, so that they mean what the task means whatever the program names its own
    things: the real builtins, then the task's own definitions (`task.definitions`, run here, in the
    judge), then the program's entry point (`task.entry_point`) and every other name of the
    program's that is neither a builtin nor the task's. A name of the program's set aside that a test
    refers to is noted in the verdict's `notes` (unless the program defined it exactly as the task
    did: HumanEval's programs repeat its prompt). Returns (scope, None), or (None, why the task's own
    definitions cannot run)."""
    scope = {"__name__": "__main__", "__builtins__": builtins}
    exec(TYPING_IMPORT, scope)
    task = task if isinstance(task, dict) else {}
    entry_point = task.get("entry_point") if isinstance(task.get("entry_point"), str) else None
    shapes = {}
    if isinstance(task.get("definitions"), str):
        compiled = _task_definitions(task["definitions"], entry_point)
        if isinstance(compiled, str):
            return None, compiled
        compiled, shapes = compiled
        problem = _run_statement(compiled, scope)[1]
        if problem is not None:
            return None, f"the task's own definitions raised {problem}"
    task_names = set(scope)
    referred = frozenset().union(*(_names_in(test) for test in tests))
    set_aside = []
    for name, data in names.items():
        if not name.isidentifier():
            continue
        if name != entry_point and (name in task_names or name in vars(builtins)):
            if name in referred:
                set_aside.append(name)
            continue
        scope[name] = link.inward(data)
    if set_aside:
        program = _program_shapes(code)
        for name in sorted(set_aside):
            if name in shapes and program.get(name) == shapes[name]:
                continue
            meaning = "the task's own" if name in task_names else "Python's builtin"
            verdict["notes"].append(f"the program's `{name}` was set aside: the tests use {meaning} `{name}`")
    return scope, None


def _statement_tests(link, loaded, tests, verdict, task, code):
    """The tests, in the judge, in the scope `_test_scope` gives them; the program's error when it
    failed before them."""
    if "raised" in loaded:
        kind, message = _kind_and_message(link.exception(loaded["raised"]))
        message = message if kind == "runtime" else f"the program raised {message}"
        for test in tests:
            verdict["tests"].append({"test": test, "passed": False, "kind": "not_run", "error": None})
        return message
    names = loaded.get("names")
    if not isinstance(names, dict):
        raise _OutOfProtocol("the program's interpreter did not say what the program defined")
    scope, problem = _test_scope(link, names, tests, task, code, verdict)
    if problem is not None:
        for test in tests:
            _record(verdict, test, "runtime", problem)
        return None
    # When every test only calls a function of the program's with literals and compares what it
    # returns, one question carries all the calls (a failing test's example still calls again, after
    # them all rather than straight after its own). They are asked in the reverse of the tests'
    # order: such calls are independent, so an honest answer does not depend on it, while a program
    # that answers by counting its calls (the visible tests' values in turn) answers the wrong one.
    plans = [_literal_call(test) for test in tests]
    batched = None
    if len(tests) > 1 and all(plan is not None and isinstance(scope.get(plan[0]), _Foreign) for plan in plans):
        asked = [(scope[plan[0]], plan[1], plan[2]) for plan in reversed(plans)]
        batched = link.calls(asked)[::-1]
    for index, test in enumerate(tests):
        compiled = _compiled_test(test)
        if isinstance(compiled, SyntaxError):
            _record(verdict, test, "runtime", f"the test itself does not compile: {compiled.msg}")
            continue
        if batched is not None:
            kind, message = _judged(link, batched[index], plans[index], scope)
        else:
            kind, message = _run_statement(compiled, scope)
        example = _equality_example(test, scope, kind, message) if kind is not None else None
        _record(verdict, test, kind, message, example)
    return None


def _output_lines(text):
    """Output as APPS+'s authors compare it (their reward code, `llama_reward_model.py`): without
    leading and trailing line breaks, each line stripped of surrounding spaces."""
    return [line.strip() for line in text.strip("\n").split("\n")]


def _stdin_tests(link, tests, verdict, sandbox):
    """Each test runs the whole program on its input in the candidate; its output is compared here,
    line by line."""
    for test in tests:
        expected = str(test.get("stdout", ""))
        reply = link.ask("main", stdin=str(test.get("stdin", "")), call=test.get("call"))
        output = reply.get("stdout")
        if not isinstance(output, str):
            raise _OutOfProtocol("the program's interpreter sent no output for a standard-input test")
        kind, message = _kind_and_message(link.exception(reply["raised"])) if "raised" in reply else (None, None)
        sandbox.stdout.write(output)
        got = output.rstrip()
        if kind is None and _output_lines(output) != _output_lines(expected):
            kind, message = "assertion", f"expected output {expected.rstrip()[:200]!r}, got {got[:200]!r}"
        label = f"stdin: {str(test.get('stdin', ''))[:80]!r}"
        actual = message if kind == "runtime" else got
        _record(verdict, label, kind, message, (test.get("stdin", ""), expected.rstrip(), actual))


# ---- Two interpreters: the judge and the candidate (docs/guide.md, "What a verdict guarantees") ----
#
# A verdict is the reward everything here optimises, so the program it judges must not be able to
# write it. The program runs in a candidate interpreter of its own (a process forked from a zygote
# that has never seen a request, or the worker's second Pyodide); the tests run here, in the judge's
# interpreter, which never runs the program's code. The candidate never sees a test, an expected
# value or the verdict. What comes back from it is plain data of exact builtin types (so no `__eq__`
# of the program's decides a comparison), or a handle to an object that stays there: calls,
# attributes, items and iteration are asked of it in the candidate, while comparing it, hashing it
# by value or asking its truth is refused. Whatever the program does to its own interpreter, the
# judge sees only what its functions returned.

PLAIN_TYPES = (type(None), bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
AS_BUILTIN = {
    int: int.__int__,
    float: float.__float__,
    complex: complex.__complex__,
    str: str.__str__,
    bytes: bytes.__bytes__,
    bytearray: bytearray.copy,
    list: list.copy,
    tuple: lambda value: tuple.__getitem__(value, slice(None)),
    dict: dict.copy,
    set: set.copy,
    frozenset: frozenset.copy,
}
"""Each builtin's own C method that copies an instance of a subclass into the builtin itself, without
running any method the subclass defines."""
JUDGING_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__len__", "__contains__")
"""The methods through which a value would decide a test's comparison or truth test by itself."""
STANDARD_SUBCLASSES = (collections.OrderedDict, collections.defaultdict, collections.Counter)
"""Subclasses of builtins that define comparisons of their own and that honest programs return; they
cross as the builtin they extend, like every subclass."""
CROSSING_ITEMS = 2_000_000
CROSSING_DEPTH = 200
CAPTURE_LIMIT = 1 << 22
"""The characters of a standard-input run's output that the candidate sends back to be compared."""


class NotPlainData(Exception):
    """A value that cannot cross between the interpreters (too large, too deep, or of a kind that has
    no plain form in that direction)."""


def _judging_methods(kind, stop=object):
    """The JUDGING_METHODS that `kind` or a class it inherits from (before `stop`) defines itself."""
    found = []
    try:
        for klass in kind.__mro__:
            if klass is stop or klass is object:
                break
            found.extend(name for name in JUDGING_METHODS if name in vars(klass) and name not in found)
    except Exception:  # a class that hides its namespace: say so without naming what it defines
        found.append("unknown methods")
    return found


def to_plain(value, other, caught=None):
    """`value` as JSON-ready data, by exact type; a subclass of a builtin crosses as that builtin (and
    `caught` hears of one that defines comparisons or truth of its own), anything else as `other(value)`."""
    budget = [CROSSING_ITEMS]

    def walk(value, depth):
        budget[0] -= 1
        if budget[0] < 0 or depth > CROSSING_DEPTH:
            raise NotPlainData("a value too large or too deeply nested to compare")
        kind = type(value)
        if kind not in PLAIN_TYPES:
            base = next((b for b in AS_BUILTIN if issubclass(kind, b)), None)
            if base is None:
                return other(value)
            lying = _judging_methods(kind, base)
            if lying and caught is not None and not issubclass(kind, STANDARD_SUBCLASSES):
                caught(f"a value of type {kind.__qualname__}, a subclass of {base.__name__} that defines {', '.join(lying)}")
            value, kind = AS_BUILTIN[base](value), base
        if value is None or kind is bool or kind is str:
            return value
        if kind is int:
            return value if value.bit_length() < 4_000 else {"t": "int", "v": hex(value)}
        if kind is float:
            return value if math.isfinite(value) else {"t": "float", "v": repr(value)}
        if kind is list:
            return [walk(item, depth + 1) for item in value]
        if kind is dict:
            return {"t": "dict", "v": [[walk(k, depth + 1), walk(v, depth + 1)] for k, v in dict.items(value)]}
        if kind in (tuple, set, frozenset):
            return {"t": kind.__name__, "v": [walk(item, depth + 1) for item in value]}
        if kind in (bytes, bytearray):
            return {"t": kind.__name__, "v": value.hex()}
        return {"t": "complex", "v": [value.real, value.imag]}

    return walk(value, 0)


def from_plain(data, resolve):
    """The value `to_plain` gave `data` for; `resolve(data)` for a handle or a reference."""
    if isinstance(data, list):
        return [from_plain(item, resolve) for item in data]
    if not isinstance(data, dict):
        return data
    tag, inner = data.get("t"), data.get("v")
    if tag == "dict":
        return {from_plain(k, resolve): from_plain(v, resolve) for k, v in inner}
    if tag in ("tuple", "set", "frozenset"):
        return {"tuple": tuple, "set": set, "frozenset": frozenset}[tag](from_plain(item, resolve) for item in inner)
    if tag in ("bytes", "bytearray"):
        return {"bytes": bytes, "bytearray": bytearray}[tag].fromhex(inner)
    if tag == "int":
        return int(inner, 16)
    if tag == "float":
        return float(inner)
    if tag == "complex":
        return complex(*inner)
    return resolve(data)


def _exception_plain(exc):
    """An exception of the program's as the judge can raise it again: its builtin class (when it is
    one), its arguments where they are plain, and its description with the program's line."""
    kind = type(exc)
    name = kind.__name__ if getattr(builtins, kind.__name__, None) is kind else None
    try:
        args = to_plain(exc.args, lambda value: repr(value)[:EXAMPLE_LIMIT])
    except BaseException:
        args = None
    try:
        description = _describe(exc)
    except BaseException:
        description = kind.__name__
    return {"class": name, "args": args, "description": description, "assertion": isinstance(exc, AssertionError)}


REFUSED_EVENTS = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "os.system",
        "os.fork",
        "os.forkpty",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.kill",
        "os.killpg",
        "subprocess.Popen",
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.sendto",
    }
)
"""Audit events (PEP 578) the candidate refuses while the program runs, naming them in the verdict:
the ways to reach the harness's objects from inside (every object, the referrers of one, tracing),
and, natively, to start processes or use the network. The hook cannot be removed, but it is not the
verdict's guarantee (the judge's separate interpreter is) nor a sandbox (see the CLI's)."""


TRANSIENT_SYS_NAMES = frozenset({"last_type", "last_value", "last_traceback", "last_exc", "exc_info"})
"""Names of `sys` the interpreter itself sets as programs run."""


class _Decoy(list):
    """A local named like what a harness would keep (`tests`, `verdict`) in the frame that runs the
    program's code: a program that walks the frames and changes it is caught doing so."""

    def __init__(self, server):
        super().__init__()
        self.server = server

    def _caught(self, *args, **kwargs):
        self.server._catch("the program changed a harness's local variable it found through the frames")

    __setitem__ = __delitem__ = __iadd__ = append = extend = insert = pop = remove = clear = sort = reverse = _caught


class _DecoyVerdict(dict):
    """`_Decoy` as a verdict."""

    def __init__(self, server):
        super().__init__()
        self.server = server

    def _caught(self, *args, **kwargs):
        self.server._catch("the program changed a harness's local variable it found through the frames")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = _caught


class _CandidateServer:
    """The candidate interpreter's side: runs the program and answers the judge's questions about it,
    one JSON object in, one out. Everything here is the program's to break; nothing here decides a
    verdict."""

    def __init__(self, interrupts):
        self.interrupts = interrupts
        self.caught = []
        self.harness_tracing = False
        self.own_file = _CandidateServer.answer.__code__.co_filename
        self._reset(DEFAULT_OUTPUT_LIMIT, False, None)
        sys.addaudithook(self._audit)

    def _snapshot(self):
        """What the harness's answers rely on: builtins, its own names, the modules loaded, and the
        names of the modules it answers through."""
        used = (json, sys, builtins)
        # Copies compared by identity (`id()` is an audit event, which this server's own hook hears).
        return [("sys.modules", dict(sys.modules)), ("the harness's names", dict(globals()))] + [
            (module.__name__, dict(vars(module))) for module in used
        ]

    def _check_integrity(self):
        """Names the program rebound or removed (modules it imported and names it added are its own)."""
        for (where, before), (_, after) in zip(self.snapshot, self._snapshot()):
            if after == before:  # in C, identical values first: the usual case costs little
                continue
            changed = sorted(name for name in before if after.get(name, self) is not before[name])
            changed = [name for name in changed if not (where == "sys" and name in TRANSIENT_SYS_NAMES)]
            if changed:
                self._catch(f"the program changed {where}: {', '.join(changed[:3])}")

    def _catch(self, what):
        if what not in self.caught and len(self.caught) < 10:
            self.caught.append(what)

    def _audit(self, event, args):
        if self.harness_tracing and event in ("sys.settrace", "sys.setprofile"):
            return
        refused = event in REFUSED_EVENTS or event.startswith("ctypes.")
        if event == "sys._getframe" and args and args[0].f_code.co_filename == self.own_file:
            refused = True
        if refused:
            self._catch(f"the program called {event}")
            raise PermissionError(f"{event} is refused to programs in the playground's sandbox")

    def _restore_builtins(self):
        """Puts back any builtin the program rebound, so that this server goes on answering, and
        says so."""
        current = vars(builtins)
        if current == self.builtins:
            return
        changed = [name for name, value in self.builtins.items() if current.get(name) is not value]
        if changed:
            self._catch(f"the program changed builtins: {', '.join(sorted(changed)[:3])}")
            current.update(self.builtins)

    def _reset(self, output_limit, coverage, step_limit):
        self.snapshot = self._snapshot()  # what this program, and only it, may be caught changing
        self.builtins = dict(vars(builtins))
        self.scope = {"__name__": "__main__"}
        self.handles, self.handle_ids = [], {}
        self.sandbox = _Sandbox(output_limit)
        self.recorder = LineRecorder() if coverage else NoRecorder()
        self.steps = _StepLimit(step_limit) if step_limit else None
        self.program = None
        self.planning = None

    def serve(self, text):
        """One question as JSON text to its answer as JSON text (the hosts' entry point)."""
        try:
            message = json.loads(text)
            reply = self.answer(message) if isinstance(message, dict) else {"protocol": "not an object"}
        except KeyboardInterrupt:
            reply = {"interrupted": True}
        except Exception as exc:
            reply = {"protocol": _describe(exc)}
        if self.steps is not None and self.steps.exceeded:
            reply["exceeded"] = True
        return json.dumps(reply)

    def answer(self, message):
        op = message.get("op")
        if op == "load":
            self.recorder.stop()
            self._reset(int(message.get("output_limit", DEFAULT_OUTPUT_LIMIT)), bool(message.get("coverage")), message.get("step_limit"))
            self.recorder.start()
            program = self._compile(message["code"])
            if isinstance(program, dict) or not message.get("run", True):
                self.program = program
                return program if isinstance(program, dict) else {"names": {}}
            exec(TYPING_IMPORT, self.scope)
            typing_names = dict(self.scope)
            reply = self._running(lambda: exec(program, self.scope), exits_caught=bool(message.get("tests_follow")))
            if "raised" in reply:
                return reply
            names = {}
            for name, value in self.scope.items():
                if not name.startswith("__") and typing_names.get(name, self) is not value:
                    try:
                        names[name] = self._plain(value)
                    except NotPlainData:
                        names[name] = self._handle(value)
            return {"names": names}
        if op == "main":
            return self._main(message)
        if op in ("call", "attr", "item", "len", "iter", "next", "repr", "str"):
            return self._ask_object(op, message)
        if op == "calls":
            return {"replies": [self._ask_object("call", call) for call in message["calls"]]}
        if op in ("predict", "plan_start"):
            # A program of its own, as `load` starts one: what it may be caught changing is what
            # the interpreter held just before it (the page's worker closes doors in between).
            self.recorder.stop()
            self._reset(DEFAULT_OUTPUT_LIMIT, False, None)
        if op == "predict":
            return self._predict(message)
        if op == "naive":
            return self._naive(message)
        if op == "plan_start":
            return self._plan_start(message)
        if op == "plan_step":
            return self._plan_step(message)
        if op == "finish":
            self.recorder.stop()
            self._check_integrity()
            sandbox = self.sandbox
            finished = {
                "stdout": sandbox.stdout.value(),
                "stderr": sandbox.stderr.value(),
                "truncated": bool(sandbox.stdout.dropped or sandbox.stderr.dropped),
                "executed_lines": sorted(self.recorder.lines),
                "caught": list(self.caught),
            }
            self.caught.clear()
            self._reset(DEFAULT_OUTPUT_LIMIT, False, None)
            return finished
        return {"protocol": f"unknown question {op!r}"}

    def _compile(self, code):
        try:
            return compile(code, CANDIDATE, "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            return {"compile_error": _compile_error(exc)}

    def _running(self, run, exits_caught=False):
        """`run()` as the program's code runs (output captured, exits guarded, lines recorded, steps
        counted): {"value": its result} or {"raised": the exception}. With `exits_caught`, an exit
        with status 0 is caught: where tests follow, it is how a grader that reads the exit status
        is fooled into a pass."""
        steps = self.steps if self.steps is not None else NoRecorder()
        tests, verdict = _Decoy(self), _DecoyVerdict(self)  # noqa: F841  (decoys, see _Decoy)
        output = self.sandbox.stdout
        try:
            self.harness_tracing = True
            with self.sandbox, steps:
                self.recorder.resume()
                self.harness_tracing = False
                try:
                    value = run()
                finally:
                    self.harness_tracing = True
                    self._restore_builtins()
                    self.recorder.pause()
                    if sys.stdout is not output and sys.stdout is not self.sandbox.stdout and not isinstance(sys.stdout, BoundedOutput):
                        self._catch("the program replaced sys.stdout")
            self.harness_tracing = False
        except KeyboardInterrupt:
            self.harness_tracing = False
            if self.interrupts:
                raise
            self._catch("the program raised KeyboardInterrupt")
            return {"raised": _exception_plain(KeyboardInterrupt())}
        except BaseException as exc:
            self.harness_tracing = False
            if exits_caught and isinstance(exc, (SystemExit, ProgramExit)) and getattr(exc, "code", None) in (0, None):
                self._catch("the program exited with status 0 before its tests were done")
            if not isinstance(exc, (Exception, SystemExit, GeneratorExit)):
                self._catch(f"the program raised {type(exc).__name__}, which no test's `except Exception` catches")
            return {"raised": _exception_plain(exc)}
        return {"value": value}

    def _plain(self, value):
        return to_plain(value, self._handle, self._catch)

    def _handle(self, value):
        key = id(value)
        if key not in self.handle_ids:
            self.handle_ids[key] = len(self.handles)
            self.handles.append(value)
        return {"t": "handle", "id": self.handle_ids[key], "type": type(value).__qualname__, "lies": _judging_methods(type(value))}

    def _resolve(self, data):
        if data.get("t") != "ref" or not isinstance(data.get("id"), int) or not 0 <= data["id"] < len(self.handles):
            raise NotPlainData("a reference to no object of the program's")
        return self.handles[data["id"]]

    def _ask_object(self, op, message):
        target = self._resolve({"t": "ref", "id": message.get("target")})
        if op == "call":
            args = from_plain(message.get("args", []), self._resolve)
            kwargs = from_plain(message.get("kwargs", {"t": "dict", "v": []}), self._resolve)
            reply = self._running(lambda: target(*args, **kwargs), exits_caught=True)
            # Arguments the program changed in place go back, so `sort_in_place(xs); assert xs == …` works.
            reply["mutated"] = [[i, self._plain(a)] for i, a in enumerate(args) if type(a) in (list, dict, set, bytearray)]
        else:
            run = {
                "attr": lambda: getattr(target, message["name"]),
                "item": lambda: target[from_plain(message["key"], self._resolve)],
                "len": lambda: len(target),
                "iter": lambda: iter(target),
                "next": lambda: next(target),
                "repr": lambda: repr(target),
                "str": lambda: str(target),
            }[op]
            reply = self._running(run)
        if "value" in reply:
            try:
                reply["value"] = self._plain(reply["value"])
            except NotPlainData as exc:
                return {"raised": _exception_plain(exc)}
        elif op == "next" and reply["raised"]["class"] == "StopIteration":
            return {"stop": True}
        return reply

    def _main(self, message):
        """The whole program (compiled by `load`) on one standard input (APPS), then `call`'s function (APPS+)."""
        program = self.program
        captured = BoundedOutput(CAPTURE_LIMIT)
        scope = {"__name__": "__main__"}

        def run():
            sys.stdin = io.StringIO(message.get("stdin", ""))
            sys.stdout = captured
            exec(program, scope)
            if message.get("call"):
                exec(compile(f"{message['call']}()", TEST, "exec"), scope)

        reply = self._running(run)
        reply.pop("value", None)
        reply["stdout"] = captured.value()
        return reply

    def _naive(self, message):
        """The tests as common graders run them (HumanEval's `execution.py`): in the program's own
        interpreter, after it, each passing when it raises nothing, and an exit with status 0 ending
        the run as a pass (the grader reads the exit status). Everything here is the program's to
        change, which is what the search's "naive verdicts" switch shows."""
        program = self._compile(message["code"])
        if isinstance(program, dict):
            return program
        scope = {"__name__": "__main__"}
        results, exits = [], []

        def run():
            try:
                exec(TYPING_IMPORT, scope)
                exec(program, scope)
                for test in message["tests"]:
                    results.append(_naive_test(_compiled_test(test), scope))
            except (SystemExit, ProgramExit) as exc:
                exits.append(getattr(exc, "code", None) in (0, None))

        self._running(run)
        return {"results": [result is True for result in results], "exited": bool(exits and exits[0])}

    def _predict(self, message):
        program = self._compile(message["code"])
        if isinstance(program, dict):
            return program
        predictions = []
        reply = self._running(lambda: _predict(program, message["code"], message["pairs"], predictions))
        if "raised" in reply:
            return {"raised": reply["raised"], "predictions": predictions}
        return {"error": reply["value"], "predictions": predictions}

    def _plan_start(self, message):
        program = self._compile(message["code"])
        if isinstance(program, dict):
            return program
        random.seed(message["seed"])
        reply = self._running(lambda: _new_model(program, message["code"]))
        if "raised" in reply:
            return reply
        model, error = reply["value"]
        if error is not None:
            return {"error": error}
        self.planning = (_Simulator(model), random.Random(message["seed"]), message)
        return {}

    def _plan_step(self, message):
        simulator, rng, plan = self.planning
        exact = from_plain(message["frame"], self._resolve)
        frame = _float32(exact) if plan.get("float32") else exact
        params = {key: plan["planner"][key] for key in PLANNER_KEYS}

        def plan_one():
            try:
                return _planned_action(simulator, frame, plan["actions"], params, rng), None
            except _ModelRaised as raised:
                return None, _model_error(raised.exc, plan["code"], f"Error when planning step {message['step']} with the model")

        reply = self._running(plan_one)
        if "raised" in reply:
            return reply
        action, error = reply["value"]
        return {"action": action, "error": error, "model_steps": simulator.steps}


def _naive_test(compiled, scope):
    """A naive grader's check of one test: it passes when it raises nothing."""
    try:
        exec(compiled, scope)
        return True
    except Exception:
        return False


_CANDIDATE = []
"""The interpreter's one candidate server, once asked for."""


def candidate_server(interrupts):
    """The candidate interpreter's entry point: a function from a question's JSON text to its answer's.
    With `interrupts`, a KeyboardInterrupt is the host's clock (Pyodide's interrupt buffer) and
    answers `interrupted`; without, the host kills the process instead and one is the program's.
    One server per interpreter: its audit hook cannot be removed, and a second server's hook would
    hear the program only after the first's had refused it (a page's worker asks again after
    restoring its interpreters from a memory snapshot)."""
    if not _CANDIDATE:
        _CANDIDATE.append(_CandidateServer(interrupts))
    if _CANDIDATE[0].interrupts != interrupts:
        raise ValueError("this interpreter's candidate server keeps time another way")
    return _CANDIDATE[0].serve


class CandidateGone(Exception):
    """The candidate interpreter ended (the program took it down) before it answered."""


class _OutOfProtocol(Exception):
    """The candidate answered something no harness of ours would."""


class ProgramError(Exception):
    """An exception the program raised, as the judge raises it again in the tests: `kind` (its class's
    name), `description` (its message with the program's line). It is never the builtin class
    itself, so no exception of the program's is read by Python's machinery as a signal (see
    `SIGNALS`); where the program's class is a builtin outside them, it is a subclass of both, so a
    test's `except ValueError:` still means what its author meant."""

    kind = "Exception"
    description = ""

    def __str__(self):
        return self.description


SIGNALS = (StopIteration, StopAsyncIteration, GeneratorExit, KeyboardInterrupt, SystemExit)
"""Exceptions that Python's own machinery reads as a signal rather than a failure: a builtin iterator
(`map`, `filter`, `zip`, `iter(f, sentinel)`) or a generator ends at a StopIteration from a function
it calls, a generator closes on GeneratorExit, and the interpreter stops on the other two. A test
that calls the program through `map` would end early, and pass, if the program's StopIteration were
raised again as itself."""

_PROGRAM_ERRORS = {}


def _program_error_class(name):
    """The class the judge raises a program's exception of builtin class `name` as (see ProgramError)."""
    if name not in _PROGRAM_ERRORS:
        builtin = getattr(builtins, name, None) if isinstance(name, str) else None
        if isinstance(builtin, type) and issubclass(builtin, Exception) and not issubclass(builtin, SIGNALS):
            _PROGRAM_ERRORS[name] = type(f"Program{name}", (ProgramError, builtin), {})
        else:
            return ProgramError
    return _PROGRAM_ERRORS[name]


class _Link:
    """The judge's end of one candidate interpreter: a question out, an answer back, both plain data.
    `retire()` ends the interpreter once its program is judged (natively; a page's worker ends with
    its program)."""

    def __init__(self, exchange, retire=lambda: None):
        self.exchange = exchange
        self.retire = retire
        self.proxies = {}
        self.caught = []
        self.exceeded = False

    def ask(self, op, **fields):
        reply = self.exchange(json.dumps({"op": op, **fields}))
        try:
            reply = json.loads(reply)
        except (TypeError, ValueError, RecursionError) as exc:
            raise _OutOfProtocol(f"the program's interpreter answered something unreadable ({type(exc).__name__})") from None
        if not isinstance(reply, dict):
            raise _OutOfProtocol("the program's interpreter answered something that is not an answer")
        if reply.get("exceeded") is True:
            self.exceeded = True
        if reply.get("interrupted") is True:
            raise KeyboardInterrupt
        if "protocol" in reply:
            raise _OutOfProtocol(f"the program's interpreter broke its protocol: {str(reply['protocol'])[:200]}")
        return reply

    def catch(self, what):
        if what not in self.caught:
            self.caught.append(what)

    def outward(self, value):
        def refer(value):
            if isinstance(value, _Foreign) and object.__getattribute__(value, "_link") is self:
                return {"t": "ref", "id": object.__getattribute__(value, "_id")}
            raise NotPlainData(f"a test passed a {type(value).__name__} to the program; only plain data crosses to it")

        return to_plain(value, refer)

    def inward(self, data):
        return from_plain(data, self._proxy)

    def _proxy(self, data):
        if data.get("t") != "handle" or not isinstance(data.get("id"), int):
            raise _OutOfProtocol("the program's interpreter sent a value of no known kind")
        key = data["id"]
        if key not in self.proxies:
            lies = data.get("lies") if isinstance(data.get("lies"), list) else []
            self.proxies[key] = _Foreign(self, key, str(data.get("type"))[:100], [str(name) for name in lies])
        return self.proxies[key]

    def result(self, reply):
        """An answer's value, or its exception raised again here."""
        if "raised" in reply:
            raise self.exception(reply["raised"])
        if "value" not in reply:
            raise _OutOfProtocol("the program's interpreter answered without a value")
        return self.inward(reply["value"])

    def exception(self, raised):
        """The program's exception as the judge raises it in the tests: a ProgramError that describes
        it, never one of the SIGNALS (see ProgramError)."""
        if not isinstance(raised, dict):
            raise _OutOfProtocol("the program's interpreter sent an exception of no known form")
        name, description = str(raised.get("class")), str(raised.get("description"))
        try:
            args = self.inward(raised["args"]) if raised.get("args") is not None else ()
            exc = _program_error_class(name)(*args)
        except Exception:  # arguments the builtin's constructor refuses: the description says it all
            exc = ProgramError()
        exc.kind, exc.description = name, description
        return exc

    def calls(self, calls):
        """Each of `calls` (a handle, its arguments and keywords, all plain data) in order, in one
        question: their answers, as `call` gives them."""
        questions = [
            {"target": object.__getattribute__(f, "_id"), "args": self.outward(list(a)), "kwargs": self.outward(dict(k))}
            for f, a, k in calls
        ]
        replies = self.ask("calls", calls=questions).get("replies")
        if not isinstance(replies, list) or len(replies) != len(calls) or not all(isinstance(r, dict) for r in replies):
            raise _OutOfProtocol("the program's interpreter did not answer every call")
        return replies

    def call(self, target, args, kwargs):
        reply = self.ask("call", target=target, args=self.outward(list(args)), kwargs=self.outward(dict(kwargs)))
        mutated = reply.get("mutated") if isinstance(reply.get("mutated"), list) else []
        for index, data in mutated:
            if isinstance(index, int) and 0 <= index < len(args) and type(args[index]) in (list, dict, set, bytearray):
                _assign_in_place(args[index], self.inward(data))
        return self.result(reply)


def _assign_in_place(target, value):
    if type(value) is not type(target):
        return
    if isinstance(target, dict):
        target.clear()
        target.update(value)
    elif isinstance(target, set):
        target.clear()
        target |= value
    else:
        target[:] = value


class _Foreign:
    """An object of the program's that is not plain data (a function, a class, an instance), left in
    the candidate interpreter. Calls, attributes, items and iteration are asked of it there and come
    back as plain data; comparing it, hashing it by value or asking its truth is refused, since only
    the program's own methods could answer, and a test that tries fails. Where the program's class
    defines such a method itself, the verdict says it was caught."""

    __slots__ = ("_link", "_id", "_type", "_lies", "__weakref__")

    def __init__(self, link, key, kind, lies):
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_id", key)
        object.__setattr__(self, "_type", kind)
        object.__setattr__(self, "_lies", lies)

    def _ask(self, op, **fields):
        link = object.__getattribute__(self, "_link")
        return link.result(link.ask(op, target=object.__getattribute__(self, "_id"), **fields))

    def _refuse(self, method, what):
        kind, lies = object.__getattribute__(self, "_type"), object.__getattribute__(self, "_lies")
        if method in lies or (method == "__bool__" and "__len__" in lies):
            object.__getattribute__(self, "_link").catch(f"a value of type {kind} that defines its own {method}")
        raise TypeError(f"the program returned a {kind}, which the tests cannot {what}: only plain data (None, bool, int, float, str, bytes, list, tuple, dict, set) compares")

    def __getattr__(self, name):
        return self._ask("attr", name=name)

    def __setattr__(self, name, value):
        raise TypeError("the tests cannot change the program's objects")

    def __call__(self, *args, **kwargs):
        link = object.__getattribute__(self, "_link")
        return link.call(object.__getattribute__(self, "_id"), args, kwargs)

    def __iter__(self):
        return self._ask("iter")

    def __next__(self):
        link = object.__getattribute__(self, "_link")
        reply = link.ask("next", target=object.__getattribute__(self, "_id"))
        if reply.get("stop") is True:
            raise StopIteration
        return link.result(reply)

    def __len__(self):
        return self._ask("len")

    def __getitem__(self, key):
        link = object.__getattribute__(self, "_link")
        return self._ask("item", key=link.outward(key))

    def __repr__(self):
        return self._ask("repr")

    def __str__(self):
        return self._ask("str")

    def __eq__(self, other):
        return other is self or self._refuse("__eq__", "compare")

    def __ne__(self, other):
        return other is not self and self._refuse("__ne__", "compare")

    def __lt__(self, other):
        self._refuse("__lt__", "order")

    def __le__(self, other):
        self._refuse("__le__", "order")

    def __gt__(self, other):
        self._refuse("__gt__", "order")

    def __ge__(self, other):
        self._refuse("__ge__", "order")

    def __bool__(self):
        self._refuse("__bool__", "test for truth")

    def __contains__(self, item):
        self._refuse("__contains__", "search")

    def __hash__(self):
        return object.__hash__(self)


def bridge(exchange):
    """A candidate link from a host's function of JSON text to JSON text (the page's worker passes
    its second Pyodide's `candidate_server`)."""
    return lambda: _Link(exchange)


class _Zygote:
    """Native candidates: a process forked before the judge reads its first request, so it holds no
    test, and that forks a fresh candidate interpreter for each program, one kept ready ahead, each in
    a folder the zygote makes with a name no program can guess."""

    def __init__(self):
        self.socket, child = socket.socketpair()
        self.pid = os.fork()
        if self.pid == 0:
            self.socket.close()
            _zygote_loop(child)
        child.close()
        self.socket.sendall(b"f")  # the first candidate forks while the judge waits for its request

    def ended(self):
        """Whether the zygote has ended or stopped (no program should be able to do either; if one
        did, the host starts a fresh judge, see `main`)."""
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG | os.WUNTRACED)
        except ChildProcessError:
            return True
        return pid != 0

    def connect(self):
        message, fds, _, _ = socket.recv_fds(self.socket, 256, 1)
        if not fds:
            raise CandidateGone("the zygote that forks candidate interpreters has ended")
        self.socket.sendall(b"f")  # the next one forks while this one runs
        channel = socket.socket(fileno=fds[0])
        reader, writer = channel.makefile("rb"), channel.makefile("wb")
        channel.close()
        pid, folder = message.decode().split(" ", 1)
        pid = int(pid)

        def retire():
            """The candidate ends with its program, whatever it left running, and its folder goes."""
            for stream in (reader, writer):
                try:
                    stream.close()
                except OSError:
                    pass
            try:
                os.kill(pid, 9)
            except OSError:
                pass
            shutil.rmtree(folder, ignore_errors=True)

        def exchange(text):
            try:
                writer.write(text.encode() + b"\n")
                writer.flush()
                line = reader.readline(64 << 20)
            except OSError:
                line = b""
            if not line.endswith(b"\n"):
                raise CandidateGone("the program ended the Python interpreter")
            return line.decode("utf-8", "replace")

        return _Link(exchange, retire)


def _zygote_loop(channel):
    """The zygote: stdin and stdout at /dev/null and no other descriptor but its channel, then one
    candidate per byte asked for, each in a PID namespace of its own where the kernel allows one (no
    other process is visible to it: its parent and its group are outside, pid 0)."""
    import secrets  # noqa: PLC0415  (native only)
    import signal  # noqa: PLC0415  (native only)

    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)
    keep = {0, 1, 2, channel.fileno()}
    for fd in range(3, 256):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # candidates are reaped as they end
    # Objects from before the fork stay out of the candidates' collections, which would otherwise
    # touch, and so copy, every page the zygote shares with them.
    gc.collect()
    gc.freeze()
    filters = [bytes.fromhex(f) for f in os.environ.get("RLCG_CANDIDATE_SECCOMP", "").split(",") if f]
    namespaces = _PidNamespaces() if filters else None
    settings = _Settings()
    try:
        while channel.recv(1):
            mine, theirs = socket.socketpair()
            folder = os.path.join(os.getcwd(), f"program-{secrets.token_hex(16)}")
            os.mkdir(folder, 0o700)
            if namespaces is not None:
                namespaces.next_child()
            pid = os.fork()
            if pid == 0:
                channel.close()
                theirs.close()
                if namespaces is not None:
                    namespaces.close()
                _confine(filters, folder, settings)
                _serve_forked(mine)
            socket.send_fds(channel, [f"{pid} {folder}".encode()], [theirs.fileno()])
            mine.close()
            theirs.close()
    finally:
        os._exit(0)


class _PidNamespaces:
    """A fresh PID namespace for each child the zygote forks: setns back to its own, then unshare (a
    process may unshare a PID namespace only while its children's is its own). Both need
    CAP_SYS_ADMIN over the zygote's own PID namespace, which the sandbox gives by starting it in one
    that its user namespace owns (cli/src/sandbox.rs, `Namespaces`); where the kernel refuses,
    children share the zygote's, and Landlock's scopes still keep their signals and ptrace from
    every other process."""

    CLONE_NEWPID = 0x20000000

    def __init__(self):
        import ctypes  # noqa: PLC0415  (native only)

        self.libc = ctypes.CDLL(None, use_errno=True)
        try:
            self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            self.on = True
        except OSError:
            self.on = False

    def close(self):
        """In a child: it keeps no way into the zygote's namespace."""
        if self.on:
            os.close(self.own)

    def next_child(self):
        if self.on and (self.libc.setns(self.own, self.CLONE_NEWPID) or self.libc.unshare(self.CLONE_NEWPID)):
            self.on = False
            self.libc.setns(self.own, self.CLONE_NEWPID)


class _Settings:
    """What a candidate inherits from its zygote that a process could change for its children: its
    resource limits, priority and CPU set, as the zygote had them before any candidate existed. Each
    candidate sets them again after its fork (with CPU_BACKSTOP_S on top), so that nothing a program
    did to the zygote, had it found a way, reaches the next one."""

    CPU_BACKSTOP_S = 120  # a candidate's CPU time; its judge's host keeps the wall clock

    def __init__(self):
        import resource  # noqa: PLC0415  (POSIX only)

        self.limits = {getattr(resource, n): resource.getrlimit(getattr(resource, n)) for n in dir(resource) if n.startswith("RLIMIT_")}
        hard = self.limits[resource.RLIMIT_CPU][1]
        cpu = self.CPU_BACKSTOP_S if hard == resource.RLIM_INFINITY else min(self.CPU_BACKSTOP_S, hard)
        self.limits[resource.RLIMIT_CPU] = (cpu, cpu)
        self.priority = os.getpriority(os.PRIO_PROCESS, 0)
        self.affinity = os.sched_getaffinity(0)

    def apply(self):
        import resource  # noqa: PLC0415  (POSIX only)

        for kind, limit in self.limits.items():
            resource.setrlimit(kind, limit)
        os.setpriority(os.PRIO_PROCESS, 0, self.priority)
        os.sched_setaffinity(0, self.affinity)


def _confine(filters, folder, settings):
    """A native candidate's own confinement on top of its judge's, set up before it runs anything (a
    candidate that cannot confine itself ends first):
    - its limits, priority and CPU set (`_Settings`), set here after the fork;
    - it dies with the zygote;
    - its folder (made by the zygote) as its working directory;
    - a Landlock domain of its own, nested in the judge's: it writes only in its folder, and no
      signal, ptrace or abstract socket of its reaches a process outside it (the judge, the zygote,
      another candidate);
    - seccomp filters (cli/src/sandbox.rs compiles them with seccompiler, and passes them here as hex
      in RLCG_CANDIDATE_SECCOMP): no process, no exec, no socket but its channel. Installing one is a
      single prctl, which Python's standard library has no call for, hence ctypes here."""
    try:
        settings.apply()
        os.chdir(folder)
        if filters:
            import ctypes  # noqa: PLC0415  (native only)

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig, pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 1, 38, 22, 2
            if libc.prctl(pr_set_pdeathsig, 9, 0, 0, 0):
                os._exit(70)
            _nested_landlock(libc, folder)

            class SockFprog(ctypes.Structure):
                _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

            for program in filters:
                code = ctypes.create_string_buffer(program, len(program))
                fprog = SockFprog(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
                if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) or libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0):
                    os._exit(70)
            # A program's `import ctypes` loads it afresh, and the audit hook hears it.
            for name in [n for n in sys.modules if n == "ctypes" or n.startswith("ctypes.")]:
                del sys.modules[name]
    except BaseException:
        os._exit(70)


def _nested_landlock(libc, folder):
    """The candidate's own Landlock domain (see `_confine`): the rights that change files, handled and
    allowed beneath `folder` only (reading stays as the judge's domain allows), and every scope the
    kernel has. Nothing where the kernel has no Landlock (the judge's domain is then absent too)."""
    import ctypes  # noqa: PLC0415  (native only)

    create, add_rule, restrict_self = 444, 445, 446  # the same numbers on every architecture
    abi = libc.syscall(create, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        return
    # WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR … MAKE_SYM; REFER (ABI 2), TRUNCATE (3), IOCTL_DEV (5).
    handled = (1 << 1) | sum(1 << bit for bit in range(4, 13))
    handled |= (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0) | (1 << 15 if abi >= 5 else 0)
    scoped = 0b11 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET, SIGNAL

    class RulesetAttr(ctypes.Structure):
        _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(handled, 0, scoped)
    size = ctypes.sizeof(RulesetAttr) if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = libc.syscall(create, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        os._exit(70)
    for path, rights in ((folder, handled), (os.devnull, 1 << 1)):
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        if libc.syscall(add_rule, ruleset, 1, ctypes.byref(PathBeneath(rights, fd)), 0):
            os._exit(70)
        os.close(fd)
    if libc.syscall(restrict_self, ruleset, 0):
        os._exit(70)
    os.close(ruleset)


WARM_UP_PROGRAM = "def f(values):\n    return sorted(values)[:1] + [len(values)]\n"


def _serve_forked(channel):
    """A native candidate: questions and answers over its channel until the judge hangs up."""
    try:
        reader, writer = channel.makefile("rb"), channel.makefile("wb")
        serve = candidate_server(interrupts=False)
        # A program of the playground's own while the judge has not asked yet: the pages that every
        # program touches are copied from the zygote now, not on the judge's clock.
        serve(json.dumps({"op": "load", "code": WARM_UP_PROGRAM, "coverage": True}))
        serve(json.dumps({"op": "call", "target": 0, "args": [[1, 2]], "kwargs": {"t": "dict", "v": []}}))
        serve(json.dumps({"op": "finish"}))
        for line in reader:
            writer.write(serve(line.decode("utf-8", "replace")).encode() + b"\n")
            writer.flush()
    finally:
        os._exit(0)


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


def run_world_model(code, steps, link, output_limit=DEFAULT_OUTPUT_LIMIT):
    """Run `code` as a code world model on `steps`, pairs of (state, action), in `link`'s candidate
    interpreter (which never holds the recorded outcomes). `number_passed` counts the pairs it
    predicted; the outcome is `pass` when it predicted all of them (whether rightly is the engine's to
    judge), `runtime_error` when it raised (its error, with the line, is what a fix prompt shows), and
    `compile_error` or `timeout` as for any program."""
    started = time.perf_counter()
    verdict = _verdict(len(steps))
    verdict["predictions"] = predictions = []

    def run():
        reply = link.ask("predict", code=code, pairs=steps)
        if "compile_error" in reply:
            raise _NotCompiled(str(reply["compile_error"]))
        if "raised" in reply:
            return _describe(link.exception(reply["raised"]))
        sent = reply.get("predictions")
        keys = {"next_obs", "reward", "done"}
        if not isinstance(sent, list) or len(sent) > len(steps) or not all(isinstance(p, dict) and set(p) == keys for p in sent):
            raise _OutOfProtocol("the program's interpreter sent predictions of no known form")
        predictions.extend(sent)
        return None if reply.get("error") is None else str(reply["error"])

    _run_model(verdict, started, output_limit, link, run)
    verdict["number_passed"] = len(predictions)
    return verdict


def _run_model(verdict, started, output_limit, link, run):
    """Runs a model's predictions or episode (`run()` returns the model's error, or None) and settles
    the verdict: `timeout` at the time limit, `runtime_error` with the error, or `pass`."""
    sandbox = _Sandbox(output_limit)
    error, interrupted = None, False
    try:
        with sandbox:
            error = run()
    except KeyboardInterrupt:
        interrupted = True
    except _NotCompiled as failed:
        _not_compiled(verdict, str(failed), "", False, started)
        return
    except CandidateGone as gone:
        error = str(gone)
    except _OutOfProtocol as broken:
        link.catch(str(broken))
    if interrupted:
        verdict["outcome"], verdict["error"] = "timeout", "the run was stopped at the time limit"
    elif error is not None:
        verdict["outcome"], verdict["error"] = "runtime_error", error
    else:
        verdict["outcome"] = "pass"
    finished = _finish(link)
    _settle(verdict, sandbox, started, finished, (link.caught if link else []) + finished["caught"])


# ---- Planning with a code world model (seed 004 §3.5): one real episode per request ----
#
# The engine's planner (engine/src/cwm/mcts.rs) line for line, in Python: the models of
# continuous environments cannot be tabulated, and one request per real step would cost a round trip
# (and in the page a fresh interpreter) each time. The real environment is the reference model
# (`plan.environment`, the bank's correct program), which the Gymnasium fixture checks. It runs in
# the judge; the planner and the model run in the candidate, which learns only each real
# observation, so a model cannot find the real environment and step it instead of predicting.

PLANNER_KEYS = (
    "simulations",
    "exploration",
    "discount",
    "rollout_steps",
    "temperature",
    "visit_epsilon",
    "unvisited_value",
    "root_counted",
    "random_ties",
)


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


def _uct(node, params, rng):
    ln_n = math.log(max(node[2], 1))
    scores = []
    for visits, value_sum, _ in node[3]:
        q = value_sum / visits if visits else params["unvisited_value"]
        scores.append(q + params["exploration"] * math.sqrt(ln_n / (visits + params["visit_epsilon"])))
    best = [index for index, score in enumerate(scores) if score == max(scores)]
    # A draw only for a tie: one action is what the official `np.random.choice` of one returns.
    return best[rng.randrange(len(best))] if params["random_ties"] and len(best) > 1 else best[0]


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
    action = _uct(node, params, rng)
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
    tree = [[frame, False, int(params["root_counted"]), [[0, 0.0, {}] for _ in range(actions)]]]
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


def _play(plan, episode, link):
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
    oracle = None
    if policy == "oracle":
        # A copy of the real environment: the reference model fed the real, unrounded observation.
        oracle = _Simulator(scope["Environment"]())
    elif policy == "model":
        started = link.ask("plan_start", code=plan["model_code"], seed=plan["seed"], actions=actions, planner=plan["planner"], float32=rounded)
        if "compile_error" in started:
            raise _NotCompiled(str(started["compile_error"]))
        if "raised" in started:
            return _describe(link.exception(started["raised"]))
        if started.get("error") is not None:
            return str(started["error"])
    exact = list(plan["start"])
    for step in range(1, plan["max_steps"] + 1):
        if policy == "random":
            action = rng.randrange(actions)
        elif policy == "oracle":
            action = _planned_action(oracle, exact, actions, params, rng)
            episode["model_steps"] = oracle.steps
        else:
            reply = link.ask("plan_step", frame=link.outward(exact), step=step)
            if "raised" in reply:
                return _describe(link.exception(reply["raised"]))
            if type(reply.get("model_steps")) is int:
                episode["model_steps"] = reply["model_steps"]
            if reply.get("error") is not None:
                return str(reply["error"])
            action = reply.get("action")
            if type(action) is not int or not 0 <= action < actions:
                raise _OutOfProtocol("the program's interpreter planned an action that does not exist")
        observation, reward, done = real.step(action)
        exact = _json_ready(observation)
        episode["actions"].append(action)
        episode["rewards"].append(float(reward))
        episode["observations"].append(_float32(exact) if rounded else exact)
        if done:
            episode["terminated"] = True
            break
    return None


def run_planning_episode(code, plan, link, output_limit=DEFAULT_OUTPUT_LIMIT):
    """One real episode planned with the model `code` (or the oracle, or at random; see `_play`).
    The verdict's `episode` holds its actions, rewards, the observations after each step, whether
    it terminated and how many model steps the planner took; `runtime_error` carries the model's
    exception with its line, the episode then ending where it stopped."""
    started = time.perf_counter()
    verdict = _verdict(1)
    episode = verdict["episode"] = {"actions": [], "rewards": [], "observations": [], "terminated": False, "model_steps": 0}
    plan = dict(plan, model_code=code)
    link = link if plan["policy"] == "model" else None

    def play():
        try:
            return _play(plan, episode, link)
        except (KeyboardInterrupt, CandidateGone, _OutOfProtocol, _NotCompiled):
            raise
        except Exception as exc:  # the reference environment or the request, never the model
            return f"The real environment could not play the episode: {_describe(exc)}"

    _run_model(verdict, started, output_limit, link, play)
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


def mutant_bank(code, tests, link, task=None):
    """The code cut into slots (one per statement line, see `_slot_starts`), each with its correct
    text and up to LOGIC_FAULTS_PER_SLOT logic faults and one syntax fault. A logic fault is kept only
    when some test fails with it and it ends within MUTANT_STEPS lines, with the tests it fails
    (`fails`, by index: what a failing example implicates); a syntax fault only when the program no
    longer compiles. Faults come in source order, so a bank is the same every time."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    starts = _slot_starts(tree, len(lines))
    spans = [(start, end - 1) for start, end in zip(starts, starts[1:] + [len(lines) + 1])]
    texts = ["".join(lines[a - 1 : b]) for a, b in spans]

    def program_with(slot, text):
        return "".join(texts[:slot] + [text] + texts[slot + 1 :])

    def failing_tests(program):
        """The tests (by index) that fail with `program`, every test ending within MUTANT_STEPS
        lines (none when one does not). One test at a time: Python drops a trace function that
        raised, so each test gets its own."""
        failed = []
        for index, test in enumerate(tests):
            link.exceeded = False
            verdict = run_program(program, [test], link, coverage=False, analysis=False, step_limit=MUTANT_STEPS, task=task)
            if link.exceeded:
                return []
            if verdict["outcome"] in ("failed_test", "runtime_error"):
                failed.append(index)
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
        if all(f["text"] != text for f in faults):
            fails = failing_tests(program_with(slot, text))
            if fails:
                faults.append({"text": text, "kind": "logic", "repair": 0.5 if hard else 1.0, "fails": fails})
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
        verdict = _verdict(len(request["batch"]))
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
            verdict["slots"] = mutant_bank(request["code"], tests, link, task)
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
    )


def _confinement():
    """What confines this process, as its host reports it (cli/src/sandbox.rs), tried rather than
    assumed: files outside what Python needs, the network, new processes for candidates, read-only
    mounts outside the scratch folder, and the scratch folder's quota."""

    def refused(attempt):
        try:
            attempt()
        except PermissionError:
            return True
        except OSError:
            return False
        return False

    def network():
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()

    def files():
        with open("/etc/passwd", "rb"):
            pass

    def quota_bytes():
        """The scratch folder's size where it is a filesystem of its own (the mount layer's tmpfs)."""
        if os.stat(".").st_dev == os.stat("..").st_dev:
            return None
        found = os.statvfs(".")
        return found.f_blocks * found.f_frsize

    return {
        "files": refused(files),
        "network": refused(network),
        "processes": bool(os.environ.get("RLCG_CANDIDATE_SECCOMP")),
        "read_only_outside": bool(os.statvfs("/").f_flag & os.ST_RDONLY),
        "quota_bytes": quota_bytes(),
    }


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
    zygote = _Zygote()
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    protocol_out.write(json.dumps({"sandbox": _confinement()}) + "\n")
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
                verdict["caught"] = verdict.get("caught", []) + ["the zygote that starts programs ended or stopped while the program ran"]
                verdict["error"] = "the program tampered with its test run: " + "; ".join(verdict["caught"])
            verdict = {"restart": True, **verdict}
        protocol_out.write(json.dumps(verdict) + "\n")
        protocol_out.flush()
        if verdict.get("restart"):
            return


if __name__ == "__main__":
    main()
