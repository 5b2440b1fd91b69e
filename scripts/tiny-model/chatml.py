"""What the playground's own models share, as llama.cpp reads them: ChatML's special tokens and
template, a byte-level BPE tokenizer trained with HF `tokenizers` and written as GGUF metadata,
RMSNorm and the padded batches of replies to learn. Used by make.py here and by
../code-model/make.py."""

import json

import gguf
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

IM_START, IM_END, END_OF_TEXT = "<|im_start|>", "<|im_end|>", "<|endoftext|>"
# Qwen2.5's ChatML template, which llama.cpp recognises: the page's messages are formatted by it.
CHAT_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
    " + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def train_tokenizer(texts, vocab, pre_tokenizer):
    """Byte-level BPE with ChatML's special tokens, split first by `pre_tokenizer` (which must end
    in GPT-2's byte mapping, as llama.cpp's "gpt2" vocabulary has it)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=[END_OF_TEXT, IM_START, IM_END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def add_tokenizer(writer, tokenizer, size, pre):
    """The tokenizer as GGUF metadata, padded to `size` tokens, with llama.cpp's pre-tokenizer name
    `pre`, ChatML's end tokens and template."""
    vocab = tokenizer.get_vocab()
    tokens = [token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]
    tokens += [f"[PAD{i}]" for i in range(len(tokens), size)]
    special = {END_OF_TEXT, IM_START, IM_END}
    types = [gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t in tokens]
    types = [gguf.TokenType.UNUSED if t.startswith("[PAD") else kind for t, kind in zip(tokens, types)]
    merges = [" ".join(pair) for pair in json.loads(tokenizer.to_str())["model"]["merges"]]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(vocab[END_OF_TEXT])
    writer.add_eos_token_id(vocab[IM_END])
    writer.add_eot_token_id(vocab[IM_END])
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)


def padded_batch(rows):
    """Token ids and targets of `rows` (each a chat's tokens and where its reply starts), padded to
    the longest; a target is -100 (no loss) outside the replies, so only replies are learned."""
    width = max(len(ids) for ids, _ in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    targets = torch.full((len(rows), width), -100, dtype=torch.long)
    for i, (row, start) in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
        targets[i, start - 1 : len(row) - 1] = torch.tensor(row[start:])
    return ids, targets


def finish(writer):
    """Writes the header, the metadata and the tensors `writer` holds, and closes the file."""
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


class RmsNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
