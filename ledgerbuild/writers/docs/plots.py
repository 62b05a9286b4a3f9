"""Plots for derivations (SVG for Markdown, PDF for LaTeX): roofline, KV vs context, serving
vs batch, RoPE wavelengths per rotary pair; image tokens and image KV of the VLMs.

Every plotted number comes from the ledger: points from an evaluated Result, curves from the
vectorised `sweep` of the same declarations. Drawn by chart.py, not matplotlib: a figure takes
about a millisecond where matplotlib took 0.3 s (its import and first figure another 1.3 s).
Shortcuts: one figure of four panels per model; plain tick labels (1K, 1M).

Size rule (issue 31: the labels were about 5 px on the web): a figure is NATURAL_WIDTH_PT wide,
480 pt = 640 CSS px, narrower than the narrowest default column we build for (Sphinx's alabaster
1.0.0: page_width 940 px - sidebar_width 220 px - 2 x 30 px body padding = 660 px; MkDocs'
and GitHub's are wider), so MkDocs, Sphinx and GitHub show it at its natural width, where every
label is at least 9 pt = 12 px (ticks and axis labels 10 pt, legends 9 pt, titles 12 pt). In
print the LaTeX documents include it at the line width (493 pt on their A4 page): no text below 9 pt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...files import atomic_save
from ...numeric import NumericResult as Result
from ...rope import wavelengths
from ...rules import to_plain
from .chart import COLORS, Chart, Panel, Series, layout
from .chart_files import to_pdf, to_svg

# numpy and the sweeps are imported where a figure is drawn: `docs --no-plots` needs neither
CONTEXTS = tuple(2**i for i in range(8, 18))  # 256 .. 128K
NATURAL_WIDTH_PT = 480.0  # 640 CSS px: see the size rule above
BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)


def caption(result: Result) -> str:
    """What the figure shows, in words: its caption and its alt text."""
    return (
        f"{result.model_id} on {to_plain(result.value('total_gpus'))} x {result.keys['gpu']}: "
        "roofline with the prefill and decode points (dotted line: the ridge point); KV "
        "cache of one sequence against context; output tokens/s and USD per million output "
        "tokens against the batch cap; RoPE wavelength of each rotary pair before and after "
        "the model's scaling, against its trained context"
    )


def figure_data(result: Result, sets: dict, model_ref: str | None = None) -> dict:
    """The figure's numbers; `model_ref` is what the result was evaluated from (an id, a model
    YAML or a config.json: the sweeps read the same model), the catalog id by default."""
    from ...sweeps import sweep

    one = ([model_ref or result.model_id], [result.keys["gpu"]])
    data: dict[str, Any] = {
        n: float(to_plain(result.value(n)))
        for n in (
            "peak_flops_per_s",
            "hbm_bandwidth_bytes_per_s",
            "gpu_count",
            "prefill_intensity",
            "decode_intensity",
            "ridge_point_flops_per_byte",
        )
    }
    data["kv"] = sweep("kv_bytes_at_context", *one, {"context_tokens": CONTEXTS}, sets)["kv_bytes_at_context"]
    for q in ("throughput_tokens_per_s", "usd_per_million_output_tokens"):
        data[q] = sweep(q, *one, {"max_batch": BATCHES}, sets)[q]
    data["rope_pairs"], data["rope_before"], data["rope_after"] = wavelengths(result)
    data["rope_trained"] = float(to_plain(result.inputs["rope_original_max_position"]))
    data["title"] = f"{result.model_id} on {int(data['gpu_count'])} x {result.keys['gpu']}"
    data["caption"] = caption(result)
    return data


def model_chart(data: dict) -> Chart:
    """The four panels of one model's figure from its figure_data."""
    peak = data["peak_flops_per_s"] * data["gpu_count"]
    bw = data["hbm_bandwidth_bytes_per_s"] * data["gpu_count"]
    x = [10 ** (-1 + 6 * i / 99) for i in range(100)]  # 0.1 .. 100K FLOP/byte
    points = [
        Series([data[n]], [min(peak, data[n] * bw)], COLORS[i], marker, line=False, label=label)
        for i, (n, marker, label) in enumerate(
            (("prefill_intensity", "o", "prefill"), ("decode_intensity", "s", "decode"))
        )
    ]
    roofline = Panel(
        "roofline (dotted: ridge)", "FLOP / byte", "attainable FLOP/s",
        [Series(x, [min(peak, v * bw) for v in x], "#000000"), *points],
        xlog=True, ylog=True, vlines=[data["ridge_point_flops_per_byte"]], legend=True,
    )  # fmt: skip
    kv = Panel(
        "KV cache of one sequence", "context (tokens)", "GB (1e9 bytes)",
        [Series(CONTEXTS, data["kv"] / 1e9, marker=".")], xlog=True,
    )  # fmt: skip
    serving = Panel(
        "serving vs batch cap", "max_batch", "output tokens/s",
        [
            Series(BATCHES, data["throughput_tokens_per_s"], marker="."),
            Series(BATCHES, data["usd_per_million_output_tokens"], COLORS[1], ".", twin=True),
        ],
        xlog=True, twin_label="USD / M output tokens (0: no fit)",
    )  # fmt: skip
    rope = Panel(
        "RoPE wavelength per pair", "rotary pair", "tokens (dotted: trained context)",
        [
            Series(data["rope_pairs"], data["rope_before"], label="unscaled"),
            Series(data["rope_pairs"], data["rope_after"], COLORS[1], label="scaled"),
        ],
        ylog=True, hlines=[max(data["rope_trained"], 1)], legend=True,
    )  # fmt: skip
    panels = [roofline, kv, serving, rope]  # two rows of two: the caption's order, row by row
    # margins in points: 44 left (y ticks and label), 90 between the columns (the serving panel's
    # twin axis and the RoPE panel's y axis), 36 below and 54 between the rows (x ticks and label,
    # the panel title), 35 above (the figure's title)
    w, h = NATURAL_WIDTH_PT, 470
    margins = (44 / w, 1 - 10 / w, 36 / h, 1 - 35 / h)
    return Chart(
        w, h, data["title"], panels, data["caption"], margins, 90 / 168, columns=2, hspace=54 / 172.5
    )


