"""The lecture's §8 tokenization and streaming demos as tables (lists of dicts).

Corpus: `data/corpus.txt`, original text written for this project (English, Chinese, code,
numbers in `@@ name` sections, ~4,300 characters; the lecture used ~1,600).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from .bpe import Tokenizer, train
from .streaming import (
    REPLACEMENT,
    BufferSearchNoHoldback,
    IncrementalDetokenizer,
    NaiveChunkSearch,
    StopStringFilter,
    full_redecode,
    run_filter,
    token_by_token,
)

HALF_CHARS = "流式输出时，半个汉字会变成乱码。"  # §8.3: 16 characters, 48 bytes
STREAM_TEXT = "答案：缓存命中率 93% 🚀，延迟下降了。"  # §8.4
STOP_CHUNKS = ["答案是 42。\n\nUs", "er: 下一个问题"]  # §8.5
MERGE_STEPS = (0, 50, 100, 200, 400, 800)


def corpus() -> str:
    return resources.files("ledgerbuild.sim").joinpath("data/corpus.txt").read_text("utf-8")


def sections(text: str) -> dict[str, str]:
    out, name = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith("@@ "):
            name = line[3:].strip()
            out[name] = ""
        elif name:
            out[name] += line
    return out


@cache
def shipped_tokenizer(merges: int = max(MERGE_STEPS)) -> Tokenizer:
    return train(corpus(), 256 + merges, tie_break="hf")


def stats(steps=MERGE_STEPS) -> list[dict]:
    """§8.2: tokens per character by script as merges grow (a prefix of one training run)."""
    full = shipped_tokenizer(max(steps))
    rows = []
    for m in steps:
        tok = Tokenizer(full.merges[:m])
        row = {"merges": m}
        for name, text in sections(corpus()).items():
            row[name] = round(len(tok.encode(text)) / len(text), 3)
        rows.append(row)
    return rows


def half_characters() -> list[dict]:
    """§8.3: tokens of the sentence that are not whole characters."""
    tok = shipped_tokenizer()
    ids = tok.encode(HALF_CHARS)
    partial = sum(REPLACEMENT in tok.decode([i]) for i in ids)
    return [
        {
            "text": HALF_CHARS,
            "characters": len(HALF_CHARS),
            "bytes": len(HALF_CHARS.encode("utf-8")),
            "tokens": len(ids),
            "tokens_not_whole_characters": partial,
        }
    ]


def detokenizers(text: str = STREAM_TEXT) -> list[dict]:
    """§8.4: token-by-token vs full re-decode vs incremental, on the streaming sentence."""
    tok = shipped_tokenizer()
    ids = tok.encode(text)
    tbt = token_by_token(tok.decode, ids)
    full, work = full_redecode(tok.decode, ids)
    inc = IncrementalDetokenizer(tok.decode)
    steps = [inc.step(i) for i in ids]
    tail = inc.flush()

    def broken(chunks):
        return sum(REPLACEMENT in c for c in chunks)

    return [
        {
            "method": "token by token",
            "tokens": len(ids),
            "chunks_with_U+FFFD": broken(tbt),
            "text_received": "".join(tbt),
            "tokens_decoded": len(ids),
        },
        {
            "method": "full re-decode",
            "tokens": len(ids),
            "chunks_with_U+FFFD": broken(full),
            "text_received": "".join(full),
            "tokens_decoded": work,
        },
        {
            "method": "incremental",
            "tokens": len(ids),
            "chunks_with_U+FFFD": broken(steps),
            "text_received": "".join(steps) + tail,
            "tokens_decoded": inc.decoded_tokens,
        },
    ]


def decode_work(n_tokens: int = 1000) -> list[dict]:
    """Exercise 6: tokens decoded for an answer of n tokens, full re-decode vs incremental."""
    tok = shipped_tokenizer()
    ids = (tok.encode(corpus()) * (n_tokens // 100 + 1))[:n_tokens]
    _, work = full_redecode(tok.decode, ids)
    inc = IncrementalDetokenizer(tok.decode)
    for i in ids:
        inc.step(i)
    inc.flush()
    return [
        {"answer_tokens": n_tokens, "full_redecode_tokens": work, "incremental_tokens": inc.decoded_tokens}
    ]


def stop_strings(chunks=STOP_CHUNKS, stop="\n\nUser:") -> list[dict]:
    """§8.5: the stop string split across two chunks."""
    clean = "".join(chunks).split(stop)[0]  # what a user should see
    rows = []
    for cls, what in (
        (NaiveChunkSearch, "search each chunk"),
        (BufferSearchNoHoldback, "search the buffer, no hold-back"),
        (StopStringFilter, "hold back possible prefixes"),
    ):
        sent = run_filter(cls([stop]), chunks)
        rows.append({"method": what, "sent": sent, "leaked": sent[len(clean) :], "stopped": stop not in sent})
    return rows


DEMOS = {
    "stats": stats,
    "half-characters": half_characters,
    "detokenizers": detokenizers,
    "decode-work": decode_work,
    "stop-strings": stop_strings,
}
