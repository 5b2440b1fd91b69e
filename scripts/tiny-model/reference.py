"""Records llama.cpp's numbers for the engine's language model to match (issue 69).

Makes the models the parity tests run, beside the in-tab fixture (`tiny-coder.gguf`, Llama, F32):

- `tiny-coder-q8_0.gguf`: the fixture quantised to Q8_0 by llama.cpp;
- `qwen2-tiny-{f16,q8_0,q4_k_m}.gguf`: a Qwen2-shaped model of random weights (grouped-query
  attention, biases on the query, key and value, the output tied to the embedding, NEOX rotary
  positions, Qwen2's pre-tokenizer, a chat template with a default system turn), written in F32 with
  `gguf` and quantised by llama.cpp to F16, Q8_0 and Q4_K_M (the presets' type: Q4_K with Q6_K);

and the engine's own `tiny-coder-tuned.gguf` (the fixture with LoRA adapters trained by
`rlcg lm tune` and merged, written in F16; README.md here) and the small code model
`models/rlcg-coder.gguf` (Qwen2, F16; scripts/code-model/make.py), then runs each with llama.cpp
(llama-cpp-python) on a few chats and writes, per file and chat, the
prompt llama-cpp-python's Jinja formats, its tokens, the next-token logits after it, and 24 tokens
of greedy generation to `e2e/fixtures/llama-cpp-reference.json`. The KV cache is kept in F32 and
flash attention off, so llama.cpp's attention is f32 like the engine's.

    /tmp/llama-cpp-python/bin/python scripts/tiny-model/reference.py
    /tmp/llama-cpp-python/bin/python scripts/tiny-model/reference.py --add models/rlcg-coder.gguf
(the second records one more file and keeps the others' numbers; with llama-cpp-python, gguf and numpy installed there; scripts/tiny-model/check-cli.sh installs
llama-cpp-python as pip builds it here, about 12 minutes on 2 cores.)
"""

import json
import pathlib
import sys

import gguf
import jinja2.sandbox
import llama_cpp
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "e2e/fixtures"
HERE = pathlib.Path(__file__).resolve().parent

