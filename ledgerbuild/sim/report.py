"""Markdown reports of the simulation demos, each with one plot (PNG beside the report):
`ledgerbuild sample report` (§7) and `ledgerbuild bpe report` (§8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..files import write_output, write_text


def markdown_table(rows: list[dict]) -> str:
    head = "| " + " | ".join(rows[0]) + " |\n| " + " | ".join("---" for _ in rows[0]) + " |\n"
    return head + "".join("| " + " | ".join(str(v) for v in r.values()) + " |\n" for r in rows)


def _figure(draw: Callable, path: Path, size=(8, 4)) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=size)
    draw(ax)
    ax.legend(fontsize=8)
    fig.tight_layout()
    write_output(path, lambda tmp: fig.savefig(tmp, dpi=90, format="png"))
    plt.close(fig)


def draw_truncations(ax) -> None:
    from .demos import TRUNCATIONS
    from .sampling import filter_probs, zipf_logits

    z = zipf_logits()
    ranks = np.arange(1, len(z) + 1)
    for name, kw in TRUNCATIONS:
        p = filter_probs(z, **kw)
        kept = p > 0
        ax.loglog(ranks[kept], p[kept], label=f"{name} ({kept.sum():,} kept)")
    ax.set(xlabel="rank", ylabel="probability", title="Zipf vocabulary 32,000, p ~ r^-1.5")


def draw_tokens_per_char(ax) -> None:
    from .token_demos import stats

    rows = stats()
    merges = [r["merges"] for r in rows]
    for script in (k for k in rows[0] if k != "merges"):
        ax.plot(merges, [r[script] for r in rows], marker=".", label=script)
    ax.set(xlabel="merges", ylabel="tokens per character", title="Byte-level BPE on the shipped corpus")


def _cell(value):
    return repr(value) if isinstance(value, str) and ("\n" in value or "|" in value) else value


def write_report(path: Path, title: str, intro: str, demos: dict, draw: Callable) -> str:
    path = Path(path)
    image = path.with_suffix(".png")
    parts = [f"# {title}\n", intro + "\n", f"![plot]({image.name})\n"]
    for name, demo in demos.items():  # the long part first: a run ended here leaves no file
        rows = [{k: _cell(v) for k, v in r.items()} for r in demo()]
        parts.append(f"## {name}\n\n{(demo.__doc__ or '').strip()}\n\n{markdown_table(rows)}")
    _figure(draw, image)
    write_text(path, "\n".join(parts))
    return f"wrote {path} and {image}"


def sampling_report(path: Path) -> str:
    from .demos import DEMOS

    return write_report(
        path,
        "Sampling demos (lecture §7)",
        "Numpy float64; each stage follows transformers' logits processors "
        "(checked in the tests). min-p demo parameters (not in the lecture): "
        "temperature 1.5, min_p 0.05.",
        DEMOS,
        draw_truncations,
    )


def tokenization_report(path: Path) -> str:
    from .token_demos import DEMOS

    return write_report(
        path,
        "Tokenization and streaming demos (lecture §8)",
        "Byte-level BPE trained on the shipped original corpus (ledgerbuild/sim/data/corpus.txt).",
        DEMOS,
        draw_tokens_per_char,
    )


def draw_outlier_blocks(ax) -> None:
    from .numerics import demo_outlier_block_sweep

    for fmt in ("mxfp4", "nvfp4", "int4-g128"):
        rows = demo_outlier_block_sweep(fmt)
        ax.semilogx(
            [r["block"] for r in rows],
            [r["rel error, whole row"] for r in rows],
            marker="o",
            base=2,
            label="int4 (scale + zero)" if fmt == "int4-g128" else fmt,
        )
    ax.set(
        xlabel="block size (elements sharing one scale)",
        ylabel="relative RMS error of a row",
        title="One 40-sigma outlier per row of 4096 Gaussian weights",
    )


def numerics_report(path: Path) -> str:
    from .numerics import DEMOS

    return write_report(
        path,
        "Number formats at work (seeds/002 'precision and bytes')",
        "Formats from the dtype table (scenarios/dtypes.yaml), rounded with "
        "ml_dtypes (round to nearest even; torch's casts agree bit for bit, "
        "checked in the tests). Block formats quantise along rows.",
        DEMOS,
        draw_outlier_blocks,
    )
