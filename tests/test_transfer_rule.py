"""The transfer rule (measurements/transfer.yaml, calibration.Fit.for_gpu): a GPU without its own
fit takes the figures of its vendor, architecture and memory class, else its vendor and
architecture, else its vendor, else every measured GPU's; never a median of GPUs outside it.
Expected memory classes come from the GPUs' datasheets as transcribed in hardware/<id>.yaml."""

import re
from pathlib import Path

import pytest

from ledgerbuild import calibration

HARDWARE = Path(__file__).resolve().parents[1] / "hardware"


@pytest.mark.parametrize("gpu", sorted(calibration.families()))
def test_memory_class_is_the_datasheets(gpu):
    text = (HARDWARE / f"{gpu}.yaml").read_text(encoding="utf-8")
    named = {m.upper() for m in re.findall(r"\b(HBM|GDDR)\d", text, flags=re.IGNORECASE)}
    assert named == {calibration.families()[gpu][2]}, (gpu, named)


def test_rtx_pro_6000_and_b200_are_blackwell_of_different_memory():
    b200, rtx = calibration.family_keys("b200"), calibration.family_keys("rtx-pro-6000")
    assert [k for k, _ in b200] == ["NVIDIA Blackwell HBM", "NVIDIA Blackwell or HBM", "NVIDIA"]
    assert b200[0][1] == {"b200", "gb200", "b300", "gb300"}  # Blackwell Ultra: HBM3e too
    assert rtx[0] == ("NVIDIA Blackwell GDDR", {"rtx-pro-6000"})
    # its architecture (B200, GB200) or its memory class (the GDDR GPUs of every generation)
    assert rtx[1][1] == {"b200", "gb200", "b300", "gb300", "rtx-pro-6000", "l40s", "l4", "rtx-4090", "a10g"}
    assert "mi300x" not in rtx[2][1] and "h100-sxm" in rtx[2][1]


def test_every_catalog_gpu_is_in_the_rule():
    """A catalog GPU missing from transfer.yaml would be its own family and take the fit over every
    measured GPU, not its architecture's (B300, GB300, H20, MI350X and MI355X did until 2026-12-06)."""
    # the catalog's files, not catalog.gpus(): another test may have registered a GPU of its own
    shipped = {p.stem for p in HARDWARE.glob("*.yaml")}
    assert shipped and shipped <= set(calibration.families()), shipped - set(calibration.families())


def test_the_newest_gpus_take_their_architectures_fits():
    assert calibration.family_keys("b300")[0][1] >= {"b200", "gb200"}
    assert calibration.family_keys("h20")[0][1] >= {"h100-sxm", "h200-sxm"}
    # CDNA 4 has no measured GPU: its architecture or its memory class, the CDNA 3 HBM GPUs
    assert calibration.family_keys("mi355x")[1][1] >= {"mi300x", "mi325x"}


def test_a_gpu_missing_from_the_rule_is_its_own_family():
    assert {m for _, m in calibration.family_keys("no-such-gpu")} == {frozenset({"no-such-gpu"})}


def test_a_family_of_one_falls_back_to_the_next_level_by_the_rule():
    hbm, arch, vendor, shared = ({"mfu": x} for x in (0.3, 0.4, 0.5, 0.6))
    families = {"NVIDIA Blackwell HBM": hbm, "NVIDIA Blackwell or GDDR": arch, "NVIDIA": vendor}
    fit = calibration.Fit(shared, {}, [], families)
    assert fit.for_gpu("gb200") == (hbm, "the NVIDIA Blackwell HBM GPUs' fit")
    assert fit.for_gpu("rtx-pro-6000") == (arch, "the NVIDIA Blackwell or GDDR GPUs' fit")
    assert fit.for_gpu("l40s") == (vendor, "the NVIDIA GPUs' fit")
    assert fit.for_gpu("mi300x") == (shared, "every measured GPU's fit")
