"""The judge's side of one candidate interpreter: questions out, plain answers back, and a
program's exceptions raised again in the judge as `ProgramError`s."""

import builtins
import json

from .common import ProgramError
from .crossing import NotPlainData, from_plain, to_plain


class CandidateGone(Exception):
    """The candidate interpreter ended (the program took it down) before it answered."""


class OutOfProtocol(Exception):
    """The candidate answered something no harness of ours would."""

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


class Link:
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
            raise OutOfProtocol(f"the program's interpreter answered something unreadable ({type(exc).__name__})") from None
        if not isinstance(reply, dict):
            raise OutOfProtocol("the program's interpreter answered something that is not an answer")
        if reply.get("exceeded") is True:
            self.exceeded = True
        if reply.get("interrupted") is True:
            raise KeyboardInterrupt
        if "protocol" in reply:
            raise OutOfProtocol(f"the program's interpreter broke its protocol: {str(reply['protocol'])[:200]}")
        return reply

    def catch(self, what):
        if what not in self.caught:
            self.caught.append(what)

    def outward(self, value):
        def refer(value):
            if isinstance(value, Foreign) and object.__getattribute__(value, "_link") is self:
                return {"t": "ref", "id": object.__getattribute__(value, "_id")}
            raise NotPlainData(f"a test passed a {type(value).__name__} to the program; only plain data crosses to it")

        return to_plain(value, refer)

    def inward(self, data):
        return from_plain(data, self._proxy)

    def _proxy(self, data):
        if data.get("t") != "handle" or not isinstance(data.get("id"), int):
            raise OutOfProtocol("the program's interpreter sent a value of no known kind")
        key = data["id"]
        if key not in self.proxies:
            lies = data.get("lies") if isinstance(data.get("lies"), list) else []
            self.proxies[key] = Foreign(self, key, str(data.get("type"))[:100], [str(name) for name in lies])
        return self.proxies[key]

    def result(self, reply):
        """An answer's value, or its exception raised again here."""
        if "raised" in reply:
            raise self.exception(reply["raised"])
        if "value" not in reply:
            raise OutOfProtocol("the program's interpreter answered without a value")
        return self.inward(reply["value"])

    def exception(self, raised):
        """The program's exception as the judge raises it in the tests: a ProgramError that describes
        it, never one of the SIGNALS (see ProgramError)."""
        if not isinstance(raised, dict):
            raise OutOfProtocol("the program's interpreter sent an exception of no known form")
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
            raise OutOfProtocol("the program's interpreter did not answer every call")
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


class Foreign:
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
    return lambda: Link(exchange)
