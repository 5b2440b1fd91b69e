"""Planning with a code world model (seed 004 §3.5): one real episode per request.

The engine's planner (engine/src/cwm/mcts.rs) line for line, in Python: the models of
continuous environments cannot be tabulated, and one request per real step would cost a round trip
(and in the page a fresh interpreter) each time. The real environment is the reference model
(`plan.environment`, the bank's correct program), which the Gymnasium fixture checks. It runs in
the judge; the planner and the model run in the candidate, which learns only each real
observation, so a model cannot find the real environment and step it instead of predicting."""

import copy
import math
import random
import struct
import time

from .common import DEFAULT_OUTPUT_LIMIT, describe
from .judge import NotCompiled, bounded, fresh_verdict
from .link import CandidateGone, OutOfProtocol
from .world_models import json_ready, run_model

PLANNER_KEYS = (
    "simulations",
    "exploration",
    "discount",
    "rollout_steps",
    "temperature",
    "visit_epsilon",
    "unvisited_value",
    "root_counted",
    "random_ties",
)


class SplitMix64:
    """The engine's `cwm::mcts::SplitMix64` (Steele, Lea and Flood 2014): a stream of draws both
    planners can take, so that a test holds this planner to the engine's (`plan.splitmix64`); the
    playground's own episodes draw from `random.Random`."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed & self.MASK

    def _next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def randrange(self, n):
        return self._next() % n

    def random(self):
        return (self._next() >> 11) * 2.0**-53


def planner_draws(plan):
    """The stream of the planner's choices (its ties, rollouts and final draw) for a plan request."""
    return SplitMix64(plan["seed"]) if plan.get("splitmix64") else random.Random(plan["seed"])


class ModelRaised(Exception):
    """A model's exception while planning, with what it was doing."""

    def __init__(self, exc, during):
        super().__init__(during)
        self.exc, self.during = exc, during


def float32_observation(values):
    """An observation as Gymnasium's float32 spaces give it (each float rounded to 32 bits)."""
    return [struct.unpack("f", struct.pack("f", v))[0] if isinstance(v, float) else v for v in values]


class Simulator:
    """A model the planner steps: `set_state(deepcopy(frame))` then `step(action)`, so that each
    predicted frame feeds the next prediction (the official `CWMSimulatorMCTS`)."""

    def __init__(self, model):
        self.model, self.steps = model, 0

    def step(self, frame, action):
        self.steps += 1
        try:
            self.model.set_state(copy.deepcopy(frame))
            output = self.model.step(action)
        except KeyboardInterrupt:
            raise
        except (Exception, SystemExit, GeneratorExit) as exc:
            raise ModelRaised(exc, "set_state or step") from exc
        if not isinstance(output, (tuple, list)) or len(output) != 3:
            raise ModelRaised(TypeError(f"step returned {bounded(repr(output))}, not (next_state, reward, done)"), "step")
        next_frame, reward, done = output
        try:
            return next_frame, float(reward), bool(done)
        except (TypeError, ValueError) as exc:
            raise ModelRaised(exc, "step") from exc


def _uct(node, params, rng):
    ln_n = math.log(max(node[2], 1))
    scores = []
    for visits, value_sum, _ in node[3]:
        q = value_sum / visits if visits else params["unvisited_value"]
        scores.append(q + params["exploration"] * math.sqrt(ln_n / (visits + params["visit_epsilon"])))
    best = [index for index, score in enumerate(scores) if score == max(scores)]
    # A draw only for a tie: one action is what the official `np.random.choice` of one returns.
    return best[rng.randrange(len(best))] if params["random_ties"] and len(best) > 1 else best[0]


def _rollout(simulator, frame, actions, params, rng):
    total, weight = 0.0, 1.0
    for _ in range(params["rollout_steps"]):
        frame, reward, done = simulator.step(frame, rng.randrange(actions))
        total += weight * reward
        weight *= params["discount"]
        if done:
            break
    return total


def _simulate(simulator, tree, at, actions, params, rng):
    """One simulation from node `at` (a node is [frame, terminal, visits, [[visits, value_sum,
    children by key], ...]]); its return, r + γ·v."""
    node = tree[at]
    action = _uct(node, params, rng)
    next_frame, reward, done = simulator.step(node[0], action)
    key = repr(json_ready(next_frame))
    child = node[3][action][2].get(key)
    if child is not None and tree[child][1]:
        value = 0.0
    elif child is not None:
        value = _simulate(simulator, tree, child, actions, params, rng)
    else:
        value = 0.0 if done else _rollout(simulator, next_frame, actions, params, rng)
        tree.append([next_frame, done, 1, [[0, 0.0, {}] for _ in range(actions)]])
        node[3][action][2][key] = len(tree) - 1
    total = reward + params["discount"] * value
    node[2] += 1
    node[3][action][0] += 1
    node[3][action][1] += total
    return total


