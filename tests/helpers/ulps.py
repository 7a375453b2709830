"""How far apart two float arrays are in units in the last place of their type, for operators whose results are
bounded rather than exact (the unary math operators' FLOAT32_ULPS).

Each value maps to its rank among the type's finite and infinite values (``-0`` and ``+0`` share rank 0), so the
distance of two values is the number of representable values between them plus one: 1 between FLT_MAX and
infinity, between the smallest subnormal and 0, between 1 and its successor."""

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


def within_ulps(got: Array, want: Array, bound: int) -> npt.NDArray[np.intp]:
    """Flat indices where ``got`` lies more than ``bound`` ULPs from ``want`` (or is NaN where it is not, or
    the reverse)."""
    return np.flatnonzero(ulp_distance(got, want).reshape(-1) > bound)
