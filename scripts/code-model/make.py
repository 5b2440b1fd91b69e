"""Makes the small code model that StepCoder trains by RL in the engine (issue 69, item 6): a
Qwen2-architecture transformer of a few million parameters, pretrained from scratch on programs
written from templates (family.py), and written as GGUF with its tokenizer and chat template.

No model hub is reachable, so the starting point of RL is made here, from PyPI packages alone
(../tiny-model/requirements.txt), on the CPU:

- the tasks: `tasks/lm_coder.json`, StepCoder's training tasks and tasks it never trains on, each
  with its requirement, canonical program (CCCS's prefixes), tests and hidden tests (family.py);
- a byte-level BPE tokenizer (HF `tokenizers`) with Qwen2's pre-tokenizer split and ChatML's
  special tokens, trained on the corpus;
- the model: Qwen2's architecture as llama.cpp runs it (q/k/v biases, grouped-query attention,
  NEOX rotary pairing, tied output), trained on the replies of the corpus's chats (the
  requirement as the user's turn, the program in a ```python block as the assistant's);
- greedy pass@1 on both task sets measured every few hundred steps (tests and hidden tests, by
  python3); training stops once the training tasks' pass@1 reaches `--target`, so the model is a
  starting point for RL (between 10% and 60%), not a solver;
- written with `gguf` (llama.cpp's writer): matrices in F16, norms and biases in F32.

    python make.py        # tasks/lm_coder.json and models/rlcg-coder.gguf
"""

import argparse
import json
import pathlib
import random
import subprocess
import sys
import time

import gguf
import numpy as np
import torch
from tokenizers import Regex, pre_tokenizers

import family

