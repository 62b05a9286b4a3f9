"""Tokenization and streaming (lecture §8): golden examples, HF `tokenizers` as the referee for
BPE training and for streaming detokenization on real GPT-2 ids, round trips, CLI."""

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers, trainers
from tokenizers.decoders import DecodeStream
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.sim.bpe import bytes_to_unicode, train
from ledgerbuild.sim.real_tokenizers import GPT2_PATTERN, gpt2_tiktoken_path, load
from ledgerbuild.sim.streaming import REPLACEMENT, IncrementalDetokenizer
from ledgerbuild.sim.token_demos import (
    HALF_CHARS,
    STREAM_TEXT,
    corpus,
    decode_work,
    detokenizers,
    stop_strings,
)

runner = CliRunner()
_CHAR_TO_BYTE = {c: b for b, c in bytes_to_unicode().items()}


def hf_merges(text: str, vocab_size: int) -> list[tuple[bytes, bytes]]:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(
        [text],
        trainers.BpeTrainer(
            vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        ),
    )
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [tuple(bytes(_CHAR_TO_BYTE[c] for c in part) for part in m) for m in merges]


def test_8_3_half_character_sentence():
    assert len(HALF_CHARS) == 16 and len(HALF_CHARS.encode("utf-8")) == 48


def test_8_4_streaming_sentence():
    by_token, full, incremental = detokenizers()
    assert by_token["chunks_with_U+FFFD"] > 0 and REPLACEMENT in by_token["text_received"]
    assert REPLACEMENT in full["text_received"]  # what was sent cannot be taken back
    assert incremental["chunks_with_U+FFFD"] == 0 and incremental["text_received"] == STREAM_TEXT


def test_8_5_split_stop_string():
    naive, buffered, held = stop_strings()
    assert "\n\nUser:" in naive["sent"]  # naive search misses the split stop string
    assert buffered["leaked"] == "\n\nUs"  # buffer search leaks the stop's beginning
    assert held["leaked"] == "" and held["sent"] == "答案是 42。"


def test_exercise_6_decode_work():
    row = decode_work(1000)[0]
    assert row["full_redecode_tokens"] == 500_500
    assert row["incremental_tokens"] < 5_000  # "a few thousand"


def test_merges_equal_hf_on_the_shipped_corpus():
    ours = train(corpus(), 256 + 1000, tie_break="hf").merges
    assert ours == hf_merges(corpus(), 256 + 1000)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet=st.sampled_from("ab c的字🚀\n12!'s"), min_size=1, max_size=300), st.integers(256, 330)
)
def test_merges_equal_hf_on_generated_corpora(text, vocab_size):
    assert train(text, vocab_size, tie_break="hf").merges == hf_merges(text, vocab_size)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_round_trip(text):
    tok = train(corpus(), 256 + 200)
    assert tok.decode(tok.encode(text)) == text


@pytest.fixture(scope="module")
def gpt2():
    from transformers.convert_slow_tokenizer import TikTokenConverter

    hf = TikTokenConverter(
        vocab_file=gpt2_tiktoken_path(), pattern=GPT2_PATTERN, extra_special_tokens={}
    ).converted()
    return load("gpt2"), hf


@pytest.mark.oracle
@pytest.mark.parametrize(
    "text",
    [
        STREAM_TEXT,
        HALF_CHARS + " and some English 🚀🚀 表情 ✨",
        "ä¸­æ–‡ mixed 中文 with emoji 👩‍💻 at the end 🚀",
    ],
)
def test_incremental_equals_decode_stream_on_gpt2(gpt2, text):
    """Step by step, the incremental detokenizer emits what HF DecodeStream emits. Difference
    by design: flush() at the end emits leftover bytes of an incomplete character as U+FFFD;
    DecodeStream keeps them (no text ends mid-character here, so flush emits nothing)."""
    ours_tok, hf = gpt2
    ids = ours_tok.encode(text)
    assert ids == hf.encode(text, add_special_tokens=False).ids
    stream, inc = DecodeStream(skip_special_tokens=False), IncrementalDetokenizer(ours_tok.decode)
    for i in ids:
        assert inc.step(i) == (stream.step(hf, i) or "")
    assert inc.flush() == ""


def test_cli_bpe_and_stream(tmp_path):
    corpus_file = tmp_path / "c.txt"
    corpus_file.write_text(corpus(), encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "bpe",
            "train",
            str(corpus_file),
            "--vocab-size",
            "400",
            "--tie-break",
            "hf",
            "-o",
            str(tmp_path / "t.json"),
        ],
    )
    assert result.exit_code == 0 and "144 merges" in result.output
    rows = json.loads(
        runner.invoke(
            app, ["bpe", "encode", HALF_CHARS, "--tokenizer", str(tmp_path / "t.json"), "--json"]
        ).output
    )
    assert b"".join(bytes.fromhex(r["bytes"]) for r in rows) == HALF_CHARS.encode("utf-8")
    assert runner.invoke(app, ["bpe", "stats"]).exit_code == 0
    out = runner.invoke(app, ["stream", "demo", "--json"]).output
    assert "500500" in out.replace(",", "").replace(" ", "")
    result = runner.invoke(app, ["bpe", "report", "-o", str(tmp_path / "r.md")])
    assert result.exit_code == 0 and (tmp_path / "r.png").exists()


