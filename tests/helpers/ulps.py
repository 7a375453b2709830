"""How far a float result lies from the exact one, in units in the last place of the result's type, for operators
whose results are bounded rather than exact (the unary math operators' FLOAT32_ULPS).

``ulp_error(got, exact)`` measures as the OpenCL specification does: |got - exact| / ulp(exact), where ulp(exact)
is the gap between the two floats of got's type around the exact (float64) value, in its own binade. So just
above a power of two, a result below it may lie 2.8 ULPs away where five floats separate them, and the rounding
of the reference absorbs nothing. Where the exact value rounds to an infinity (an overflow), the error counts the
floats between the result and that infinity instead (1 for the largest finite float). A zero of the wrong sign,
where the exact result is a signed zero (C99's sin(-0) = -0), is an error of its own: infinite.

``ulp_distance(got, want)`` counts representable values between two floats of one type (``-0`` and ``+0`` share
rank 0): 1 between FLT_MAX and infinity, between the smallest subnormal and 0, between 1 and its successor. It
serves where the reference is itself a float of the result's type (onnx.reference's)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]
NUMPY_FLOAT32_ULPS = 4
"""How far NumPy's float32 functions (onnx.reference's, and ONNX's expected outputs of Exp, Sin, ...) may lie
from the exact result: the largest ``ulperrortol`` of the float32 rows of NumPy's own accuracy tests
(numpy/_core/tests/data/umath-validation-set-*.csv: 4 for arcsin, log, log10 and tan, 2 or 3 for the others),
which hold its SVML and libm paths alike. A result of an operator with a ULP bound lies within that bound plus
this of NumPy's."""
_BITS = {np.dtype(np.float16): np.int16, np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}
_PRECISION = {np.dtype(np.float16): (11, -14), np.dtype(np.float32): (24, -126)}
"""Significand bits and the smallest normal exponent of each result type."""


def ranks(values: Array) -> npt.NDArray[np.int64]:
    """Each value's rank in its float type's order (NaN gives a meaningless rank: compare NaN apart)."""
    signed = np.ascontiguousarray(values).view(_BITS[values.dtype]).astype(np.int64)
    magnitude = signed & ((1 << (8 * values.dtype.itemsize - 1)) - 1)
    return np.where(signed < 0, -magnitude, magnitude)


def ulp_distance(got: Array, want: Array) -> npt.NDArray[np.int64]:
    """|rank(got) - rank(want)| element by element; 0 where both are NaN, a huge value where one alone is."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    got_nan, want_nan = np.isnan(got), np.isnan(want)
    distance = np.abs(ranks(got) - ranks(want))
    return np.where(got_nan | want_nan, np.where(got_nan == want_nan, 0, np.iinfo(np.int64).max), distance)


def ulp_error(got: Array, exact: Array) -> npt.NDArray[np.float64]:
    """The error of each of ``got`` (float16 or float32) against ``exact`` (float64, or got's own type, then
    ``ulp_distance``), in ULPs of got's type as the module's docstring defines it: 0 where both are NaN,
    infinite where one alone is or where a zero has the wrong sign."""
    if exact.dtype == got.dtype:
        return ulp_distance(got, exact).astype(np.float64)
    assert exact.dtype == np.float64 and got.shape == exact.shape, (got.dtype, exact.dtype, got.shape, exact.shape)
    with np.errstate(all="ignore"):
        rounded = exact.astype(got.dtype)
        bits, emin = _PRECISION[got.dtype]
        exponent = np.maximum(np.floor(np.log2(np.abs(exact))), emin)
        ulp = np.exp2(np.where(np.isfinite(exponent), exponent, emin) - (bits - 1))
        error = np.abs(got.astype(np.float64) - exact) / ulp
    overflow = np.isinf(rounded) & ~np.isnan(got)
    error = np.where(overflow, ulp_distance(got, rounded), error)
    got_nan, exact_nan = np.isnan(got), np.isnan(exact)
    wrong_zero = (exact == 0) & (got == 0) & (np.signbit(exact) != np.signbit(got))
    error = np.where(got_nan | exact_nan, np.where(got_nan == exact_nan, 0.0, np.inf), error)
    return np.where(wrong_zero, np.inf, error)


def within_ulps(got: Array, exact: Array, bound: int) -> npt.NDArray[np.intp]:
    """Flat indices where ``got`` lies more than ``bound`` ULPs from ``exact`` (ulp_error)."""
    return np.flatnonzero(ulp_error(got, exact).reshape(-1) > bound)
