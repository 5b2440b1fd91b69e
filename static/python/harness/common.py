"""The harness's shared facts: the outcomes and their rewards, the limits, and how a program's
output and executed lines are recorded and its exceptions described."""

import ast
import io
import sys
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

ERROR_LIMIT = 2_000
"""The most characters of an error text that a verdict carries (a program's exception message can be
megabytes); the rest is cut, and the text says how much."""

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
    """Records which lines of the candidate ran: sys.monitoring's local events where the interpreter
    has them, set on the program's own code objects only (each line reports once, then is
    disabled, and no other code is instrumented, so coverage costs almost nothing), sys.settrace
    before 3.12, on only while the program's code runs. Started once per program."""

    TOOL = 3  # sys.monitoring's free slot after the debugger (0), coverage.py (1) and profilers (2)

    def __init__(self):
        self.lines = set()
        self.monitoring = getattr(sys, "monitoring", None)
        self.started = False
        self.watched = []

    def start(self):
        if self.monitoring is not None:
            self.monitoring.use_tool_id(self.TOOL, "rlcg-coverage")
            self.monitoring.register_callback(self.TOOL, self.monitoring.events.LINE, self._on_line)
            self.monitoring.restart_events()
        self.started = True

    def watch(self, code):
        """Records the lines of `code` (the program, compiled) and of the code objects within it."""
        if self.monitoring is None or not self.started:
            return
        pending = [code]
        while pending:
            current = pending.pop()
            self.monitoring.set_local_events(self.TOOL, current, self.monitoring.events.LINE)
            self.watched.append(current)
            pending.extend(const for const in current.co_consts if isinstance(const, type(code)))

    def resume(self):
        if self.monitoring is None:
            sys.settrace(self._on_call)

    def pause(self):
        if self.monitoring is None:
            sys.settrace(None)

    def stop(self):
        if self.started and self.monitoring is not None:
            for code in self.watched:
                self.monitoring.set_local_events(self.TOOL, code, 0)
            self.watched.clear()
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

    def watch(self, code):
        pass

    resume = pause = stop = start

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def candidate_line(tb):
    """The last line of the candidate program in a traceback, if any."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == CANDIDATE:
            line = frame.lineno
    return line


def describe(exc):
    if isinstance(exc, ProgramError):  # the program's, raised again in the judge (see Link)
        return exc.description
    if isinstance(exc, ProgramExit):
        return str(exc)
    message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    line = candidate_line(exc.__traceback__)
    return f"{message} (line {line})" if line is not None else message


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
