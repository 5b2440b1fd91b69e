"""The candidate interpreter's side (see `crossing`): it runs the program, answers the judge's
questions about it, and catches the program reaching for the harness."""

import builtins
import io
import json
import random
import sys

from .banks import StepLimit
from .common import BoundedOutput, CANDIDATE, DEFAULT_OUTPUT_LIMIT, LineRecorder, NoRecorder, ProgramExit, TEST, describe
from .crossing import CAPTURE_LIMIT, NotPlainData, exception_plain, judging_methods, from_plain, to_plain
from .judge import TYPING_IMPORT, Sandbox, compile_error_message, compiled_test
from .planner import PLANNER_KEYS, ModelRaised, Simulator, float32_observation, planned_action, planner_draws
from .world_models import model_error, new_model, predict_pairs

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
        package = __name__.partition(".")[0]
        # The harness's modules and files as they are before any program runs.
        self.harness_modules = [m for name, m in sys.modules.items() if name.partition(".")[0] == package]
        self.harness_files = frozenset(getattr(m, "__file__", None) for m in self.harness_modules) - {None}
        self._reset(DEFAULT_OUTPUT_LIMIT, False, None)
        sys.addaudithook(self._audit)

    def _snapshot(self):
        """What the harness's answers rely on: builtins, its own names (every module's), the modules
        loaded, and the names of the modules it answers through."""
        used = (json, sys, builtins)
        # Copies compared by identity (`id()` is an audit event, which this server's own hook hears).
        own = [(f"the harness's names ({module.__name__})", dict(vars(module))) for module in self.harness_modules]
        return [("sys.modules", dict(sys.modules))] + own + [(module.__name__, dict(vars(module))) for module in used]

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
        if event == "sys._getframe" and args and args[0].f_code.co_filename in self.harness_files:
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
        """Ready for a program (`_begin`) or done with one: its scope and state dropped. Nothing of a
        program runs between its end and the next one's `_begin`, which takes the snapshot."""
        self.snapshot = []
        self.builtins = dict(vars(builtins))
        self.scope = {"__name__": "__main__"}
        self.handles, self.handle_ids = [], {}
        self.sandbox = Sandbox(output_limit)
        self.recorder = LineRecorder() if coverage else NoRecorder()
        self.steps = StepLimit(step_limit) if step_limit else None
        self.program = None
        self.planning = None

    def _begin(self, output_limit, coverage, step_limit):
        self._reset(output_limit, coverage, step_limit)
        self.snapshot = self._snapshot()  # what this program, and only it, may be caught changing

    def serve(self, text):
        """One question as JSON text to its answer as JSON text (the hosts' entry point)."""
        try:
            message = json.loads(text)
            reply = self.answer(message) if isinstance(message, dict) else {"protocol": "not an object"}
        except KeyboardInterrupt:
            reply = {"interrupted": True}
        except Exception as exc:
            reply = {"protocol": describe(exc)}
        if self.steps is not None and self.steps.exceeded:
            reply["exceeded"] = True
        return json.dumps(reply)

    def answer(self, message):
        op = message.get("op")
        if op == "load":
            self.recorder.stop()
            self._begin(int(message.get("output_limit", DEFAULT_OUTPUT_LIMIT)), bool(message.get("coverage")), message.get("step_limit"))
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
            self._begin(DEFAULT_OUTPUT_LIMIT, False, None)
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
            program = compile(code, CANDIDATE, "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
            return {"compile_error": compile_error_message(exc)}
        self.recorder.watch(program)
        return program

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
            return {"raised": exception_plain(KeyboardInterrupt())}
        except BaseException as exc:
            self.harness_tracing = False
            if exits_caught and isinstance(exc, (SystemExit, ProgramExit)) and getattr(exc, "code", None) in (0, None):
                self._catch("the program exited with status 0 before its tests were done")
            if not isinstance(exc, (Exception, SystemExit, GeneratorExit)):
                self._catch(f"the program raised {type(exc).__name__}, which no test's `except Exception` catches")
            return {"raised": exception_plain(exc)}
        return {"value": value}

    def _plain(self, value):
        return to_plain(value, self._handle, self._catch)

    def _handle(self, value):
        key = id(value)
        if key not in self.handle_ids:
            self.handle_ids[key] = len(self.handles)
            self.handles.append(value)
        return {"t": "handle", "id": self.handle_ids[key], "type": type(value).__qualname__, "lies": judging_methods(type(value))}

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
                return {"raised": exception_plain(exc)}
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
                    results.append(_naive_test(compiled_test(test), scope))
            except (SystemExit, ProgramExit) as exc:
                exits.append(getattr(exc, "code", None) in (0, None))

        self._running(run)
        return {"results": [result is True for result in results], "exited": bool(exits and exits[0])}

    def _predict(self, message):
        program = self._compile(message["code"])
        if isinstance(program, dict):
            return program
        predictions = []
        reply = self._running(lambda: predict_pairs(program, message["code"], message["pairs"], predictions))
        if "raised" in reply:
            return {"raised": reply["raised"], "predictions": predictions}
        return {"error": reply["value"], "predictions": predictions}

    def _plan_start(self, message):
        program = self._compile(message["code"])
        if isinstance(program, dict):
            return program
        random.seed(message["seed"])
        reply = self._running(lambda: new_model(program, message["code"]))
        if "raised" in reply:
            return reply
        model, error = reply["value"]
        if error is not None:
            return {"error": error}
        self.planning = (Simulator(model), planner_draws(message), message)
        return {}

    def _plan_step(self, message):
        simulator, rng, plan = self.planning
        exact = from_plain(message["frame"], self._resolve)
        frame = float32_observation(exact) if plan.get("float32") else exact
        params = {key: plan["planner"][key] for key in PLANNER_KEYS}

        def plan_one():
            try:
                return planned_action(simulator, frame, plan["actions"], params, rng), None
            except ModelRaised as raised:
                return None, model_error(raised.exc, plan["code"], f"Error when planning step {message['step']} with the model")

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
