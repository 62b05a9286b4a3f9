"""`ledgerbuild bpe report`: the §8 demos as one Markdown file with a plot of tokens per
character against the number of merges (PNG beside the report)."""
from __future__ import annotations

from pathlib import Path

from .report import markdown_table
from .token_demos import DEMOS, stats


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    merges = [r["merges"] for r in rows]
    for script in (k for k in rows[0] if k != "merges"):
        ax.plot(merges, [r[script] for r in rows], marker=".", label=script)
    ax.set(xlabel="merges", ylabel="tokens per character", title="Byte-level BPE on the shipped corpus")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def write_report(path: Path) -> str:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    image = path.with_suffix(".png")
    plot(stats(), image)
    parts = ["# Tokenization and streaming demos (lecture §8)\n",
             f"![tokens per character vs merges]({image.name})\n"]
    for name, demo in DEMOS.items():
        rows = [{k: repr(v) if isinstance(v, str) and ("\n" in v or "|" in v) else v
                 for k, v in r.items()} for r in demo()]
        parts.append(f"## {name}\n\n{(demo.__doc__ or '').strip()}\n\n{markdown_table(rows)}")
    path.write_text("\n".join(parts), encoding="utf-8")
    return f"wrote {path} and {image}"
