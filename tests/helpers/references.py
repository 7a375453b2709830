"""An independent NumPy oracle for ELEMENT_WISE_ROUND, the ground truth the device tests compare against, and the
bit-exact comparison helpers of the Round tests (``mismatches``, ``assert_rounded``, ``hard_cases``).

The references of the other operators are tests/helpers/quantize_oracle.py (QuantizeLinear, DequantizeLinear and
the extension QuantizeLinear) and tests/helpers/ext_oracle.py (the extension Round); tests/helpers/operators.py
names each operator's one reference.

Why it is independent of the code under test:

- It never touches OpenCL, the kernel source, the descriptors or ``dml.round``: only NumPy and the
  ``RoundingMode`` enum.
- It does not call the rounding built-ins the kernel relies on (``rint``/``trunc``/``round``), nor ``np.rint``
  or ``np.round``. It decides from first principles: in float64, ``a = |x|``, ``t = floor(a)``, ``f = a - t``,
  then moves up to ``t + 1`` when the mode says so and puts the sign back with ``copysign``.
- float64 makes every step exact for float32 and float16 inputs: their values, their floor and the fractional
  part ``a - t`` are all representable in float64, and so is ``t + 1`` (it is only taken when ``f > 0``,
  which implies ``a < 2^23`` for float32 and ``a < 2^10`` for float16). The result is an integer the input
  type can hold (or the input itself), so the cast back is exact too. There is no ``x + 0.5`` step that could
  round (peers.md §5.1).
- NaN and infinities are not computed at all: they are copied bit for bit from the input.

Results are what IEEE-754 roundToIntegral gives in each direction (peers.md §7):

- HALVES_TO_NEAREST_EVEN: up when ``f > 1/2``, or ``f == 1/2`` and ``t`` is odd.
- TOWARD_ZERO: never up.
- TOWARD_INFINITY (DirectML's name for halves away from zero, not ceil): up when ``f >= 1/2``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.enums import RoundingMode

__all__ = ["assert_rounded", "bits", "hard_cases", "mismatches", "round_reference"]

_SUPPORTED = (np.dtype(np.float16), np.dtype(np.float32))


def round_reference(x: npt.NDArray[Any], mode: RoundingMode | int | str) -> npt.NDArray[Any]:
    """``x`` rounded to integers in ``mode``, as a new array of ``x``'s dtype and shape (float16 or float32).

    Exact for every input; ±0 keep their sign, a zero result takes the input's sign, ±inf and NaN (sign,
    payload and quiet bit) come back bit-identical.
    """
    array = np.asarray(x)
    if array.dtype not in _SUPPORTED:
        raise TypeError(f"round_reference takes float16 or float32 arrays, not {array.dtype}")
    rounding = RoundingMode.parse(mode)

    finite = np.isfinite(array)
    # Non-finite entries become 0 before any arithmetic, so a signalling NaN never reaches a conversion.
    wide = np.where(finite, array, array.dtype.type(0)).astype(np.float64)
    a = np.abs(wide)
    t = np.floor(a)
    f = a - t  # exact: a and t share an exponent range that float64 covers with room to spare
    if rounding == RoundingMode.HALVES_TO_NEAREST_EVEN:
        t_odd = np.fmod(t, 2.0) == 1.0
        up = (f > 0.5) | ((f == 0.5) & t_odd)
    elif rounding == RoundingMode.TOWARD_ZERO:
        up = np.zeros(a.shape, dtype=bool)
    elif rounding == RoundingMode.TOWARD_INFINITY:
        up = f >= 0.5
    else:  # pragma: no cover - RoundingMode has exactly three members
        raise ValueError(f"unknown rounding mode {rounding!r}")
    magnitude = np.where(up, t + 1.0, t)
    rounded = np.copysign(magnitude, wide).astype(array.dtype)
    # NaN and ±inf: the input's own bits, untouched by any arithmetic or conversion.
    result: npt.NDArray[Any] = np.where(finite, rounded, array).astype(array.dtype, copy=False)
    return result


_UINT = {np.dtype(np.float32): np.dtype(np.uint32), np.dtype(np.float16): np.dtype(np.uint16)}
_QUIET = {np.dtype(np.float32): 0x0040_0000, np.dtype(np.float16): 0x0200}


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
    expected = round_reference(x, mode) if expected is None else expected
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
