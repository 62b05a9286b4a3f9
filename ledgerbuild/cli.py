"""The command line: parse, make one library call, map LedgerError to one line and exit 2.

Thin by design: every number comes from `ledgerbuild.evaluate`, every file from a writer.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console

from .errors import LedgerError

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode="markdown",
                  help="The arithmetic of transformer LLM inference: parameters, FLOPs, KV "
                       "cache, memory, latency floors and cost, declared once in sympy.")
SET_HELP = "Override any input (model field by its config.json name, or a scenario input) or " \
           "quantity: NAME=VALUE. Repeatable."
out = Console()


def fail(message: str) -> None:
    Console(stderr=True).print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _sets(set_: Optional[List[str]], **named) -> dict:
    from .evaluate import parse_sets

    sets = parse_sets(set_)
    sets.update({k: str(v) for k, v in named.items() if v is not None})
    return sets


def guarded(fn):
    """Run a command body, turning user errors into one line and exit code 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except LedgerError as e:
            fail(str(e))
    return wrapper


@app.command("list")
@guarded
def list_(what: str = typer.Argument(..., help="models | gpus | workloads | quantities | "
                                                "dtypes | time_models"),
          json_: bool = typer.Option(False, "--json", help="Print JSON for scripts.")):
    """List a catalog or the ledger's quantities.

    Examples: `ledgerbuild list models`, `ledgerbuild list quantities --json`
    """
    from .writers.terminal import list_rows, show_list

    if what not in ("models", "gpus", "workloads", "quantities", "dtypes", "time_models"):
        raise LedgerError(f"unknown list {what!r}; valid: models, gpus, workloads, quantities, "
                          "dtypes, time_models")
    if json_:
        import json
        out.print_json(json.dumps(list_rows(what), default=str))
    else:
        show_list(what, out)


@app.command()
@guarded
def show(model: str = typer.Argument(..., help="Catalog id, model YAML path or HF config.json"),
         gpu: Optional[str] = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
         gpus: Optional[int] = typer.Option(None, "--gpus", help="GPU count (tensor parallel)"),
         workload: Optional[str] = typer.Option(None, help="Workload id [chat]"),
         time_model: Optional[str] = typer.Option(None, help="Time model id [roofline]"),
         set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
         json_: bool = typer.Option(False, "--json", help="Print one JSON object.")):
    """Every quantity of one model for a scenario.

    Examples: `ledgerbuild show llama-3-8b`, `ledgerbuild show llama-3-70b --gpus 8 --json`,
    `ledgerbuild show llama-3-8b --set num_key_value_heads=32 --set prompt_tokens=4096`
    """
    from .evaluate import evaluate
    from .writers.terminal import show_json, show_table

    result = evaluate(model, _sets(set_, gpu=gpu, gpu_count=gpus, workload=workload,
                                   time_model=time_model))
    if json_:
        sys.stdout.write(show_json(result) + "\n")
    else:
        show_table(result, out)


@app.command("import-config")
@guarded
def import_config(config: Path = typer.Argument(..., help="An HF config.json")):
    """Print a catalog YAML entry for a model from its HF config.json.

    Example: `ledgerbuild import-config config.json > models/my-model.yaml`
    """
    from .catalog import export_entry, load_model

    if config.suffix != ".json":
        raise LedgerError(f"{config}: expected an HF config.json")
    entry, _ = load_model(str(config))
    sys.stdout.write(export_entry(entry))


@app.command()
@guarded
def xlsx(models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
         gpus: str = typer.Option("all", help="GPUs in the GPU table: all, or ids"),
         workload: Optional[str] = typer.Option(None, help="Workload id [chat]"),
         set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
         sweep_model: Optional[str] = typer.Option(None, help="Model of the Sweeps sheet "
                                                   "[llama-3-8b if selected, else the first]"),
         output: Path = typer.Option(Path("build/ledger.xlsx"), "-o", "--output",
                                     help="Workbook path")):
    """Write the live-formula workbook (the main job).

    Examples: `ledgerbuild xlsx --models all`, `ledgerbuild xlsx --models llama-3-8b,qwen2.5-7b
    --gpus h100-sxm,a100-80gb-sxm --workload reasoning -o plan.xlsx`
    """
    from .writers.xlsx import write_workbook

    summary = write_workbook(models, gpus, _sets(set_, workload=workload), output,
                             progress=sys.stderr.isatty(), sweep_model=sweep_model)
    out.print(summary, highlight=False)




def _formats(fmt: str) -> list[str]:
    if fmt not in ("md", "tex", "all"):
        raise LedgerError(f"--format {fmt!r}: valid: md, tex, all")
    return ["md", "tex"] if fmt == "all" else [fmt]


