"""An independent NumPy oracle for ELEMENT_WISE_ROUND, the ground truth the device tests compare against.

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

__all__ = ["round_reference"]

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
