"""Independent NumPy/Fraction oracle for QuantizeLinear and DequantizeLinear (no dmlpy code is used).

Semantics modelled (directml-spec.md §4, ONNX QuantizeLinear/DequantizeLinear):

- Quantize: ``q = x / scale`` is a *true* IEEE division: the exact rational quotient rounded once, to nearest
  with ties to even, to the input's float type (float32; float16 for float16 inputs; an int32 input is first
  converted to float32, as DirectML's FLOAT32 scale implies). The quotient is then rounded to an integer
  (halves to even by default, or one of nGraph's nine modes), the zero point added in exact integers and
  the sum saturated to the output type. NaN gives 0 and +inf/-inf saturate (dmlpy's documented behaviour).
  Ties are therefore decided on the float quotient, as ONNX's ``np.rint(x / y_scale)`` does.
- Dequantize: ``(x - zero_point) * scale`` computed exactly, rounded once to float32 (the computation
  precision DirectML and the ONNX reference use), then, for a float16 output, rounded to float16.

All rounding is done here with ``fractions.Fraction``; nothing passes through a float conversion routine
whose rounding could hide a kernel bug.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

# (mantissa bits including the implicit one, minimum normal exponent, maximum exponent)
_FORMATS = {
    np.dtype(np.float32): (24, -126, 127),
    np.dtype(np.float16): (11, -14, 15),
}
INTEGER_RANGES = {
    np.dtype(ml_dtypes.uint4): (0, 15),
    np.dtype(ml_dtypes.int4): (-8, 7),
    np.dtype(np.uint8): (0, 255),
    np.dtype(np.int8): (-128, 127),
    np.dtype(np.uint16): (0, 65535),
    np.dtype(np.int16): (-32768, 32767),
    np.dtype(np.uint32): (0, 2**32 - 1),
    np.dtype(np.int32): (-(2**31), 2**31 - 1),
}


def round_half_even(value: Fraction) -> int:
    """The integer nearest ``value``; a tie goes to the even neighbour."""
    floor = math.floor(value)
    rest = value - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2):
        return floor + 1
    return floor


def round_to_float(value: Fraction, dtype: npt.DTypeLike) -> float:
    """``value`` rounded to nearest-even in ``dtype`` (float32 or float16), as a Python float holding that
    value exactly; +-inf when it overflows. Subnormals are kept (gradual underflow)."""
    digits, min_exponent, max_exponent = _FORMATS[np.dtype(dtype)]
    if value == 0:
        return 0.0
    sign = -1 if value < 0 else 1
    magnitude = abs(value)
    exponent = math.floor(math.log2(magnitude.numerator) - math.log2(magnitude.denominator))
    # log2 of big integers can be off by one; correct so that 2^exponent <= magnitude < 2^(exponent + 1).
    while Fraction(2) ** exponent > magnitude:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= magnitude:
        exponent += 1
    quantum_exponent = max(exponent, min_exponent) - (digits - 1)
    quantum = Fraction(2) ** quantum_exponent
    steps = round_half_even(magnitude / quantum)
    result = steps * quantum
    largest = (2 - Fraction(2) ** (1 - digits)) * Fraction(2) ** max_exponent
    if result > largest:
        return sign * math.inf
    return sign * float(result)


def _exact(value: Any) -> Fraction | float:
    """A finite number as a Fraction; NaN and infinities stay floats."""
    if isinstance(value, np.integer | int):
        return Fraction(int(value))
    number = float(value)
    return Fraction(number) if math.isfinite(number) else number


def float_quotient(x: Any, scale: Any, dtype: npt.DTypeLike) -> float:
    """The IEEE quotient ``x / scale`` in ``dtype`` (float32/float16): exact quotient rounded once."""
    a, b = _exact(x), _exact(scale)
    if isinstance(a, float) or isinstance(b, float):  # NaN or an infinity involved
        if math.isnan(a) or math.isnan(b) or (math.isinf(a) and math.isinf(b)):
            return math.nan
        if math.isinf(b):
            return math.copysign(0.0, float(a) * math.copysign(1.0, b))
        return math.copysign(math.inf, a) * math.copysign(1.0, float(b))
    if b == 0:
        raise ValueError("a zero scale is undefined behaviour in DirectML; the oracle refuses it")
    if a == 0:
        return math.copysign(0.0, float(x)) * math.copysign(1.0, float(scale))
    return round_to_float(a / b, dtype)


def _mode_round(value: Fraction, mode: str) -> int:
    """nGraph's nine modes on an exact value."""
    floor = math.floor(value)
    rest = value - floor
    half = Fraction(1, 2)
    if mode == "NEAREST_TOWARD_EVEN":
        return round_half_even(value)
    if mode in ("NEAREST_TOWARD_INFINITY", "NEAREST_TOWARD_ZERO", "NEAREST_UPWARD", "NEAREST_DOWNWARD"):
        if rest != half:
            return floor + 1 if rest > half else floor
        up = {
            "NEAREST_TOWARD_INFINITY": value > 0,
            "NEAREST_TOWARD_ZERO": value < 0,
            "NEAREST_UPWARD": True,
            "NEAREST_DOWNWARD": False,
        }[mode]
        return floor + 1 if up else floor
    ceil = floor + (1 if rest else 0)
    if mode == "TOWARD_INFINITY":
        return ceil if value > 0 else floor
    if mode == "TOWARD_ZERO":
        return floor if value > 0 else ceil
    if mode == "UP":
        return ceil
    if mode == "DOWN":
        return floor
    raise ValueError(f"unknown mode {mode}")


