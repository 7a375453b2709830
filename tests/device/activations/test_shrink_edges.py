"""ACTIVATION_SHRINK on the edges (docs/operators/activation_piecewise.md, "Where the pages are silent"), each
data type one graph: one input, seven SHRINK nodes of different Bias and Threshold, one fused kernel, so one
program per type:

* at FLOAT32 and FLOAT16 every special value (ext_cases.edge_values: ±0, subnormals, the largest finite, ±infinity,
  quiet and signalling NaNs with payloads) and the values at and next to ±Threshold, through DirectMLX's defaults
  (Bias 0, Threshold 0.5), a negative Threshold (both comparisons hold: the page's first, x - Bias, wins), an
  infinite Threshold (all 0), a NaN Bias and Threshold, an infinite Bias;
* at FLOAT16 a Bias whose sums with ±1 and ±1.5, rounded to float, land on ties between halves: the results are
  the nearest halves (rounded once, as dmlpy's sum rounded to odd gives), not the ties' even neighbours;
* at INT8 and UINT8 (the other integers with --run-slow) every value of the type through a fractional Bias (the
  exact sum truncated toward zero), a negative Threshold and Bias, a Bias past the type's range and 2**40
  (saturated), a NaN Bias (0), an infinite Bias, a Threshold past the range (all 0) and one below it (every x
  shifted).

Reference: the row's (tests/helpers/rows_activations.py: the sum in float64, rounded once; for integers Python's
exact comparison of an int with a float and ``fractions.Fraction`` sums); the results the module's rules write out
are asserted as written beside them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.ext_cases import edge_values
from tests.helpers.ext_oracle import describe, format_of, mismatches
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Array, Case
from tests.helpers.rows_activations import I8, I16, I32, U8, U16, U32

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

INF, NAN = math.inf, math.nan
FLOAT_PARAMETERS = ((0.0, 0.5), (1.5, 0.5), (-0.25, -1.0), (0.5, INF), (NAN, 0.5), (1.0, NAN), (INF, 2.0))
"""(Bias, Threshold) of the float graph's nodes."""
INTEGER_PARAMETERS = ((1.5, 0.5), (-2.75, -1.0), (1e20, 2.5), (NAN, 0.5), (-INF, 0.0), (0.0, 1e30), (0.5, -1e30))
"""(Bias, Threshold) of the integer graph's nodes."""
SHRINK = dml.ActivationShrinkOperatorDesc


def _shrunk(device: Any, x: Array, parameters: tuple[tuple[float, float], ...]) -> list[Array]:
    """x through one SHRINK node per (Bias, Threshold), every node in one fused kernel; each result checked against
    the row's reference."""
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[x.dtype], sizes=x.shape))
    compiled = g.compile([dml.graph.activation_shrink(xi, bias=b, threshold=t) for b, t in parameters])
    assert compiled.kernel_count == 1
    outputs = compiled(x)
    results = list(outputs) if isinstance(outputs, tuple) else [outputs]
    for (bias, threshold), got in zip(parameters, results, strict=True):
        case = Case({"input_tensor": x.dtype, "output_tensor": x.dtype}, {"bias": bias, "threshold": threshold})
        want = row_of(SHRINK).reference({"input_tensor": x}, case)
        where = f"Bias {bias}, Threshold {threshold}"
        if x.dtype.kind == "f":
            wrong = mismatches(got, want, nan="any")
            assert wrong.size == 0, f"{where}\n" + describe(wrong, x, got, want)
        else:
            wrong = np.flatnonzero(got != want)
            assert wrong.size == 0, f"{where}: x {x[wrong][:8]} gave {got[wrong][:8]}, not {want[wrong][:8]}"
    return results


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_special_values_and_thresholds(device: Any, dtype: np.dtype[Any]) -> None:
    at = np.array([0.5, -0.5, 1.0, -1.0, 2.0, -2.0], dtype)
    x = np.concatenate([edge_values(format_of(dtype)), at, np.nextafter(at, dtype.type(INF)), np.nextafter(at, -INF)])
    default, shifted, negative, infinite, nan_bias, nan_threshold, infinite_bias = _shrunk(device, x, FLOAT_PARAMETERS)
    bits = format_of(dtype).bits_dtype

    def value(results: Array, v: float) -> Any:
        found = results[np.isnan(x)] if math.isnan(v) else results[x.view(bits) == np.array(v, dtype).view(bits)]
        assert found.size >= 1 and (found.view(bits) == found[0].view(bits)).all(), (v, found)
        return found[0]

    # strict: ±Threshold gives +0; a NaN x fails both comparisons, +0; ±inf shift by Bias and stay infinite
    for results in (default, shifted):
        for v in (0.5, -0.5, NAN, -0.0):
            assert value(results, v).view(bits) == 0, v
    assert value(shifted, 1.0) == -0.5 and value(shifted, -1.0) == 0.5 and value(shifted, -INF) == -INF
    # Threshold -1: x > -1 and x < 1 both hold between them; the page's first, x - Bias, wins
    assert value(negative, 0.5) == 0.75 and value(negative, -0.5) == -0.25 and value(negative, -2.0) == -2.25
    assert not infinite.view(bits).any()  # |x| > inf for no x (inf > inf is false): every result +0
    assert np.isnan(nan_bias[np.abs(x.astype(F32)) > 0.5]).all()  # x - NaN
    assert not nan_threshold.view(bits).any()  # no comparison with a NaN holds: every result +0
    assert np.isnan(value(infinite_bias, INF)) and np.isnan(value(infinite_bias, -INF))  # inf - inf