@app.command()
@guarded
def docs(models: str = typer.Option("all", help="all, or comma-separated ids / YAML paths"),
         format_: str = typer.Option("all", "--format", help="md | tex | all"),
         gpu: Optional[str] = typer.Option(None, help="GPU id or GPU YAML path [h100-sxm]"),
         workload: Optional[str] = typer.Option(None, help="Workload id [chat]"),
         set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
         output: Path = typer.Option(Path("build/docs"), "-o", "--output", help="Folder"),
         templates: Optional[Path] = typer.Option(None, help="A folder of your own templates"),
         plots: bool = typer.Option(True, "--plots/--no-plots", help="matplotlib SVG + PNG")):
    """Write derivations: one Markdown / LaTeX document per model and an index.

    Examples: `ledgerbuild docs`, `ledgerbuild docs --models llama-3-8b --format tex -o paper/`,
    `ledgerbuild docs --templates my-templates/ --no-plots`
    """
    from .writers.docs import write_docs

    out.print(write_docs(models, _formats(format_), _sets(set_, gpu=gpu, workload=workload),
                         output, templates, plots), highlight=False)


@app.command()
@guarded
def derive(model: str = typer.Argument(..., help="Catalog id, model YAML or HF config.json"),
           quantity: str = typer.Argument(..., help="A quantity name (ledgerbuild list quantities)"),
           format_: str = typer.Option("md", "--format", help="md | tex"),
           set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
           templates: Optional[Path] = typer.Option(None, help="A folder of your own templates")):
    """Print one quantity's derivation as an embeddable snippet (stable anchor / label).

    Examples: `ledgerbuild derive llama-3-8b kv_bytes_per_token`,
    `ledgerbuild derive deepseek-v3 params_active --format tex`
    """
    from .writers.docs import derive as derive_snippet

    if format_ not in ("md", "tex"):
        raise LedgerError(f"--format {format_!r}: valid: md, tex")
    sys.stdout.write(derive_snippet(model, quantity, format_, _sets(set_), templates))


sample_app = typer.Typer(no_args_is_help=True, help="The lecture's §7 sampling demos.")
app.add_typer(sample_app, name="sample")


def _print_rows(name: str, rows: list[dict], as_json: bool) -> None:
    if as_json:
        import json
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    from rich.table import Table

    table = Table(title=name, title_justify="left")
    for col in rows[0]:
        table.add_column(col)
    for r in rows:
        table.add_row(*(repr(v) if isinstance(v, str) and "\n" in v else str(v)
                        for v in r.values()))
    out.print(table)


def _demo_command(name: str):
    def command(json_: bool = typer.Option(False, "--json", help="Print JSON rows.")):
        from .sim.demos import DEMOS

        _print_rows(name, DEMOS[name](), json_)
    command.__doc__ = (f"The §7 {name} demo as a table.\n\n"
                       f"Example: `ledgerbuild sample {name} --json`")
    return guarded(command)


for _name in ("truncation", "order", "penalties", "rejection", "beam", "reproducibility",
              "attention"):
    sample_app.command(_name)(_demo_command(_name))


@sample_app.command("filter")
@guarded
def sample_filter(temperature: float = typer.Option(1.0, help="0 = greedy"),
                  top_k: int = typer.Option(0, help="0 = off"),
                  top_p: float = typer.Option(1.0, help="in (0, 1]"),
                  min_p: float = typer.Option(0.0, help="in [0, 1]"),
                  typical_p: float = typer.Option(1.0, help="in (0, 1]"),
                  order: str = typer.Option("transformers", help="transformers | vllm"),
                  vocab: int = typer.Option(32_000, help="Zipf vocabulary size"),
                  exponent: float = typer.Option(1.5, help="p ~ rank^-exponent"),
                  json_: bool = typer.Option(False, "--json", help="Print JSON.")):
    """Your own parameters on the lecture's Zipf vocabulary: tokens kept, top probability.

    Example: `ledgerbuild sample filter --temperature 1.5 --top-p 0.9`
    """
    import numpy as np

    from .sim.sampling import filter_probs, zipf_logits

    if vocab < 1:
        raise LedgerError(f"--vocab must be >= 1, got {vocab}")
    try:
        p = filter_probs(zipf_logits(vocab, exponent), temperature=temperature, top_k=top_k,
                         top_p=top_p, min_p=min_p, typical_p=typical_p, order=order)
    except ValueError as e:
        raise LedgerError(str(e)) from None
    _print_rows("filter", [{"kept_tokens": int((p > 0).sum()), "top_token_prob": float(p.max()),
                            "kept_mass_of_top_100": float(np.sort(p)[::-1][:100].sum())}], json_)


@sample_app.command("report")
@guarded
def sample_report(output: Path = typer.Option(Path("build/sampling.md"), "-o", "--output",
                                              help="Markdown file (a PNG plot is written beside it)")):
    """Write every §7 demo as one Markdown report with a plot.

    Example: `ledgerbuild sample report -o build/sampling.md`
    """
    from .sim.report import write_report

    out.print(write_report(output), highlight=False)


