"""The GPU catalog: the issue-29 GPUs carry their datasheets' figures, every command evaluates
on them, prices are structured rows (provider, rate type, USD/GPU-hour, date, URL) with a
visible flag where none exists, and the README's GPU table says what the catalog says.

Expected figures are the vendor documents' own numbers, written here with their source (NVIDIA
prints Tensor Core peaks with 2:4 sparsity: dense = half, as each comment says), not read back
from the YAML files under test.
"""

import json
import re
from pathlib import Path

import openpyxl
import pytest
import yaml
from typer.testing import CliRunner

from ledgerbuild import catalog
from ledgerbuild.cli import app

runner = CliRunner()
TERA, MIB = 1e12, 2**20
NEW = ("b300", "gb300", "mi355x", "mi350x", "h20")

# id -> the cited figures: bf16 / fp8 / fp4 dense TFLOPS, int8 dense TOPS, HBM TB/s, marketed GB,
# driver MiB, link GB/s each way, board W, list price USD/GPU-hour (0: no public price)
DATASHEET = {
    # NVIDIA Blackwell Ultra datasheet, Individual GPU Specifications, HGX B300 column: BF16 4.5 PF
    # sparse, FP8/FP6 9 PF sparse, INT8 307 TOPS sparse, 270 GB | 7.7 TB/s, up to 1,100 W, NVLink 5
    # 1.8 TB/s; FP4 from the HGX page (144 | 108 PF sparse | dense per 8 GPUs); nvidia-smi
    # 'NVIDIA B300 SXM6 AC, 275040 MiB'; RunPod pricing page read 2026-10-07: $7.89/hr
    "b300": dict(
        bf16=4500 / 2,
        fp8=9000 / 2,
        fp4=108_000 / 8,
        int8=307 / 2,
        hbm=7.7,
        gb=270,
        mib=275040,
        link=1800 / 2,
        w=1100,
        price=7.89,
    ),
    # Blackwell Ultra datasheet, GB300 column: FP4 20 | 15 PF, FP8/FP6 10 PF sparse, BF16 5 PF
    # sparse, INT8 330 TOPS sparse, 279 GB | 8 TB/s, up to 1,400 W; NVL72 page: 576 TB/s / 72;
    # nvidia-smi 'NVIDIA GB300, 284208 MiB'; no dated public price
    "gb300": dict(
        bf16=5000 / 2,
        fp8=10_000 / 2,
        fp4=15_000,
        int8=330 / 2,
        hbm=576 / 72,
        gb=279,
        mib=284208,
        link=1800 / 2,
        w=1400,
        price=0,  # NVLink 5 1.8 TB/s per GPU (datasheet)
    ),
    # AMD MI355X: 256 CUs (ROCm GPU specifications) x 2.4 GHz (Hot Chips 2025) x FLOP per clock
    # per CU (ISSCC 2026: FP8 8,192; BF16 half; MXFP4 double) = AMD's 2.5 / 5.0 / 10 PF;
    # 288 GB, 8 TB/s, 1,400 W TBP; Infinity Fabric 7 x 153.6 GB/s; rocm-smi 309220868096 bytes
    "mi355x": dict(
        bf16=256 * 2.4e9 * 4096 / TERA,
        fp8=256 * 2.4e9 * 8192 / TERA,
        fp4=256 * 2.4e9 * 16384 / TERA,
        int8=256 * 2.4e9 * 8192 / TERA,
        hbm=8.0,
        gb=288,
        mib=309220868096 // MIB,
        link=7 * 153.6 / 2,
        w=1400,
        price=0,
    ),
    # AMD MI350X: the same silicon at 2.2 GHz (Hot Chips 2025), 1,000 W TBP; AMD's MI350X brochure
    # via PyTorch's device table: FP8 4,614.0, INT8 4,614.0, 8000 GB/s, 288 GB
    "mi350x": dict(
        bf16=256 * 2.2e9 * 4096 / TERA,
        fp8=256 * 2.2e9 * 8192 / TERA,
        fp4=256 * 2.2e9 * 16384 / TERA,
        int8=256 * 2.2e9 * 8192 / TERA,
        hbm=8.0,
        gb=288,
        mib=309220868096 // MIB,
        link=7 * 153.6 / 2,
        w=1000,
        price=0,
    ),
    # NVIDIA H20 partner spec sheet as copied by Baidu Baike (data of 2025-04-17): BF16 148,
    # FP8 / INT8 296, 96 GB HBM3, 4.0 TB/s, NVLink 900 GB/s, 400 W; nvidia-smi 97871MiB
    "h20": dict(
        bf16=148,
        fp8=296,
        fp4=0,
        int8=296,
        hbm=4.0,
        gb=96,
        mib=97871,
        link=900 / 2,
        w=400,
        price=0,
    ),
}


def run(*args):
    return runner.invoke(app, list(args))


