"""Program banks by mutation (seed 004 spec §6: the simulated LLM's bank for imported tasks): a
correct program cut into slots, each with faulty versions whose faults its tests catch, and a pool
of tests apart from the task's, drawn from the program on inputs its tests do not use, for the unit
tests the simulated LLM writes (issue 72)."""

import ast
import sys

from .common import CANDIDATE
from .judge import run_program

MUTANT_STEPS = 200_000

"""Lines a mutant may run over all its tests; one that runs longer (a loop a mutation made endless) is
dropped, since a program the search writes must end."""

LOGIC_FAULTS_PER_SLOT = 3

OWN_TESTS = 8

"""Tests in an own-test pool at most: about as many as a task's tests, and more than the six that
Reflexion samples from what the model writes."""

NOT_A_VALUE = "rlcg: no function returns this"

COMPARISON_FLIPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}

OPERATOR_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv}


class StepLimit:
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


def _defined_functions(tree):
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _literal_calls(tests, functions, entry_point):
    """(function, arguments) of each call in the tests of one of `functions` with literal arguments
    only, in the tests' order; HumanEval's `candidate` is the entry point."""
    for test in tests:
        if not isinstance(test, str):
            continue
        try:
            tree = ast.parse(test)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.keywords:
                continue
            name = entry_point if node.func.id == "candidate" and entry_point else node.func.id
            if name not in functions:
                continue
            try:
                yield name, tuple(ast.literal_eval(argument) for argument in node.args)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue


def _nearby(value):
    """Values near `value` of its type, as a person writing tests varies an example: a number moved
    by one or doubled, a sequence reversed, shortened or lengthened, a truth value negated."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, value * 2]
    if isinstance(value, float):
        return [value + 0.5, value * 2, -value]
    if isinstance(value, (str, list, tuple)):
        return [value[::-1], value[:-1], value + value[:1], value[1:]]
    return []


def _nearby_calls(calls):
    """Calls that vary one argument of a call the tests make, the first variant of every call, then
    the second, so that the pool covers as many of the tests' cases as it can."""
    variants = [
        [(name, args[:at] + (changed,) + args[at + 1 :]) for at, value in enumerate(args) for changed in _nearby(value)]
        for name, args in calls
    ]
    for round_ in range(max(map(len, variants), default=0)):
        for per_call in variants:
            if round_ < len(per_call):
                yield per_call[round_]


def call_source(name, args):
    return f"{name}({', '.join(map(repr, args))})"


def pool_test(call, value):
    """A test of an own-test pool: `call` gives `value`, compared with `is` for None and truth values
    and with `==` otherwise, as the tasks' own tests write them."""
    operator = "is" if value is None or isinstance(value, bool) else "=="
    return f"assert {call} {operator} {value!r}"


def own_test_pool(code, tests, link, task=None):
    """Up to OWN_TESTS tests of the form `assert f(<literals>) == <literal>`, on calls that vary an
    argument of a call the tests make (see `_nearby_calls`) and that no test makes, each with the
    value `code` returns: what the simulated LLM writes its unit tests from, apart from the tests
    that score a program. A call on which the code raises, runs past MUTANT_STEPS lines or returns
    what is not a literal is left out; none for tests that make no call with literals."""
    entry_point = task.get("entry_point") if isinstance(task, dict) else None
    used = list(_literal_calls(tests, _defined_functions(ast.parse(code)), entry_point))
    seen = {call_source(name, args) for name, args in used}
    pool = []
    for name, args in _nearby_calls(used):
        call = call_source(name, args)
        if call in seen or len(call) > 200:
            continue
        seen.add(call)
        link.exceeded = False
        probe = f"assert {call} == {NOT_A_VALUE!r}"
        verdict = run_program(code, [probe], link, coverage=False, analysis=False, step_limit=MUTANT_STEPS, task=task, data_tests=True)
        result = verdict["tests"][0] if verdict["tests"] else {}
        if link.exceeded or result.get("kind") != "assertion":
            continue
        try:
            value = ast.literal_eval(result.get("actual", ""))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if repr(value) != result["actual"] or value != value:  # cut short, or NaN
            continue
        pool.append(pool_test(call, value))
        if len(pool) == OWN_TESTS:
            break
    return pool


def mutant_bank(code, tests, link, task=None):
    """The code cut into slots (one per statement line, see `_slot_starts`), each with its correct
    text and up to LOGIC_FAULTS_PER_SLOT logic faults and one syntax fault, and the own-test pool
    (see `own_test_pool`). A logic fault is kept only when some test fails with it and it ends
    within MUTANT_STEPS lines, with the tests it fails (`fails`, by index: what a failing example
    implicates) and the pool's tests it fails (`own_fails`); a syntax fault only when the program no
    longer compiles. Faults come in source order, so a bank is the same every time. Returns (slots,
    pool)."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    starts = _slot_starts(tree, len(lines))
    spans = [(start, end - 1) for start, end in zip(starts, starts[1:] + [len(lines) + 1])]
    texts = ["".join(lines[a - 1 : b]) for a, b in spans]
    pool = own_test_pool(code, tests, link, task)

    def program_with(slot, text):
        return "".join(texts[:slot] + [text] + texts[slot + 1 :])

    def failing_tests(program, tests, data_tests=False):
        """The tests (by index) that fail with `program`, every test ending within MUTANT_STEPS
        lines (None when one does not). One test at a time: Python drops a trace function that
        raised, so each test gets its own."""
        failed = []
        for index, test in enumerate(tests):
            link.exceeded = False
            verdict = run_program(program, [test], link, coverage=False, analysis=False, step_limit=MUTANT_STEPS, task=task, data_tests=data_tests)
            if link.exceeded:
                return None
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
            program = program_with(slot, text)
            fails = failing_tests(program, tests)
            own_fails = failing_tests(program, pool, data_tests=True) if fails else None
            if fails and own_fails is not None:
                fault = {"text": text, "kind": "logic", "repair": 0.5 if hard else 1.0, "fails": fails}
                faults.append({**fault, "own_fails": own_fails} if own_fails else fault)
    for slot, text in enumerate(texts):
        broken = _syntax_fault(text)
        if text.strip() and not text.lstrip().startswith("#"):
            try:
                compile(program_with(slot, broken), CANDIDATE, "exec")
            except SyntaxError:
                slots[slot]["faults"].append({"text": broken, "kind": "syntax", "repair": 1.0})
    return slots, pool
