"""The judge: a program's tests run and its verdict written (`run_program`). The program runs in
its candidate interpreter (`link`); the tests run here, against what crossed back as plain data."""

import ast
import builtins
import functools
import io
import os
import sys
import time

from .analysis import analyse, apps_scope, logical_lines
from .common import BoundedOutput, CANDIDATE, DEFAULT_OUTPUT_LIMIT, EXAMPLE_LIMIT, ProgramError, ProgramExit, REWARDS, TEST, describe
from .link import CandidateGone, Foreign, OutOfProtocol


def _exit_guard(code=0):
    raise ProgramExit(f"the program called exit({code!r})", code)


class Sandbox:
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
    return "runtime", describe(exc)


def _run_statement(compiled, scope):
    """Run compiled test code in the judge; map every way it can end to (error kind, message, where
    in the test it failed: see `_failed_at`)."""
    try:
        exec(compiled, scope)
    except (KeyboardInterrupt, CandidateGone, OutOfProtocol):
        raise  # the host's interrupt, or the candidate's end: the run is over, see run_program
    except (Exception, SystemExit, GeneratorExit) as exc:  # SystemExit: `raise SystemExit` or exit()
        return (*_kind_and_message(exc), _failed_at(exc))
    return None, None, None


def _failed_at(exc):
    """The innermost frame of the test's own code that `exc` came through, and its line (a HumanEval
    test's `check(candidate)`, at the assertion that failed), or None."""
    where = None
    traceback = exc.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == TEST:
            where = traceback.tb_frame, traceback.tb_lineno
        traceback = traceback.tb_next
    return where


def fresh_verdict(total):
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


def compile_error_message(exc):
    line = getattr(exc, "lineno", None)
    message = f"{type(exc).__name__}: {getattr(exc, 'msg', exc)}"
    return f"{message} (line {line})" if line else message


def not_compiled(verdict, error, code, analysis, started):
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
        not_compiled(verdict, compile_error_message(exc), code, analysis, started)
        return False
    verdict["complexity"], verdict["conditionals"] = analyse(tree, code)
    verdict["scope"] = apps_scope(tree)
    verdict["statements"], verdict["line_tokens"] = logical_lines(code)
    return True


class NotCompiled(Exception):
    """The candidate could not compile the program (its message names the line)."""


def finish_record(link):
    """The program's output, the lines it ran and what its interpreter caught, from the candidate; an
    empty record when it can no longer answer."""
    empty = {"stdout": "", "stderr": "", "truncated": False, "executed_lines": [], "caught": []}
    if link is None:
        return empty
    try:
        finished = link.ask("finish")
    except (CandidateGone, KeyboardInterrupt):
        return empty
    except OutOfProtocol as broken:
        link.catch(str(broken))
        return empty
    record = dict(empty)
    for key, kind in (("stdout", str), ("stderr", str), ("truncated", bool), ("executed_lines", list), ("caught", list)):
        if isinstance(finished.get(key), kind):
            record[key] = finished[key]
    record["executed_lines"] = [line for line in record["executed_lines"] if type(line) is int]
    record["caught"] = [str(what)[:300] for what in record["caught"]][:10]
    return record


def settle(verdict, sandbox, started, finished, caught):
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


def run_program(code, tests, link, coverage=True, analysis=True, output_limit=DEFAULT_OUTPUT_LIMIT, step_limit=None, naive=False, task=None, data_tests=False):
    """Run `code` against `tests` (the program in `link`'s candidate interpreter, the tests here);
    return a JSON-ready verdict (see the module docstring). With `naive`, see `_naively`; `task`, see
    `_test_scope`; `data_tests`, see `_data_test`."""
    started = time.perf_counter()
    verdict = fresh_verdict(len(tests))
    if not _analysed(code, analysis, verdict, started):
        return verdict
    sandbox = Sandbox(output_limit)
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
                not_compiled(verdict, str(loaded["compile_error"]), code, analysis, started)
                return verdict
            if statements:
                program_error = _statement_tests(link, loaded, tests, verdict, task, code, data_tests)
            else:
                _stdin_tests(link, tests, verdict, sandbox)
    except KeyboardInterrupt:
        interrupted = True
    except CandidateGone as gone:
        program_error = str(gone)
    except OutOfProtocol as broken:
        link.catch(str(broken))
    finished = finish_record(link)

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
    settle(verdict, sandbox, started, finished, link.caught + finished["caught"])
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
    except (CandidateGone, OutOfProtocol, KeyboardInterrupt):
        reply = {}
    finish_record(link)
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
        result.update({key: bounded(value) for key, value in zip(("input", "expected", "actual"), example)})
    verdict["tests"].append(result)
    verdict["number_passed"] += passed


