"""Every pair of edge values, for each binary arithmetic operator, where its row's random pairing may miss them:

* FLOAT32 and FLOAT16: the cross product of their special values (signed zeros, the smallest and largest
  subnormals, the smallest normal, 1 and its successor, the largest finite and its predecessor, infinities, quiet
  and signalling NaNs with payloads) and of the values whose sum, product or half-ulp rounds exactly at a boundary
  (max + half an ulp of max overflows by ties to even, its predecessor does not; the square root of the overflow
  and underflow thresholds; 1 + half an ulp of 1), against the row's reference, bit for bit with a NaN as any NaN;
* every integer type of each operator's newest support table: the cross product of MIN, MIN + 1, -1, 0, 1, 2,
  MAX - 1 and MAX (wrapping, x / 0, MIN / -1, the mean of MAX and MAX), against the row's reference and a few
  results written out.

Each operator and type is one launch over the whole cross product, a packed 1-D tensor: the program the row's
value test builds, so these tests add no compile. The integer types the rows leave to --run-slow
(``OperatorRow.slow_cases``) are slow here too."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dmlpy.ops._binary import BinaryArithmeticDesc
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from tests.device.binary.pairs import (
    F16,
    F32,
    Array,
    case_of,
    cross_product,
    float_specials,
    integer_edges,
    operator_name,
)
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.operators import Case, OperatorRow, row_of
from tests.helpers.row_runs import run_on

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles


def run_pairs(device: Any, row: OperatorRow, case: Case, a: Array, b: Array) -> tuple[Array, Array]:
    """The operator on the pairs (a[i], b[i]), one packed 1-D launch; what it wrote and the row's reference."""
    return run_on(device, row, case, {"a_tensor": a, "b_tensor": b})


FLOAT_CASES = [
    pytest.param(desc, dtype, id=f"{operator_name(desc)}-{dtype.name}")
    for desc in ARITHMETIC_OPERATORS
    for dtype in (F32, F16)
]


@pytest.mark.parametrize(("desc", "dtype"), FLOAT_CASES)
def test_float_special_value_pairs(
    device: Any, desc: type[BinaryArithmeticDesc], dtype: np.dtype[Any], tally: Any
) -> None:
    row = row_of(desc)
    a, b = cross_product(float_specials(dtype))
    got, want = run_pairs(device, row, case_of(row, dtype), a, b)
    wrong = mismatches(got, want, nan="any")
    assert wrong.size == 0, f"B = {b[wrong[:12]]}\n" + describe(wrong, a, got, want)
    tally["binary special-value pairs compared"] += got.size


FLOAT_FACTS: dict[str, tuple[tuple[float, float, float], ...]] = {
    # Results the pages leave to IEEE 754 or to D3D, written out rather than computed (ops' docs page, "Where the
    # pages are silent"): the sign of a zero sum, D3D's min and max of a NaN and of two zeros, a zero divisor.
    "ADD": ((-0.0, 0.0, 0.0), (-0.0, -0.0, -0.0), (np.inf, -np.inf, np.nan)),
    "SUBTRACT": ((0.0, 0.0, 0.0), (-0.0, 0.0, -0.0), (np.inf, np.inf, np.nan)),
    "MULTIPLY": ((-0.0, 3.0, -0.0), (0.0, np.inf, np.nan)),
    "DIVIDE": ((1.0, 0.0, np.inf), (1.0, -0.0, -np.inf), (0.0, 0.0, np.nan), (-3.0, np.inf, -0.0)),
    "MIN": ((-0.0, 0.0, 0.0), (0.0, -0.0, -0.0), (np.nan, 1.0, 1.0), (1.0, np.nan, 1.0), (-np.inf, np.nan, -np.inf)),
    "MAX": ((-0.0, 0.0, -0.0), (0.0, -0.0, 0.0), (np.nan, 1.0, 1.0), (1.0, np.nan, 1.0), (np.inf, np.nan, np.inf)),
    "MEAN": ((1.0, 0.0, 0.5), (np.inf, -np.inf, np.nan), (-0.0, -0.0, -0.0)),
    "DIFFERENCE_SQUARE": ((-0.0, 0.0, 0.0), (np.inf, np.inf, np.nan), (-np.inf, 1.0, np.inf)),
}


