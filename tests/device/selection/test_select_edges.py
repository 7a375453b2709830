"""Edges the rows' random pairs may miss, one launch per operator and type over a whole cross product (the row's own
program; the types the rows leave to --run-slow slow here too):

* the remainders at FLOAT32 and FLOAT16: every pair of special values (signed zeros, subnormals, infinities, NaNs,
  the largest finite), against NumPy's fmod and remainder; at every integer type every pair of MIN, MIN + 1, -1,
  0, 1, 2, MAX - 1 and MAX (x % 0 with all bits set, MIN % -1 = 0), with results written out: -7 mod 3 is -1
  truncated and 2 floored, 7 mod -3 is 1 and -2;
* ATAN_YX on every pair of special values, within its bound of float64 arctan2 (C99 Annex F's signed zeros and
  multiples of pi at the origin and the infinities);
* IF at every type, each side chosen evenly, by condition bytes 0, 1 and 255, the chosen element's bits unchanged."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.binary.pairs import cross_product, float_specials, integer_edges
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Case, OperatorRow
from tests.helpers.row_runs import run_on
from tests.helpers.rows_bits import encoding
from tests.helpers.ulps import within_ulps

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

Array = np.ndarray[Any, Any]
REMAINDERS = (dml.ElementWiseModulusTruncateOperatorDesc, dml.ElementWiseModulusFloorOperatorDesc)


def cases_of(descs: tuple[Any, ...]) -> list[Any]:
    params = []
    for desc in descs:
        row = row_of(desc)
        for case in row.cases:
            marks = pytest.mark.slow if case.id in row.slow_cases else ()
            params.append(pytest.param(row, case, id=f"{desc.OPERATOR_TYPE.name}-{case.id}", marks=marks))
    return params


WRITTEN = {  # (a, b) -> truncated, floored remainder
    (-7, 3): (-1, 2),
    (7, -3): (1, -2),
    (-7, -3): (-1, -1),
    (7, 3): (1, 1),
}


@pytest.mark.parametrize(("row", "case"), cases_of(REMAINDERS))
def test_remainders_of_every_pair_of_edges(device: Any, row: OperatorRow, case: Case) -> None:
    dtype = case.dtypes["a_tensor"]
    floor = row.desc is dml.ElementWiseModulusFloorOperatorDesc
    a, b = cross_product(float_specials(dtype) if dtype.kind == "f" else integer_edges(dtype))
    got, want = run_on(device, row, case, {"a_tensor": a, "b_tensor": b})
    if dtype.kind == "f":
        wrong = mismatches(got, want, nan="any")
        assert wrong.size == 0, f"B = {b[wrong[:12]]}\n" + describe(wrong, a, got, want)
    else:
        wrong = np.flatnonzero(got != want)
        assert wrong.size == 0, [(a[i], b[i], got[i], want[i]) for i in wrong[:12]]
        all_ones = -1 if np.iinfo(dtype).min else int(np.iinfo(dtype).max)
        assert set(got[b == 0].tolist()) == {all_ones}
        if np.iinfo(dtype).min:
            assert got[(a == np.iinfo(dtype).min) & (b == -1)].tolist() == [0]
    if dtype.kind == "f" or np.iinfo(dtype).min:
        pairs = np.array(list(WRITTEN), dtype=dtype)
        got, _ = run_on(device, row, case, {"a_tensor": pairs[:, 0].copy(), "b_tensor": pairs[:, 1].copy()})
        assert got.tolist() == [pair[1 if floor else 0] for pair in WRITTEN.values()]


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_atan_yx_of_every_pair_of_special_values(device: Any, dtype: np.dtype[Any]) -> None:
    row = row_of(dml.ElementWiseAtanYxOperatorDesc)
    (case,) = [c for c in row.cases if c.dtypes["a_tensor"] == dtype]
    a, b = cross_product(float_specials(dtype))
    got, exact = run_on(device, row, case, {"a_tensor": a, "b_tensor": b})
    wrong = within_ulps(got, exact, row.ulps(dtype))
    assert wrong.size == 0, describe(wrong, a, got, exact.astype(dtype))
    origin = (a == 0) & (b == 0)
    # C99 Annex F: atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi
    want = np.where(np.signbit(b[origin]), np.copysign(np.pi, a[origin]), np.copysign(0.0, a[origin]))
    assert np.array_equal(np.signbit(got[origin]), np.signbit(want))
    assert np.allclose(got[origin].astype(np.float64), want, rtol=1e-3, atol=0)


@pytest.mark.parametrize(("row", "case"), cases_of((dml.ElementWiseIfOperatorDesc,)))
def test_if_chooses_either_side_bit_for_bit(device: Any, row: OperatorRow, case: Case) -> None:
    dtype = case.dtypes["a_tensor"]
    bits = encoding(np.zeros(1, dtype)).dtype
    rng = np.random.default_rng(88)
    size = 3000
    a = rng.integers(0, np.iinfo(bits).max, size, dtype=bits, endpoint=True).view(dtype)
    b = rng.integers(0, np.iinfo(bits).max, size, dtype=bits, endpoint=True).view(dtype)
    condition = np.resize(np.array([0, 1, 255, 0, 17, 0], np.uint8), size)
    got, want = run_on(device, row, case, {"condition_tensor": condition, "a_tensor": a, "b_tensor": b})
    np.testing.assert_array_equal(encoding(got), encoding(want))
    np.testing.assert_array_equal(encoding(got)[condition == 0], encoding(b)[condition == 0])
    np.testing.assert_array_equal(encoding(got)[condition != 0], encoding(a)[condition != 0])


def test_the_builders_run_as_one_kernel_equal_to_numpy(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="INT32", sizes=(6,)))
    y = g.input(dml.BufferTensorDesc(data_type="INT32", sizes=(6,)))
    negative = dml.graph.less_than(x, 0)
    chosen = dml.graph.if_(negative, dml.graph.modulus_floor(x, y), dml.graph.modulus_truncate(x, y))
    compiled = device.compile_graph(g.desc_for([chosen]))
    assert compiled.kernel_count == 1
    xs = np.array([-7, 7, -7, 7, 0, -1], np.int32)
    ys = np.array([3, -3, -3, 3, 5, 2], np.int32)
    got = compiled(xs, ys)
    assert got.shape == xs.shape
    np.testing.assert_array_equal(got, np.where(xs < 0, np.remainder(xs, ys), np.fmod(xs, ys)))
