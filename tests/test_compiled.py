"""The compiled float path (ledgerbuild/compiled.py) against the exact sympy-rational
evaluation it is generated from: every quantity of every catalog model in several scenarios,
equal exactly where the exact value is an integer and the compiled one an int, else to a
relative 1e-12."""

import math

import pytest

from ledgerbuild import catalog
from ledgerbuild.compiled import python_source
from ledgerbuild.evaluate import Evaluator, to_plain

SCENARIOS = [
    {},
    {"gpu": "b200", "weight_dtype": "fp8", "kv_dtype": "fp8"},
    {"gpu": "l4", "gpu_count": "8", "price_per_gpu_hour": "0.8", "max_batch": "7"},
    {"weight_dtype": "nvfp4", "workload": "reasoning", "time_model": "roofline"},
]


@pytest.mark.parametrize("sets", SCENARIOS, ids=["default", "b200-fp8", "l4x8", "nvfp4"])
def test_compiled_equals_exact_for_every_quantity(sets):
    checked = 0
    for model in catalog.models():
        evaluator = Evaluator(sets)
        exact = evaluator.evaluate(model)
        fast = evaluator.evaluate_floats(*catalog.load_model(model))
        for q in exact.quantities:
            want, got = to_plain(exact.values[q.name]), fast[q.name]
            if isinstance(want, int) and isinstance(got, int):
                assert got == want, (model, q.name)
            else:
                assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300), (model, q.name)
            checked += 1
    assert checked > 4000  # 26 models x ~170 quantities


def test_a_value_set_on_the_command_line_is_kept():
    fast = Evaluator({"kv_bytes_per_token": "1000"}).evaluate_floats(*catalog.load_model("llama-3-8b"))
    exact = Evaluator({"kv_bytes_per_token": "1000"}).evaluate("llama-3-8b")
    assert fast["kv_bytes_per_token"] == 1000
    assert math.isclose(fast["max_concurrency"], to_plain(exact.value("max_concurrency")))


def test_an_unknown_node_is_refused_at_compile_time():
    import sympy as sp

    with pytest.raises(TypeError, match="no compiled form"):
        python_source(sp.sin(sp.Symbol("x")))
