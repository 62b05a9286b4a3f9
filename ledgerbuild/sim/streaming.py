"""Streaming text out of tokens (lecture §8.4-8.5): three detokenizers and stop strings.

- token by token: decode each id alone; a split character comes out as U+FFFD.
- full re-decode: decode all ids every step and send the new suffix; correct at the end, but
  U+FFFD already sent cannot be taken back, and the work grows with the square of the length.
- `IncrementalDetokenizer` (vLLM / HF TGI): prefix_offset marks tokens already settled,
  read_offset the text already sent; each step decodes only the tokens after prefix_offset
  and sends the new text unless it ends in U+FFFD (a character still incomplete). Never sends
  a split character; constant work per step. `flush()` sends what is left at the end (an
  incomplete final character becomes U+FFFD there, and only there).
Stop strings: `StopStringFilter` holds back any buffer suffix that could start a stop string
and cuts at the stop; `NaiveChunkSearch` and `BufferSearchNoHoldback` show the two leaks.
"""

from __future__ import annotations

from collections.abc import Callable

REPLACEMENT = "\ufffd"


def token_by_token(decode: Callable, ids) -> list[str]:
    return [decode([i]) for i in ids]


def full_redecode(decode: Callable, ids) -> tuple[list[str], int]:
    """(chunks sent, tokens decoded in all)."""
    sent, chunks, work = "", [], 0
    for n in range(1, len(ids) + 1):
        text = decode(ids[:n])
        work += n
        chunks.append(text[len(sent) :])  # what was sent stays sent, U+FFFD included
        sent = text
    return chunks, work


class IncrementalDetokenizer:
    def __init__(self, decode: Callable):
        self.decode = decode
        self.tokens: list[int] = []
        self.prefix_offset = 0
        self.read_offset = 0
        self.decoded_tokens = 0  # work done: token ids passed to decode

    def _decode(self, ids) -> str:
        self.decoded_tokens += len(ids)
        return self.decode(ids)

    def step(self, token_id: int) -> str:
        self.tokens.append(token_id)
        prefix = self._decode(self.tokens[self.prefix_offset : self.read_offset])
        text = self._decode(self.tokens[self.prefix_offset :])
        if len(text) > len(prefix) and not text.endswith(REPLACEMENT):
            self.prefix_offset, self.read_offset = self.read_offset, len(self.tokens)
            return text[len(prefix) :]
        return ""

    def flush(self) -> str:
        prefix = self._decode(self.tokens[self.prefix_offset : self.read_offset])
        text = self._decode(self.tokens[self.prefix_offset :])
        self.prefix_offset = self.read_offset = len(self.tokens)
        return text[len(prefix) :]


class StopStringFilter:
    """Send text as it streams, never a stop string nor any part of one."""

    def __init__(self, stops):
        self.stops = [s for s in stops if s]
        if not self.stops:
            raise ValueError("no stop strings given")
        self.buffer = ""
        self.stopped = False

    def _held(self) -> int:
        """Length of the longest buffer suffix that is a proper prefix of a stop string."""
        best = 0
        for stop in self.stops:
            for n in range(min(len(stop) - 1, len(self.buffer)), 0, -1):
                if self.buffer.endswith(stop[:n]):
                    best = max(best, n)
                    break
        return best

    def push(self, text: str) -> str:
        if self.stopped:
            return ""
        self.buffer += text
        hits = [i for i in (self.buffer.find(s) for s in self.stops) if i >= 0]
        if hits:
            self.stopped = True
            out, self.buffer = self.buffer[: min(hits)], ""
            return out
        keep = self._held()
        out = self.buffer[: len(self.buffer) - keep]
        self.buffer = self.buffer[len(self.buffer) - keep :]
        return out

    def finish(self) -> str:
        out, self.buffer = ("" if self.stopped else self.buffer), ""
        return out


class NaiveChunkSearch:
    """Looks for the stop string inside each chunk only: misses one split across chunks."""

    def __init__(self, stops):
        self.stops, self.stopped = list(stops), False

    def push(self, text: str) -> str:
        if self.stopped:
            return ""
        hits = [i for i in (text.find(s) for s in self.stops) if i >= 0]
        if hits:
            self.stopped = True
            return text[: min(hits)]
        return text

    def finish(self) -> str:
        return ""


class BufferSearchNoHoldback:
    """Searches everything received, but sends each chunk at once: leaks a stop's beginning."""

    def __init__(self, stops):
        self.stops, self.seen, self.sent, self.stopped = list(stops), "", 0, False

    def push(self, text: str) -> str:
        if self.stopped:
            return ""
        self.seen += text
        hits = [i for i in (self.seen.find(s) for s in self.stops) if i >= 0]
        end = min(hits) if hits else len(self.seen)
        self.stopped = bool(hits)
        out = self.seen[self.sent : max(self.sent, end)]
        self.sent = max(self.sent, end)
        return out

    def finish(self) -> str:
        return ""


def run_filter(flt, chunks) -> str:
    return "".join(flt.push(c) for c in chunks) + flt.finish()