# Qwen2's shape, small: rows of 256 and 512 so that every matrix can be a k-quant (blocks of 256).
QWEN2 = dict(d=256, layers=2, heads=4, kv_heads=2, ff=512, ctx=2048)
# Qwen2.5-0.5B's shape and vocabulary size, for the speed figures (speed.py; random weights).
QWEN2_05B = dict(d=896, layers=24, heads=14, kv_heads=2, ff=4864, ctx=4096, vocab=151_936)
QWEN2_TEMPLATE = (
    "{%- if messages[0]['role'] != 'system' %}"
    "{{- '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
GREEDY_TOKENS = 24
FTYPES = {"f16": 1, "q8_0": 7, "q4_k_m": 15}  # llama_ftype: MOSTLY_F16, MOSTLY_Q8_0, MOSTLY_Q4_K_M


def fixture_tokenizer():
    reader = gguf.GGUFReader(str(FIXTURES / "tiny-coder.gguf"))
    field = lambda key: reader.fields[key]
    strings = lambda key: [bytes(field(key).parts[i]).decode() for i in field(key).data]
    types = [int(field("tokenizer.ggml.token_type").parts[i][0]) for i in field("tokenizer.ggml.token_type").data]
    scalar = lambda key: int(field(key).parts[-1][0])
    return dict(
        tokens=strings("tokenizer.ggml.tokens"),
        types=types,
        merges=strings("tokenizer.ggml.merges"),
        bos=scalar("tokenizer.ggml.bos_token_id"),
        eos=scalar("tokenizer.ggml.eos_token_id"),
    )


def write_qwen2(path, shape=QWEN2, name="rlcg qwen2 tiny (random)"):
    """A Qwen2 model of random weights in `shape`, with the fixture's tokenizer; a `vocab` in the
    shape pads the vocabulary to that size, so that the embedding and the output layer cost what the
    real model's do, with plain tokens (ASCII, no merge makes them) that print as text when written."""
    rng = np.random.default_rng(2)
    tok = fixture_tokenizer()
    known = set(tok["tokens"])
    missing = max(0, shape.get("vocab", 0) - len(tok["tokens"]))
    padding = [name for name in (f"zz{i}" for i in range(missing + len(known))) if name not in known][:missing]
    tok["tokens"] += padding
    tok["types"] += [gguf.TokenType.NORMAL] * len(padding)
    vocab, d, ff = len(tok["tokens"]), shape["d"], shape["ff"]
    kv = shape["kv_heads"] * d // shape["heads"]
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_name(name)
    writer.add_context_length(shape["ctx"])
    writer.add_embedding_length(d)
    writer.add_block_count(shape["layers"])
    writer.add_feed_forward_length(ff)
    writer.add_head_count(shape["heads"])
    writer.add_head_count_kv(shape["kv_heads"])
    writer.add_rope_freq_base(1_000_000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tok["tokens"])
    writer.add_token_types(tok["types"])
    writer.add_token_merges(tok["merges"])
    writer.add_bos_token_id(tok["bos"])
    writer.add_eos_token_id(tok["eos"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(QWEN2_TEMPLATE)

    def matrix(rows, columns, scale=1.0):
        return (rng.standard_normal((rows, columns)) * scale / np.sqrt(columns)).astype(np.float32)

    def vector(n, mean, spread):
        return (mean + spread * rng.standard_normal(n)).astype(np.float32)

    # Embeddings of norm about 2 give logits spread by a few units, so greedy choices are clear.
    writer.add_tensor("token_embd.weight", (rng.standard_normal((vocab, d)) * 0.12).astype(np.float32))
    for i in range(shape["layers"]):
        for name, tensor in [
            ("attn_norm.weight", vector(d, 1.0, 0.1)),
            ("attn_q.weight", matrix(d, d)), ("attn_q.bias", vector(d, 0.0, 0.1)),
            ("attn_k.weight", matrix(kv, d)), ("attn_k.bias", vector(kv, 0.0, 0.1)),
            ("attn_v.weight", matrix(kv, d)), ("attn_v.bias", vector(kv, 0.0, 0.1)),
            ("attn_output.weight", matrix(d, d)),
            ("ffn_norm.weight", vector(d, 1.0, 0.1)),
            ("ffn_gate.weight", matrix(ff, d)), ("ffn_up.weight", matrix(ff, d)), ("ffn_down.weight", matrix(d, ff)),
        ]:
            writer.add_tensor(f"blk.{i}.{name}", tensor)
    writer.add_tensor("output_norm.weight", vector(d, 1.0, 0.1))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def quantise(source, target, ftype):
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = 2
    if llama_cpp.llama_model_quantize(str(source).encode(), str(target).encode(), params) != 0:
        raise SystemExit(f"llama.cpp could not quantise {source} to {target}")


def chats():
    recorded = [json.loads(line)["messages"] for line in (HERE / "prompts.jsonl").read_text().splitlines()]
    return [
        recorded[0],
        recorded[1],
        [{"role": "user", "content": "Reverse the string s."}, {"role": "assistant", "content": "```python\ndef"}],
        [{"role": "user", "content": "Add 12345 and 678, naïvely — Ünïcödé 日本 ✓\n\n\tdone"}],
    ]


def render(template, messages, bos, eos):
    """llama-cpp-python's Jinja2ChatFormatter, with the page's prefill: a last assistant message is
    continued (formatted without it, with the generation prompt, then its text)."""
    environment = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    prefill = ""
    if messages[-1]["role"] == "assistant":
        *messages, last = messages
        prefill = last["content"]
    text = environment.from_string(template).render(
        messages=messages, add_generation_prompt=True, bos_token=bos, eos_token=eos, raise_exception=raise_exception
    )
    return text + prefill


def record(path):
    llm = llama_cpp.Llama(
        model_path=str(path), n_ctx=2048, n_batch=512, n_threads=2, verbose=False, logits_all=True,
        type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32, flash_attn=False,
    )
    template = llm.metadata["tokenizer.chat_template"]
    vocab = llm._model.vocab
    piece = lambda token: llm._model.token_get_text(token)
    bos, eos = piece(llm.token_bos()), piece(llm.token_eos())
    cases = []
    for messages in chats():
        prompt = render(template, messages, bos, eos)
        tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
        llm.reset()
        llm.eval(tokens)
        logits = np.array(llm.scores[llm.n_tokens - 1], dtype=np.float32)
        greedy = []
        for _ in range(GREEDY_TOKENS):
            token = int(np.argmax(llm.scores[llm.n_tokens - 1]))
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                break
            greedy.append(token)
            llm.eval([token])
        cases.append(dict(messages=messages, prompt=prompt, tokens=tokens, logits=[float(x) for x in logits], greedy=greedy))
    return dict(file=path.name, cases=cases)


def main(argv):
    out = FIXTURES / "llama-cpp-reference.json"
    if argv[:1] == ["--add"]:
        # Records further files (the small code model, models/rlcg-coder.gguf) into the reference
        # as it stands, leaving the others' numbers as they were recorded.
        reference = json.loads(out.read_text())
        added = [record(pathlib.Path(path).resolve()) for path in argv[1:]]
        names = {entry["file"] for entry in added}
        reference["files"] = [f for f in reference["files"] if f["file"] not in names] + added
        out.write_text(json.dumps(reference, ensure_ascii=False) + "\n")
        print(f"added {', '.join(sorted(names))} to {out} ({out.stat().st_size} bytes)")
        return
    qwen2_f32 = pathlib.Path("/tmp/qwen2-tiny-f32.gguf")
    write_qwen2(qwen2_f32)
    for name, ftype in FTYPES.items():
        quantise(qwen2_f32, FIXTURES / f"qwen2-tiny-{name}.gguf", ftype)
    quantise(FIXTURES / "tiny-coder.gguf", FIXTURES / "tiny-coder-q8_0.gguf", FTYPES["q8_0"])
    files = [FIXTURES / "tiny-coder.gguf", FIXTURES / "tiny-coder-q8_0.gguf"]
    files += [FIXTURES / f"qwen2-tiny-{name}.gguf" for name in FTYPES]
    # The engine's own file (README.md here: `rlcg lm tune`, LoRA merged, F16), when it has been made.
    if (FIXTURES / "tiny-coder-tuned.gguf").exists():
        files.append(FIXTURES / "tiny-coder-tuned.gguf")
    # The small code model StepCoder trains (scripts/code-model/make.py), when it has been made.
    if (ROOT / "models/rlcg-coder.gguf").exists():
        files.append(ROOT / "models/rlcg-coder.gguf")
    reference = dict(
        llama_cpp_python=llama_cpp.__version__,
        note="llama.cpp's logits with an F32 KV cache and no flash attention (scripts/tiny-model/reference.py)",
        files=[record(path) for path in files],
    )
    out.write_text(json.dumps(reference, ensure_ascii=False) + "\n")
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
