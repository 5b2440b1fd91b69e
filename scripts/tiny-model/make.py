"""Makes the in-tab LLM's test model: a tiny transformer of its own, trained on CPU, as a GGUF file.

No model hub is reachable from here, so the tests of the "In this tab" provider (issue 49) run a
model that this script makes from PyPI packages alone (requirements.txt):

- a byte-level BPE tokenizer (HF `tokenizers`) trained on the recorded prompts, with ChatML's
  special tokens and chat template, so that llama.cpp formats the page's messages itself;
- a Llama-architecture transformer (RMSNorm, rotary positions in GGML's "normal" pairing, SwiGLU),
  trained with PyTorch until greedy decoding answers every recorded prompt with its answer, with a
  margin, so that llama.cpp's arithmetic (not PyTorch's) gives the same tokens; its output layer is
  then scaled ×4, so that sampling at temperature 1 (as searches do) rarely strays from them;
- written with `gguf` (llama.cpp's own writer) as F32 tensors, named as llama.cpp reads them.

The prompts (`prompts.jsonl`) are the playground's real requests, recorded from `rlcg live` and
`rlcg search` against the e2e stub (`RECORD=… node e2e/llm-stub.mjs`, README.md here). The answers
are the stub's policy, written from the bundled tasks' reference programs: a plan to the Planner,
an analysis to the Tester, and otherwise the task's correct program in a ```python block.

    python make.py                  # e2e/fixtures/tiny-coder.gguf, the committed fixture
"""

import argparse
import json
import math
import pathlib
import re
import sys
import time

import gguf
import torch
from tokenizers import pre_tokenizers

from chatml import IM_END, IM_START, RmsNorm, add_tokenizer, finish, padded_batch, train_tokenizer

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent

# The stub's texts, which the recorded prompts quote (a Coder's prompt holds the Planner's plan).
PLAN = "1. Walk the list.\n2. Keep the largest value.\n3. Return it."
ANALYSIS = "The function returns the wrong element."
HINT = "- Use the built-in."
REFLECTION = "The implementation is wrong on the failing test: it must follow the docstring exactly."

# The output layer's scale after training (see main).
SHARPEN = 4.0

# The tiny model's shape.
SHAPE = dict(vocab=1024, d=128, layers=2, heads=4, ff=384, ctx=2048)


def reference_programs():
    """Every bundled task's correct program, by function name."""
    programs = {}
    for task in json.loads((ROOT / "tasks/search.json").read_text())["tasks"]:
        programs[task["id"]] = "".join(slot["correct"] for slot in task["slots"])
    for task in json.loads((ROOT / "tasks/executive.json").read_text())["tasks"]:
        programs[function_name(task["prompt"])] = task["code"]["correct"]
    for task in json.loads((ROOT / "tasks/seed003.json").read_text())["tasks"]:
        programs[function_name(task["prompt"])] = task["reference"]
    return programs


def function_name(source):
    return re.search(r"def (\w+)\(", source).group(1)


