"""The DQN learn step of seed 000 (Listing 6 and `train_step`) in PyTorch, for comparison with burn.

Times the step that `cargo bench -p engine -- dqn_train_step` times in Rust: sample a batch (64, 512
and 4096) from a replay buffer of 1000 (or the batch, if larger), double-DQN targets (online argmax,
target network value), MSE loss, backward, gradient clipping to norm 0.5, Adam. Both configurations of the engine are measured:
`seed` (1158 inputs, trunk [512, 256], as the seed's sentence-transformer features) and `playground`
(54 inputs, trunk [64, 32]). Differences from the seed's listing are the engine's: the next-state
argmax skips illegal actions (here: a random mask per row), and the replay sample is one index draw.

Usage: python3 bench/dqn_learn_step.py [--device cpu|cuda] [--threads N] [--steps N] [--batch N]... [--json]
Needs torch; prints the median and the interquartile range of the per-step time.
"""

import argparse
import json
import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

ACTIONS = 5
BATCHES = [64, 512, 4096]  # the seed's batch, 8x and 64x it, as the engine's bench
BUFFER = 1000
CONFIGS = {
    # name: (inputs, trunk, learning rate) as engine::agents::DqnParams::{playground, seed}
    "playground": (3 * 16 + 6, [64, 32], 5e-4),
    "seed": (3 * 384 + 6, [512, 256], 3e-4),
}


class DuelingQNetwork(nn.Module):
    """Seed 000 Listing 6, verbatim in structure."""

    def __init__(self, input_dim, hidden, output_dim):
        super().__init__()
        layers, prev = [], input_dim
        for h in hidden:
            layers += [nn.Linear(prev, h), nn.ReLU()]
            prev = h
        self.feature = nn.Sequential(*layers)
        head = prev // 2 if prev // 2 > 0 else 32
        self.value_head = nn.Sequential(nn.Linear(prev, head), nn.ReLU(), nn.Linear(head, 1))
        self.adv_head = nn.Sequential(nn.Linear(prev, head), nn.ReLU(), nn.Linear(head, output_dim))

    def forward(self, x):
        x = self.feature(x)
        value, adv = self.value_head(x), self.adv_head(x)
        return value + (adv - adv.mean(dim=1, keepdim=True))


def learn_steps(name, batch, device, steps, warmup):
    inputs, hidden, lr = CONFIGS[name]
    torch.manual_seed(1)
    qnet = DuelingQNetwork(inputs, hidden, ACTIONS).to(device)
    target = DuelingQNetwork(inputs, hidden, ACTIONS).to(device)
    target.load_state_dict(qnet.state_dict())
    opt = torch.optim.Adam(qnet.parameters(), lr=lr)
    # The replay buffer lives on the host, as in the seed (numpy arrays turned into tensors per step).
    buffer = max(BUFFER, batch)
    states = torch.rand(buffer, inputs)
    next_states = torch.rand(buffer, inputs)
    actions = torch.randint(0, ACTIONS, (buffer,))
    rewards = torch.rand(buffer)
    dones = (torch.rand(buffer) < 0.2).float()
    next_illegal = torch.rand(buffer, ACTIONS) < 0.3
    next_illegal[:, 0] = False  # every state has a legal action

    def step():
        i = torch.randperm(buffer)[:batch]
        s, ns = states[i].to(device), next_states[i].to(device)
        a, r, d = actions[i].to(device), rewards[i].to(device), dones[i].to(device)
        illegal = next_illegal[i].to(device)
        qvals = qnet(s).gather(1, a.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            next_actions = qnet(ns).masked_fill(illegal, -1e9).argmax(dim=1, keepdim=True)
            next_q = target(ns).gather(1, next_actions).squeeze(1)
            y = r + 0.99 * next_q * (1 - d)
        loss = F.mse_loss(qvals, y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(qnet.parameters(), 0.5)
        opt.step()
        return float(loss.item())  # the engine reads the loss back every step too

    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    q1, median, q3 = statistics.quantiles(times, n=4)
    return {"config": name, "inputs": inputs, "batch": batch, "device": str(device), "median_ms": median * 1e3,
            "q1_ms": q1 * 1e3, "q3_ms": q3 * 1e3}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch", type=int, action="append", help="batch sizes (default: 64, 512, 4096)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    results = [learn_steps(name, batch, device, args.steps, warmup=10)
               for name in CONFIGS for batch in (args.batch or BATCHES)]
    if args.json:
        print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "results": results}))
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    for r in results:
        print(f"{r['device']:>5} {r['config']:<10} {r['inputs']:>5} inputs, batch {r['batch']:>4}: {r['median_ms']:.3f} ms "
              f"(IQR {r['q1_ms']:.3f}-{r['q3_ms']:.3f})")


if __name__ == "__main__":
    main()
