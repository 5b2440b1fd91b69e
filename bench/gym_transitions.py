"""Records transitions of Gymnasium 0.29.1's six discrete-action environments (seed 004's CWMB part)
as JSON lines: {env, obs, action, reward, next_obs, terminated, truncated, t}, `t` being the steps
the episode had taken before this one. Each environment gets seeded episodes of uniformly random
actions and of a simple heuristic that reaches its goal (so that terminal transitions are in the
file too). `rlcg gym check --transitions FILE` and the engine's fixture test replay the file.

Run it through bench/gym-transitions, which installs gymnasium==0.29.1 first:
    bench/gym-transitions tasks/gym/transitions.jsonl
"""
import json
import math
import sys
from collections import deque

import gymnasium as gym
import numpy as np

# Transitions per environment (at least; whole episodes, a long one cut at CUT steps).
PER_ENV = 300
# CartPole's heuristic balances for the whole 500 steps: random episodes come first there, so that
# the file has terminations; elsewhere the heuristic comes first, so that it has goals.
RANDOM_FIRST = {"CartPole-v1"}
CUT = 200
MAKE = {"Blackjack-v1": {"sab": True}}


def plain(obs):
    """An observation as JSON: ints stay ints, float arrays become lists of floats."""
    if isinstance(obs, (tuple, list)):
        return [int(x) for x in obs]
    if isinstance(obs, np.ndarray):
        return [float(x) for x in obs]
    return int(obs)


def taxi_heuristic(env):
    """The shortest way to deliver the passenger, by breadth-first search over the model."""
    table = env.unwrapped.P
    state = env.unwrapped.s
    parents = {state: None}
    queue = deque([state])
    while queue:
        s = queue.popleft()
        for a in range(6):
            _, nxt, reward, done = table[s][a][0]
            if done:
                path = [a]
                while parents[s] is not None:
                    s, step = parents[s]
                    path.append(step)
                return path[::-1]
            if nxt not in parents:
                parents[nxt] = (s, a)
                queue.append(nxt)
    return []


def heuristic(name, env, obs, plan):
    if name == "CliffWalking-v0":
        row, col = divmod(obs, 12)
        return 0 if row == 3 and col == 0 else (2 if col == 11 else (1 if row < 3 else 0))
    if name == "Taxi-v3":
        if not plan:
            plan.extend(taxi_heuristic(env))
        return plan.pop(0)
    if name == "CartPole-v1":
        return int(obs[2] + 0.5 * obs[3] > 0)
    if name == "MountainCar-v0":
        return 2 if obs[1] >= 0 else 0
    if name == "Acrobot-v1":
        # Torque against the first link's swing pumps energy in (tried: it swings up in ~80 steps).
        return 0 if obs[4] >= 0 else 2
    return int(obs[0] < 17)  # Blackjack: hit below 17


def record(name, out):
    env = gym.make(name, **MAKE.get(name, {}))
    written = 0
    episode = 0
    while written < PER_ENV:
        obs, _ = env.reset(seed=episode)
        env.action_space.seed(episode)
        heuristic_episode = episode % 2 == (1 if name in RANDOM_FIRST else 0)
        plan = []
        for t in range(CUT if name == "CliffWalking-v0" else 10_000):
            action = heuristic(name, env, obs, plan) if heuristic_episode else int(env.action_space.sample())
            next_obs, reward, terminated, truncated, _ = env.step(action)
            line = {"env": name, "obs": plain(obs), "action": action, "reward": float(reward),
                    "next_obs": plain(next_obs), "terminated": bool(terminated), "truncated": bool(truncated), "t": t}
            out.write(json.dumps(line) + "\n")
            written += 1
            obs = next_obs
            if terminated or truncated:
                break
        episode += 1
    return written


def main(path):
    assert gym.__version__ == "0.29.1", gym.__version__
    with open(path, "w") as out:
        for name in ["Blackjack-v1", "CliffWalking-v0", "Taxi-v3", "CartPole-v1", "MountainCar-v0", "Acrobot-v1"]:
            print(name, record(name, out), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
