"""`ledgerbuild sample report`: every §7 demo as one Markdown file, with a plot of the
truncated Zipf distributions (PNG beside the report)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .demos import DEMOS, TRUNCATIONS
from .sampling import filter_probs, zipf_logits


def markdown_table(rows: list[dict]) -> str:
    head = "| " + " | ".join(rows[0]) + " |\n| " + " | ".join("---" for _ in rows[0]) + " |\n"
    return head + "".join("| " + " | ".join(str(v) for v in r.values()) + " |\n" for r in rows)


def plot(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    z = zipf_logits()
    fig, ax = plt.subplots(figsize=(8, 4))
    ranks = np.arange(1, len(z) + 1)
    for name, kw in TRUNCATIONS:
        p = filter_probs(z, **kw)
        kept = p > 0
        ax.loglog(ranks[kept], p[kept], label=f"{name} ({kept.sum():,} kept)")
    ax.set(xlabel="rank", ylabel="probability", title="Zipf vocabulary 32,000, p ~ r^-1.5")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write_report(path: Path) -> str:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    image = path.with_suffix(".png")
    plot(image)
    parts = ["# Sampling demos (lecture §7)\n",
             "Numpy float64; each stage follows transformers' logits processors (checked in the "
             "tests). min-p demo parameters (not in the lecture): temperature 1.5, min_p 0.05.\n",
             f"![truncated distributions]({image.name})\n"]
    for name, demo in DEMOS.items():
        parts.append(f"## {name}\n\n{(demo.__doc__ or '').strip()}\n\n{markdown_table(demo())}")
    path.write_text("\n".join(parts), encoding="utf-8")
    return f"wrote {path} and {image}"
