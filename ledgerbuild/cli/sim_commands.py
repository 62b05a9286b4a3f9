"""CLI commands of the simulations: sample (lecture §7), bpe, stream and tokens (§8).

Registered on the main app (ledgerbuild.cli.common.app); same contract: parse, one library call,
user errors as one line with exit code 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ..errors import LedgerError
from ..files import read_input
from ..rules import decimal
from .common import app, guarded, id_list, out

sample_app = typer.Typer(no_args_is_help=True, help="The lecture's §7 sampling demos.")
app.add_typer(sample_app, name="sample", rich_help_panel="Simulations")


def _print_rows(name: str, rows: list[dict], as_json: bool) -> None:
    if as_json:
        import json

        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=name, title_justify="left")
    for col in rows[0]:
        table.add_column(col)
    for r in rows:
        table.add_row(*(escape(repr(v) if isinstance(v, str) and "\n" in v else str(v)) for v in r.values()))
    out.print(table)


def _demo_command(name: str):
    def command(json_: bool = typer.Option(False, "--json", help="Print JSON rows.")):
        from ..sim.demos import DEMOS

        _print_rows(name, DEMOS[name](), json_)

    command.__doc__ = f"The §7 {name} demo as a table.\n\nExample: `ledgerbuild sample {name} --json`"
    return guarded(command)


for _name in (
    "truncation",
    "order",
    "penalties",
    "rejection",
    "beam",
    "reproducibility",
    "attention",
    "speculative",
):
    sample_app.command(_name)(_demo_command(_name))


MAX_ROUND_VALUES, MAX_BLOCK = 100_000, 65_536  # numerics round: values, block elements (MX: 32)
MAX_ZIPF_EXPONENT = 100.0  # p ~ r^-100 leaves one token: steeper says nothing more
MAX_VOCAB = 10_000_000  # 40 MB of logits; real vocabularies are under 300,000


@sample_app.command("filter")
@guarded
def sample_filter(
    temperature: float = typer.Option(1.0, help="0 = greedy"),
    top_k: int = typer.Option(0, help="0 = off"),
    top_p: float = typer.Option(1.0, help="in (0, 1]"),
    min_p: float = typer.Option(0.0, help="in [0, 1]"),
    typical_p: float = typer.Option(1.0, help="in (0, 1]"),
    order: str = typer.Option("transformers", help="transformers | vllm"),
    vocab: int = typer.Option(32_000, help="Zipf vocabulary size"),
    exponent: float = typer.Option(1.5, help="p ~ rank^-exponent"),
    json_: bool = typer.Option(False, "--json", help="Print JSON."),
):
    """Your own parameters on the lecture's Zipf vocabulary: tokens kept, top probability.

    Example: `ledgerbuild sample filter --temperature 1.5 --top-p 0.9`
    """
    import numpy as np

    from ..sim.sampling import filter_probs, zipf_logits

    if not 1 <= vocab <= MAX_VOCAB:
        raise LedgerError(f"--vocab must be in 1..{MAX_VOCAB:,}, got {vocab:,}")
    if not 0 <= exponent <= MAX_ZIPF_EXPONENT:  # also refuses nan and inf
        raise LedgerError(f"--exponent must be in 0..{MAX_ZIPF_EXPONENT:g}, got {exponent!r}")
    try:
        p = filter_probs(
            zipf_logits(vocab, exponent),
            temperature=temperature,
            top_k=top_k,
            top_p=top_p,
            min_p=min_p,
            typical_p=typical_p,
            order=order,
        )
    except ValueError as e:
        raise LedgerError(str(e)) from None
    _print_rows(
        "filter",
        [
            {
                "kept_tokens": int((p > 0).sum()),
                "top_token_prob": float(p.max()),
                "kept_mass_of_top_100": float(np.sort(p)[::-1][:100].sum()),
            }
        ],
        json_,
    )


@sample_app.command("report")
@guarded
def sample_report(
    output: Path = typer.Option(
        Path("build/sampling.md"), "-o", "--output", help="Markdown file (a PNG plot is written beside it)"
    ),
):
    """Write every §7 demo as one Markdown report with a plot.

    Example: `ledgerbuild sample report -o build/sampling.md`
    """
    from ..sim.report import sampling_report

    out.print(sampling_report(output), highlight=False, markup=False)


bpe_app = typer.Typer(no_args_is_help=True, help="Byte-level BPE (lecture §8.2-8.3).")
stream_app = typer.Typer(
    no_args_is_help=True, help="Streaming detokenization and stop strings (lecture §8.4-8.5)."
)
app.add_typer(bpe_app, name="bpe", rich_help_panel="Simulations")
app.add_typer(stream_app, name="stream", rich_help_panel="Simulations")


@bpe_app.command("train")
@guarded
def bpe_train(
    corpus: Path = typer.Argument(..., help="A UTF-8 text file"),
    vocab_size: int = typer.Option(1256, help="256 bytes + merges"),
    tie_break: str = typer.Option("first", help="first | hf"),
    output: Path = typer.Option(Path("build/bpe.json"), "-o", "--output"),
):
    """Train a byte-level BPE tokenizer and save its merges.

    Example: `ledgerbuild bpe train corpus.txt --vocab-size 1256 -o build/bpe.json`
    """
    from ..sim.bpe import train

    text = read_input(corpus)
    try:
        tok = train(text, vocab_size, tie_break=tie_break)
    except ValueError as e:
        raise LedgerError(f"{corpus}: {e}") from None
    output.parent.mkdir(parents=True, exist_ok=True)
    tok.save(output)
    out.print(f"wrote {output}: {len(tok.merges)} merges", highlight=False, markup=False)


@bpe_app.command("encode")
@guarded
def bpe_encode(
    text: str = typer.Argument(..., help="Text to encode"),
    tokenizer: Path | None = typer.Option(
        None, help="Merges saved by `bpe train` [a tokenizer trained on the shipped corpus]"
    ),
    json_: bool = typer.Option(False, "--json"),
):
    """Encode text: ids, and each token's bytes (a token may be half a character).

    Example: `ledgerbuild bpe encode "流式输出时，半个汉字会变成乱码。"`
    """
    from ..sim.bpe import Tokenizer
    from ..sim.token_demos import shipped_tokenizer

    if tokenizer is not None and not tokenizer.is_file():
        raise LedgerError(f"{tokenizer}: no such file")
    tok = Tokenizer.load(tokenizer) if tokenizer else shipped_tokenizer()
    ids = tok.encode(text)
    rows = [{"id": i, "bytes": tok.token_bytes(i).hex(" "), "text": tok.decode([i])} for i in ids]
    _print_rows(f"{len(ids)} tokens, {len(text)} characters", rows, json_)


def _tables(demos: dict, names: list[str], json_: bool) -> None:
    """Several demos: tables, or exactly one JSON document {demo: rows}."""
    if json_:
        import json

        sys.stdout.write(json.dumps({name: demos[name]() for name in names}, indent=2) + "\n")
        return
    for name in names:
        _print_rows(name, demos[name](), json_)


@bpe_app.command("stats")
@guarded
def bpe_stats(json_: bool = typer.Option(False, "--json")):
    """Tokens per character by script vs merges, and the half-character sentence.

    Example: `ledgerbuild bpe stats --json`
    """
    from ..sim.token_demos import DEMOS

    _tables(DEMOS, ["stats", "half-characters"], json_)


@bpe_app.command("report")
@guarded
def bpe_report(output: Path = typer.Option(Path("build/tokenization.md"), "-o", "--output")):
    """Write every §8 demo as one Markdown report with a plot.

    Example: `ledgerbuild bpe report -o build/tokenization.md`
    """
    from ..sim.report import tokenization_report

    out.print(tokenization_report(output), highlight=False, markup=False)


@stream_app.command("demo")
@guarded
def stream_demo(json_: bool = typer.Option(False, "--json")):
    """The §8.4-8.5 demos: three detokenizers, decode work (exercise 6), split stop strings.

    Example: `ledgerbuild stream demo --json`
    """
    from ..sim.token_demos import DEMOS

    _tables(DEMOS, ["detokenizers", "decode-work", "stop-strings"], json_)


@app.command(rich_help_panel="Simulations")
@guarded
def tokens(
    file: Path = typer.Argument(..., help="A UTF-8 text file"),
    tokenizers: str = typer.Option(
        "gpt2,cl100k,o200k,llama3,qwen3,tekken",
        help="Comma-separated: gpt2, cl100k, o200k, llama3, qwen3, tekken (optional packages)",
    ),
    usd_per_million: float = typer.Option(1.0, help="Price per million tokens"),
    json_: bool = typer.Option(False, "--json"),
):
    """Tokens, tokens per character and cost of the same text under real tokenizers.

    Example: `ledgerbuild tokens README.md --tokenizers gpt2,o200k --usd-per-million 2.5`
    """
    from ..sim.real_tokenizers import compare

    text = read_input(file)
    if not text:
        raise LedgerError(f"{file}: the file is empty")
    try:
        names = id_list(tokenizers, "--tokenizers")
        if not 0 <= usd_per_million <= 1e9:  # NaN fails too
            raise LedgerError(f"--usd-per-million: must be a finite price in 0..1e9, got {usd_per_million}")
        rows = compare(text, names, usd_per_million)
    except LookupError as e:
        raise LedgerError(str(e.args[0])) from None
    _print_rows(f"{file}: {len(text):,} characters", rows, json_)


numerics_app = typer.Typer(
    no_args_is_help=True,
    help="Number formats at work: rounding, overflow, accumulation, block-scaled quantisation (seeds/002).",
)
app.add_typer(numerics_app, name="numerics", rich_help_panel="Simulations")


@numerics_app.command("demo")
@guarded
def numerics_demo(
    name: str = typer.Argument(
        "all",
        help="bf16-add | softmax-fp16 | "
        "dot-accumulation | block-quantisation | "
        "outlier-blocks | fp8-gradients | all",
    ),
    json_: bool = typer.Option(False, "--json", help="Print JSON rows."),
):
    """One demonstration as a table (or all of them).

    Example: `ledgerbuild numerics demo block-quantisation`
    """
    from ..errors import close_matches
    from ..sim.numerics import DEMOS

    if name != "all" and name not in DEMOS:
        raise LedgerError(
            f"unknown demo {name!r}{close_matches(name, DEMOS)}; valid: {', '.join(DEMOS)}, all"
        )
    _tables(DEMOS, list(DEMOS) if name == "all" else [name], json_)


@numerics_app.command("round")
@guarded
def numerics_round(
    values: str = typer.Argument(..., help="Comma-separated numbers"),
    dtype: str = typer.Option("bf16", help="A dtype id (ledgerbuild list dtypes)"),
    block_size: int | None = typer.Option(None, help="Override the format's block size (block formats)"),
    json_: bool = typer.Option(False, "--json"),
):
    """Round numbers to a format and show the error.

    Example: `ledgerbuild numerics round 1.001,65519,70000 --dtype fp16`
    """
    import numpy as np

    from .. import catalog
    from ..sim.numerics import round_to

    items = [v for v in values.split(",") if v.strip()]
    if not 1 <= len(items) <= MAX_ROUND_VALUES:
        raise LedgerError(f"values: give 1..{MAX_ROUND_VALUES:,} comma-separated numbers, got {len(items):,}")
    x = [decimal(v, "values") for v in items]
    catalog.row("dtypes", dtype)
    if block_size is not None and not 1 <= block_size <= MAX_BLOCK:
        raise LedgerError(f"--block-size: must be in 1..{MAX_BLOCK:,}, got {block_size:,}")
    try:
        q = round_to(x, dtype, block_size)
    except ValueError as e:
        raise LedgerError(f"--dtype {dtype}: {e}") from None

    def number(v):  # JSON has no infinity or NaN: print them as text
        return float(v) if np.isfinite(v) else str(float(v))

    _print_rows(
        f"rounded to {dtype}",
        [{"value": v, "rounded": number(r), "error": number(r - v)} for v, r in zip(x, q, strict=False)],
        json_,
    )


@numerics_app.command("report")
@guarded
def numerics_report(
    output: Path = typer.Option(
        Path("build/numerics.md"), "-o", "--output", help="Markdown file (a PNG plot is written beside it)"
    ),
):
    """Write every numerics demonstration as one Markdown report with a plot.

    Example: `ledgerbuild numerics report -o build/numerics.md`
    """
    from ..sim.report import numerics_report as report

    out.print(report(output), highlight=False, markup=False)
