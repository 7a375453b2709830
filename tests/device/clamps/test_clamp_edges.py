"""CLIP, CLIP1 and THRESHOLD on the edges (docs/operators/element_wise_clip.md, "Where the pages are silent"):

* at FLOAT32 and FLOAT16 every special value (ext_cases.edge_values: ±0, subnormals, the largest finite, ±infinity,
  quiet and signalling NaNs with payloads) against bound sets that are signed zeros, reversed (Min > Max), or
  non-finite (an infinite bound with a NaN one), the result the pages' formulas give with D3D's min and max;
* at every integer type MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX and the values around the bounds: CLIP with
  fractional FLOAT bounds, negative for the unsigned types and beyond the narrower types' range; CLIP1 with the
  type's own MIN and MAX as bounds, reversed, and (INT64, UINT64) beyond 2^53; THRESHOLD with a NaN Min (ignored);
* ScaleBias saturating an integer result, in place.

A default run leaves FLOAT16's non-finite bound sets and the 16-bit integer types to --run-slow (each data type and
bound set is a program to compile on every device).

References: the rows' clamp_reference (tests/helpers/rows_clamps.py: ScaleBias, FLOAT bounds converted as
row_model.to_integer says) around the pages' formulas written with the binary rows' D3D min and max
(tests/helpers/operators.py, which also choose between two zeros as D3D does); the documented choices are written
out beside them. One graph per data type and bound set runs the three clamps of one input (one fused program); the
operator rows check that a fused graph gives each operator's bits alone."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE, INTEGER_DTYPES
from tests.helpers.ext_cases import edge_values
from tests.helpers.ext_oracle import describe, format_of, mismatches
from tests.helpers.object_model import run_unary
from tests.helpers.operators import BINARY_FLOAT, row_of, unary_descriptor
from tests.helpers.row_model import F16, F32, Array, Case, Reference
from tests.helpers.rows_clamps import ABS, CLIP, CLIP1, SCALE_BIAS, THRESHOLD, clamp_reference

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

INF, NAN = math.inf, math.nan
D3D_MIN, D3D_MAX = BINARY_FLOAT["MIN"], BINARY_FLOAT["MAX"]


def _bound(x: Array, value: Any) -> Array:
    return np.full(x.shape, value, x.dtype)


def clip_formula(x: Array, bounds: list[Any]) -> Array:
    """CLIP's page: min(Max, max(Min, x))."""
    low, high = (_bound(x, b) for b in bounds)
    return D3D_MIN(high, D3D_MAX(low, x, x.dtype), x.dtype)


def clip1_formula(x: Array, bounds: list[Any]) -> Array:
    """CLIP1's page: max(Min, min(x, Max))."""
    low, high = (_bound(x, b) for b in bounds)
    return D3D_MAX(low, D3D_MIN(x, high, x.dtype), x.dtype)


def threshold_formula(x: Array, bounds: list[Any]) -> Array:
    """THRESHOLD's page: max(x, Min)."""
    return D3D_MAX(x, _bound(x, bounds[0]), x.dtype)


def reference(desc: Any, bounds: list[Any], x: Array, scale_bias: dml.ScaleBias | None = None) -> Array:
    """``desc`` on ``x`` with ``bounds`` (FLOATs for CLIP and THRESHOLD, the type's own for CLIP1)."""
    formula = {CLIP: clip_formula, CLIP1: clip1_formula, THRESHOLD: threshold_formula}[desc]
    compute: Reference = clamp_reference(formula, lambda case: bounds, typed=desc is CLIP1)
    options = {} if scale_bias is None else {"scale_bias": scale_bias}
    return compute({"input_tensor": x}, Case({"input_tensor": x.dtype, "output_tensor": x.dtype}, options))


Node = tuple[Any, list[Any]]
BUILDERS: dict[Any, Callable[..., Any]] = {CLIP: dml.graph.clip, CLIP1: dml.graph.clip1, THRESHOLD: dml.graph.threshold}


def run_clamps(device: Any, x: Array, nodes: list[Node]) -> list[Array]:
    """Each (clamp, bounds) of ``nodes`` on ``x``, one graph of one input, fused into one kernel."""
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[x.dtype], sizes=x.shape))
    compiled = g.compile([BUILDERS[desc](xi, *bounds) for desc, bounds in nodes])
    assert compiled.kernel_count == 1
    results = compiled(x)
    return list(results) if isinstance(results, tuple) else [results]


