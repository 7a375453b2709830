"""Every pair of edge values through the comparisons and the logical operators, where the rows' random pairing
rarely makes two operands equal: FLOAT32 and FLOAT16 special values (signed zeros, subnormals, infinities, quiet
and signalling NaNs with payloads, each paired with itself too), each integer type's edges, the truths 0, 1, 2 and
the type's maximum; against the rows' NumPy references, with results the pages leave to IEEE 754 written out.
Each operator and type is one launch over the whole cross product (the row's own program); the integer types the
rows leave to --run-slow are slow here too."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.binary.pairs import cross_product, float_specials, integer_edges
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, U8, U32, Case, OperatorRow
from tests.helpers.row_runs import run_on
from tests.helpers.rows_logical import COMPARISONS, LOGIC

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

Array = np.ndarray[Any, Any]


def run_pairs(device: Any, row: OperatorRow, case: Case, a: Array, b: Array) -> tuple[Array, Array]:
    """The operator on the pairs (a[i], b[i]), one packed 1-D launch; what it wrote and the row's reference."""
    return run_on(device, row, case, {"a_tensor": a, "b_tensor": b})


def comparison_cases() -> list[Any]:
    params = []
    for desc in COMPARISONS:
        row = row_of(desc)
        for case in row.cases:
            if case.dtypes["output_tensor"] == U8:
                marks = pytest.mark.slow if case.id in row.slow_cases else ()
                params.append(pytest.param(row, case, id=f"{desc.OPERATOR_TYPE.name}-{case.id}", marks=marks))
    return params


@pytest.mark.parametrize(("row", "case"), comparison_cases())
def test_comparison_of_every_pair_of_edge_values(device: Any, row: OperatorRow, case: Case, tally: Any) -> None:
    dtype = case.dtypes["a_tensor"]
    a, b = cross_product(float_specials(dtype) if dtype.kind == "f" else integer_edges(dtype))
    got, want = run_pairs(device, row, case, a, b)
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, [(a[i], b[i], got[i], want[i]) for i in wrong[:12]]
    tally["comparison edge pairs compared"] += got.size


IEEE_FACTS = {
    # (a, b) -> EQUALS, GREATER_THAN, LESS_THAN, GREATER_THAN_OR_EQUAL, LESS_THAN_OR_EQUAL
    (np.nan, np.nan): (0, 0, 0, 0, 0),
    (np.nan, 1.0): (0, 0, 0, 0, 0),
    (-np.inf, np.nan): (0, 0, 0, 0, 0),
    (-0.0, 0.0): (1, 0, 0, 1, 1),
    (np.inf, np.inf): (1, 0, 0, 1, 1),
    (-np.inf, 3.0): (0, 0, 1, 0, 1),
}
"""Results the pages leave to IEEE 754 (docs/operators/element_wise_logical.md), written out: a NaN compares false
with everything, itself included; -0 equals +0."""


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_nan_and_signed_zeros_compare_as_ieee_754_says(device: Any, dtype: np.dtype[Any]) -> None:
    a = np.array([pair[0] for pair in IEEE_FACTS], dtype=dtype)
    b = np.array([pair[1] for pair in IEEE_FACTS], dtype=dtype)
    for position, desc in enumerate(COMPARISONS):
        row = row_of(desc)
        (case,) = [c for c in row.cases if c.dtypes["a_tensor"] == dtype and c.dtypes["output_tensor"] == U8]
        got, _ = run_pairs(device, row, case, a, b)
        want = np.array([facts[position] for facts in IEEE_FACTS.values()], dtype=U8)
        np.testing.assert_array_equal(got, want, err_msg=desc.OPERATOR_TYPE.name)


@pytest.mark.parametrize("dtype", [U8, U32], ids=["uint8", "uint32"])
@pytest.mark.parametrize("desc", list(LOGIC), ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_logic_reads_any_nonzero_value_as_true(device: Any, desc: Any, dtype: np.dtype[Any]) -> None:
    row = row_of(desc)
    (case,) = [c for c in row.cases if c.dtypes["a_tensor"] == dtype]
    truths = np.array([0, 1, 2, 128, np.iinfo(dtype).max], dtype=dtype)
    a, b = cross_product(truths)
    got, want = run_pairs(device, row, case, a, b)
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(got)) <= {0, 1}
    if desc is dml.ElementWiseLogicalXorOperatorDesc:  # truths, not bits: 2 XOR 1 is 0
        assert got[(a == 2) & (b == 1)].tolist() == [0]


def test_the_docs_example_runs_as_one_kernel_equal_to_numpy(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(8,)))
    inside = dml.graph.logical_and(dml.graph.greater_than_or_equal(x, 0.0), dml.graph.less_than(x, 1.0))
    wide = dml.graph.equals(x, 0.5, dtype="UINT32")
    negated = dml.graph.logical_not(inside)
    compiled = device.compile_graph(g.desc_for([inside, wide, negated]))
    assert compiled.kernel_count == 1
    values = np.array([-1.0, -0.0, 0.0, 0.5, 0.999, 1.0, np.nan, np.inf], np.float32)
    got_inside, got_wide, got_negated = compiled(values)
    want = ((values >= 0) & (values < 1)).astype(np.uint8)
    np.testing.assert_array_equal(got_inside, want)
    np.testing.assert_array_equal(got_negated, 1 - want)
    np.testing.assert_array_equal(got_wide, (values == 0.5).astype(np.uint32))
    assert got_wide.dtype == np.uint32
