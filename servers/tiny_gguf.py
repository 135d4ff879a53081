"""Writes a tiny random-weight llama model as GGUF, for llama.cpp's server.

Usage: python tiny_gguf.py OUT.gguf [--seed N]

The model is a llama architecture of 2 layers and 64 dimensions (4 heads of
16, a feed-forward of 128, a 1024-token context) over a SentencePiece-style
('llama') vocabulary of 482 tokens: <unk>, <s>, </s>, the 256 byte
tokens <0x00>..<0xFF> (so any text tokenizes), and ASCII letters, digits,
punctuation and a few words, each also with the SentencePiece word marker.
Its chat template (tokenizer.chat_template) writes each message as
`<|role|>\ncontent\n` and ends with `<|assistant|>\n`. The weights are
float32 draws from a seeded normal distribution, so a file is the same for
the same seed and its answers are gibberish, the same for the same request
under greedy sampling. It needs the `gguf` package (servers/README.md).
"""

from __future__ import annotations

import argparse
import string
import sys
from pathlib import Path

import numpy as np
import gguf

N_EMBD = 64
N_LAYER = 2
N_HEAD = 4
N_FF = 128
N_CTX = 1024

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>\n{{ message['content'] }}\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)

WORDS = [
    "the", "a", "an", "and", "of", "to", "in", "is", "it", "that", "for",
    "on", "with", "as", "was", "at", "by", "be", "this", "from", "or",
    "hello", "world", "stream", "event", "data", "server", "token", "model",
    "chunk", "answer", "tiny", "random", "weights", "llama",
]


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    """The tokens, their scores and their types (gguf.TokenType values)."""
    tokens = ["<unk>", "<s>", "</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for b in range(256):
        tokens.append(f"<0x{b:02X}>")
        types.append(gguf.TokenType.BYTE)
    pieces: list[str] = []
    for ch in string.ascii_letters + string.digits + string.punctuation:
        pieces += [ch, "\u2581" + ch]
    pieces.append("\u2581")
    pieces += ["\u2581" + w for w in WORDS]
    # Each token once: llama.cpp refuses a vocabulary with duplicates.
    pieces = list(dict.fromkeys(pieces))
    for p in pieces:
        tokens.append(p)
        types.append(gguf.TokenType.NORMAL)
    # SentencePiece merges toward higher scores: longer pieces win.
    scores = [0.0] * 259 + [float(len(p)) for p in pieces]
    return tokens, scores, [int(t) for t in types]


def write(out: Path, seed: int) -> None:
    """Writes the model to `out` (through a temporary file, then a rename)."""
    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        # (rows, columns) = (outputs, inputs); GGUF stores the reverse.
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    tmp = out.with_name(out.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), "llama")
    writer.add_name("sselint tiny random llama")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(n_vocab)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHAT_TEMPLATE)

    writer.add_tensor("token_embd.weight", w(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(N_EMBD, np.float32))
        writer.add_tensor(f"blk.{i}.attn_q.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_k.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_v.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.attn_output.weight", w(N_EMBD, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(N_EMBD, np.float32))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", w(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", w(N_FF, N_EMBD))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", w(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, np.float32))
    writer.add_tensor("output.weight", w(n_vocab, N_EMBD))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the GGUF file to write")
    ap.add_argument("--seed", type=int, default=15, help="the weights' seed")
    args = ap.parse_args(argv)
    write(args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