# The ChatML pieces this model shares with the in-tab provider's test model.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tiny-model"))
from chatml import IM_END, IM_START, RmsNorm, add_tokenizer, finish, padded_batch, train_tokenizer  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Qwen2's pre-tokenizer split (llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN2): digits one by one.
QWEN2_SPLIT = (
    r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SHAPE = dict(vocab=1024, d=256, layers=4, heads=4, kv_heads=2, ff=768, ctx=512, rope_base=10000.0, eps=1e-6)
MAX_REPLY = 96


def prompt_text(requirement):
    return f"{IM_START}user\n{requirement}{IM_END}\n{IM_START}assistant\n"


def reply_text(program):
    return f"```python\n{program}```{IM_END}"


def rope(x, base):
    """Rotary positions on (batch, heads, time, head_dim), pairing i with i + head_dim/2 as GGML's
    NEOX rotation does (Qwen2's, whose weights llama.cpp reads unpermuted)."""
    _, _, t, dim = x.shape
    inv = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angles = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = angles.cos(), angles.sin()
    first, second = x[..., : dim // 2], x[..., dim // 2 :]
    return torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)


class Block(torch.nn.Module):
    def __init__(self, d, heads, kv_heads, ff, eps, rope_base, **_):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim, self.rope_base = heads, kv_heads, d // heads, rope_base
        kv = kv_heads * self.head_dim
        self.attn_norm, self.ffn_norm = RmsNorm(d, eps), RmsNorm(d, eps)
        self.q, self.k, self.v = torch.nn.Linear(d, d), torch.nn.Linear(d, kv), torch.nn.Linear(d, kv)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.gate, self.up = torch.nn.Linear(d, ff, bias=False), torch.nn.Linear(d, ff, bias=False)
        self.down = torch.nn.Linear(ff, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        split = lambda y, n: y.view(b, t, n, self.head_dim).transpose(1, 2)
        q = rope(split(self.q(h), self.heads), self.rope_base)
        k = rope(split(self.k(h), self.kv_heads), self.rope_base)
        v = split(self.v(h), self.kv_heads)
        group = self.heads // self.kv_heads
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        attended = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(attended.transpose(1, 2).reshape(b, t, d))
        h = self.ffn_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Model(torch.nn.Module):
    def __init__(self, vocab, d, layers, eps, **shape):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        torch.nn.init.normal_(self.embed.weight, std=0.02)
        self.blocks = torch.nn.ModuleList(Block(d, eps=eps, **shape) for _ in range(layers))
        self.norm = RmsNorm(d, eps)

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.embed.weight.T


def encode(tokenizer, examples):
    """Each example's token ids and where its reply starts."""
    rows = []
    for requirement, program in examples:
        p = tokenizer.encode(prompt_text(requirement)).ids
        r = tokenizer.encode(reply_text(program)).ids
        rows.append((p + r, len(p)))
    return rows


@torch.no_grad()
def greedy(model, tokenizer, requirements):
    """Each requirement's greedy reply, decoded together (padding on the left is avoided by
    decoding each prompt length's group alone)."""
    end = tokenizer.token_to_id(IM_END)
    replies = {}
    groups = {}
    for index, requirement in enumerate(requirements):
        ids = tokenizer.encode(prompt_text(requirement)).ids
        groups.setdefault(len(ids), []).append((index, ids))
    for members in groups.values():
        ids = torch.tensor([row for _, row in members])
        done = [False] * len(members)
        out = [[] for _ in members]
        for _ in range(MAX_REPLY):
            step = model(ids)[:, -1].argmax(-1)
            for i, token in enumerate(step.tolist()):
                if not done[i]:
                    if token == end:
                        done[i] = True
                    else:
                        out[i].append(token)
            if all(done):
                break
            ids = torch.cat((ids, step[:, None]), dim=1)
        for (index, _), tokens in zip(members, out):
            replies[index] = tokenizer.decode(tokens)
    return [replies[i] for i in range(len(requirements))]


def program_of(reply):
    body = reply.split("```python\n", 1)[-1]
    return body.split("```", 1)[0]


def passes(program, tests):
    """Whether `program` passes every test in a python3 of its own (five seconds at most)."""
    source = program + "\n" + "\n".join(tests) + "\n"
    try:
        return subprocess.run([sys.executable, "-c", source], capture_output=True, timeout=5).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def pass_at_1(model, tokenizer, tasks):
    replies = greedy(model, tokenizer, [t["requirement"] for t in tasks])
    return sum(passes(program_of(r), t["tests"] + t["hidden_tests"]) for r, t in zip(replies, tasks)) / len(tasks)


def write_gguf(path, model, tokenizer):
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_name("rlcg coder (small, pretrained on templates)")
    writer.add_context_length(SHAPE["ctx"])
    writer.add_embedding_length(SHAPE["d"])
    writer.add_block_count(SHAPE["layers"])
    writer.add_feed_forward_length(SHAPE["ff"])
    writer.add_head_count(SHAPE["heads"])
    writer.add_head_count_kv(SHAPE["kv_heads"])
    writer.add_rope_freq_base(SHAPE["rope_base"])
    writer.add_layer_norm_rms_eps(SHAPE["eps"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    add_tokenizer(writer, tokenizer, SHAPE["vocab"], "qwen2")

    def add(name, weight):
        array = weight.detach().to(torch.float32).numpy()
        writer.add_tensor(name, array.astype(np.float16) if array.ndim == 2 else array)

    add("token_embd.weight", model.embed.weight)
    for i, block in enumerate(model.blocks):
        for key, weight in [
            ("attn_norm.weight", block.attn_norm.weight),
            ("attn_q.weight", block.q.weight), ("attn_q.bias", block.q.bias),
            ("attn_k.weight", block.k.weight), ("attn_k.bias", block.k.bias),
            ("attn_v.weight", block.v.weight), ("attn_v.bias", block.v.bias),
            ("attn_output.weight", block.o.weight), ("ffn_norm.weight", block.ffn_norm.weight),
            ("ffn_gate.weight", block.gate.weight), ("ffn_up.weight", block.up.weight),
            ("ffn_down.weight", block.down.weight),
        ]:
            add(f"blk.{i}.{key}", weight)
    add("output_norm.weight", model.norm.weight)
    finish(writer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "models/rlcg-coder.gguf")
    parser.add_argument("--tasks", type=pathlib.Path, default=ROOT / "tasks/lm_coder.json")
    parser.add_argument("--target", type=float, default=0.3, help="the training tasks' pass@1 to stop at")
    parser.add_argument("--per-triple", type=int, default=12, help="corpus examples per template triple")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=2e-3)
    parser.add_argument("--check-every", type=int, default=200, help="steps between pass@1 measurements")
    parser.add_argument("--max-minutes", type=float, default=30.0)
    parser.add_argument("--tasks-only", action="store_true", help="write the tasks and stop")
    args = parser.parse_args()
    torch.manual_seed(0)
    rng = random.Random(0)

    corpus, training, unseen = family.split()
    tasks = [family.task(t, "training", rng) for t in training] + [family.task(t, "unseen", rng) for t in unseen]
    args.tasks.write_text(json.dumps(tasks, indent=1) + "\n")
    if args.tasks_only:
        return None
    examples = family.corpus_examples(corpus, rng, args.per_triple)
    answers = {t["canonical"].split("(")[0] for t in tasks}
    assert not any(program.split("(")[0] in answers for _, program in examples), "a task's program is in the corpus"

    qwen2_split = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tokenizer = train_tokenizer([prompt_text(r) + reply_text(p) for r, p in examples], SHAPE["vocab"], qwen2_split)
    rows = encode(tokenizer, examples)
    model = Model(**SHAPE)
    parameters = sum(p.numel() for p in model.parameters())
    print(f"{len(examples)} examples of {len(corpus)} triples, up to {max(len(r) for r, _ in rows)} tokens; "
          f"{parameters} parameters; {len(training)} training and {len(unseen)} unseen tasks", flush=True)

    optimiser = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    train_set = [t for t in tasks if t["split"] == "training"]
    unseen_set = [t for t in tasks if t["split"] == "unseen"]
    began, step, history = time.time(), 0, []
    while True:
        rng.shuffle(rows)
        for start in range(0, len(rows) - args.batch + 1, args.batch):
            step += 1
            warm = min(1.0, step / 100)
            for group in optimiser.param_groups:
                group["lr"] = args.learning_rate * warm
            ids, targets = padded_batch(rows[start : start + args.batch])
            loss = torch.nn.functional.cross_entropy(model(ids).transpose(1, 2), targets)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            if step % 50 == 0:
                print(f"step {step}: loss {loss.item():.4f} ({time.time() - began:.0f} s)", flush=True)
            if step % args.check_every == 0:
                model.eval()
                trained, fresh = pass_at_1(model, tokenizer, train_set), pass_at_1(model, tokenizer, unseen_set)
                model.train()
                history.append((step, trained, fresh))
                print(f"step {step}: greedy pass@1 {trained:.1%} on the training tasks, {fresh:.1%} unseen", flush=True)
                if trained >= args.target:
                    return finish(args, model, tokenizer, history, parameters)
            if time.time() - began > args.max_minutes * 60:
                raise SystemExit(f"pass@1 {args.target:.0%} not reached in {args.max_minutes} minutes: {history}")


def finish(args, model, tokenizer, history, parameters):
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_gguf(args.out, model, tokenizer)
    step, trained, fresh = history[-1]
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, {parameters} parameters) after {step} steps: "
          f"greedy pass@1 {trained:.1%} training, {fresh:.1%} unseen (PyTorch's arithmetic)")


if __name__ == "__main__":
    sys.exit(main())
