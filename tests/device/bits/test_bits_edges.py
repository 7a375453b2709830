"""Edges the bit operators' rows may miss: every shift count around the element's width (0, 1, width - 1, width,
width + 1, the type's maximum) for every unsigned type, and the special encodings of FLOAT32 and FLOAT16 (signed
zeros, subnormals, infinities, quiet and signalling NaNs with payloads) through each bitwise operator, bit for bit
against the rows' references. One launch per operator and type (the row's own program); the types the rows leave
to --run-slow are slow here too."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.binary.pairs import cross_product, float_specials
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, U8, Case, OperatorRow
from tests.helpers.row_runs import run_on
from tests.helpers.rows_bits import encoding

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

Array = np.ndarray[Any, Any]
SHIFTS = (dml.ElementWiseBitShiftLeftOperatorDesc, dml.ElementWiseBitShiftRightOperatorDesc)
BITWISE = (dml.ElementWiseBitAndOperatorDesc, dml.ElementWiseBitOrOperatorDesc, dml.ElementWiseBitXorOperatorDesc)


def cases_of(descs: tuple[Any, ...], dtypes: tuple[np.dtype[Any], ...] | None = None) -> list[Any]:
    params = []
    for desc in descs:
        row = row_of(desc)
        for case in row.cases:
            dtype = case.dtypes[row.first]
            if dtypes is None or dtype in dtypes:
                marks = pytest.mark.slow if case.id in row.slow_cases else ()
                params.append(pytest.param(row, case, id=f"{desc.OPERATOR_TYPE.name}-{case.id}", marks=marks))
    return params


@pytest.mark.parametrize(("row", "case"), cases_of(SHIFTS))
def test_shift_counts_around_the_width(device: Any, row: OperatorRow, case: Case) -> None:
    dtype = case.dtypes["a_tensor"]
    width, top = dtype.itemsize * 8, int(np.iinfo(dtype).max)
    values = np.array([0, 1, 2, 200, 1 << (width - 1), top], dtype=dtype)
    counts = np.array(sorted({0, 1, width - 1, width, width + 1, min(top, 255), top}), dtype=dtype)
    a, b = (np.ascontiguousarray(side) for side in np.meshgrid(values, counts, indexing="ij"))
    got, want = run_on(device, row, case, {"a_tensor": a.reshape(-1), "b_tensor": b.reshape(-1)})
    np.testing.assert_array_equal(got, want)
    at_width = b.reshape(-1) >= width
    assert not got[at_width].any(), "a count of the width or more shifts every bit out"
    if row.desc is dml.ElementWiseBitShiftLeftOperatorDesc:
        np.testing.assert_array_equal(got[b.reshape(-1) == 1], (values.astype(object) * 2 % (top + 1)).astype(dtype))


@pytest.mark.parametrize(("row", "case"), cases_of(BITWISE, (F32, F16)))
def test_every_pair_of_special_encodings(device: Any, row: OperatorRow, case: Case) -> None:
    a, b = cross_product(float_specials(case.dtypes["a_tensor"]))
    got, want = run_on(device, row, case, {"a_tensor": a, "b_tensor": b})
    wrong = np.flatnonzero(encoding(got) != encoding(want))
    assert wrong.size == 0, [(hex(encoding(a)[i]), hex(encoding(b)[i]), hex(encoding(got)[i])) for i in wrong[:8]]


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
def test_not_and_count_of_special_encodings(device: Any, dtype: np.dtype[Any]) -> None:
    x = float_specials(dtype)
    not_row = row_of(dml.ElementWiseBitNotOperatorDesc)
    (not_case,) = [c for c in not_row.cases if c.dtypes["input_tensor"] == dtype]
    got, _ = run_on(device, not_row, not_case, {"input_tensor": x})
    np.testing.assert_array_equal(encoding(got), ~encoding(x))  # a NaN's payload and quiet bit inverted too
    count_row = row_of(dml.ElementWiseBitCountOperatorDesc)
    (count_case,) = [
        c for c in count_row.cases if c.dtypes["input_tensor"] == dtype and c.dtypes["output_tensor"] == U8
    ]
    got, _ = run_on(device, count_row, count_case, {"input_tensor": x})
    np.testing.assert_array_equal(got, [bin(int(v)).count("1") for v in encoding(x)])


def test_the_docs_example_runs_as_one_kernel_equal_to_numpy(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="UINT32", sizes=(4,)))
    low_byte = dml.graph.bit_and(x, 0xFF)
    ones = dml.graph.bit_count(dml.graph.bit_shift_right(x, 8), dtype="UINT32")
    compiled = device.compile_graph(g.desc_for([low_byte, ones]))
    assert compiled.kernel_count == 1
    values = np.array([0, 0x1234, 0xFFFFFFFF, 0x80000001], np.uint32)
    got_low, got_ones = compiled(values)
    np.testing.assert_array_equal(got_low, values & 0xFF)
    np.testing.assert_array_equal(got_ones, [bin(int(v) >> 8).count("1") for v in values])
