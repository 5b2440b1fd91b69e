"""llama.cpp natively (llama-cpp-python) on GGUF files: the anchor for the speed of the model in the
tab (issue 71). `node e2e/bench-in-tab.mjs --native=PYTHON` runs it on the files and the prompt the
page's provider is measured on, and prints both side by side (docs/benchmarks.md).

    python speed.py --make DIR          # DIR/qwen2-0.5b-{q8_0,q4_k_m}.gguf, if missing
    python speed.py --messages FILE --threads 2 --runs 3 MODEL...

`--make` writes Qwen2.5-0.5B's shape and vocabulary with random weights (reference.write_qwen2) in
F32 and has llama.cpp quantise it to Q8_0 and to Q4_K_M (the presets' type). Measuring prints one
JSON line per model: the load's seconds, and the medians over the runs of the prompt read (tokens a
second, the cache emptied before each run, so the whole prompt is read every time), the reply
written (64 tokens, end-of-generation tokens banned, greedy) and the first token's seconds after
the request, and the first token's once more with the prompt cached; the rates are llama.cpp's own
timings, as wllama reports them in the tab.
(llama-cpp-python, gguf and numpy installed; scripts/tiny-model/check-cli.sh says how.)
"""

import argparse
import json
import os
import pathlib
import statistics
import sys
import time

import llama_cpp

from reference import FTYPES, QWEN2_05B, quantise, write_qwen2

REPLY_TOKENS = 64


def make(directory):
    f32 = directory / "qwen2-0.5b-f32.gguf"
    targets = {name: directory / f"qwen2-0.5b-{name}.gguf" for name in ("q8_0", "q4_k_m")}
    if all(path.exists() for path in targets.values()):
        return
    write_qwen2(f32, QWEN2_05B, "rlcg qwen2 0.5b shape (random)")
    for name, path in targets.items():
        quantise(f32, path, FTYPES[name])
        print(f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB)")
    f32.unlink()


def measure(path, messages, threads, runs):
    began = time.perf_counter()
    llm = llama_cpp.Llama(
        model_path=str(path), n_ctx=4096, n_batch=512, n_ubatch=512, n_threads=threads, n_threads_batch=threads,
        verbose=False,
    )
    load = time.perf_counter() - began
    vocab = llm._model.vocab
    # Every end-of-generation token banned: a model of random weights writes all 64 tokens too.
    banned = {str(t): -1e9 for t in range(llm.n_vocab()) if llama_cpp.llama_vocab_is_eog(vocab, t)}
    def reply():
        """One reply: llama.cpp's timings and the seconds to its first token."""
        llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
        began, first = time.perf_counter(), None
        stream = llm.create_chat_completion(
            messages, max_tokens=REPLY_TOKENS, temperature=0.0, stream=True, logit_bias=banned,
        )
        for chunk in stream:
            if first is None and chunk["choices"][0]["delta"].get("content"):
                first = time.perf_counter() - began
        return llama_cpp.llama_perf_context(llm._ctx.ctx), first

    cold = []
    for _ in range(runs):
        llm.reset()
        cold.append(reply())
    # Asked again, the prompt is in the cache but for its last token (as a search's next call
    # finds the task it resends).
    _, warm_first = reply()
    median = lambda values: statistics.median(values)
    return dict(
        file=path.name, threads=threads, load_s=load, prompt_tokens=cold[0][0].n_p_eval,
        prompt_per_second=median([t.n_p_eval * 1000 / t.t_p_eval_ms for t, _ in cold]),
        written_per_second=median([t.n_eval * 1000 / t.t_eval_ms for t, _ in cold]),
        first_token_s=median([first for _, first in cold]), cached_first_token_s=warm_first,
        llama_cpp_python=llama_cpp.__version__,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--make", type=pathlib.Path, help="write the 0.5B-shaped files into this folder")
    parser.add_argument("--messages", type=pathlib.Path, help="a JSON file of the chat's messages")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("models", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    if args.make:
        make(args.make)
    if args.models:
        messages = json.loads(args.messages.read_text())
        for model in args.models:
            print(json.dumps(measure(model, messages, args.threads, args.runs)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