bpe_app = typer.Typer(no_args_is_help=True, help="Byte-level BPE (lecture §8.2-8.3).")
stream_app = typer.Typer(no_args_is_help=True, help="Streaming detokenization and stop strings "
                                                     "(lecture §8.4-8.5).")
app.add_typer(bpe_app, name="bpe")
app.add_typer(stream_app, name="stream")


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as e:
        raise LedgerError(f"{path}: cannot read ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise LedgerError(f"{path}: invalid UTF-8 at byte {e.start}; save the file as UTF-8") from None


@bpe_app.command("train")
@guarded
def bpe_train(corpus: Path = typer.Argument(..., help="A UTF-8 text file"),
              vocab_size: int = typer.Option(1256, help="256 bytes + merges"),
              tie_break: str = typer.Option("first", help="first | hf"),
              output: Path = typer.Option(Path("build/bpe.json"), "-o", "--output")):
    """Train a byte-level BPE tokenizer and save its merges.

    Example: `ledgerbuild bpe train corpus.txt --vocab-size 1256 -o build/bpe.json`
    """
    from .sim.bpe import train

    text = _read_text(corpus)
    try:
        tok = train(text, vocab_size, tie_break=tie_break)
    except ValueError as e:
        raise LedgerError(f"{corpus}: {e}") from None
    output.parent.mkdir(parents=True, exist_ok=True)
    tok.save(output)
    out.print(f"wrote {output}: {len(tok.merges)} merges", highlight=False)


@bpe_app.command("encode")
@guarded
def bpe_encode(text: str = typer.Argument(..., help="Text to encode"),
               tokenizer: Optional[Path] = typer.Option(None, help="Merges saved by `bpe train` "
                                                        "[a tokenizer trained on the shipped corpus]"),
               json_: bool = typer.Option(False, "--json")):
    """Encode text: ids, and each token's bytes (a token may be half a character).

    Example: `ledgerbuild bpe encode "流式输出时，半个汉字会变成乱码。"`
    """
    from .sim.bpe import Tokenizer
    from .sim.token_demos import shipped_tokenizer

    if tokenizer is not None and not tokenizer.is_file():
        raise LedgerError(f"{tokenizer}: no such file")
    tok = Tokenizer.load(tokenizer) if tokenizer else shipped_tokenizer()
    ids = tok.encode(text)
    rows = [{"id": i, "bytes": tok.token_bytes(i).hex(" "), "text": tok.decode([i])} for i in ids]
    _print_rows(f"{len(ids)} tokens, {len(text)} characters", rows, json_)


def _tables(demos: dict, names: list[str], json_: bool) -> None:
    for name in names:
        _print_rows(name, demos[name](), json_)


@bpe_app.command("stats")
@guarded
def bpe_stats(json_: bool = typer.Option(False, "--json")):
    """Tokens per character by script vs merges, and the half-character sentence.

    Example: `ledgerbuild bpe stats --json`
    """
    from .sim.token_demos import DEMOS

    _tables(DEMOS, ["stats", "half-characters"], json_)


@bpe_app.command("report")
@guarded
def bpe_report(output: Path = typer.Option(Path("build/tokenization.md"), "-o", "--output")):
    """Write every §8 demo as one Markdown report with a plot.

    Example: `ledgerbuild bpe report -o build/tokenization.md`
    """
    from .sim.token_report import write_report

    out.print(write_report(output), highlight=False)


@stream_app.command("demo")
@guarded
def stream_demo(json_: bool = typer.Option(False, "--json")):
    """The §8.4-8.5 demos: three detokenizers, decode work (exercise 6), split stop strings.

    Example: `ledgerbuild stream demo --json`
    """
    from .sim.token_demos import DEMOS

    _tables(DEMOS, ["detokenizers", "decode-work", "stop-strings"], json_)


@app.command()
@guarded
def tokens(file: Path = typer.Argument(..., help="A UTF-8 text file"),
           tokenizers: str = typer.Option("gpt2,cl100k,o200k,llama3,qwen3,tekken",
                                          help="Comma-separated: gpt2, cl100k, o200k, llama3, "
                                               "qwen3, tekken (optional packages)"),
           usd_per_million: float = typer.Option(1.0, help="Price per million tokens"),
           json_: bool = typer.Option(False, "--json")):
    """Tokens, tokens per character and cost of the same text under real tokenizers.

    Example: `ledgerbuild tokens README.md --tokenizers gpt2,o200k --usd-per-million 2.5`
    """
    from .sim.real_tokenizers import compare

    text = _read_text(file)
    if not text:
        raise LedgerError(f"{file}: the file is empty")
    try:
        rows = compare(text, [t.strip() for t in tokenizers.split(",") if t.strip()],
                       usd_per_million)
    except LookupError as e:
        raise LedgerError(str(e.args[0])) from None
    _print_rows(f"{file}: {len(text):,} characters", rows, json_)


if __name__ == "__main__":  # python -m ledgerbuild.cli
    app()