@pytest.mark.parametrize("gpu_id", NEW)
def test_catalog_entry_carries_the_cited_figures(gpu_id):
    g, want = catalog.gpus()[gpu_id], DATASHEET[gpu_id]
    got = dict(
        bf16=g.bf16_dense_tflops,
        fp8=g.fp8_dense_tflops,
        fp4=g.fp4_dense_tflops,
        int8=g.int8_dense_tops,
        hbm=g.hbm_bandwidth_tb_per_s,
        gb=g.memory_gb,
        mib=g.memory_mib,
        link=g.interconnect_gb_per_s,
        w=g.tdp_w,
        price=g.price_usd_per_gpu_hour,
    )
    # the files print one decimal (AMD's convention) where the product is not a whole number
    assert got == {k: pytest.approx(v, abs=0.051) for k, v in want.items()}
    assert g.memory_mib == want["mib"]  # a driver reading is an integer


@pytest.mark.parametrize("gpu_id", NEW)
def test_show_evaluates_on_the_gpu_with_its_figures(gpu_id):
    result = run("show", "llama-3-8b", "--gpu", gpu_id, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    s, want = data["scenario"], DATASHEET[gpu_id]
    g = catalog.gpus()[gpu_id]
    assert s["gpu"] == gpu_id
    assert s["bf16_flops_per_s"] == pytest.approx(g.bf16_dense_tflops * TERA)
    assert s["bf16_flops_per_s"] == pytest.approx(want["bf16"] * TERA, rel=3e-5)
    assert s["fp8_flops_per_s"] == pytest.approx(want["fp8"] * TERA, rel=3e-5)
    assert s["fp4_flops_per_s"] == pytest.approx(want["fp4"] * TERA, rel=3e-5)
    assert s["hbm_bandwidth_bytes_per_s"] == pytest.approx(want["hbm"] * TERA)
    assert s["gpu_memory_driver_bytes"] == want["mib"] * MIB
    assert s["interconnect_bytes_per_s"] == pytest.approx(want["link"] * 1e9, rel=1e-4)
    assert s["gpu_list_price_usd_per_hour"] == pytest.approx(want["price"])
    # no public price: the default price (3 USD, formulas/inputs.py) is what costs read
    price = data["quantities"]["gpu_price_usd_per_hour"]["value"]
    assert price == pytest.approx(want["price"] or s["default_price_per_gpu_hour"])
    assert data["quantities"]["tpot_s"]["value"] > 0


def test_every_gpu_prices_are_rows_and_the_list_price_is_the_first():
    for g in catalog.gpus().values():
        for p in g.prices:
            assert set(p) >= {"provider", "rate_type", "usd_per_gpu_hour", "date", "url"}, g.id
        if g.prices:
            assert g.price_usd_per_gpu_hour == g.prices[0]["usd_per_gpu_hour"] > 0
            assert g.price_provider == g.prices[0]["provider"] != catalog.NO_PUBLIC_PRICE
        else:
            assert g.price_usd_per_gpu_hour == 0 and g.price_provider == "no public price"
            assert g.price_date == g.price_url == g.price_rate_type == ""
    # the migrated prices (the text cells before): Lambda's page of 2026-09-20, RunPod's of 2026-11-30
    h100, h200 = catalog.gpus()["h100-sxm"], catalog.gpus()["h200-sxm"]
    assert (h100.price_provider, h100.price_rate_type, h100.price_date, h100.price_usd_per_gpu_hour) == (
        "Lambda",
        "on-demand",
        "2026-09-20",
        3.99,
    )
    assert (h200.price_provider, h200.price_rate_type, h200.price_usd_per_gpu_hour) == (
        "RunPod",
        "serverless",
        0.00124 * 3600,
    )
    assert "Hyperstack on-demand 7.4 USD/GPU-hour (2026-08-26" in catalog.gpus()["b300"].other_prices


@pytest.mark.parametrize(
    "gpu_id, provider, date, per_gpu",
    [  # the pages' own figures: per GPU-hour, or an instance's price over its GPUs
        ("mi300x", "Crusoe", "2026-09-20", 3.45),  # crusoe.ai/cloud/pricing "$3.45/GPU-hr"
        ("mi325x", "TensorWave", "2026-05-18", 1.95),  # cliffcenter.com research note "$1.95"
        ("gb200", "CoreWeave", "2026-09-20", 42.00 / 4),  # coreweave.com/pricing NVL72: $42.00, 4 GPUs
        ("rtx-pro-6000", "CoreWeave", "2026-09-20", 20.00 / 8),  # coreweave.com/pricing: $20.00, 8 GPUs
    ],
)
def test_prices_found_for_the_gpus_that_had_none(gpu_id, provider, date, per_gpu):
    g = catalog.gpus()[gpu_id]
    assert (g.price_provider, g.price_rate_type, g.price_date) == (provider, "on-demand", date)
    assert g.price_usd_per_gpu_hour == pytest.approx(per_gpu)
    if gpu_id == "mi300x":  # DigitalOcean's Droplet page, validated 2026-05-28: "$1.99 per hour"
        assert "DigitalOcean on-demand 1.99 USD/GPU-hour (2026-05-28" in g.other_prices


def _gpu_file(tmp_path, **changes) -> str:
    with open("hardware/b300.yaml") as f:
        gpu = yaml.safe_load(f)
    gpu.update(id="my-gpu", **changes)
    path = tmp_path / "my-gpu.yaml"
    path.write_text(yaml.safe_dump(gpu))
    return str(path)


def _price(**changes) -> dict:
    row = dict(provider="X", rate_type="spot", usd_per_gpu_hour=2, date="2026-01-01", url="https://x")
    return {"prices": [{**row, **changes}]}


@pytest.mark.parametrize(
    "changes, says",
    [
        (dict(price_usd_per_gpu_hour=2.5), "field (entry): Value error, price_usd_per_gpu_hour 2.5 is not"),
        (dict(prices=[]), None),  # no price: accepted, flagged
        (dict(prices=[{"provider": "X", "rate_type": "on-demand", "usd_per_gpu_hour": 2}]), "prices.0.date"),
        (_price(rate_type="hourly"), "prices.0.rate_type"),
        (_price(date="Jan 2026"), "prices.0.date"),
        (_price(url="runpod.io"), "prices.0.url"),
        (_price(usd_per_gpu_hour=-1), "prices.0.usd_per_gpu_hour"),
        (_price(currency="CNY"), "prices.0.currency"),
    ],
)
def test_a_users_gpu_file_prices_are_checked(tmp_path, changes, says):
    result = run("show", "llama-3-8b", "--gpu", _gpu_file(tmp_path, **changes), "--json")
    if says is None:
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["scenario"]["gpu_list_price_usd_per_hour"] == 0
        return
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert text.startswith("error:") and "\n" not in text and says in text, text
    assert "my-gpu.yaml: my-gpu:" in text


def test_workbook_gpu_table_has_price_columns_and_the_flag(tmp_path):
    out = tmp_path / "gpus.xlsx"
    result = run("xlsx", "--models", "llama-3-8b", "--gpu", ",".join(NEW), "-o", str(out))
    assert result.exit_code == 0, result.output
    ws = openpyxl.load_workbook(out)["GPUs"]
    head = [c.value for c in ws[1]]
    for col in ("price_usd_per_gpu_hour", "price_provider", "price_rate_type", "price_date", "price_url"):
        assert col in head
    rows = {r[0]: dict(zip(head, r, strict=True)) for r in ws.iter_rows(min_row=2, values_only=True)}
    assert set(NEW) <= set(rows)
    b300 = rows["b300"]
    assert (b300["price_provider"], b300["price_rate_type"], b300["price_date"], b300["price_url"]) == (
        "RunPod",
        "on-demand",
        "2026-10-07",
        "https://www.runpod.io/pricing",
    )
    assert b300["price_usd_per_gpu_hour"] == 7.89 and "Hyperstack" in b300["other_prices"]
    for gpu_id in ("gb300", "mi355x", "mi350x", "h20"):
        assert rows[gpu_id]["price_provider"] == "no public price"
        assert rows[gpu_id]["price_usd_per_gpu_hour"] == 0


def test_docs_build_on_a_new_gpu(tmp_path):
    result = run("docs", "--models", "llama-3-8b", "--gpu", "mi355x", "--no-plots", "-o", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "AMD Instinct MI355X" in (tmp_path / "llama-3-8b.md").read_text()


def _readme_gpu_rows() -> dict[str, list[str]]:
    text = open("README.md", encoding="utf-8").read()
    section = text[text.index("## GPUs") : text.index("## Layout")]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `([a-z0-9.-]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    return rows


def test_readme_gpu_table_lists_every_gpu_as_the_catalog_says():
    rows = _readme_gpu_rows()
    shipped = {p.stem for p in Path("hardware").glob("*.yaml")}  # (a user's file joins the table)
    assert set(rows) == shipped and len(shipped) >= 21
    num = lambda x: f"{x:,g}" if x else "—"  # noqa: E731
    for gpu_id in shipped:
        g = catalog.gpus()[gpu_id]
        memory, hbm, peaks, link, watts, price, source = rows[gpu_id]
        assert memory == f"{g.memory_gb:,g} / {g.memory_mib}", gpu_id
        assert hbm == f"{g.hbm_bandwidth_tb_per_s:g}", gpu_id
        flops = (g.bf16_dense_tflops, g.fp8_dense_tflops, g.fp4_dense_tflops)
        assert peaks == " / ".join(num(x) for x in flops), gpu_id
        assert (link, watts) == (f"{g.interconnect_gb_per_s:,g}", f"{g.tdp_w:,g}"), gpu_id
        listed = f"{g.price_usd_per_gpu_hour:g} ({g.price_provider} {g.price_rate_type}, {g.price_date})"
        assert price == (listed if g.prices else "no public price"), gpu_id
        assert source and (source in " ".join(g.sources.values())), gpu_id
