"""Device results of dml.quantize_linear / dml.dequantize_linear against the independent oracle (oracle.py).

Hand-written expectations (ties, saturation, NaN/inf) are checked against both the oracle and the device, so a
wrong oracle cannot hide a wrong kernel.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle as oracle
from tests.helpers.dtypes import INTEGER_DTYPES_32 as INTEGER_DTYPES

U8, I8 = np.dtype(np.uint8), np.dtype(np.int8)
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)


def assert_same(actual: npt.NDArray[Any], expected: npt.NDArray[Any]) -> None:
    """Same dtype, shape and bits (float outputs compared bit for bit, so -0.0 != +0.0)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    a = np.ascontiguousarray(actual).reshape(-1)
    e = np.ascontiguousarray(expected).reshape(-1)
    if a.dtype.kind == "f":
        a, e = a.view(f"u{a.itemsize}"), e.view(f"u{e.itemsize}")
    wrong = np.flatnonzero(a != e)
    assert wrong.size == 0, (
        f"{wrong.size} of {a.size} differ; first at {wrong[:8]}: got {actual.reshape(-1)[wrong[:8]]} "
        f"want {expected.reshape(-1)[wrong[:8]]}"
    )


# ---------------------------------------------------------------------------------------------------------------
# Ties after the division, saturation, NaN and infinities: hand-written answers.