@pytest.mark.parametrize("desc", ARITHMETIC_OPERATORS, ids=operator_name)
def test_float_results_the_pages_leave_open(device: Any, desc: type[BinaryArithmeticDesc]) -> None:
    row, name = row_of(desc), operator_name(desc)
    a, b, want = (np.array(column, dtype=F32) for column in zip(*FLOAT_FACTS[name], strict=True))
    got, _ = run_pairs(device, row, case_of(row, F32), a, b)
    wrong = mismatches(got, want, nan="any")
    assert wrong.size == 0, f"B = {b[wrong]}\n" + describe(wrong, a, got, want)


def integer_facts(name: str, dtype: np.dtype[Any]) -> list[tuple[int, int, int]]:
    """Results at the edges written out: wrapping, DIVIDE's zero divisor and MIN / -1, MEAN's exact sum halved
    toward zero."""
    info = np.iinfo(dtype)
    low, high, all_ones = int(info.min), int(info.max), -1 if info.min else int(info.max)
    signed: dict[str, list[tuple[int, int, int]]] = {
        "ADD": [(high, 1, low)],
        "SUBTRACT": [(low, 1, high)],
        "MULTIPLY": [(low, -1, low), (high, high, 1)],
        "DIVIDE": [(low, -1, low), (-7, 2, -3), (7, -2, -3)],
        "MEAN": [(low, high, 0), (-1, 0, 0)],
        "DIFFERENCE_SQUARE": [(low, high, 1)],
    }
    facts = {
        "ADD": [(high, high, -2 if info.min else high - 1)],
        "SUBTRACT": [(0, 1, all_ones)],
        "MULTIPLY": [(high, 2, -2 if info.min else high - 1)],
        "DIVIDE": [(x, 0, all_ones) for x in (low, 0, 1, high)] + [(high, high, 1), (high - 1, high, 0)],
        "MIN": [(low, high, low)],
        "MAX": [(low, high, high)],
        "MEAN": [(high, high, high), (low, low, low), (high, high - 1, high - 1)],
        "DIFFERENCE_SQUARE": [(0, 2, 4), (high, high, 0)],
    }[name]
    return facts + (signed.get(name, []) if info.min else [])


def integer_cases() -> list[Any]:
    params = []
    for desc in ARITHMETIC_OPERATORS:
        row = row_of(desc)
        for case in row.cases:
            dtype = case.dtypes["a_tensor"]
            if dtype.kind in "iu":
                marks = pytest.mark.slow if case.id in row.slow_cases else ()
                params.append(pytest.param(desc, dtype, id=f"{operator_name(desc)}-{dtype.name}", marks=marks))
    return params


@pytest.mark.parametrize(("desc", "dtype"), integer_cases())
def test_integer_edge_pairs(device: Any, desc: type[BinaryArithmeticDesc], dtype: np.dtype[Any], tally: Any) -> None:
    row, name = row_of(desc), operator_name(desc)
    edges_a, edges_b = cross_product(integer_edges(dtype))
    facts = np.array(integer_facts(name, dtype), dtype=object)
    a = np.concatenate([edges_a, facts[:, 0].astype(dtype)])
    b = np.concatenate([edges_b, facts[:, 1].astype(dtype)])
    got, want = run_pairs(device, row, case_of(row, dtype), a, b)
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, [(a[i], b[i], got[i], want[i]) for i in wrong[:12]]
    written = facts[:, 2].astype(dtype)
    wrong = np.flatnonzero(got[edges_a.size :] != written)
    assert wrong.size == 0, [(facts[i, 0], facts[i, 1], got[edges_a.size + i], written[i]) for i in wrong]
    tally["binary integer edge pairs compared"] += got.size
