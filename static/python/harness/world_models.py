"""Code world models (seed 004 §3.3-3.4): a program's predictions on transitions, run in the
candidate and returned as plain data for the engine to score."""

import copy
import math
import random
import time

from .common import DEFAULT_OUTPUT_LIMIT, candidate_line, describe
from .judge import NotCompiled, Sandbox, bounded, finish_record, not_compiled, settle, fresh_verdict
from .link import CandidateGone, OutOfProtocol


def json_ready(value):
    """A prediction as JSON: tuples become lists, a non-finite float or any other object its repr
    (which then matches nothing), so a strange prediction is scored rather than refused."""
    if hasattr(value, "tolist"):  # a numpy array or scalar, should a model bring its own
        value = value.tolist()
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return bounded(repr(value))


def model_error(exc, code, during):
    """The official code's error for a fix prompt: the exception with its line, and that line."""
    text = f"{during}: {describe(exc)}"
    line = candidate_line(exc.__traceback__)
    lines = code.splitlines()
    if line is not None and 0 < line <= len(lines) and lines[line - 1].strip():
        text += f"\nThe line of code that caused the error is:\n`{lines[line - 1].strip()}`"
    return text


def new_model(program, code):
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
        return None, model_error(exc, code, "Error when creating the `Environment`")


def predict_pairs(program, code, steps, predictions):
    """One `Environment()` for all pairs, and per pair `set_state(deepcopy(state))` then
    `step(action)`, as the official code scores a model. The first exception ends the run. A
    model that draws from `random` (Blackjack's cards) draws the same every run: the generator is
    seeded with 0, so a search that scores it is reproducible."""
    random.seed(0)
    model, error = new_model(program, code)
    if error is not None:
        return error
    for index, (state, action) in enumerate(steps):
        call = "set_state"
        try:
            model.set_state(copy.deepcopy(state))
            call = "step"
            output = model.step(action)
            if not isinstance(output, (tuple, list)) or len(output) != 3:
                shown = bounded(repr(output))
                return f"Error when calling `step` on transition {index + 1}: it returned {shown}, not (next_state, reward, done)"
            next_state, reward, done = (json_ready(v) for v in output)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit, GeneratorExit) as exc:
            return model_error(exc, code, f"Error when calling `{call}` on transition {index + 1}")
        predictions.append({"next_obs": next_state, "reward": reward, "done": done})
    return None


def run_world_model(code, steps, link, output_limit=DEFAULT_OUTPUT_LIMIT):
    """Run `code` as a code world model on `steps`, pairs of (state, action), in `link`'s candidate
    interpreter (which never holds the recorded outcomes). `number_passed` counts the pairs it
    predicted; the outcome is `pass` when it predicted all of them (whether rightly is the engine's to
    judge), `runtime_error` when it raised (its error, with the line, is what a fix prompt shows), and
    `compile_error` or `timeout` as for any program."""
    started = time.perf_counter()
    verdict = fresh_verdict(len(steps))
    verdict["predictions"] = predictions = []

    def run():
        reply = link.ask("predict", code=code, pairs=steps)
        if "compile_error" in reply:
            raise NotCompiled(str(reply["compile_error"]))
        if "raised" in reply:
            return describe(link.exception(reply["raised"]))
        sent = reply.get("predictions")
        keys = {"next_obs", "reward", "done"}
        if not isinstance(sent, list) or len(sent) > len(steps) or not all(isinstance(p, dict) and set(p) == keys for p in sent):
            raise OutOfProtocol("the program's interpreter sent predictions of no known form")
        predictions.extend(sent)
        return None if reply.get("error") is None else str(reply["error"])

    run_model(verdict, started, output_limit, link, run)
    verdict["number_passed"] = len(predictions)
    return verdict


def run_model(verdict, started, output_limit, link, run):
    """Runs a model's predictions or episode (`run()` returns the model's error, or None) and settles
    the verdict: `timeout` at the time limit, `runtime_error` with the error, or `pass`."""
    sandbox = Sandbox(output_limit)
    error, interrupted = None, False
    try:
        with sandbox:
            error = run()
    except KeyboardInterrupt:
        interrupted = True
    except NotCompiled as failed:
        not_compiled(verdict, str(failed), "", False, started)
        return
    except CandidateGone as gone:
        error = str(gone)
    except OutOfProtocol as broken:
        link.catch(str(broken))
    if interrupted:
        verdict["outcome"], verdict["error"] = "timeout", "the run was stopped at the time limit"
    elif error is not None:
        verdict["outcome"], verdict["error"] = "runtime_error", error
    else:
        verdict["outcome"] = "pass"
    finished = finish_record(link)
    settle(verdict, sandbox, started, finished, (link.caught if link else []) + finished["caught"])