def planned_action(simulator, frame, actions, params, rng):
    """A fresh tree of `simulations` simulations, then an action drawn from softmax(Q / T)."""
    tree = [[frame, False, int(params["root_counted"]), [[0, 0.0, {}] for _ in range(actions)]]]
    for _ in range(params["simulations"]):
        _simulate(simulator, tree, 0, actions, params, rng)
    qs = [(s / v if v else 0.0) / params["temperature"] for v, s, _ in tree[0][3]]
    top = max(qs)
    weights = [math.exp(q - top) for q in qs]
    draw = rng.random() * sum(weights)
    for action, weight in enumerate(weights):
        if draw < weight:
            return action
        draw -= weight
    return len(weights) - 1


def _play(plan, episode, link):
    """Plays the episode into `episode` (its lists grow as it goes, so a stopped run keeps them);
    returns the model's error, or None."""
    rng = planner_draws(plan)
    random.seed(plan["seed"])
    params = {key: plan["planner"][key] for key in PLANNER_KEYS}
    actions, policy, rounded = plan["actions"], plan["policy"], plan.get("float32", False)
    scope = {"__name__": "__main__"}
    exec(compile(plan["environment"], "<environment>", "exec"), scope)
    real = scope["Environment"]()
    real.set_state(copy.deepcopy(plan["start"]))
    oracle = None
    if policy == "oracle":
        # A copy of the real environment: the reference model fed the real, unrounded observation.
        oracle = Simulator(scope["Environment"]())
    elif policy == "model":
        started = link.ask(
            "plan_start",
            code=plan["model_code"],
            seed=plan["seed"],
            splitmix64=bool(plan.get("splitmix64")),
            actions=actions,
            planner=plan["planner"],
            float32=rounded,
        )
        if "compile_error" in started:
            raise NotCompiled(str(started["compile_error"]))
        if "raised" in started:
            return describe(link.exception(started["raised"]))
        if started.get("error") is not None:
            return str(started["error"])
    exact = list(plan["start"])
    for step in range(1, plan["max_steps"] + 1):
        if policy == "random":
            action = rng.randrange(actions)
        elif policy == "oracle":
            action = planned_action(oracle, exact, actions, params, rng)
            episode["model_steps"] = oracle.steps
        else:
            reply = link.ask("plan_step", frame=link.outward(exact), step=step)
            if "raised" in reply:
                return describe(link.exception(reply["raised"]))
            if type(reply.get("model_steps")) is int:
                episode["model_steps"] = reply["model_steps"]
            if reply.get("error") is not None:
                return str(reply["error"])
            action = reply.get("action")
            if type(action) is not int or not 0 <= action < actions:
                raise OutOfProtocol("the program's interpreter planned an action that does not exist")
        observation, reward, done = real.step(action)
        exact = json_ready(observation)
        episode["actions"].append(action)
        episode["rewards"].append(float(reward))
        episode["observations"].append(float32_observation(exact) if rounded else exact)
        if done:
            episode["terminated"] = True
            break
    return None


def run_planning_episode(code, plan, link, output_limit=DEFAULT_OUTPUT_LIMIT):
    """One real episode planned with the model `code` (or the oracle, or at random; see `_play`).
    The verdict's `episode` holds its actions, rewards, the observations after each step, whether
    it terminated and how many model steps the planner took; `runtime_error` carries the model's
    exception with its line, the episode then ending where it stopped."""
    started = time.perf_counter()
    verdict = fresh_verdict(1)
    episode = verdict["episode"] = {"actions": [], "rewards": [], "observations": [], "terminated": False, "model_steps": 0}
    plan = dict(plan, model_code=code)
    link = link if plan["policy"] == "model" else None

    def play():
        try:
            return _play(plan, episode, link)
        except (KeyboardInterrupt, CandidateGone, OutOfProtocol, NotCompiled):
            raise
        except Exception as exc:  # the reference environment or the request, never the model
            return f"The real environment could not play the episode: {describe(exc)}"

    run_model(verdict, started, output_limit, link, play)
    verdict["number_passed"] = int(verdict["passed"])
    return verdict