def test_cli_tokens_compares_real_tokenizers(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text(corpus(), encoding="utf-8")
    result = runner.invoke(app, ["tokens", str(text), "--usd-per-million", "2", "--json"])
    assert result.exit_code == 0, result.output
    rows = {r["tokenizer"]: r for r in json.loads(result.output)}
    assert set(rows) == {"gpt2", "cl100k", "o200k", "llama3", "qwen3", "tekken"}
    assert rows["gpt2"]["tokens"] > rows["o200k"]["tokens"]  # GPT-2 splits Chinese finely
    for r in rows.values():
        assert r["usd_at_price"] == pytest.approx(r["tokens"] * 2 / 1e6)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["bpe", "train", "MISSING.txt"], "cannot read"),
        (["tokens", "README.md", "--tokenizers", "gpt5"], "unknown tokenizer"),
    ],
)
def test_cli_bad_input(args, fragment):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and fragment in result.output


def test_cli_bad_corpus_files(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff\xfe")
    assert "invalid UTF-8 at byte 3" in runner.invoke(app, ["bpe", "train", str(bad)]).output
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = runner.invoke(app, ["bpe", "train", str(empty)])
    assert result.exit_code == 2 and "empty" in result.output
    small = runner.invoke(app, ["bpe", "train", "README.md", "--vocab-size", "100"])
    assert small.exit_code == 2 and "vocab_size must be >= 256" in small.output


def test_missing_optional_package_names_what_to_install(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "quicktok" else real(name, *a)
    )
    result = runner.invoke(app, ["tokens", "README.md", "--tokenizers", "llama3"])
    assert result.exit_code == 2 and "pip install quicktok-v1" in result.output


def test_encode_reuses_pieces_without_changing_ids():
    """Issue 16: encode caches each pre-tokenised piece; the ids equal merging every piece
    afresh, on a first and a second pass over the same text."""
    from ledgerbuild.sim.bpe import _SPLIT, Tokenizer, train
    from ledgerbuild.sim.token_demos import corpus

    text = corpus()[:20_000]
    tok = train(text, 256 + 200)
    fresh = Tokenizer(tok.merges)
    want = [i for p in _SPLIT.findall(text) for i in fresh._encode_piece(list(p.encode("utf-8")))]
    assert tok.encode(text) == want and tok.encode(text) == want
    assert len(tok._pieces) < len(_SPLIT.findall(text)) / 2  # the repeats were reused


@pytest.fixture(scope="module")
def trained_and_tiktoken():
    """Our tokenizer trained on the shipped corpus, and tiktoken's Encoding built from the same
    merges (mergeable_ranks: each token's bytes -> its id) and the same pre-tokenizer regex."""
    import tiktoken

    from ledgerbuild.sim.bpe import GPT2_PATTERN as OURS

    tok = train(corpus(), 256 + 1000, tie_break="hf")
    ranks = {t: i for i, t in enumerate(tok.vocab)}
    assert len(ranks) == len(tok.vocab)  # no two merges make the same bytes
    return tok, tiktoken.Encoding("same-merges", pat_str=OURS, mergeable_ranks=ranks, special_tokens={})


HOSTILE = "ab 's'llt\t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2003\u3000中字🚀1,.!"  # spaces regex and re disagree on


def test_ids_equal_tiktoken_on_the_same_merges(trained_and_tiktoken):
    """Issue 32: the ids of the 1 MB benchmark text's corpus, line-numbered, equal tiktoken's;
    a fresh tokenizer (cold caches) and a second pass (warm) alike."""
    tok, enc = trained_and_tiktoken
    text = "".join(f"{line} {i}\n" for i, line in enumerate((corpus() * 3).splitlines()))
    text += "  x  \n\n\t y \r\n" + HOSTILE * 3 + "   "
    want = enc.encode_ordinary(text)
    assert tok.encode(text) == want and tok.encode(text) == want


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(HOSTILE + "    \n"), max_size=60))
@example("!\x1c, \x1f.")  # U+001C is whitespace to str.isspace, punctuation to the GPT-2 regex
def test_ids_equal_tiktoken_on_hostile_whitespace(trained_and_tiktoken, text):
    """Encode splits the text into chunks before pre-tokenizing (a piece starts at whitespace
    after non-whitespace): runs of every kind of space, contractions and Unicode spaces the two
    regex engines class differently give tiktoken's ids."""
    from ledgerbuild.sim.bpe import _CHUNK, _SPLIT

    tok, enc = trained_and_tiktoken
    assert tok.encode(text) == enc.encode_ordinary(text)
    # stricter than the ids (a split no merge crosses leaves them equal): the pre-tokens of the
    # chunks are those of the whole text
    assert [p for c in _CHUNK.findall(text) for p in _SPLIT.findall(c)] == _SPLIT.findall(text)


def test_encode_caches_are_bounded_and_ids_unchanged(monkeypatch, trained_and_tiktoken):
    """Past the bound the caches are emptied before a text's new chunks go in; ids stay
    tiktoken's."""
    from ledgerbuild.sim import bpe

    tok, enc = trained_and_tiktoken
    fresh = bpe.Tokenizer(tok.merges)
    monkeypatch.setattr(bpe, "_CACHE_LIMIT", 50)
    for part in (corpus()[:3000], corpus()[3000:6000], corpus()[:3000]):
        assert fresh.encode(part) == enc.encode_ordinary(part)
        assert len(fresh._chunks) <= max(50, len(set(bpe._CHUNK.findall(part))))
