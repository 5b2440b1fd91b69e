"""The task family of the small code model: list functions composed of an aggregate, a transform and
a condition ("the sum of the squares of the even numbers in `xs`"), each with its program written
from one template, its requirement in a few phrasings and its tests computed by running the program.

Three disjoint sets of (aggregate, transform, condition) triples (`split`):
- the corpus the model is pretrained on (every phrasing and several names per triple);
- StepCoder's training tasks: triples never in the corpus whose three pairs all are, so a model
  that composes what it read can write them;
- unseen tasks: triples whose (aggregate, transform) pair is never in the corpus, which the
  model must compose further, and which RL never trains on.
No task's program is in the corpus: the model is not trained on the answers it is measured on.
"""

import ast
import random

# Aggregates: (key, phrasings of "the … of {items}", the program's opening, its update, its return).
# `{E}` is the transformed element; an aggregate without `{E}` ignores the transform.
AGGREGATES = {
    "sum": (["the sum of {items}", "the total of {items}", "{items}, added up"],
            "total = 0", "total += {E}", "total"),
    "product": (["the product of {items}", "{items}, multiplied together"],
                "total = 1", "total *= {E}", "total"),
    "count": (["how many {plain} there are", "the number of {plain}", "the count of {plain}"],
              "total = 0", "total += 1", "total"),
    "max": (["the largest of {items}, or None if there are none",
             "the maximum of {items} (None when there are none)"],
            "best = None", "value = {E}\nif best is None or value > best:\n    best = value", "best"),
    "min": (["the smallest of {items}, or None if there are none",
             "the minimum of {items} (None when there are none)"],
            "best = None", "value = {E}\nif best is None or value < best:\n    best = value", "best"),
    "collect": (["the list of {items}, in order", "a list of {items}, in the order of `xs`"],
                "result = []", "result.append({E})", "result"),
}

# Transforms: (key, phrasings wrapping {numbers}, the expression of x).
TRANSFORMS = {
    "same": (["{numbers}"], "x"),
    "square": (["the squares of {numbers}", "{numbers}, each squared"], "x * x"),
    "double": (["the doubles of {numbers}", "{numbers}, each doubled"], "2 * x"),
    "abs": (["the absolute values of {numbers}", "{numbers} without their signs"], "abs(x)"),
    "negate": (["the negatives of {numbers}", "{numbers}, each negated"], "-x"),
    "increment": (["{numbers}, each plus one", "{numbers}, each increased by 1"], "x + 1"),
    "halve": (["{numbers}, each halved and rounded down", "the halves (rounded down) of {numbers}"], "x // 2"),
    "digit": (["the last digits of {numbers}", "the last digit of each of {numbers}"], "abs(x) % 10"),
}

# Conditions: (key, phrasings of the numbers kept, the test, whether it reads the argument `k`).
CONDITIONS = {
    "all": (["the numbers in `xs`", "all the numbers in `xs`"], None, False),
    "positive": (["the positive numbers in `xs`", "the numbers in `xs` above zero"], "x > 0", False),
    "negative": (["the negative numbers in `xs`", "the numbers in `xs` below zero"], "x < 0", False),
    "even": (["the even numbers in `xs`", "the numbers in `xs` divisible by 2"], "x % 2 == 0", False),
    "odd": (["the odd numbers in `xs`", "the numbers in `xs` not divisible by 2"], "x % 2 == 1", False),
    "nonzero": (["the numbers in `xs` other than zero", "the nonzero numbers in `xs`"], "x != 0", False),
    "triple": (["the multiples of 3 in `xs`", "the numbers in `xs` divisible by 3"], "x % 3 == 0", False),
    "above": (["the numbers in `xs` greater than `k`", "the numbers in `xs` above `k`"], "x > k", True),
    "below": (["the numbers in `xs` less than `k`", "the numbers in `xs` below `k`"], "x < k", True),
}

# The names a program may have: descriptive, or a generic one that only the text explains.
GENERIC_NAMES = ["solve", "compute", "f", "answer", "process"]


def triples():
    """Every (aggregate, transform, condition); a count ignores the transform, so it has one."""
    for aggregate in AGGREGATES:
        for transform in TRANSFORMS:
            if aggregate == "count" and transform != "same":
                continue
            for condition in CONDITIONS:
                yield aggregate, transform, condition


def function_name(triple):
    aggregate, transform, condition = triple
    parts = [aggregate] + ([transform] if transform != "same" else []) + ([condition] if condition != "all" else [])
    return "_".join(parts)


def arguments(triple):
    return "xs, k" if CONDITIONS[triple[2]][2] else "xs"


