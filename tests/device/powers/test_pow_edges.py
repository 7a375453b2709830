"""POW's and CONSTANT_POW's edges, one launch per operator and type over a whole array of them (the row's own
program; the types the row leaves to --run-slow slow here too):

* floats: every pair of special values (signed zeros, subnormals, infinities, NaNs, the largest finite) and small
  integral and halved exponents with negative bases, within FLOAT32_ULPS of float64 pow, and C99 Annex F's exact
  cases written out (pow(x, +-0) = 1 and pow(1, y) = 1 for a NaN too, pow(-1, +-inf) = 1, a negative base with a
  non-integral exponent NaN, a sign by parity);
* integers: each type's edges to exponents -3 to 33 and the exponent type's ends, wrapped products and negative
  exponents written out;
* an integer base with a float exponent (computed in float, converted toward zero, saturated, NaN to 0) on results
  far from an integer, which a bounded pow cannot move across one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.binary.pairs import cross_product, float_specials, integer_edges
from tests.helpers.ext_oracle import describe
from tests.helpers.object_model import run_operator
from tests.helpers.operators import descriptor, row_of
from tests.helpers.row_model import F16, F32, Case
from tests.helpers.row_runs import run_on
from tests.helpers.ulps import within_ulps

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

Array = np.ndarray[Any, Any]
POW = row_of(dml.ElementWisePowOperatorDesc)


def _cases(kind: str) -> list[Any]:
    params = []
    for case in POW.cases:
        base, exponent = case.dtypes["input_tensor"], case.dtypes["exponent_tensor"]
        if (
            "scale_bias" in case.options
            or (base.kind == "f") != (kind == "f")
            or (kind == "f") != (exponent.kind == "f")
        ):
            continue
        marks = pytest.mark.slow if case.id in POW.slow_cases else ()
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def _float_operands(dtype: np.dtype[Any]) -> tuple[Array, Array]:
    specials = float_specials(dtype)
    base, exponent = cross_product(specials)
    bases = np.array([-8.0, -2.0, -1.0, -0.5, 0.5, 2.0, 10.0], dtype=dtype)
    powers = np.array([-3.0, -2.0, -1.0, 0.5, 1 / 3, 1.0, 2.0, 3.0, 2.5, 64.0, -64.0], dtype=dtype)
    more_base, more_exponent = (grid.reshape(-1) for grid in np.meshgrid(bases, powers, indexing="ij"))
    return np.concatenate([base, more_base]), np.concatenate([exponent, more_exponent])


@pytest.mark.parametrize("case", _cases("f"))
def test_float_powers_of_every_pair_of_special_values(device: Any, case: Case) -> None:
    dtype = case.dtypes["input_tensor"]
    base, exponent = _float_operands(dtype)
    exponent = exponent.astype(case.dtypes["exponent_tensor"])
    got, exact = run_on(device, POW, case, {"input_tensor": base, "exponent_tensor": exponent})
    wrong = within_ulps(got, exact, POW.ulps(dtype))
    assert wrong.size == 0, f"exponents {exponent[wrong[:12]]}\n" + describe(wrong, base, got, exact.astype(dtype))
    nan = dtype.type(np.nan)
    written = {  # C99 Annex F (F.9.4.4), which OpenCL's pow follows
        (nan, 0.0): 1.0,
        (nan, -0.0): 1.0,
        (1.0, nan): 1.0,
        (-1.0, np.inf): 1.0,
        (-1.0, -np.inf): 1.0,
        (-8.0, 1 / 3): np.nan,
        (-2.0, 3.0): -8.0,
        (-2.0, 2.0): 4.0,
        (-0.0, -1.0): -np.inf,
        (0.0, -2.0): np.inf,
    }
    pairs = np.array(list(written), dtype=dtype)
    inputs = {"input_tensor": pairs[:, 0].copy(), "exponent_tensor": pairs[:, 1].astype(case.dtypes["exponent_tensor"])}
    got, _ = run_on(device, POW, case, inputs)
    np.testing.assert_array_equal(got, np.array(list(written.values()), dtype=dtype))


@pytest.mark.parametrize("case", _cases("iu"))
def test_integer_powers_of_the_edges(device: Any, case: Case) -> None:
    dtype, exponent_type = case.dtypes["input_tensor"], case.dtypes["exponent_tensor"]
    info = np.iinfo(exponent_type)
    counts = np.array([n for n in range(-3, 34) if info.min <= n] + [info.min, info.max], dtype=exponent_type)
    base, exponent = (grid.reshape(-1) for grid in np.meshgrid(integer_edges(dtype), counts, indexing="ij"))
    got, want = run_on(device, POW, case, {"input_tensor": base, "exponent_tensor": exponent})
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, [(base[i], exponent[i], got[i], want[i]) for i in wrong[:12]]
    if np.iinfo(dtype).min and info.min:  # signed base and exponent: wraps and negative exponents written out
        written = {(2, 7): 128, (-1, -3): -1, (-1, -2): 1, (1, -5): 1, (0, -1): -1, (2, -1): 0, (3, 0): 1, (0, 0): 1}
        pairs = np.array(list(written))
        inputs = {"input_tensor": pairs[:, 0].astype(dtype), "exponent_tensor": pairs[:, 1].astype(exponent_type)}
        got, _ = run_on(device, POW, case, inputs)
        expected = np.array(list(written.values())).astype(dtype)  # 2^7 wraps to -128 in INT8
        np.testing.assert_array_equal(got, expected)


def test_integer_base_with_a_float_exponent_truncates_a_float_power(device: Any) -> None:
    base = np.array([2, 3, -8, 2, 7, 10, 5, -2, 9], np.int16)
    exponent = np.array([0.5, 1.5, 1 / 3, 40.0, 2.5, -1.0, np.nan, 15.5, 0.25], np.float32)
    dtypes = {"input_tensor": base.dtype, "exponent_tensor": exponent.dtype, "output_tensor": base.dtype}
    desc = descriptor(POW, base.shape, dtypes)
    run = run_operator(device, desc, {"input_tensor": lambda n: base[:n], "exponent_tensor": lambda n: exponent[:n]})
    # 1.414 -> 1, 5.196 -> 5, NaN (a negative base, a non-integral exponent) -> 0, 2^40 saturates, 129.64 -> 129,
    # 0.1 -> 0, 5^NaN = NaN -> 0, (-2)^15.5 = NaN -> 0, 1.732 -> 1
    np.testing.assert_array_equal(run.got, np.array([1, 5, 0, 32767, 129, 0, 0, 0, 1], np.int16))


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_constant_pow_of_the_special_values(device: Any, dtype: np.dtype[Any]) -> None:
    row = row_of(dml.ElementWiseConstantPowOperatorDesc)
    (case,) = [c for c in row.cases if c.dtypes["input_tensor"] == dtype and c.id not in row.slow_cases]
    x = np.concatenate([float_specials(dtype), np.array([-8.0, -2.0, -1.0, 0.5, 2.0, 10.0], dtype=dtype)])
    desc = descriptor(row, x.shape, case.dtypes, **case.options)  # run_on's descriptor has no Exponent
    got = run_operator(device, desc, {"input_tensor": lambda n: x[:n]}).got
    exact = row.reference({"input_tensor": x}, case)
    wrong = within_ulps(got, exact, row.ulps(dtype))
    assert wrong.size == 0, describe(wrong, x, got, exact.astype(dtype))