def bounded(text):
    text = str(text)
    return text if len(text) <= EXAMPLE_LIMIT else text[:EXAMPLE_LIMIT] + "…"


@functools.lru_cache(maxsize=4096)
def compiled_test(test):
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


_NOTHING = object()


def _judged(test, link, reply, plan, scope):
    """A batched test's (kind, message, example), as running `assert call == value` would give
    them; a failed test's example is what the call returned in the batch, not a second call."""
    _, _, _, identity, value = plan
    returned = _NOTHING
    try:
        returned = link.result(reply)
        expected = eval(value, scope)
        if not (returned is expected if identity else returned == expected):
            raise AssertionError
    except (KeyboardInterrupt, CandidateGone, OutOfProtocol):
        raise
    except (Exception, SystemExit, GeneratorExit) as exc:
        kind, message = _kind_and_message(exc)
        return kind, message, _equality_example(test, scope, kind, message, returned)
    return None, None, None

TYPING_IMPORT = compile("from typing import List", TEST, "exec")


def _equality_example(test, scope, kind, message, returned=_NOTHING):
    """For a failed `assert <call> == <value>`: the call's source, the value's repr, and what the
    call returned (or the exception it raised, which `message` already describes). Without
    `returned` (what the test's own call gave) the call runs a second time, so a function with
    state may answer differently than it did in the test."""
    parts = _equality_parts(test)
    if parts is None:
        return None
    source, call, value = parts
    try:
        expected = repr(eval(value, scope))
        if kind == "runtime":
            actual = message
        else:
            actual = repr(returned if returned is not _NOTHING else eval(call, scope))
    except KeyboardInterrupt:
        raise
    except BaseException:  # a second run of the call that fails differently: no example
        return None
    return source, expected, actual


def _nested_example(test, scope, kind, message, where):
    """For an assertion inside the test's own function (HumanEval's one test, `check(candidate)`):
    what `_equality_example` gives for a top-level one, the call run again in the frame it failed
    in, with `candidate` named as the program names it; for an assertion other than `==` or `is`,
    its source, and the error as what the program gave."""
    if where is None or where[0].f_code.co_name == "<module>":
        return None
    frame, line = where
    spans = [n for n in ast.walk(ast.parse(test)) if isinstance(n, ast.Assert) and n.lineno <= line <= n.end_lineno]
    if not spans:
        return None
    compare = max(spans, key=lambda n: n.lineno).test
    shown = ast.parse(ast.unparse(compare), mode="eval").body  # a copy, its names the program's
    program_names = {id(value): name for name, value in scope.items() if isinstance(value, Foreign)}
    for name in ast.walk(shown):
        if isinstance(name, ast.Name) and isinstance(frame.f_locals.get(name.id), Foreign):
            name.id = program_names.get(id(frame.f_locals[name.id]), name.id)
    if not (isinstance(compare, ast.Compare) and len(compare.ops) == 1 and isinstance(compare.ops[0], (ast.Eq, ast.Is))):
        return f"assert {ast.unparse(shown)}", "the assertion holds", message

    def run(expression):
        return eval(compile(ast.Expression(expression), TEST, "eval"), frame.f_globals, frame.f_locals)

    try:
        expected = repr(run(compare.comparators[0]))
        actual = message if kind == "runtime" else repr(run(compare.left))
    except KeyboardInterrupt:
        raise
    except BaseException:  # the second run failed differently: no example
        return None
    return ast.unparse(shown.left), expected, actual


@functools.lru_cache(maxsize=256)
def _task_definitions(definitions, entry_point):
    """The task's own definitions (HumanEval's prompt: its imports and helpers) compiled for the
    judge, without the entry point's stub, and each top-level definition's shape; or the reason
    they cannot be used."""
    try:
        tree = ast.parse(definitions, TEST)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return f"the task's own definitions do not compile: {compile_error_message(exc)}"
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