# ---------------------------------------------------------------------------------------------------- floats

FLOAT_BOUNDS = {
    "signed zeros": (-0.0, 0.0),
    "reversed": (2.5, -1.5),
    "-inf and NaN": (-INF, NAN),
    "NaN and +inf": (NAN, INF),
}
"""(Min, Max) of CLIP and CLIP1; THRESHOLD takes Min."""
NAN_GIVES = {
    "signed zeros": (-0.0, -0.0, -0.0),  # CLIP1: min(NaN, +0) is +0, then max(-0, +0) keeps -0
    "reversed": (-1.5, 2.5, 2.5),
    "-inf and NaN": (-INF, -INF, -INF),
    "NaN and +inf": (INF, INF, NAN),
}
"""What a NaN input gives, written out from the table of element_wise_clip.md: CLIP and THRESHOLD Min, CLIP1 Max
(reversed: CLIP Max, CLIP1 Min); a NaN bound is ignored, so with two NaNs a NaN."""


FLOAT_CASES = [
    pytest.param(dtype, bounds, marks=pytest.mark.slow if dtype == F16 and "NaN" in bounds else ())
    for dtype in (F32, F16)
    for bounds in FLOAT_BOUNDS
]
"""Every bound set at FLOAT32; at FLOAT16, whose clamps are FLOAT32's between a half load and a half store, the
non-finite sets with --run-slow only (each set is a program to compile)."""


@pytest.mark.parametrize(("dtype", "bounds"), FLOAT_CASES, ids=str)
def test_float_special_values(device: Any, dtype: np.dtype[Any], bounds: str) -> None:
    low, high = FLOAT_BOUNDS[bounds]
    bits = format_of(dtype).bits_dtype
    x = edge_values(format_of(dtype))
    nodes: list[Node] = [(CLIP, [low, high]), (CLIP1, [low, high]), (THRESHOLD, [low])]
    results = run_clamps(device, x, nodes)
    for (desc, values), got, written in zip(nodes, results, NAN_GIVES[bounds], strict=True):
        want = reference(desc, values, x)
        wrong = mismatches(got, want, nan="any")
        assert wrong.size == 0, f"{desc.OPERATOR_TYPE.name} {values}\n" + describe(wrong, x, got, want)
        at_nan = got[np.isnan(x)]
        assert at_nan.size >= 8
        if math.isnan(written):
            assert np.isnan(at_nan).all(), (desc.OPERATOR_TYPE.name, at_nan)
        else:  # bit for bit: -0 is not +0
            assert (at_nan.view(bits) == np.array(written, dtype).view(bits)).all(), (desc.OPERATOR_TYPE.name, at_nan)
    if bounds == "reversed":  # Min > Max: CLIP gives Max and CLIP1 Min, whatever the input
        clip, clip1, _ = results
        assert (clip == dtype.type(high)).all() and (clip1 == dtype.type(low)).all()
    if bounds == "signed zeros":  # D3D's ties: max keeps its first operand, min its second
        zeros = np.flatnonzero(x == 0)
        clip, clip1, threshold = (np.signbit(result[zeros]) for result in results)
        assert clip.all() and clip1.all()  # CLIP and CLIP1 of either zero: -0
        assert np.array_equal(threshold, np.signbit(x[zeros]))  # THRESHOLD keeps x's zero


# -------------------------------------------------------------------------------------------------- integers

CLIP_FLOAT_BOUNDS = [-7.9, 2.5e9]
"""CLIP's FLOAT bounds on integers: -7 toward zero (0 for unsigned types), and 2.5e9 (exact in float32), beyond
the range of the types up to INT32 and inside UINT32's, INT64's and UINT64's."""


def integer_inputs(dtype: np.dtype[Any]) -> Array:
    """MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX and the values around every bound of integer_nodes, as the type holds
    them."""
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    around = [-8, -7, -6, 2, 2_499_999_999, 2_500_000_000, 2_500_000_001, 2**53, 2**53 + 1, 2**53 + 2]
    around += [-(2**53) - 2, -(2**53) - 1, -(2**53), 2**64 - 3, 2**64 - 2]
    values = {low, low + 1, -1, 0, 1, high - 1, high, *around}
    return np.array(sorted(v for v in values if low <= v <= high), dtype)