# (x, scale, zero_point, output dtype, expected)
TIES = {
    "5_by_2_is_2.5_to_2": (5.0, 2.0, 0, I8, 2),
    "7_by_2_is_3.5_to_4": (7.0, 2.0, 0, I8, 4),
    "-5_by_2_is_-2.5_to_-2": (-5.0, 2.0, 0, I8, -2),
    "-7_by_2_is_-3.5_to_-4": (-7.0, 2.0, 0, I8, -4),
    "1_by_2_is_0.5_to_0": (1.0, 2.0, 0, I8, 0),
    "-1_by_2_is_-0.5_to_0": (-1.0, 2.0, 0, I8, 0),
    "3_by_2_is_1.5_to_2": (3.0, 2.0, 0, I8, 2),
    "0.75_by_0.5_is_1.5_to_2": (0.75, 0.5, 0, I8, 2),
    "1.25_by_0.5_is_2.5_to_2": (1.25, 0.5, 0, I8, 2),
    "-1.25_by_0.5_is_-2.5_to_-2": (-1.25, 0.5, 0, I8, -2),
    "9_by_2_plus_zp1_is_4_plus_1": (9.0, 2.0, 1, I8, 5),
    "11_by_2_plus_zp1_is_6_plus_1": (11.0, 2.0, 1, I8, 7),
    "uint8_5_by_2_plus_zp128": (5.0, 2.0, 128, U8, 130),
    "uint8_-5_by_2_plus_zp128": (-5.0, 2.0, 128, U8, 126),
    "uint8_-7_by_2_plus_zp128": (-7.0, 2.0, 128, U8, 124),
    "12.5_by_5_is_2.5_to_2": (12.5, 5.0, 0, I8, 2),
    "17.5_by_5_is_3.5_to_4": (17.5, 5.0, 0, I8, 4),
    "0.375_by_0.25_is_1.5_to_2": (0.375, 0.25, 0, U8, 2),
}
SATURATION = {
    "uint8_above_max": (1000.0, 1.0, 0, U8, 255),
    "uint8_below_min": (-1000.0, 1.0, 0, U8, 0),
    "int8_above_max": (1000.0, 1.0, 0, I8, 127),
    "int8_below_min": (-1000.0, 1.0, 0, I8, -128),
    "uint8_exact_max": (255.0, 1.0, 0, U8, 255),
    "uint8_tie_255.5_to_256_saturates": (255.5, 1.0, 0, U8, 255),
    "uint8_tie_254.5_to_254": (254.5, 1.0, 0, U8, 254),
    "uint8_-0.5_to_0": (-0.5, 1.0, 0, U8, 0),
    "uint8_-1.5_to_-2_saturates": (-1.5, 1.0, 0, U8, 0),
    "int8_tie_127.5_to_128_saturates": (127.5, 1.0, 0, I8, 127),
    "int8_tie_126.5_to_126": (126.5, 1.0, 0, I8, 126),
    "int8_tie_-128.5_to_-128": (-128.5, 1.0, 0, I8, -128),
    "int8_tie_-127.5_to_-128": (-127.5, 1.0, 0, I8, -128),
    "int8_-129_saturates": (-129.0, 1.0, 0, I8, -128),
    "uint8_zero_point_pushes_over": (200.0, 1.0, 100, U8, 255),
    "uint8_zero_point_pushes_under": (-200.0, 1.0, 100, U8, 0),
    "int8_zero_point_pushes_over": (100.0, 1.0, 100, I8, 127),
    "int8_zero_point_pushes_under": (-100.0, 1.0, -100, I8, -128),
    "int8_zero_point_brings_back": (200.0, 1.0, -100, I8, 100),
    "uint8_huge_quotient": (3.0e38, 1.0e-3, 0, U8, 255),
    "int8_huge_negative_quotient": (-3.0e38, 1.0e-3, 5, I8, -128),
    "uint8_quotient_2^31": (2.0**31, 1.0, 0, U8, 255),
    "int8_quotient_-2^40": (-(2.0**40), 1.0, 0, I8, -128),
    "uint8_tiny_scale": (1.0, 1.0e-45, 0, U8, 255),
    "subnormal_over_subnormal": (3.0e-45, 2.0e-45, 0, U8, 2),  # 2 * 2^-149 / 1 * 2^-149 ... see oracle
    "max_float_by_max_float": (3.4028235e38, 3.4028235e38, 0, U8, 1),
}
# dmlpy's documented behaviour (quantize_linear docstring; opencl/elementwise_ops.h's quantize and saturation): NaN
# quantizes to 0 whatever the zero point, +inf and -inf saturate to the output type's maximum and minimum.
SPECIALS = {
    "nan_uint8": (np.nan, 1.0, 0, U8, 0),
    "nan_uint8_zp128": (np.nan, 1.0, 128, U8, 0),
    "nan_int8": (np.nan, 0.5, 0, I8, 0),
    "nan_int8_zp-5": (np.nan, 0.5, -5, I8, 0),
    "neg_nan_int8": (-np.nan, 0.5, 3, I8, 0),
    "nan_scale": (1.0, np.nan, 3, U8, 0),
    "inf_uint8": (np.inf, 1.0, 0, U8, 255),
    "inf_int8": (np.inf, 1.0, 0, I8, 127),
    "neg_inf_uint8": (-np.inf, 1.0, 128, U8, 0),
    "neg_inf_int8": (-np.inf, 1.0, 10, I8, -128),
    "inf_negative_scale": (np.inf, -1.0, 0, I8, -128),
    "inf_scale_gives_zero": (5.0, np.inf, 7, U8, 7),
    "neg_zero": (-0.0, 1.0, 0, I8, 0),
    "neg_zero_zp": (-0.0, 3.0, 9, U8, 9),
}
# scale=1e-45 (the smallest subnormal) and subnormal inputs: PoCL keeps float32 subnormals, and the oracle
# implements gradual underflow; DirectML on D3D may flush them, so these two are dmlpy's (IEEE) behaviour.


def _hand_cases(table: dict[str, tuple[Any, ...]]) -> list[Any]:
    return [pytest.param(*case, id=name) for name, case in table.items()]


@pytest.mark.parametrize(("x", "scale", "zero_point", "dtype", "expected"), _hand_cases(TIES | SATURATION | SPECIALS))
@pytest.mark.filterwarnings("ignore::dmlpy.ScaleWarning")  # SPECIALS' NaN, infinite and negative scales warn
def test_hand_written(x, scale, zero_point, dtype, expected):
    xs = np.array([x], F32)
    want = np.array([expected], dtype)
    assert_same(oracle.quantize(xs, np.float32(scale), dtype.type(zero_point), out_dtype=dtype), want)
    got = dml.quantize_linear(xs, np.float32(scale), np.array(zero_point, dtype))
    assert_same(got, want)


