"""Steps per second of Gymnasium 0.29.1's CartPole-v1 and Taxi-v3 as `gym.make` gives them (with
its wrappers), under uniformly random actions drawn beforehand, resetting after each episode: the
figure `rlcg gym bench` is set against (bench/gym-speed prints both)."""
import json
import sys
import time

import gymnasium as gym
import numpy as np


def steps_per_second(name, steps):
    env = gym.make(name)
    actions = np.random.default_rng(1).integers(env.action_space.n, size=steps).tolist()
    env.reset(seed=1)
    started = time.perf_counter()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - started)


if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    print(json.dumps({name: steps_per_second(name, steps) for name in ["CartPole-v1", "Taxi-v3"]}))
