"""Byte-level BPE in the GPT-2 style (lecture §8.2; Sennrich et al. 2016; GPT-2).

256 byte tokens; pre-tokenization with the GPT-2 regex (the `regex` package: `re` has no
\\p{L}); training merges the most frequent adjacent pair, again and again, with pair counts
updated incrementally: only the words that contain the merged pair are rewritten, and a max-heap
with lazy invalidation finds the next pair. Ties: "first" takes the pair seen first; "hf" takes
the smallest pair in HF `tokenizers`' own id order (bytes ranked by their ByteLevel character,
then merges in creation order), so the merges equal HF's BpeTrainer. Encoding applies merges by
rank inside each pre-token; the text is first cut into chunks no pre-token crosses (a word with
the whitespace before it, found by the stdlib `re`), and each distinct chunk and piece is
pre-tokenized and merged once (the ids equal tiktoken's on the same merges). Shortcut: no
special tokens.
"""

from __future__ import annotations

import heapq
import json
import re
from collections import Counter, defaultdict
from itertools import chain, repeat
from pathlib import Path

import regex

from ..errors import LedgerError
from ..files import read_input, write_text

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
_SPLIT = regex.compile(GPT2_PATTERN)
_NO_MERGE = 1 << 62  # the rank of a pair that is no merge
# Chunks of text the pre-tokenizer never matches across: a piece starts at every whitespace
# character that follows one that is not whitespace (only " ?X+" matches whitespace with more,
# its one space in front; there is no lookbehind), and the lookahead of a piece inside a chunk
# reads only the chunk. A chunk: whitespace, then other characters, up to the next space, tab,
# CR, LF, VT or FF. Stdlib `re`, whose \S (not str.isspace) is never `regex`'s \s; its \s holds
# U+001C-U+001F besides, and they (and other Unicode spaces) only lengthen a chunk.
_CHUNK = re.compile(r"\s*\S*(?:[^\S \t\n\r\f\v]\s*\S*)*")
_CACHE_LIMIT = 1 << 18  # chunks held before the caches are emptied


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in character for each byte (HF ByteLevel uses the same map)."""
    visible = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, extra = list(visible), 0
    for b in range(256):
        if b not in visible:
            visible.append(b)
            chars.append(256 + extra)
            extra += 1
    return dict(zip(visible, map(chr, chars), strict=False))


_HF_BYTE_RANK = {
    b: r for r, (b, _) in enumerate(sorted(bytes_to_unicode().items(), key=lambda kv: ord(kv[1])))
}


class Tokenizer:
    def __init__(self, merges: list[tuple[bytes, bytes]]):
        self.merges = list(merges)
        self.vocab = [bytes([b]) for b in range(256)] + [a + b for a, b in self.merges]
        self._id = {t: i for i, t in enumerate(self.vocab)}
        self._rank = {(self._id[a], self._id[b]): 256 + i for i, (a, b) in enumerate(self.merges)}
        self._pieces: dict[str, list[int]] = {}  # pre-tokenised piece -> its ids
        self._chunks: dict[str, list[int]] = {}  # chunk of text -> its ids

    def _encode_piece(self, ids: list[int]) -> list[int]:
        """Merge the adjacent pair of lowest rank (the leftmost of equals), again and again. The
        ranks of the pairs are looked up once, then only the two beside each merge again."""
        get, none = self._rank.get, _NO_MERGE
        ranks = list(map(get, zip(ids, ids[1:], strict=False), repeat(none)))
        while ranks:
            rank = min(ranks)
            if rank == none:
                break
            i = ranks.index(rank)
            ids[i : i + 2] = (rank,)
            del ranks[i]
            if i < len(ranks):
                ranks[i] = get((rank, ids[i + 1]), none)
            if i:
                ranks[i - 1] = get((ids[i - 1], rank), none)
        return ids

    def encode(self, text: str) -> list[int]:
        """The ids of each chunk of the text (see _CHUNK), each distinct chunk pre-tokenised and
        merged once, each distinct piece merged once: text repeats its words."""
        chunks = _CHUNK.findall(text)
        known = self._chunks
        new = set(chunks).difference(known)
        if len(known) + len(new) > _CACHE_LIMIT:  # bounded: a long text of new words
            known.clear()
            self._pieces.clear()
            new = set(chunks)
        for chunk in new:
            known[chunk] = self._encode_chunk(chunk)
        return list(chain.from_iterable(map(known.__getitem__, chunks)))

    def _encode_chunk(self, chunk: str) -> list[int]:
        seen, out = self._pieces, []
        for piece in _SPLIT.findall(chunk):
            ids = seen.get(piece)
            if ids is None:
                ids = seen[piece] = self._encode_piece(list(piece.encode("utf-8")))
            out += ids
        return out

    def token_bytes(self, token: int) -> bytes:
        return self.vocab[token]

    def decode(self, ids) -> str:
        return b"".join(self.vocab[i] for i in ids).decode("utf-8", errors="replace")

    def save(self, path) -> None:
        write_text(Path(path), json.dumps({"merges": [[a.hex(), b.hex()] for a, b in self.merges]}))

    @classmethod
    def load(cls, path) -> Tokenizer:
        try:
            data = json.loads(read_input(Path(path)))
            return cls([(bytes.fromhex(a), bytes.fromhex(b)) for a, b in data["merges"]])
        except (ValueError, KeyError, TypeError, RecursionError) as e:
            raise LedgerError(
                f"{path}: not a tokenizer written by `bpe train` ({type(e).__name__})"
            ) from None


def _pairs(word):
    return zip(word, word[1:], strict=False)


def _merge_word(word: tuple, pair: tuple, new: int) -> tuple:
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


class _PairIndex:
    """Pair counts over the corpus's unique words, updated word by word as merges happen."""

    def __init__(self, text: str):
        counts = Counter(_SPLIT.findall(text))
        self.words = [tuple(w.encode("utf-8")) for w in counts]
        self.freq = list(counts.values())
        self.count: Counter = Counter()
        self.where: dict[tuple, set] = defaultdict(set)
        self.first_seen: dict[tuple, int] = {}
        for w in range(len(self.words)):
            self._add(w)

    def _add(self, w: int) -> set:
        pairs = set(_pairs(self.words[w]))
        for p in _pairs(self.words[w]):
            self.count[p] += self.freq[w]
            self.where[p].add(w)
            self.first_seen.setdefault(p, len(self.first_seen))
        return pairs

    def merge(self, pair: tuple, new: int) -> set:
        """Rewrite the words holding `pair`; return the pairs whose counts changed."""
        changed = set()
        for w in list(self.where.pop(pair, ())):
            for p in _pairs(self.words[w]):
                self.count[p] -= self.freq[w]
                changed.add(p)
            self.words[w] = _merge_word(self.words[w], pair, new)
            changed |= self._add(w)
        for p in changed:
            if self.count[p] <= 0:
                self.count.pop(p, None)
        return changed


