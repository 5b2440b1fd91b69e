"""Two interpreters: the judge and the candidate (docs/guide.md, "What a verdict guarantees").

A verdict is the reward everything here optimises, so the program it judges must not be able to
write it. The program runs in a candidate interpreter of its own (a process forked from a zygote
that has never seen a request, or the worker's second Pyodide); the tests run in the judge's
interpreter, which never runs the program's code. The candidate never sees a test, an expected
value or the verdict. What comes back from it is plain data of exact builtin types (so no `__eq__`
of the program's decides a comparison), or a handle to an object that stays there: calls,
attributes, items and iteration are asked of it in the candidate, while comparing it, hashing it
by value or asking its truth is refused. Whatever the program does to its own interpreter, the
judge sees only what its functions returned. This module is what may cross, and how."""

import builtins
import collections
import math

from .common import EXAMPLE_LIMIT, describe

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


def judging_methods(kind, stop=object):
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
            lying = judging_methods(kind, base)
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


def exception_plain(exc):
    """An exception of the program's as the judge can raise it again: its builtin class (when it is
    one), its arguments where they are plain, and its description with the program's line."""
    kind = type(exc)
    name = kind.__name__ if getattr(builtins, kind.__name__, None) is kind else None
    try:
        args = to_plain(exc.args, lambda value: repr(value)[:EXAMPLE_LIMIT])
    except BaseException:
        args = None
    try:
        description = describe(exc)
    except BaseException:
        description = kind.__name__
    return {"class": name, "args": args, "description": description, "assertion": isinstance(exc, AssertionError)}