def program(triple, name):
    """The program, from the one template: an opening, a loop, an optional test, an update."""
    aggregate, transform, condition = triple
    _, opening, update, result = AGGREGATES[aggregate]
    test = CONDITIONS[condition][1]
    expression = TRANSFORMS[transform][1]
    body = update.replace("{E}", expression).split("\n")
    depth = 2 if test is None else 3
    lines = [f"def {name}({arguments(triple)}):", f"    {opening}", "    for x in xs:"]
    if test is not None:
        lines.append(f"        if {test}:")
    lines += ["    " * depth + line for line in body]
    lines.append(f"    return {result}")
    return "\n".join(lines) + "\n"


def requirement(triple, name, rng):
    aggregate, transform, condition = triple
    numbers = rng.choice(CONDITIONS[condition][0])
    items = rng.choice(TRANSFORMS[transform][0]).replace("{numbers}", numbers)
    text = rng.choice(AGGREGATES[aggregate][0]).replace("{items}", items).replace("{plain}", numbers)
    return f"Write `{name}({arguments(triple)})`: {text}."


def inputs(triple, rng, count):
    """`count` distinct argument tuples: short lists of small integers (one empty), with `k`."""
    with_k = CONDITIONS[triple[2]][2]
    seen, result = set(), []
    while len(result) < count:
        size = 0 if not result else rng.randint(1, 6)
        xs = [rng.randint(-9, 9) for _ in range(size)]
        args = (xs, rng.randint(-3, 4)) if with_k else (xs,)
        if repr(args) not in seen:
            seen.add(repr(args))
            result.append(args)
    return result


def tests(triple, rng, count):
    """`count` assert statements, their expected values computed by running the program."""
    name = function_name(triple)
    scope = {}
    exec(program(triple, name), scope)
    cases = []
    for args in inputs(triple, rng, count):
        call = f"{name}({', '.join(repr(a) for a in args)})"
        cases.append(f"assert {call} == {scope[name](*args)!r}")
    return cases


def split(seed=2):
    """The corpus, training and unseen triples (see the module's doc)."""
    rng = random.Random(seed)
    every = list(triples())
    pairs = sorted({(a, t) for a, t, _ in every if a != "count"})
    unseen_pairs = set(rng.sample(pairs, 4))
    unseen = [x for x in every if (x[0], x[1]) in unseen_pairs]
    rest = [x for x in every if (x[0], x[1]) not in unseen_pairs]
    rng.shuffle(rest)
    training, corpus = [], []
    for triple in rest:
        others = corpus + rest[rest.index(triple) + 1:]
        if len(training) < 32 and covered(triple, others):
            training.append(triple)
        else:
            corpus.append(triple)
    # A later choice may take a pair's last corpus triple: such a task goes back to the corpus.
    for triple in [t for t in training if not covered(t, corpus)]:
        training.remove(triple)
        corpus.append(triple)
    unseen = rng.sample(unseen, 16)
    return corpus, training, unseen


def covered(triple, corpus):
    """Whether each pair of the triple's parts occurs in some triple of `corpus`."""
    a, t, c = triple
    return (any((x[0], x[1]) == (a, t) for x in corpus) and any((x[0], x[2]) == (a, c) for x in corpus)
            and any((x[1], x[2]) == (t, c) for x in corpus))


# APPS+'s `scope` kinds of the nodes these programs have.
SCOPE_KINDS = {ast.FunctionDef: "Function Body", ast.For: "For Loop Body", ast.If: "If Statement Body"}


def scope(source):
    """APPS+'s `scope` attribute: `[kind, first line, last line]` of each node, as the authors'
    records have it (CCCS's conditional statements)."""
    nodes = [n for n in ast.walk(ast.parse(source)) if type(n) in SCOPE_KINDS]
    return sorted([SCOPE_KINDS[type(n)], n.lineno, n.end_lineno] for n in nodes)


def task(triple, split_name, rng):
    name = function_name(triple)
    cases = tests(triple, rng, 9)
    canonical = program(triple, name)
    return {
        "id": name,
        "split": split_name,
        "requirement": requirement(triple, name, rng),
        "canonical": canonical,
        "scope": scope(canonical),
        "tests": cases[:3],
        "hidden_tests": cases[3:],
    }


def corpus_examples(corpus, rng, per_triple):
    """(requirement, program) pairs: each corpus triple under several names and phrasings."""
    examples = []
    for triple in corpus:
        for i in range(per_triple):
            name = function_name(triple) if i % 3 else rng.choice(GENERIC_NAMES)
            examples.append((requirement(triple, name, rng), program(triple, name)))
    rng.shuffle(examples)
    return examples
