"""A program's syntax tree read without running it: seed 003's complexity metrics (cyclomatic,
cognitive, nesting, lines), APPS+'s conditional-statement scopes (StepCoder's curriculum points),
logical lines and tokens per line (StepCoder's mask)."""

import ast
import io
import tokenize

from .common import CONTROL

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