def answer(messages, programs):
    """The stub's policy (e2e/llm-stub.mjs), with the tasks' reference programs."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    user = next((m["content"] for m in messages if m["role"] == "user"), "")
    if "Planner" in system:
        return PLAN
    if "Tester" in system:
        return ANALYSIS
    if "recalls" in system:
        return HINT
    if "function implementation and the results" in system:
        return REFLECTION
    # The longest name first: `find_max` is not the task when `find_max_index` is.
    name = next((n for n in sorted(programs, key=len, reverse=True) if re.search(rf"\b{n}\b", user)), None)
    if name is None:
        raise SystemExit(f"no bundled task is named in this prompt: {user[:200]!r}")
    if "unit tests" in system and "writes" in system:
        return f"assert {name} is not None"
    code = f"```python\n{programs[name]}```"
    return f"\n{code}" if messages[-1]["role"] == "assistant" else code


def chat_text(messages):
    """The prompt as llama.cpp formats it with ChatML (chatml.py), ready for the reply; a last assistant
    message is the reply's start, which the model continues (the page loads it with
    `prefill_assistant`, as llama-server does by default)."""
    *earlier, last = messages
    turns = "".join(f"{IM_START}{m['role']}\n{m['content']}{IM_END}\n" for m in earlier)
    if last["role"] == "assistant":
        return turns + f"{IM_START}assistant\n{last['content']}"
    return turns + f"{IM_START}{last['role']}\n{last['content']}{IM_END}\n{IM_START}assistant\n"


def rope(x, base=10000.0):
    """Rotary positions on (batch, heads, time, head_dim), pairing (0,1), (2,3)… as GGML's
    LLAMA_ROPE_TYPE_NORM does (Llama weights need no permutation then)."""
    _, _, t, dim = x.shape
    inv = base ** (-torch.arange(0, dim, 2, dtype=torch.float32) / dim)
    angles = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


class Block(torch.nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.attn_norm, self.ffn_norm = RmsNorm(d), RmsNorm(d)
        self.q, self.k, self.v, self.o = (torch.nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate, self.up = torch.nn.Linear(d, ff, bias=False), torch.nn.Linear(d, ff, bias=False)
        self.down = torch.nn.Linear(ff, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        split = lambda y: y.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = rope(split(self.q(h))), rope(split(self.k(h))), split(self.v(h))
        attended = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(attended.transpose(1, 2).reshape(b, t, d))
        h = self.ffn_norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class Model(torch.nn.Module):
    def __init__(self, vocab, d, layers, heads, ff, **_):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads, ff) for _ in range(layers))
        self.norm = RmsNorm(d)
        self.out = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x)
        return self.out(self.norm(x))


def batches(tokenizer, pairs):
    """Token ids, targets (-100 outside the answers) and the padded width."""
    rows = []
    for prompt, reply in pairs:
        p = tokenizer.encode(prompt).ids
        r = tokenizer.encode(reply + IM_END).ids
        rows.append((p + r, len(p)))
    ids, targets = padded_batch(rows)
    return ids, targets, ids.shape[1]


def train(model, ids, targets, margin, max_minutes):
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    began = time.time()
    for step in range(1, 100_000):
        logits = model(ids)
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % 10 == 0:
            with torch.no_grad():
                worst = worst_margin(model(ids), targets)
            print(f"step {step}: loss {loss.item():.4f}, smallest margin {worst:.2f}", flush=True)
            if worst >= margin:
                return step
        if time.time() - began > max_minutes * 60:
            raise SystemExit(f"not every answer is learned after {max_minutes} minutes")
    raise SystemExit("not every answer is learned")


def worst_margin(logits, targets):
    """The smallest lead of the right token's logit over the best other one, at every answer
    position: positive everywhere means greedy decoding writes every answer exactly."""
    mask = targets != -100
    right = logits.gather(-1, targets.clamp(min=0)[..., None])[..., 0]
    others = logits.scatter(-1, targets.clamp(min=0)[..., None], -math.inf).max(-1).values
    return (right - others)[mask].min().item()


def write_gguf(path, model, tokenizer, shape, name):
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name(name)
    writer.add_context_length(shape["ctx"])
    writer.add_embedding_length(shape["d"])
    writer.add_block_count(shape["layers"])
    writer.add_feed_forward_length(shape["ff"])
    writer.add_head_count(shape["heads"])
    writer.add_head_count_kv(shape["heads"])
    writer.add_rope_dimension_count(shape["d"] // shape["heads"])
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    # GPT-2's split and byte mapping: llama.cpp's "gpt2" vocabulary with the "gpt-2" pre-tokenizer.
    add_tokenizer(writer, tokenizer, shape["vocab"], "gpt-2")

    def add(name, weight):
        writer.add_tensor(name, weight.detach().to(torch.float32).numpy())

    add("token_embd.weight", model.embed.weight)
    for i, block in enumerate(model.blocks):
        for key, weight in [
            ("attn_norm", block.attn_norm.weight), ("attn_q", block.q.weight), ("attn_k", block.k.weight),
            ("attn_v", block.v.weight), ("attn_output", block.o.weight), ("ffn_norm", block.ffn_norm.weight),
            ("ffn_gate", block.gate.weight), ("ffn_up", block.up.weight), ("ffn_down", block.down.weight),
        ]:
            add(f"blk.{i}.{key}.weight", weight)
    add("output_norm.weight", model.norm.weight)
    add("output.weight", model.out.weight)
    finish(writer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "e2e/fixtures/tiny-coder.gguf")
    parser.add_argument("--margin", type=float, default=4.0, help="the smallest logit lead to reach")
    parser.add_argument("--max-minutes", type=float, default=20.0)
    args = parser.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    programs = reference_programs()
    records = [json.loads(line)["messages"] for line in (HERE / "prompts.jsonl").read_text().splitlines()]
    pairs = [(chat_text(messages), answer(messages, programs)) for messages in records]
    gpt2_split = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer = train_tokenizer([p + r + IM_END for p, r in pairs], SHAPE["vocab"], gpt2_split)
    model = Model(**SHAPE)
    ids, targets, width = batches(tokenizer, pairs)
    print(f"{len(pairs)} prompts, up to {width} tokens; {sum(p.numel() for p in model.parameters())} parameters")
    steps = train(model, ids, targets, args.margin, args.max_minutes)
    print(f"every answer learned after {steps} steps")
    # Searches sample at temperature 1 (seed 004): logits scaled by SHARPEN lead by at least
    # SHARPEN × margin, so a sampled reply rarely slips; greedy decoding is unchanged.
    with torch.no_grad():
        model.out.weight.mul_(SHARPEN)
    write_gguf(args.out, model, tokenizer, SHAPE, "rlcg tiny coder")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    sys.exit(main())
