"""ABS, NEGATE and SIGN on the edges (docs/operators/element_wise_signs.md, "Where the pages are silent"):

* at FLOAT32 and FLOAT16 every special value (ext_cases.edge_values: ±0, subnormals, the largest finite,
  ±infinity, quiet and signalling NaNs of both signs with payloads), ABS and NEGATE bit for bit against the sign-bit
  operation on the input's bits (cleared, flipped: a NaN keeps its payload and its quiet bit, a signalling one
  staying signalling), SIGN against its row's reference (-0 and NaN give +0);
* at every integer type MIN, MIN + 1, -1, 0, 1, MAX - 1 and MAX against the rows' reference (NumPy's np.abs and
  np.negative wrap at MIN, as two's complement does), abs(MIN) and -MIN written out; a default run takes INT8,
  UINT32, INT64 and UINT64, --run-slow every type.

One graph per data type takes the operators the type has (ABS, NEGATE, SIGN of one input, three outputs), so each
type builds one program, fused (at FLOAT16 ABS and NEGATE keep kernels of their own, acting on the encoding, which
a float register would not hold for a signalling NaN); the operator rows check that a fused graph gives each
operator's bits alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE, INTEGER_DTYPES
from tests.helpers.ext_cases import edge_values
from tests.helpers.ext_oracle import describe, format_of, mismatches
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Array, Case
from tests.helpers.rows_clamps import ABS, NEGATE, SIGN

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

SIGN_OPERATORS = {ABS: dml.graph.abs, NEGATE: dml.graph.negate, SIGN: dml.graph.sign}
DEFAULT_INTEGERS = {np.dtype(t) for t in ("i1", "u4", "i8", "u8")}
"""The integer types a default run takes (each type is a program to compile); --run-slow takes every one, as the
operator rows do."""
INTEGER_TYPES = [pytest.param(d, marks=() if d in DEFAULT_INTEGERS else pytest.mark.slow) for d in INTEGER_DTYPES]


def operators_of(dtype: np.dtype[Any]) -> list[Any]:
    """The sign operators whose newest table takes ``dtype`` (SIGN only for the unsigned types)."""
    data_type = DATA_TYPE[dtype]
    return [desc for desc in SIGN_OPERATORS if data_type in desc.SUPPORT.rows[-1].data_types["InputTensor"]]


def run_signs(device: Any, x: Array) -> dict[Any, Array]:
    """Each sign operator ``x``'s type has, on ``x``, in one fused graph: the results by descriptor class."""
    descs = operators_of(x.dtype)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=DATA_TYPE[x.dtype], sizes=x.shape))
    compiled = g.compile([SIGN_OPERATORS[desc](xi) for desc in descs])
    assert compiled.kernel_count == (3 if x.dtype == F16 else 1)
    results = compiled(x)
    return dict(zip(descs, results if isinstance(results, tuple) else (results,), strict=True))


def row_expected(desc: Any, x: Array) -> Array:
    """The operator's row reference (tests/helpers/rows_clamps.py) for ``x`` without ScaleBias."""
    return row_of(desc).reference({"input_tensor": x}, Case({"input_tensor": x.dtype, "output_tensor": x.dtype}))


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_float_special_values_bit_for_bit(device: Any, dtype: np.dtype[Any]) -> None:
    fmt = format_of(dtype)
    x = edge_values(fmt)
    bits = x.view(fmt.bits_dtype)
    sign_bit = fmt.bits_dtype.type(fmt.sign_bit)
    got = run_signs(device, x)
    expected_bits = {ABS: bits & ~sign_bit, NEGATE: bits ^ sign_bit}
    for desc, want in expected_bits.items():
        wrong = np.flatnonzero(got[desc].view(fmt.bits_dtype) != want)  # every bit: the quiet bit too
        assert wrong.size == 0, f"{desc.OPERATOR_TYPE.name}\n" + describe(wrong, x, got[desc], want.view(dtype))
    wrong = mismatches(got[SIGN], row_expected(SIGN, x))
    assert wrong.size == 0, describe(wrong, x, got[SIGN], row_expected(SIGN, x))
    # the page's "otherwise": -0 and every NaN give +0 (its bits all zero), infinities and subnormals ±1
    otherwise = (x == 0) | np.isnan(x)
    assert otherwise.sum() > 2 and not got[SIGN][otherwise].view(fmt.bits_dtype).any()
    assert np.array_equal(got[SIGN][~otherwise], np.sign(x[~otherwise]))


@pytest.mark.parametrize("dtype", INTEGER_TYPES, ids=str)
def test_integer_edges(device: Any, dtype: np.dtype[Any]) -> None:
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    values = sorted({low, low + 1, -1 if low else 2, 0, 1, high - 1, high})
    x = np.array(values, dtype)
    got = run_signs(device, x)
    for desc, result in got.items():
        want = row_expected(desc, x)
        assert np.array_equal(result, want), (desc.OPERATOR_TYPE.name, x, result, want)
    if low:  # two's complement: the most negative value is its own absolute value and its own negation
        assert got[ABS][0] == low and got[NEGATE][0] == low
        assert got[ABS][1] == high and got[NEGATE][-1] == low + 1
    assert got[SIGN].tolist() == [int(np.sign(v)) for v in values]