def unclamped_scalar(x: Any, scale: Any, zero_point: int, mode: str = "NEAREST_TOWARD_EVEN") -> int | float:
    """One element of QuantizeLinear before saturation: the rounded quotient plus the zero point, an exact
    integer; NaN or an infinity where the quotient is one."""
    x_dtype = np.asarray(x).dtype
    if x_dtype == np.int32:
        x = round_to_float(Fraction(int(x)), np.float32)  # the FLOAT32 computation converts the input first
        quotient_dtype = np.dtype(np.float32)
    else:
        quotient_dtype = np.dtype(np.float16) if x_dtype == np.float16 else np.dtype(np.float32)
    q = float_quotient(x, scale, quotient_dtype)
    if math.isnan(q) or math.isinf(q):
        return q
    return _mode_round(Fraction(q), mode) + int(zero_point)


def quantize_scalar(
    x: Any, scale: Any, zero_point: int, out_dtype: npt.DTypeLike, mode: str = "NEAREST_TOWARD_EVEN"
) -> int:
    """One element of QuantizeLinear."""
    low, high = INTEGER_RANGES[np.dtype(out_dtype)]
    unclamped = unclamped_scalar(x, scale, zero_point, mode)
    if isinstance(unclamped, float) and math.isnan(unclamped):
        return 0
    if isinstance(unclamped, float):
        return high if unclamped > 0 else low
    return min(max(unclamped, low), high)


def _broadcast(parameter: Any, shape: tuple[int, ...], axis: int | None) -> npt.NDArray[Any]:
    """A scalar or 1-D per-axis parameter broadcast to ``shape`` (ONNX's rule, default axis 1); one of ``shape``
    itself (a blocked parameter repeated over its blocks) as it is."""
    array = np.asarray(parameter)
    if array.shape == shape:
        return array
    if array.size == 1:
        return np.broadcast_to(array.reshape(()), shape)
    resolved = (1 if axis is None else axis) % len(shape)
    view = [1] * len(shape)
    view[resolved] = array.size
    return np.broadcast_to(array.reshape(view), shape)


def _elementwise(function: Callable[..., Any], shape: tuple[int, ...], *arrays: npt.NDArray[Any]) -> list[Any]:
    flat = [np.asarray(a).reshape(-1) if a.shape == shape else np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    return [function(*values) for values in zip(*flat, strict=True)]


def _per_element(
    scalar: Callable[[Any, Any, int], Any], x: npt.ArrayLike, scale: Any, zero_point: Any, axis: int | None
) -> list[Any]:
    """``scalar(element, scale, zero point)`` for every element of ``x`` in C order, the scale and zero point
    (None: 0) read as ONNX reads them (``_broadcast``)."""
    array = np.asarray(x)
    shape = array.shape or (1,)
    scales = _broadcast(scale, shape, axis)
    zero_points = _broadcast(0 if zero_point is None else zero_point, shape, axis)
    return _elementwise(lambda a, s, z: scalar(a, s, int(z)), shape, array.reshape(shape), scales, zero_points)


def quantize(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    out_dtype: npt.DTypeLike = np.uint8,
    mode: str = "NEAREST_TOWARD_EVEN",
) -> npt.NDArray[Any]:
    """QuantizeLinear over arrays; ``scale`` and ``zero_point`` scalars or 1-D along ``axis``."""
    values = _per_element(lambda a, s, z: quantize_scalar(a, s, z, out_dtype, mode), x, scale, zero_point, axis)
    return np.array(values, dtype=np.int64).astype(out_dtype).reshape(np.shape(x))


def saturated(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    out_dtype: npt.DTypeLike = np.uint8,
    mode: str = "NEAREST_TOWARD_EVEN",
) -> tuple[int, int]:
    """How many elements of ``quantize(...)`` saturation clamped: (to the lowest value, to the highest)."""
    values = _per_element(lambda a, s, z: unclamped_scalar(a, s, z, mode), x, scale, zero_point, axis)
    low, high = INTEGER_RANGES[np.dtype(out_dtype)]
    return sum(1 for value in values if value < low), sum(1 for value in values if value > high)


def dequantize_scalar(x: Any, scale: Any, zero_point: int, out_dtype: npt.DTypeLike) -> float:
    """One element of DequantizeLinear: exact (x - zero_point) * scale, rounded to float32, then to float16
    for a float16 output."""
    exact = Fraction(int(x) - int(zero_point)) * Fraction(float(scale))
    value = round_to_float(exact, np.float32)
    if np.dtype(out_dtype) == np.float16:
        value = round_to_float(Fraction(value), np.float16) if math.isfinite(value) else value
    return value


def dequantize(
    x: npt.ArrayLike,
    scale: npt.ArrayLike,
    zero_point: npt.ArrayLike | None = None,
    axis: int | None = None,
    out_dtype: npt.DTypeLike | None = None,
) -> npt.NDArray[Any]:
    """DequantizeLinear over arrays; the output dtype defaults to the scale's."""
    x = np.asarray(x)
    out_dtype = np.dtype(out_dtype if out_dtype is not None else np.asarray(scale).dtype)
    shape = x.shape or (1,)
    xs = x.reshape(shape)
    scales = _broadcast(scale, shape, axis)
    zero_points = _broadcast(0 if zero_point is None else zero_point, shape, axis)
    values = _elementwise(lambda a, s, z: dequantize_scalar(a, s, int(z), out_dtype), shape, xs, scales, zero_points)
    # The values are exactly representable in out_dtype, so this conversion does not round.
    return np.array(values, dtype=np.float64).astype(out_dtype).reshape(x.shape)
