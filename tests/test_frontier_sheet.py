"""The Frontier sheet where the Sweeps model fits on none of the workbook's GPUs.

DeepSeek-R1 has 671B parameters (its model card; models/deepseek-r1.yaml `total: 671B`): at
one byte per parameter or more its weights alone exceed eight 80 GB H100 SXM (640 GB,
NVIDIA's H100 datasheet) and eight 24 GB L4 (192 GB, NVIDIA's L4 datasheet), the largest
layout the Frontier tries (tensor parallel 8). The workbook is written without the Frontier
and FrontierCalc sheets; before, the views' pass looked the absent Frontier sheet up and the
command ended in a StopIteration traceback.
"""

import openpyxl
from typer.testing import CliRunner

from ledgerbuild.cli import app
from ledgerbuild.writers.xlsx import build_workbook


def test_a_sweep_model_that_fits_nowhere_has_no_frontier_sheet(tmp_path):
    out = tmp_path / "ledger.xlsx"
    result = CliRunner().invoke(app, ["xlsx", "--models", "deepseek-r1", "--gpu", "l4", "-o", str(out)])
    assert result.exit_code == 0, result.output
    names = openpyxl.load_workbook(out, read_only=True).sheetnames
    assert "Frontier" not in names and "FrontierCalc" not in names
    assert "Summary" in names


def test_the_frontier_cells_are_in_the_manifest_once_each():
    """The Frontier's references and FrontierCalc's stamped block each name one cell."""
    _, cells, _ = build_workbook("llama-3-8b", "h100-sxm,l40s", {})
    frontier = [(c.sheet, c.coord) for c in cells if c.sheet in ("Frontier", "FrontierCalc")]
    assert {sheet for sheet, _ in frontier} == {"Frontier", "FrontierCalc"}
    assert len(frontier) == len(set(frontier))