def test_float16_sum_is_rounded_once(device: Any) -> None:
    """x - Bias with Bias -(2^-11 + 2^-34) at x = 1 is 1 + 2^-11 + 2^-34: float32's nearest is 1 + 2^-11, the tie
    between halves 1 and 1 + 2^-10, which a second rounding (ties to even) would take to 1; the nearest half is
    1 + 2^-10. Likewise at -1 (x + Bias) and ±1.5 (whose tie goes to 1.5 rounding twice)."""
    x = np.concatenate([edge_values(format_of(F16)), np.array([1.0, -1.0, 1.5, -1.5], F16)])
    (got,) = _shrunk(device, x, ((-(2.0**-11 + 2.0**-34), 0.5),))
    nearest = [1 + 2.0**-10, -1 - 2.0**-10, 1.5 + 2.0**-10, -1.5 - 2.0**-10]
    assert got[-4:].tolist() == nearest


INTEGERS = [I8, U8, *(pytest.param(d, marks=pytest.mark.slow) for d in (I16, I32, U16, U32))]


@pytest.mark.parametrize("dtype", INTEGERS, ids=str)
def test_integers_take_bias_and_threshold_as_real_numbers(device: Any, dtype: np.dtype[Any]) -> None:
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    if dtype.itemsize == 1:
        x = np.arange(low, high + 1).astype(dtype)
    else:
        near = [low, low + 1, low + 2, -3, -2, -1, 0, 1, 2, 3, high - 2, high - 1, high]
        x = np.array(sorted({v for v in near if low <= v <= high}), dtype)
    fraction, negative, huge, nan_bias, infinite_bias, above, below = _shrunk(device, x, INTEGER_PARAMETERS)
    at = {int(v): i for i, v in enumerate(x)}
    # Bias 1.5, Threshold 0.5: 3 - 1.5 = 1.5 -> 1, 1 - 1.5 = -0.5 -> 0, MAX - 1.5 -> MAX - 2 (truncated toward 0)
    assert fraction[at[3]] == 1 and fraction[at[1]] == 0 and fraction[at[0]] == 0 and fraction[at[high]] == high - 2
    if low < 0:  # -3 + 1.5 = -1.5 -> -1, MIN + 1.5 -> MIN + 2
        assert fraction[at[-3]] == -1 and fraction[at[low]] == low + 2
        assert negative[at[low]] == low  # Threshold -1, Bias -2.75: below -1 only x + Bias, saturated
    # Threshold -1 holds x > -1 for every x >= 0 first: 0 + 2.75 -> 2
    assert negative[at[0]] == 2 and negative[at[high]] == high
    assert huge[at[3]] == low and huge[at[0]] == 0  # 3 - 1e20 saturates to MIN; |0| <= 2.5
    assert not nan_bias.any()  # x - NaN converts to 0
    assert infinite_bias[at[0]] == 0 and infinite_bias[at[1]] == high  # 1 - -inf saturates to MAX
    assert not above.any()  # |x| > 1e30 for no x
    assert below[at[0]] == 0 and below[at[high]] == high - 1  # Threshold -1e30: every x is x - 0.5, truncated
