"""Exact oracles for nGraph's nine rounding modes, independent of dmlpy and of NumPy's rounding functions.

Two oracles that share no code:

* :func:`round_fraction` works on one Python float with ``fractions.Fraction`` (exact rational arithmetic):
  each mode is written as its textbook formula on the signed value (``floor(v + 1/2)`` for ties upward, ...),
  and the sign of a zero result is the input's (``math.copysign``).
* :func:`round_bits` works on whole arrays of IEEE-754 bit patterns with integer arithmetic only: it splits
  each pattern into sign, exponent and significand, shifts the significand's fractional bits out, compares
  them with one half, decides per mode, and encodes the integer result back into the format's bits. It is
  vectorised (uint64 NumPy arrays), so all 65,536 float16 or bfloat16 patterns x 9 modes take milliseconds.

``tests/unit/extensions/test_oracle.py`` checks the two against each other and against hand-written tables.
Neither uses ``numpy.rint/round/floor/ceil/trunc`` nor any floating-point rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from tests.helpers.references import NAN_RULES

HALF = Fraction(1, 2)


@dataclass(frozen=True)
class Format:
    """An IEEE-754 style binary format: 1 sign bit, ``exponent_bits``, ``mantissa_bits`` stored fraction bits."""

    name: str
    dtype: np.dtype[Any]
    bits_dtype: np.dtype[Any]
    exponent_bits: int
    mantissa_bits: int

    @property
    def width(self) -> int:
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def sign_bit(self) -> int:
        return 1 << (self.width - 1)

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.mantissa_bits - 1)

    @property
    def mantissa_mask(self) -> int:
        return (1 << self.mantissa_bits) - 1

    @property
    def exponent_mask(self) -> int:
        return (1 << self.exponent_bits) - 1

    @property
    def integral_from(self) -> int:
        """Every finite value with a magnitude at least this is an integer (2^mantissa_bits)."""
        return 1 << self.mantissa_bits


FLOAT16 = Format("float16", np.dtype(np.float16), np.dtype(np.uint16), 5, 10)
BFLOAT16 = Format("bfloat16", np.dtype(ml_dtypes.bfloat16), np.dtype(np.uint16), 8, 7)
FLOAT32 = Format("float32", np.dtype(np.float32), np.dtype(np.uint32), 8, 23)
FLOAT64 = Format("float64", np.dtype(np.float64), np.dtype(np.uint64), 11, 52)
FORMATS = {f.dtype: f for f in (FLOAT16, BFLOAT16, FLOAT32, FLOAT64)}


def format_of(dtype: Any) -> Format:
    return FORMATS[np.dtype(dtype)]


# ------------------------------------------------------------------------------------------------ Fraction oracle


def _floor(v: Fraction) -> int:
    return v.numerator // v.denominator  # floor division of integers: exact


def _ceil(v: Fraction) -> int:
    return -((-v.numerator) // v.denominator)


def _nearest_even(v: Fraction) -> int:
    low = _floor(v)
    rest = v - low
    if rest > HALF or (rest == HALF and low % 2 == 1):
        return low + 1
    return low


def round_fraction(x: float, mode: str) -> float:
    """``x`` rounded to an integer in ``mode`` by exact rational arithmetic; NaN and infinities unchanged.

    The result is a Python float (exact: every such integer is a double); a zero result carries the sign of
    ``x``, because no mode moves a value across zero."""
    if math.isnan(x) or math.isinf(x):
        return x
    v = Fraction(x)  # exact
    magnitude = abs(v)
    if mode == "NEAREST_TOWARD_INFINITY":  # ties away from zero
        result = _floor(magnitude + HALF) * (1 if v >= 0 else -1)
    elif mode == "NEAREST_TOWARD_ZERO":  # ties toward zero
        result = _ceil(magnitude - HALF) * (1 if v >= 0 else -1)
    elif mode == "NEAREST_UPWARD":  # ties toward +inf
        result = _floor(v + HALF)
    elif mode == "NEAREST_DOWNWARD":  # ties toward -inf
        result = _ceil(v - HALF)
    elif mode == "NEAREST_TOWARD_EVEN":
        result = _nearest_even(v)
    elif mode == "TOWARD_INFINITY":  # directed, away from zero
        result = _ceil(magnitude) * (1 if v >= 0 else -1)
    elif mode == "TOWARD_ZERO":
        result = _floor(magnitude) * (1 if v >= 0 else -1)
    elif mode == "UP":
        result = _ceil(v)
    elif mode == "DOWN":
        result = _floor(v)
    else:
        raise ValueError(f"unknown mode {mode!r}")
    return math.copysign(float(result), x)


def round_fraction_array(values: npt.NDArray[Any], mode: str) -> npt.NDArray[Any]:
    """:func:`round_fraction` element by element (slow: for edge lists and samples), in the input's dtype.
    NaN inputs come back as the very same bits."""
    flat = np.asarray(values).reshape(-1)
    out = flat.copy()
    for i in range(flat.size):
        value = float(flat[i])
        if not math.isnan(value):
            out[i] = round_fraction(value, mode)
    return out.reshape(np.shape(values))


# ------------------------------------------------------------------------------------------------ bit oracle

_U = np.uint64


def _encode_integers(n: npt.NDArray[np.uint64], fmt: Format) -> npt.NDArray[np.uint64]:
    """Bit patterns (without sign) of the non-negative integers ``n`` (each at most 2^mantissa_bits, so exact)."""
    top = np.zeros(n.shape, dtype=_U)  # index of the highest set bit
    for k in range(1, 64):
        top += (n >> _U(k)) != 0
    shift = _U(fmt.mantissa_bits) - top
    mantissa = (n << shift) & _U(fmt.mantissa_mask)
    exponent = (top + _U(fmt.bias)) << _U(fmt.mantissa_bits)
    return np.where(n == 0, _U(0), exponent | mantissa)


def round_bits(patterns: npt.ArrayLike, fmt: Format, mode: str) -> npt.NDArray[Any]:
    """The bit patterns of ``patterns`` (same dtype as ``fmt.bits_dtype``) rounded in ``mode``.

    Integer arithmetic only. Integral values, ±0 and ±inf come back unchanged; NaN comes back with the quiet
    bit set, sign and payload kept."""
    source = np.asarray(patterns, dtype=fmt.bits_dtype)
    b = source.astype(_U)
    m = fmt.mantissa_bits
    sign = b & _U(fmt.sign_bit)
    exponent = (b >> _U(m)) & _U(fmt.exponent_mask)
    mantissa = b & _U(fmt.mantissa_mask)
    special = exponent == _U(fmt.exponent_mask)
    normal = exponent != _U(0)
    significand = np.where(normal, mantissa | _U(1 << m), mantissa)
    # value = significand * 2^(max(exponent, 1) - bias - m): `fraction_bits` of the significand lie below 1.
    fraction_bits = fmt.bias + m - np.maximum(exponent, _U(1)).astype(np.int64)
    integral = special | (fraction_bits <= 0)
    # Past m + 2 fractional bits the integer part is 0 and the fraction is below one half either way.
    shift = np.clip(fraction_bits, 1, m + 2).astype(_U)
    whole = significand >> shift
    rest = significand & ((_U(1) << shift) - _U(1))
    half = _U(1) << (shift - _U(1))
    above, tie, inexact = rest > half, rest == half, rest != _U(0)
    negative = sign != _U(0)
    odd = (whole & _U(1)) == _U(1)
    up = {
        "NEAREST_TOWARD_INFINITY": above | tie,
        "NEAREST_TOWARD_ZERO": above,
        "NEAREST_UPWARD": above | (tie & ~negative),
        "NEAREST_DOWNWARD": above | (tie & negative),
        "NEAREST_TOWARD_EVEN": above | (tie & odd),
        "TOWARD_INFINITY": inexact,
        "TOWARD_ZERO": np.zeros_like(inexact),
        "UP": inexact & ~negative,
        "DOWN": inexact & negative,
    }[mode]
    rounded = sign | _encode_integers(whole + up.astype(_U), fmt)
    nan = special & (mantissa != _U(0))
    result = np.where(integral, np.where(nan, b | _U(fmt.quiet_bit), b), rounded)
    return result.astype(fmt.bits_dtype)


def round_values(values: npt.NDArray[Any], mode: str) -> npt.NDArray[Any]:
    """:func:`round_bits` on a float array (float16, bfloat16, float32, float64), as values of the same dtype."""
    array = np.asarray(values)
    fmt = format_of(array.dtype)
    return round_bits(array.view(fmt.bits_dtype), fmt, mode).view(fmt.dtype)


# ------------------------------------------------------------------------------------------------ comparison


def mismatches(actual: npt.NDArray[Any], expected: npt.NDArray[Any], *, nan: str = "payload") -> npt.NDArray[Any]:
    """Indices (flat) where ``actual`` differs from ``expected`` bit for bit. Where ``expected`` is NaN,
    ``actual`` must be a NaN, and by ``nan`` (references.NAN_RULES): "payload" with the same sign and payload
    apart from the quiet bit; "sign" with the same sign; "any" nothing more (a NaN that arithmetic returns, whose
    sign and payload IEEE 754 does not fix); or "bits": every bit, the quiet one too (an operator on encodings)."""
    assert nan in (*NAN_RULES, "bits"), nan
    fmt = format_of(expected.dtype)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    got = np.ascontiguousarray(actual).reshape(-1).view(fmt.bits_dtype).astype(_U)
    want = np.ascontiguousarray(expected).reshape(-1).view(fmt.bits_dtype).astype(_U)
    exponent_field = _U(fmt.exponent_mask << fmt.mantissa_bits)
    mantissa_mask = _U(fmt.mantissa_mask)

    def is_nan(bits: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
        return ((bits & exponent_field) == exponent_field) & ((bits & mantissa_mask) != _U(0))

    if nan == "bits":
        return np.flatnonzero(got != want)
    keep = {
        "payload": _U(fmt.sign_bit | (fmt.mantissa_mask & ~fmt.quiet_bit)),
        "sign": _U(fmt.sign_bit),
        "any": _U(0),
    }[nan]
    want_nan = is_nan(want)
    wrong = np.where(want_nan, ~is_nan(got) | ((got & keep) != (want & keep)), got != want)
    return np.flatnonzero(wrong)


def describe(
    indices: npt.NDArray[Any], inputs: npt.NDArray[Any], actual: npt.NDArray[Any], expected: npt.NDArray[Any]
) -> str:
    """A readable report of the first few mismatches, with bit patterns."""
    fmt = format_of(expected.dtype)
    digits = fmt.width // 4
    source = np.ascontiguousarray(inputs).reshape(-1)
    got = np.ascontiguousarray(actual).reshape(-1)
    want = np.ascontiguousarray(expected).reshape(-1)
    lines = []
    for i in indices[:12]:
        lines.append(
            f"  [{i}] input {int(source[i : i + 1].view(fmt.bits_dtype)[0]):#0{digits + 2}x} ({source[i]!r}) "
            f"got {int(got[i : i + 1].view(fmt.bits_dtype)[0]):#0{digits + 2}x} ({got[i]!r}) "
            f"want {int(want[i : i + 1].view(fmt.bits_dtype)[0]):#0{digits + 2}x} ({want[i]!r})"
        )
    return f"{indices.size} of {want.size} {fmt.name} results differ:\n" + "\n".join(lines)


def assert_rounded(actual: npt.NDArray[Any], inputs: npt.NDArray[Any], mode: str, *, nan: str = "payload") -> None:
    """``actual`` is ``inputs`` rounded in ``mode`` per the bit oracle (NaN by the ``nan`` rule of
    :func:`mismatches`: sign and payload kept, quiet bit aside, by default)."""
    expected = round_values(np.ascontiguousarray(inputs), mode)
    wrong = mismatches(np.asarray(actual), expected, nan=nan)
    assert wrong.size == 0, f"mode {mode}: " + describe(wrong, inputs, actual, expected)