def save_chart(chart: Chart, out_dir: Path, stem: str) -> list[str]:
    """The chart as {stem}.svg (Markdown) and {stem}.pdf (LaTeX); returns the names."""
    names = _files(stem)
    drawn = layout(chart)
    atomic_save(out_dir / names[0], lambda tmp: Path(tmp).write_text(to_svg(chart, drawn), encoding="utf-8"))
    atomic_save(out_dir / names[1], lambda tmp: Path(tmp).write_bytes(to_pdf(chart, drawn)))
    return names


def _files(stem: str) -> list[str]:
    return [f"{stem}.svg", f"{stem}.pdf"]


def figure_files(model_id: str) -> list[str]:
    """The names model_figure writes (documents refer to them before they are drawn)."""
    return _files(f"{model_id}-plots")


def model_figure(result: Result, sets: dict, out_dir: Path, model_ref: str | None = None) -> list[str]:
    chart = model_chart(figure_data(result, sets, model_ref))
    return save_chart(chart, out_dir, f"{result.model_id}-plots")


SIDES = (224, 336, 448, 560, 672, 896, 1024, 1344, 1792, 2048, 3072, 4096)
VISION_CAPTION = (
    "Vision-language models: tokens one square image becomes (left) and the KV cache those "
    "tokens hold (right; for a cross-attention model, the keys and values in its "
    "cross-attention layers), against the image's side in pixels"
)


def vision_figure(
    results: list[Result], sets: dict, out_dir: Path, model_refs: list[str] | None = None
) -> list[str]:
    """One figure for every vision-language model among `results`: image tokens and image KV
    against the side of a square image (the ledger's image_tokens and image_kv_bytes, swept
    over image_height x image_width and read on the diagonal); `model_refs` as in figure_data."""
    from ...sweeps import sweep

    grid = {"image_height": SIDES, "image_width": SIDES}
    square = [i * (len(SIDES) + 1) for i in range(len(SIDES))]  # diagonal of the side x side grid
    tokens, kv = [], []
    for i, r in enumerate(results):
        one = ([model_refs[i] if model_refs else r.model_id], [r.keys["gpu"]])
        color = COLORS[i % len(COLORS)]
        y = sweep("image_tokens", *one, grid, sets)["image_tokens"][square]
        tokens.append(Series(SIDES, y, color, ".", label=r.model_id))
        y = sweep("image_kv_bytes", *one, grid, sets)["image_kv_bytes"][square]
        kv.append(Series(SIDES, y / 2**20, color, "."))
    panels = [
        Panel("image tokens", "image side (pixels)", "tokens", tokens, xlog=True, ylog=True, legend=True),
        Panel("image KV cache", "image side (pixels)", "MiB (2^20 bytes)", kv, xlog=True, ylog=True),
    ]
    w, h = NATURAL_WIDTH_PT, 280  # margins as the model figure's, one row
    chart = Chart(
        w, h, "what an image becomes", panels, VISION_CAPTION, (48 / w, 1 - 10 / w, 36 / h, 1 - 35 / h), 0.3
    )
    return save_chart(chart, out_dir, "vision-plots")