def train(text: str, vocab_size: int, *, tie_break: str = "first") -> Tokenizer:
    """Learn vocab_size - 256 merges from `text` (fewer if the pairs run out)."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be >= 256 (the byte alphabet), got {vocab_size}")
    if not text:
        raise ValueError("the corpus is empty")
    if tie_break not in ("first", "hf"):
        raise ValueError(f"tie_break must be 'first' or 'hf', got {tie_break!r}")
    index = _PairIndex(text)
    hf_rank = dict(_HF_BYTE_RANK)  # token id -> HF's id, for tie_break="hf"

    def key(p):
        tie = (hf_rank[p[0]], hf_rank[p[1]]) if tie_break == "hf" else index.first_seen[p]
        return (-index.count[p], tie, p)

    heap = [key(p) for p in index.count]
    heapq.heapify(heap)
    vocab = [bytes([b]) for b in range(256)]
    merges = []
    while len(vocab) < vocab_size and heap:
        neg, _, pair = heapq.heappop(heap)
        if -neg != index.count.get(pair, 0):  # stale entry: its count changed since pushed
            if index.count.get(pair, 0) > 0:
                heapq.heappush(heap, key(pair))
            continue
        new = len(vocab)
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append((vocab[pair[0]], vocab[pair[1]]))
        hf_rank[new] = new
        for p in index.merge(pair, new):
            if p in index.count:
                heapq.heappush(heap, key(p))
    return Tokenizer(merges)