@pytest.mark.parametrize(("x", "scale", "zero_point", "dtype", "expected"), _hand_cases(TIES | SPECIALS))
@pytest.mark.filterwarnings("ignore::dmlpy.ScaleWarning")  # SPECIALS' NaN, infinite and negative scales warn
def test_hand_written_float16(x, scale, zero_point, dtype, expected):
    xs = np.array([x], F16)
    want = np.array([expected], dtype)
    assert_same(oracle.quantize(xs, np.float16(scale), dtype.type(zero_point), out_dtype=dtype), want)
    assert_same(dml.quantize_linear(xs, np.float16(scale), np.array(zero_point, dtype)), want)


# ---------------------------------------------------------------------------------------------------------------
# True division: values where x * (1/scale) and x / scale quantize differently.


def _reciprocal_traps(count: int = 48) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Pairs (x, scale) near ties where multiplying by the float32 reciprocal rounds to another integer."""
    rng = np.random.default_rng(20240611)
    xs: list[np.float32] = []
    ss: list[np.float32] = []
    while len(xs) < count:
        s = rng.uniform(0.001, 3.0, 20000).astype(np.float32)
        k = rng.integers(-120, 120, 20000).astype(np.float32)
        base = ((k.astype(np.float64) + 0.5) * s.astype(np.float64)).astype(np.float32)
        for step in (-1, 0, 1):
            x = base if step == 0 else np.nextafter(base, np.float32(np.inf * step))
            with np.errstate(all="ignore"):
                true_q = x / s  # float32 division, correctly rounded by IEEE
                recip_q = x * (np.float32(1) / s)
            hit = np.flatnonzero(np.rint(true_q) != np.rint(recip_q))
            xs.extend(x[hit])
            ss.extend(s[hit])
    return np.array(xs[:count], F32), np.array(ss[:count], F32)


TRAP_X, TRAP_SCALE = _reciprocal_traps()


def test_reciprocal_traps_found():
    assert TRAP_X.size == 48
    with np.errstate(all="ignore"):
        recip = np.rint(TRAP_X * (np.float32(1) / TRAP_SCALE))
    exact = np.array(
        [
            oracle.round_half_even(oracle.Fraction(oracle.float_quotient(a, b, F32)))
            for a, b in zip(TRAP_X, TRAP_SCALE, strict=True)
        ]
    )
    assert np.all(recip != exact), "every trap must separate true division from the reciprocal multiply"


@pytest.mark.parametrize("dtype", [I8, U8], ids=["int8", "uint8"])
def test_true_division_not_reciprocal(dtype):
    zero_point = 0 if dtype == I8 else 128
    # One element per trap, each with its own scale: per-axis along axis 0 of an (n, 1) tensor.
    x = TRAP_X.reshape(-1, 1)
    got = dml.quantize_linear(x, TRAP_SCALE, np.full(TRAP_SCALE.size, zero_point, dtype), axis=0)
    want = oracle.quantize(x, TRAP_SCALE, np.full(TRAP_SCALE.size, zero_point, dtype), axis=0, out_dtype=dtype)
    assert_same(got, want)
    with np.errstate(all="ignore"):
        reciprocal = np.clip(np.rint(TRAP_X * (np.float32(1) / TRAP_SCALE)) + zero_point, *oracle.INTEGER_RANGES[dtype])
    assert np.any(got.reshape(-1).astype(np.int64) != reciprocal.astype(np.int64))


def _quotient_rounds_onto_tie(count: int = 24) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """(x, scale) whose exact quotient is *not* a tie but whose float32 quotient is exactly k + 0.5."""
    rng = np.random.default_rng(7)
    xs, ss = [], []
    while len(xs) < count:
        s = rng.uniform(0.01, 2.0, 5000).astype(np.float32)
        k = rng.integers(-100, 100, 5000)
        x = ((k + 0.5) * s.astype(np.float64)).astype(np.float32)
        for a, b in zip(x, s, strict=True):
            q = oracle.Fraction(float(a)) / oracle.Fraction(float(b))
            if q.denominator != 2 and oracle.float_quotient(a, b, F32) % 1 == 0.5:
                xs.append(a)
                ss.append(b)
    return np.array(xs[:count], F32), np.array(ss[:count], F32)


def test_ties_are_decided_on_the_float_quotient():
    # ONNX's np.rint(x / y_scale) and DirectML decide ties on the IEEE quotient; an exact-rational rounding would
    # differ on these inputs. The kernel must follow the float quotient.
    x, s = _quotient_rounds_onto_tie()
    got = dml.quantize_linear(x.reshape(-1, 1), s, np.zeros(s.size, I8), axis=0).reshape(-1)
    float_rule = np.array([oracle.quantize_scalar(a, b, 0, I8) for a, b in zip(x, s, strict=True)], I8)
    exact_rule = np.array(
        [
            np.clip(round(oracle.Fraction(float(a)) / oracle.Fraction(float(b))), -128, 127)
            for a, b in zip(x, s, strict=True)
        ],
        np.int64,
    )
    assert np.any(float_rule.astype(np.int64) != exact_rule)
    assert_same(got, float_rule)


# ---------------------------------------------------------------------------------------------------------------
# Random per-tensor and per-axis data.


def _float_values(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> npt.NDArray[Any]:
    """A mix of ties (multiples of 1/2 and 1/4), uniform values over and past the quantized range, specials."""
    n = int(np.prod(shape))
    ties = rng.integers(-600, 600, n) / 4.0
    spread = rng.uniform(-400.0, 400.0, n)
    values = np.where(rng.random(n) < 0.5, ties, spread).astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 6e4, -6e4], dtype=dtype)
    picks = rng.random(n) < 0.05
    values[picks] = specials[rng.integers(0, specials.size, int(picks.sum()))]
    return values.reshape(shape)


@pytest.mark.parametrize("zero_point_kind", ["none", "zero", "random"])
@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
@pytest.mark.parametrize("in_dtype", [F32, F16], ids=["float32", "float16"])
def test_per_tensor_random(in_dtype, out_dtype, zero_point_kind):
    rng = np.random.default_rng(zlib.crc32(f"{in_dtype}{out_dtype}{zero_point_kind}".encode()))
    x = _float_values(rng, (3, 5, 67), in_dtype)
    for scale in (0.5, 1.0, 0.1, 3.7, 0.0039215689, 250.0):
        s = in_dtype.type(scale)
        zp = {
            "none": None,
            "zero": out_dtype.type(0),
            "random": out_dtype.type(rng.integers(*oracle.INTEGER_RANGES[out_dtype])),
        }[zero_point_kind]
        got = dml.quantize_linear(x, s, zp, dtype=out_dtype)
        assert_same(got, oracle.quantize(x, s, zp, out_dtype=out_dtype))


RANK_SHAPES = {
    1: (37,),
    2: (3, 11),
    3: (2, 5, 7),
    4: (2, 3, 4, 5),
    5: (2, 3, 1, 4, 3),
    6: (1, 3, 2, 2, 3, 2),
    7: (2, 1, 3, 2, 1, 2, 3),
    8: (1, 2, 3, 1, 2, 2, 1, 3),
}
AXIS_CASES = [
    pytest.param(rank, axis, id=f"rank{rank}-axis{axis}")
    for rank in RANK_SHAPES
    for axis in (0, 1, -1, None)
    if not (rank == 1 and axis in (1, None))
]


@pytest.mark.parametrize(("rank", "axis"), AXIS_CASES)
def test_quantize_per_axis(rank, axis):
    shape = RANK_SHAPES[rank]
    rng = np.random.default_rng(rank * 10 + (axis if axis is not None else 7))
    x = _float_values(rng, shape, F32)
    n = shape[(1 if axis is None else axis) % rank]
    scale = rng.uniform(0.05, 4.0, n).astype(F32)
    for out_dtype in (U8, I8):
        zp = rng.integers(*oracle.INTEGER_RANGES[out_dtype], size=n).astype(out_dtype)
        got = dml.quantize_linear(x, scale, zp, axis=axis)
        assert_same(got, oracle.quantize(x, scale, zp, axis=axis, out_dtype=out_dtype))
    got = dml.quantize_linear(x, scale, None, axis=axis, dtype=I8)  # null ZeroPointTensor, per-axis scale
    assert_same(got, oracle.quantize(x, scale, None, axis=axis, out_dtype=I8))


@pytest.mark.parametrize(("rank", "axis"), [c for c in AXIS_CASES if c.values[0] in (1, 3, 8)])
def test_dequantize_per_axis(rank, axis):
    shape = RANK_SHAPES[rank]
    rng = np.random.default_rng(rank * 100 + (axis if axis is not None else 9))
    n = shape[(1 if axis is None else axis) % rank]
    for in_dtype in (U8, I8):
        x = rng.integers(*oracle.INTEGER_RANGES[in_dtype], size=shape, endpoint=True).astype(in_dtype)
        zp = rng.integers(*oracle.INTEGER_RANGES[in_dtype], size=n, endpoint=True).astype(in_dtype)
        for scale_dtype in (F32, F16):
            scale = rng.uniform(0.001, 2.0, n).astype(scale_dtype)
            assert_same(dml.dequantize_linear(x, scale, zp, axis=axis), oracle.dequantize(x, scale, zp, axis=axis))
            assert_same(dml.dequantize_linear(x, scale, None, axis=axis), oracle.dequantize(x, scale, None, axis=axis))


def test_float16_quotient_overflows_half():
    # 60000 / 0.25 = 240000 overflows float16: the quotient is +inf and saturates; 1000 / 0.0001 likewise.
    x = np.array([60000, -60000, 1000, 65504, 2.5, 3.5], F16)
    scale = np.float16(0.25)
    want = np.array([255, 0, 255, 255, 10, 14], U8)
    assert_same(oracle.quantize(x, scale, None, out_dtype=U8), want)
    assert_same(dml.quantize_linear(x, scale, dtype=U8), want)


def test_float16_ties_after_division_random():
    # Every float16 in [-300, 300] divided by scales that create many exact half-integer quotients.
    x = np.arange(-300, 300, 0.125, dtype=np.float64).astype(F16)
    for scale in (0.5, 0.25, 2.0, 1.5, 0.1, 3.0):
        for out_dtype in (U8, I8):
            zp = out_dtype.type(100 if out_dtype == U8 else -3)
            got = dml.quantize_linear(x, np.float16(scale), zp)
            assert_same(got, oracle.quantize(x, np.float16(scale), zp, out_dtype=out_dtype))


ALL_FLOAT16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


@pytest.mark.parametrize("scale", [0.5, 0.1, 3.3, 2.0**-10, 1000.0])
@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
def test_every_float16_input(scale: float, out_dtype: np.dtype[Any]) -> None:
    # All 65,536 halves (NaN, infinities, subnormals included) through the kernel's float16 quotient, against
    # NumPy step by step: the float32 quotient (correctly rounded) rounded to float16 (innocuous double rounding,
    # 24 >= 2 * 11 + 2 bits), rint, the zero point, saturation with NaN to 0.
    half_scale = np.float16(scale)
    zero_point = out_dtype.type(7)
    with np.errstate(all="ignore"):
        quotient = (ALL_FLOAT16.astype(F32) / np.float32(half_scale)).astype(F16).astype(F32)
        shifted = np.rint(quotient) + np.float32(zero_point)
    info = np.iinfo(out_dtype)
    want = np.where(np.isnan(shifted), 0, np.clip(np.nan_to_num(shifted, posinf=info.max, neginf=info.min),
                                                  info.min, info.max)).astype(out_dtype)  # fmt: skip
    assert_same(dml.quantize_linear(ALL_FLOAT16, half_scale, zero_point), want)


@pytest.mark.parametrize("scale", [0.5, 0.1, 3.3, 2.0**-20, 60000.0])
def test_every_uint8_dequantized_to_float16(scale: float) -> None:
    # (x - zero point) * scale in float32, rounded once to float16: subnormal, normal and overflowing halves.
    x = np.arange(256, dtype=U8)
    half_scale = np.float16(scale) if scale >= 2.0**-14 else np.float16(2.0**-14) * np.float16(2.0**-6)
    with np.errstate(all="ignore"):
        want = ((x.astype(F32) - np.float32(9)) * np.float32(half_scale)).astype(F16)
    assert_same(dml.dequantize_linear(x, half_scale, np.uint8(9)), want)


# ---------------------------------------------------------------------------------------------------------------
# INT32 input (FLOAT32 scale).


def test_int32_input_exact_range():
    # |x| <= 2^24: the conversion to float32 is exact; quotients are then correctly rounded float32 divisions.
    rng = np.random.default_rng(32)
    x = np.concatenate([rng.integers(-(2**24), 2**24, 3000), np.arange(-40, 41), [2**24, -(2**24)]]).astype(np.int32)
    for scale in (2.0, 0.5, 3.0, 7.0, 0.3, 1000.0, 131072.0):
        for out_dtype in (U8, I8):
            zp = out_dtype.type(7)
            got = dml.quantize_linear(x, np.float32(scale), zp)
            assert_same(got, oracle.quantize(x, np.float32(scale), zp, out_dtype=out_dtype))


def test_int32_input_ties():
    x = np.array([5, 7, -5, -7, 1, -1, 3, 255 * 2 + 1, -(128 * 2 + 1), 2**31 - 1, -(2**31)], np.int32)
    want = np.array([2, 4, -2, -4, 0, 0, 2, 127, -128, 127, -128], I8)
    assert_same(oracle.quantize(x, np.float32(2), np.int8(0), out_dtype=I8), want)
    assert_same(dml.quantize_linear(x, np.float32(2), np.int8(0)), want)


def test_int32_input_beyond_float32_precision():
    # dmlpy converts an INT32 input to float32 before dividing (the FLOAT32 scale's precision); the oracle models
    # that conversion. Scale 2^20 keeps quotients within the int8 range.
    x = np.array([2**24 + 1, 2**24 + 3, 2**25 + 2, -(2**24) - 1, 2**27 + 2**19, 2**27 - 2**19 + 1], np.int32)
    scale = np.float32(2.0**20)
    assert_same(dml.quantize_linear(x, scale, np.int8(0)), oracle.quantize(x, scale, np.int8(0), out_dtype=I8))


# ---------------------------------------------------------------------------------------------------------------
# Dequantize: all six integer input types, float32 and float16 outputs.


def _integer_values(rng: np.random.Generator, dtype: np.dtype, n: int) -> npt.NDArray[Any]:
    low, high = oracle.INTEGER_RANGES[dtype]
    if dtype.itemsize == 4:
        # |x|, |zero point| <= 2^23: the kernel computes x - zero_point in float32, which is exact only there
        # (ONNX's reference converts x to float32 as well). See the report: larger int32/uint32 values lose bits.
        low, high = max(low, -(2**23)), min(high, 2**23)
    edges = np.array([low, high, 0, 1, low + 1, high - 1], np.int64)
    return np.concatenate([edges, rng.integers(low, high, n, endpoint=True)]).astype(dtype)


@pytest.mark.parametrize("zero_point_kind", ["none", "edge", "random"])
@pytest.mark.parametrize("scale_dtype", [F32, F16], ids=["float32", "float16"])
@pytest.mark.parametrize("in_dtype", INTEGER_DTYPES, ids=[d.name for d in INTEGER_DTYPES])
def test_dequantize_types(in_dtype, scale_dtype, zero_point_kind):
    rng = np.random.default_rng(in_dtype.itemsize * 31 + len(zero_point_kind) + scale_dtype.itemsize)
    x = _integer_values(rng, in_dtype, 500)
    low, high = (int(v) for v in (x.min(), x.max()))
    zp = {"none": None, "edge": in_dtype.type(high), "random": in_dtype.type(rng.integers(low, high))}[zero_point_kind]
    for scale in (1.0, 0.5, 0.0123, 3.0, 1e-5, 65504.0 if scale_dtype == F16 else 1e30):
        s = scale_dtype.type(scale)
        got = dml.dequantize_linear(x, s, zp)
        assert_same(got, oracle.dequantize(x, s, zp))


def test_dequantize_hand_written():
    x = np.array([0, 1, 128, 255], U8)
    assert_same(dml.dequantize_linear(x, np.float32(0.5), np.uint8(128)), np.array([-64, -63.5, 0, 63.5], F32))
    assert_same(dml.dequantize_linear(x, np.float16(2), np.uint8(1)), np.array([-2, 0, 254, 508], F16))
    # float16 overflow: (255 - 0) * 65504 is past float16's range.
    assert_same(dml.dequantize_linear(x, np.float16(65504), np.uint8(0))[-1:], np.array([np.inf], F16))
    y = np.array([-128, 127], I8)
    assert_same(dml.dequantize_linear(y, np.float32(1), np.int8(-128)), np.array([0, 255], F32))
    assert_same(dml.dequantize_linear(y, np.float32(1), np.int8(127)), np.array([-255, 0], F32))


def test_dequantize_zero_point_dtype_mismatch_refused():
    with pytest.raises(dml.InvalidArgumentError):
        dml.dequantize_linear(np.array([1, 2], U8), np.float32(1), np.int8(-1))


# ---------------------------------------------------------------------------------------------------------------
# Round trips.


@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
@pytest.mark.parametrize("scale", [0.5, 0.1, 0.0078125, 3.3, 17.0])
def test_round_trip_within_half_a_step(out_dtype, scale):
    rng = np.random.default_rng(int(scale * 1000))
    low, high = oracle.INTEGER_RANGES[out_dtype]
    zp = out_dtype.type(rng.integers(low + 20, high - 20))
    s = np.float32(scale)
    # Inputs whose quotient stays inside the representable range.
    x = ((rng.uniform(low + 0.5, high - 0.5, 4000) - int(zp)) * scale).astype(F32)
    q = dml.quantize_linear(x, s, zp)
    back = dml.dequantize_linear(q, s, zp)
    error = np.abs(back.astype(np.float64) - x.astype(np.float64))
    # scale/2 plus float32 rounding of the quotient and of the product.
    bound = scale / 2 + 4 * np.finfo(F32).eps * (np.abs(x.astype(np.float64)) + scale)
    assert np.all(error <= bound), (x[error > bound][:5], back[error > bound][:5])


@pytest.mark.parametrize("out_dtype", [U8, I8], ids=["uint8", "int8"])
@pytest.mark.parametrize("scale_dtype", [F32, F16], ids=["float32", "float16"])
def test_every_quantized_value_survives_dequantize_quantize(out_dtype, scale_dtype):
    low, high = oracle.INTEGER_RANGES[out_dtype]
    q = np.arange(low, high + 1).astype(out_dtype)
    for scale in (0.5, 0.1, 0.007, 3.0):
        for zp in (low, 0 if low < 0 else 128, high):
            s, z = scale_dtype.type(scale), out_dtype.type(zp)
            assert_same(dml.quantize_linear(dml.dequantize_linear(q, s, z), s, z), q)


# ---------------------------------------------------------------------------------------------------------------
# One-liner arguments.


def test_empty_inputs():
    assert dml.quantize_linear(np.zeros((0, 3), F32), np.float32(1)).shape == (0, 3)
    assert dml.dequantize_linear(np.zeros((2, 0), U8), np.float32(1)).shape == (2, 0)


def test_scalar_values():
    assert_same(dml.quantize_linear(np.float32(2.5), np.float32(1)).reshape(()), np.array(2, U8))
    assert_same(dml.dequantize_linear(np.uint8(3), np.float32(0.5), np.uint8(1)).reshape(()), np.array(1.0, F32))


@pytest.mark.parametrize("which", ["quantize", "dequantize"])
def test_scalar_shape_kept(which):
    if which == "quantize":
        assert dml.quantize_linear(np.float32(2.5), np.float32(1)).shape == ()
    else:
        assert dml.dequantize_linear(np.uint8(3), np.float32(0.5)).shape == ()


def test_two_dimensional_scale_of_no_block_shape_refused():
    # A scale of the input's rank is WebNN's blocked form now; a (3, 1) scale blocks nothing of a (2, 3) input.
    with pytest.raises(dml.InvalidArgumentError, match="must be 1, the input's own, or a divisor of it"):
        dml.quantize_linear(np.ones((2, 3), F32), np.ones((3, 1), F32))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(
            lambda: dml.quantize_linear(np.float64([1]), 1.0), "float32, float16 or int32", id="float64_input"
        ),
        pytest.param(
            lambda: dml.quantize_linear(np.float32([1]), 1.0, dtype=np.int16), "uint8 or int8", id="int16_output"
        ),
        pytest.param(
            lambda: dml.quantize_linear(np.float32([1]), 1.0, np.uint8(0), dtype=np.int8),
            "zero_point",
            id="zero_point_vs_dtype",
        ),
        pytest.param(
            lambda: dml.quantize_linear(np.ones((2, 3), F32), np.ones(2, F32)),
            "axis 1",
            id="scale_length_vs_default_axis",
        ),
        pytest.param(
            lambda: dml.quantize_linear(np.ones((2, 3), F32), np.ones(3, F32), axis=2),
            "out of range",
            id="axis_out_of_range",
        ),
        pytest.param(lambda: dml.dequantize_linear(np.float32([1]), 1.0), "integer input", id="dequantize_float_input"),
        pytest.param(lambda: dml.dequantize_linear(np.int64([1]), 1.0), "integer input", id="dequantize_int64_input"),
    ],
)
def test_one_liner_refusals(call, match):
    with pytest.raises(dml.InvalidArgumentError, match=match):
        call()


@pytest.mark.parametrize(
    ("zero_point", "match"),
    [
        pytest.param(
            np.float32(-1.0),
            r"^zero_point: value is -1\.0; .* UINT8, which holds the integers 0 to 255",
            id="negative_float_for_uint8",
        ),
        pytest.param(
            np.float32(2.5), r"^zero_point: value is 2\.5; .*the integers 0 to 255: give one", id="fractional_float"
        ),
        pytest.param(300, r"^zero_point: value is 300; the zero point is read as UINT8", id="python_int_out_of_range"),
    ],
)
def test_zero_points_are_never_wrapped(zero_point, match):
    with pytest.raises(dml.InvalidArgumentError, match=match):
        dml.quantize_linear(np.float32([1, 2, 3]), np.float32(1), zero_point, dtype=U8)


def test_whole_float_and_python_int_zero_points_are_taken():
    x = np.float32([1, 2, 3])
    assert_same(dml.quantize_linear(x, np.float32(1), np.float32(5.0), dtype=U8), np.array([6, 7, 8], U8))
    assert_same(dml.quantize_linear(x, np.float32(1), 128, dtype=U8), np.array([129, 130, 131], U8))


def test_an_explicit_axis_is_checked_even_for_a_scalar_scale():
    with pytest.raises(dml.InvalidArgumentError, match="axis 7"):
        dml.quantize_linear(np.float32([1, 2, 3]), np.float32(1), axis=7)