def _rebinds_builtins(code):
    """Whether the program binds or changes `__builtins__` or the `builtins` module (`__builtins__
    = {...}`, `builtins.abs = ...`), which would change every builtin a test refers to if the tests
    ran in its namespace."""
    try:
        tree = ast.parse(code, CANDIDATE)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    named = lambda node: isinstance(node, ast.Name) and node.id in ("__builtins__", "builtins")
    for node in ast.walk(tree):
        if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
            if named(node) and node.id == "__builtins__" or isinstance(node, (ast.Attribute, ast.Subscript)) and named(node.value):
                return True
    return False


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
    if _rebinds_builtins(code) and not referred.isdisjoint(vars(builtins)):
        verdict["notes"].append("the program's change to the builtins was set aside: the tests use Python's own")
    if set_aside:
        program = _program_shapes(code)
        for name in sorted(set_aside):
            if name in shapes and program.get(name) == shapes[name]:
                continue
            meaning = "the task's own" if name in task_names else "Python's builtin"
            verdict["notes"].append(f"the program's `{name}` was set aside: the tests use {meaning} `{name}`")
    return scope, None


def _data_test(test, scope):
    """For a test that a model wrote (`data_tests`): its plan when it is data only, an
    `assert name(<literals>) == <literal>` (or `is`) on a function of the program's, else None. The
    judge runs no code of such a test: it asks the program for the call and compares what came back
    with the literal, so a test cannot act with the judge's rights, whatever the model wrote."""
    plan = _literal_call(test)
    if plan is None or not isinstance(scope.get(plan[0]), Foreign):
        return None
    try:
        ast.literal_eval(ast.parse(test).body[0].test.comparators[0])
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return plan


REFUSED_TEST = "refused: a test the model wrote runs only as data, `assert f(<literals>) == <literal>` on a function of the program's"


def _statement_tests(link, loaded, tests, verdict, task, code, data_tests=False):
    """The tests, in the judge, in the scope `_test_scope` gives them; the program's error when it
    failed before them. With `data_tests` (tests a model wrote), each test is data or refused (see
    `_data_test`)."""
    if "raised" in loaded:
        kind, message = _kind_and_message(link.exception(loaded["raised"]))
        message = message if kind == "runtime" else f"the program raised {message}"
        for test in tests:
            verdict["tests"].append({"test": test, "passed": False, "kind": "not_run", "error": None})
        return message
    names = loaded.get("names")
    if not isinstance(names, dict):
        raise OutOfProtocol("the program's interpreter did not say what the program defined")
    scope, problem = _test_scope(link, names, tests, task, code, verdict)
    if problem is not None:
        for test in tests:
            _record(verdict, test, "runtime", problem)
        return None
    # When every test only calls a function of the program's with literals and compares what it
    # returns, one question carries all the calls (a failing test's example is what its call
    # returned there). They are asked in the reverse of the tests' order: such calls are
    # independent, so an honest answer does not depend on it, while a program that answers by
    # counting its calls (the visible tests' values in turn) answers the wrong one. A request holds
    # the tests of one kind only (the visible ones, or the held-out ones in a request of their own,
    # cli and engine alike), so no call of a test the program is not shown comes before one it is.
    if data_tests:
        plans = [_data_test(test, scope) for test in tests]
    else:
        plans = [_literal_call(test) for test in tests]
    asked = [index for index, plan in enumerate(plans) if plan is not None and isinstance(scope.get(plan[0]), Foreign)]
    batched = {}
    if asked and (data_tests or len(tests) > 1 and len(asked) == len(tests)):
        calls = [(scope[plans[i][0]], plans[i][1], plans[i][2]) for i in reversed(asked)]
        batched = dict(zip(reversed(asked), link.calls(calls)))
    for index, test in enumerate(tests):
        if data_tests and plans[index] is None:
            _record(verdict, test, "refused", REFUSED_TEST)
            continue
        compiled = compiled_test(test)
        if isinstance(compiled, SyntaxError):
            _record(verdict, test, "runtime", f"the test itself does not compile: {compiled.msg}")
            continue
        if index in batched:
            kind, message, example = _judged(test, link, batched[index], plans[index], scope)
        else:
            kind, message, where = _run_statement(compiled, scope)
            example = None
            if kind is not None:
                example = _equality_example(test, scope, kind, message) or _nested_example(test, scope, kind, message, where)
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
            raise OutOfProtocol("the program's interpreter sent no output for a standard-input test")
        kind, message = _kind_and_message(link.exception(reply["raised"])) if "raised" in reply else (None, None)
        sandbox.stdout.write(output)
        got = output.rstrip()
        if kind is None and _output_lines(output) != _output_lines(expected):
            kind, message = "assertion", f"expected output {expected.rstrip()[:200]!r}, got {got[:200]!r}"
        label = f"stdin: {str(test.get('stdin', ''))[:80]!r}"
        actual = message if kind == "runtime" else got
        _record(verdict, label, kind, message, (test.get("stdin", ""), expected.rstrip(), actual))
