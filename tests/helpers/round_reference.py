"""An independent oracle for ELEMENT_WISE_ROUND, and bit-exact comparison helpers for the conformance tests.

The oracle never calls a round-to-integral function (rint, trunc, round, numpy's round): it widens to float64,
where every float32 or float16 value, its floor and ``x - floor(x)`` are exact, decides from that fraction
whether to step up by one, and copies the input's sign onto the result (so a zero result keeps the input's
sign). Infinities pass through. NaN results are judged against the input's own bits (see ``mismatches``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlpy as dml

_UINT = {np.dtype(np.float32): np.dtype(np.uint32), np.dtype(np.float16): np.dtype(np.uint16)}
_QUIET = {np.dtype(np.float32): 0x0040_0000, np.dtype(np.float16): 0x0200}


def reference_round(x: np.ndarray, mode: dml.RoundingMode | str | int) -> np.ndarray:
    """``x`` (float32 or float16) rounded in DirectML mode ``mode``; same dtype and shape as ``x``."""
    mode = dml.RoundingMode.parse(mode)
    with np.errstate(invalid="ignore"):  # NaN inputs (and signalling NaN casts) raise the invalid flag
        a = np.asarray(x).astype(np.float64)
        low = np.floor(a)
        frac = a - low  # exact in float64 for every float32/float16 input
        if mode == dml.RoundingMode.HALVES_TO_NEAREST_EVEN:
            up = (frac > 0.5) | ((frac == 0.5) & (np.fmod(low, 2.0) != 0.0))
        elif mode == dml.RoundingMode.TOWARD_ZERO:
            up = (a < 0.0) & (frac > 0.0)
        else:  # TOWARD_INFINITY: nearest, halves away from zero (not ceil)
            up = (frac > 0.5) | ((frac == 0.5) & (a > 0.0))
        result = np.where(np.isfinite(a), np.copysign(low + up, a), a)
        return result.astype(np.asarray(x).dtype)


def bits(x: np.ndarray) -> np.ndarray:
    """The raw bit patterns of a float32/float16 array."""
    x = np.ascontiguousarray(x)
    return x.view(_UINT[x.dtype])


NAN_RULES = ("payload", "sign", "any")


def mismatches(x: np.ndarray, got: np.ndarray, expected: np.ndarray, *, nan: str = "payload") -> np.ndarray:
    """Boolean mask of wrong results: bit-exact outside NaN. For a NaN input the result must be NaN and, by
    ``nan``: "payload" keep the input's sign and payload, the quiet bit allowed to be set (docs/conformance.md:
    a signalling NaN may be quieted); "sign" keep the sign; "any" nothing more (NaN as NaN)."""
    assert nan in NAN_RULES
    x, got, expected = (np.ascontiguousarray(a) for a in (x, got, expected))
    nan_in = np.isnan(x)
    wrong = (bits(got) != bits(expected)) & ~nan_in
    wrong |= nan_in & ~np.isnan(got)
    if nan == "payload":
        quiet = _UINT[x.dtype].type(_QUIET[x.dtype])
        wrong |= nan_in & ((bits(got) | quiet) != (bits(x) | quiet))
    elif nan == "sign":
        wrong |= nan_in & (np.signbit(got) != np.signbit(x))
    return wrong


def assert_rounded(
    x: np.ndarray, got: np.ndarray, mode: Any, *, expected: np.ndarray | None = None, nan: str = "payload"
) -> int:
    """Assert ``got`` is ``x`` rounded in ``mode`` (bit for bit, NaN rule above); returns the count compared."""
    expected = reference_round(x, mode) if expected is None else expected
    assert got.shape == x.shape and got.dtype == x.dtype
    wrong = mismatches(x, got, expected, nan=nan)
    if wrong.any():
        first = np.flatnonzero(wrong.ravel())[:8]
        pairs = [
            f"{x.ravel()[i]!r} (0x{int(bits(x).ravel()[i]):X}) -> got 0x{int(bits(got).ravel()[i]):X}, "
            f"expected 0x{int(bits(expected).ravel()[i]):X}"
            for i in first
        ]
        raise AssertionError(f"{int(wrong.sum())} of {x.size} wrong in {mode}:\n  " + "\n  ".join(pairs))
    return int(x.size)


def hard_cases(dtype: np.dtype[Any] | type) -> np.ndarray:
    """Inputs where naive implementations fail (peers.md §3, §5): ties, the floats next to ±0.5, odd integers
    just past the last fractional value, subnormals, signed zeros, infinities, quiet and signalling NaNs."""
    dtype = np.dtype(dtype)
    info = np.finfo(dtype)
    mantissa = info.nmant  # 23 for float32, 10 for float16
    big = 2.0**mantissa
    values = [
        0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, -3.5, 4.5, -4.5, 0.25, -0.25, 0.75, -0.75,
        1.0, -1.0, 0.1, -0.1, 0.9, -0.9, 1.9, -1.9, 2.3, -2.3, 2.7, -2.7,
        big - 0.5, -(big - 0.5), big + 1, -(big + 1), 2 * big - 1, -(2 * big - 1), big, -big, 2 * big, -2 * big,
        float(info.max), -float(info.max), float(info.tiny), -float(info.tiny),
        float(info.smallest_subnormal), -float(info.smallest_subnormal), np.inf, -np.inf,
    ]  # fmt: skip
    array = np.array(values, dtype=np.float64).astype(dtype)
    below_half = np.nextafter(dtype.type(0.5), dtype.type(0))
    above_half = np.nextafter(dtype.type(0.5), dtype.type(1))
    extra = np.array([below_half, -below_half, above_half, -above_half], dtype=dtype)
    uint = _UINT[dtype]
    if dtype == np.float32:
        nan_bits = [0x7FC00000, 0xFFC00000, 0xFFC00123, 0x7F800001, 0xFF800001, 0x7FFFFFFF]
    else:
        nan_bits = [0x7E00, 0xFE00, 0xFE01, 0x7C01, 0xFC01, 0x7FFF]
    nans = np.array(nan_bits, dtype=np.uint64).astype(uint).view(dtype)
    return np.concatenate([array, extra, nans])