def integer_nodes(dtype: np.dtype[Any]) -> list[Node]:
    """CLIP with CLIP_FLOAT_BOUNDS; CLIP1 with the type's MIN and MAX, reversed, and a narrower pair (INT64 and
    UINT64: beyond 2^53, which neither a float nor a double holds); CLIP with infinite bounds (saturated to MIN and
    MAX); THRESHOLD (8 to 32 bits) with a NaN Min."""
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    narrow = {8: [-(2**53) - 1, 2**53 + 1] if dtype.kind == "i" else [2**53 + 1, 2**64 - 2]}.get(
        dtype.itemsize, [low + 1, high - 1]
    )
    nodes: list[Node] = [(CLIP, CLIP_FLOAT_BOUNDS), (CLIP1, [low, high]), (CLIP1, [high, low]), (CLIP1, narrow)]
    return nodes + [(CLIP, [-INF, INF])] + ([(THRESHOLD, [NAN])] if dtype.itemsize < 8 else [])


@pytest.mark.parametrize(
    "dtype", [pytest.param(d, marks=pytest.mark.slow if d.itemsize == 2 else ()) for d in INTEGER_DTYPES], ids=str
)
def test_integer_edges(device: Any, dtype: np.dtype[Any]) -> None:
    x = integer_inputs(dtype)
    nodes = integer_nodes(dtype)
    results = run_clamps(device, x, nodes)
    for (desc, bounds), got in zip(nodes, results, strict=True):
        want = reference(desc, bounds, x)
        assert np.array_equal(got, want), (desc.OPERATOR_TYPE.name, bounds, x, got, want)
    info = np.iinfo(dtype)
    clip, identity, reversed_, narrow, infinite = (results[i].tolist() for i in range(5))
    # written out: -7.9 converts toward zero (0 for unsigned types), 2.5e9 saturates or is exact
    assert clip[0] == (-7 if dtype.kind == "i" else 0)
    assert clip[-1] == min(int(info.max), 2_500_000_000)
    assert identity == x.tolist() and infinite == x.tolist() and set(reversed_) == {int(info.max)}
    low, high = integer_nodes(dtype)[3][1]
    assert narrow[0] == low and narrow[-1] == high  # exact, 2^53 + 1 included
    if len(results) == 6:  # THRESHOLD with a NaN Min clamps nothing, as on floats and with ScaleBias
        assert results[5].tolist() == x.tolist()


# --------------------------------------------------------------------------------------- ScaleBias, in place


def test_abs_with_scale_bias_saturates_in_place(device: Any) -> None:
    x = np.arange(-128, 128, dtype=np.int8)
    desc = unary_descriptor(ABS, (x.size,), np.int8, scale_bias=SCALE_BIAS)
    run = run_unary(device, desc, x.dtype, lambda n: x[:n], in_place=True)
    case = Case({"input_tensor": x.dtype, "output_tensor": x.dtype}, {"scale_bias": SCALE_BIAS})
    assert np.array_equal(run.got, row_of(ABS).reference({"input_tensor": x}, case))
    # |-128 * 1.5 - 0.25| = 192.25 saturates to 127, where abs(-128) without ScaleBias wraps to -128
    assert run.got[0] == 127 and run.got[-1] == 127 and run.changed_outside == []


def test_clip1_with_scale_bias_saturates_then_clamps_in_place(device: Any) -> None:
    info = np.iinfo(np.int32)
    bounds = [int(info.min) + 1, int(info.max) - 1]
    scale_bias = dml.ScaleBias(scale=4096.0, bias=0.5)
    x = integer_inputs(np.dtype(np.int32))
    desc = unary_descriptor(
        CLIP1,
        (x.size,),
        np.int32,
        scale_bias=scale_bias,
        min_max_data_type=dml.TensorDataType.INT32,
        min=dml.ScalarUnion(int32=bounds[0]),
        max=dml.ScalarUnion(int32=bounds[1]),
    )
    run = run_unary(device, desc, x.dtype, lambda n: x[:n], in_place=True)
    assert np.array_equal(run.got, reference(CLIP1, bounds, x, scale_bias))
    # x * 4096 beyond INT32's range saturates to MIN or MAX, then clamps to MIN + 1 or MAX - 1; 1 -> 4096.5 -> 4096
    got = dict(zip(x.tolist(), run.got.tolist(), strict=True))
    assert got[int(info.min)] == bounds[0] and got[int(info.max)] == bounds[1] and got[1] == 4096
