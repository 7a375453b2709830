"""The operator-table row of CAST: every pair of the 11 types of its newest support table, compared bit for bit
against the rules of docs/operators/cast.md written out here, never NumPy's own conversion where C leaves it
undefined (NaN, infinities and out-of-range floats to integers). A default run takes five pairs; --run-slow all.

* a float to an integer: ``row_model.to_integer`` (toward zero, saturated, NaN to 0);
* an integer to an integer: Python's integers masked to the output's width (two's complement wrap);
* an integer to a float: the exact integer rounded to the float's significand in Python integers (ties to even),
  then widened exactly (float16 overflows to infinity from 65520 as NumPy's exact conversion does);
* a float to a float: NumPy's conversion, IEEE 754's rounding to nearest (defined), NaN apart: the sign and the
  payload's top bits, quieted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import dmlpy as dml
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.row_model import F16, F32, U8, Array, Case, OperatorRow, to_integer
from tests.helpers.rows_bits import encoding

ORDER = tuple(np.dtype(t) for t in ("f4", "f2", "f8", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))
I32 = np.dtype(np.int32)
DEFAULT_PAIRS = ((F32, np.dtype(np.int8)), (F32, F16), (I32, F32), (U8, F32), (F16, I32))
"""The pairs a default run takes: each kind of conversion once (float to integer, narrowing float, integer to
float, float16 to integer)."""
_SIGNIFICAND = {F16: 11, F32: 24, np.dtype(np.float64): 53}


def nearest_float(value: int, dtype: np.dtype[Any]) -> Any:
    """The integer ``value`` rounded to ``dtype``'s significand, ties to even, exactly (Python integers)."""
    magnitude, bits = abs(value), _SIGNIFICAND[np.dtype(dtype)]
    extra = magnitude.bit_length() - bits
    if extra > 0:
        kept, dropped = divmod(magnitude, 1 << extra)
        midpoint = 1 << (extra - 1)
        kept += dropped > midpoint or (dropped == midpoint and kept & 1)
        magnitude = kept << extra
    with np.errstate(over="ignore"):  # beyond float16's range: infinity, the correctly rounded overflow
        return np.array(float(-magnitude if value < 0 else magnitude)).astype(dtype)


def _wrapped(values: Array, dtype: np.dtype[Any]) -> Array:
    """``values`` modulo 2^width of ``dtype``: widened exactly to 64 bits, their two's complement bits masked."""
    wide = values.astype(np.int64 if values.dtype.kind == "i" else np.uint64).view(np.uint64)
    mask = np.uint64((1 << (8 * dtype.itemsize)) - 1)
    return (wide & mask).astype(f"u{dtype.itemsize}").view(dtype)


def _integers_to_float(values: Array, dtype: np.dtype[Any]) -> Array:
    """``values`` to the nearest ``dtype``: NumPy's conversion where every value of the type is exact in it, else
    ``nearest_float`` one by one."""
    if 8 * values.dtype.itemsize - (values.dtype.kind == "i") <= _SIGNIFICAND[np.dtype(dtype)]:
        return values.astype(dtype)
    return np.array([nearest_float(int(v), dtype) for v in values.tolist()], dtype=dtype)


def _float_nan(values: Array, dtype: np.dtype[Any]) -> Array:
    """The NaN a float-to-float cast gives each NaN of ``values``: its sign, its payload's top bits, quieted."""
    source = np.dtype(values.dtype)
    source_fraction, fraction = _SIGNIFICAND[source] - 1, _SIGNIFICAND[dtype] - 1
    payload = encoding(values).astype(np.uint64) & np.uint64((1 << source_fraction) - 1)
    if fraction >= source_fraction:
        payload = payload << np.uint64(fraction - source_fraction)
    else:
        payload = payload >> np.uint64(source_fraction - fraction)
    width = 8 * dtype.itemsize
    sign = (encoding(values).astype(np.uint64) >> np.uint64(8 * source.itemsize - 1)) << np.uint64(width - 1)
    exponent = np.uint64(((1 << (width - 1 - fraction)) - 1) << fraction)
    bits = sign | exponent | np.uint64(1 << (fraction - 1)) | payload
    return bits.astype(f"u{dtype.itemsize}").view(dtype)


def cast_reference(inputs: Mapping[str, Array], case: Case) -> Array:
    x, out = inputs["input_tensor"], np.dtype(case.dtypes["output_tensor"])
    if out.kind in "iu":
        return to_integer(x, out) if x.dtype.kind == "f" else _wrapped(x, out)
    if x.dtype.kind in "iu":
        return _integers_to_float(x, out)
    with np.errstate(all="ignore"):
        converted = x.astype(out)
    nan = np.isnan(x)
    converted[nan] = _float_nan(x[nan], out)
    return converted


def _cast_row() -> OperatorRow:
    types = {NUMPY_DTYPE[t] for t in dml.CastOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"]}
    order = [d for d in ORDER if d in types]
    cases = tuple(Case({"input_tensor": x, "output_tensor": out}) for x in order for out in order)
    slow = frozenset(c.id for c in cases if (c.dtypes["input_tensor"], c.dtypes["output_tensor"]) not in DEFAULT_PAIRS)
    return OperatorRow(dml.CastOperatorDesc, cases, cast_reference, sampled=True, slow_cases=slow)


ROWS_CAST: tuple[OperatorRow, ...] = (_cast_row(),)
"""CAST's row."""
