"""Program banks by mutation (seed 004 spec §6: the simulated LLM's bank for imported tasks): a
correct program cut into slots, each with faulty versions whose faults its tests catch."""

import ast
import sys

from .common import CANDIDATE
from .judge import run_program

MUTANT_STEPS = 200_000

"""Lines a mutant may run over all its tests; one that runs longer (a loop a mutation made endless) is
dropped, since a program the search writes must end."""

LOGIC_FAULTS_PER_SLOT = 3

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
