"""dml.round against the independent oracle on values: every float16 bit pattern, float32 edge cases, random
float32 arrays at several scales. Results must be bit-identical (NaN: same sign and payload, quiet bit aside)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.modes import DML_MODE_IDS as MODE_IDS
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.references import round_reference
from tests.helpers.round_checks import assert_rounds_like_reference


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_every_float16_bit_pattern(device, mode):
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_every_float16_bit_pattern_strided(device, mode):
    # A transposed view runs the strided kernel (one element at a time) instead of the packed vector body.
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(256, 256).T
    assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


@pytest.mark.parametrize("count", [1, 7, 9], ids=["count1", "count7", "count9"])
def test_float16_nan_payload_in_packed_tail(device, count):
    x = np.array([0x7E01, 0xFD00, 0x7C01, 0xFF23, 0x7E00, 0x7D55, 0xFE00, 0x7C80, 0xFC01], np.uint16)[:count]
    x = x.view(np.float16)
    assert_rounds_like_reference(dml.round(x, mode="toward_zero", device=device), x, "toward_zero")


def _f32(*bit_patterns: int) -> list[float]:
    return list(np.array(bit_patterns, dtype=np.uint32).view(np.float32))


def _float32_edges() -> np.ndarray:
    one_half = np.float32(0.5)
    values: list[float] = []
    ties = [k + 0.5 for k in range(0, 12)] + [1048575.5, 4194302.5, 4194303.5, 8388607.5]
    values += ties + [-t for t in ties]
    for v in (one_half, np.float32(1.5), np.float32(2.5), np.float32(8388607.5)):
        for s in (v, -v):
            values += [np.nextafter(s, np.float32(np.inf)), np.nextafter(s, np.float32(-np.inf))]
    values += [0.49999997, -0.49999997, 0.50000006, -0.50000006, 0.25, -0.25, 0.75, -0.75, 1.0, -1.0]
    # Odd integers just above 2^23 (x + 0.5 tricks round them to even) and around 2^24, all already integral.
    values += [8388608.0, 8388609.0, 8388611.0, 16777215.0, 16777216.0, 16777218.0, 2.0**31, 2.0**31 + 256.0]
    values += [-8388609.0, -16777215.0, -(2.0**31)]
    # Subnormals: smallest and largest of each sign, and a middle one.
    values += _f32(0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x807F_FFFF, 0x0040_0000, 0x8040_0000)
    values += _f32(0x0080_0000, 0x8080_0000)  # smallest normals
    values += _f32(0x0000_0000, 0x8000_0000)  # +0, -0
    values += [np.inf, -np.inf, 3.4028235e38, -3.4028235e38, 1e30, -1e30]
    # Quiet and signalling NaNs with sign and payload.
    values += _f32(0x7FC0_0000, 0xFFC0_0000, 0x7FC1_2345, 0xFFDE_ADBE, 0x7F80_0001, 0xFF80_0001, 0x7FA5_A5A5)
    values += _f32(0xFFB0_0F00, 0x7FFF_FFFF, 0xFFFF_FFFF)
    return np.array(values, dtype=np.float32)


FLOAT32_EDGES = _float32_edges()


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_float32_edge_values(device, mode):
    x = FLOAT32_EDGES.copy()
    assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_float32_edge_values_one_at_a_time(device, mode):
    # Each value alone takes the scalar tail of the packed kernel instead of its vector body.
    for value in FLOAT32_EDGES[::3]:
        x = np.array([value], dtype=np.float32)
        assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


def test_oracle_matches_the_documented_table():
    # learn.microsoft.com DML_ROUNDING_MODE's vectors (directml-spec.md §4), fixed values, not computed ones.
    x = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], dtype=np.float32)
    table = {
        dml.RoundingMode.HALVES_TO_NEAREST_EVEN: [-2, -2, -2, -1, 0, 1, 2, 2, 2],
        dml.RoundingMode.TOWARD_ZERO: [-2, -1, -1, -1, 0, 1, 1, 1, 2],
        dml.RoundingMode.TOWARD_INFINITY: [-3, -2, -2, -1, 0, 1, 2, 2, 3],
    }
    for mode, want in table.items():
        np.testing.assert_array_equal(round_reference(x, mode), np.array(want, dtype=np.float32))
        np.testing.assert_array_equal(dml.round(x, mode=mode), np.array(want, dtype=np.float32))
    assert np.signbit(round_reference(np.float32([-0.25]), dml.RoundingMode.TOWARD_INFINITY))[0]
    assert round_reference(np.float32([0.49999997]), dml.RoundingMode.TOWARD_INFINITY)[0] == 0.0
    assert round_reference(np.float32([8388609.0]), dml.RoundingMode.TOWARD_INFINITY)[0] == 8388609.0


SCALES = [1.0, 100.0, 2.0**22, 2.0**23, 2.0**24, 1e30]


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("scale", SCALES, ids=[f"scale{s:g}" for s in SCALES])
def test_random_float32(device, mode, scale):
    rng = np.random.default_rng(int(scale) % 1000 + 17)
    x = rng.uniform(-scale, scale, 100_003).astype(np.float32)
    x[::7] = np.round(x[::7] * 2) / 2  # plenty of ties at the smaller scales
    assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_random_float32_bit_patterns(device, mode):
    x = np.random.default_rng(5).integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    assert_rounds_like_reference(dml.round(x, mode=mode, device=device), x, mode)


def test_oracle_float16_agrees_with_oracle_float32():
    # A consistency check of the oracle itself: on every finite float16 value, rounding in float16 and rounding
    # the same value as float32 give the same number.
    x16 = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    x16 = x16[np.isfinite(x16)]
    for mode in MODES:
        via32 = round_reference(x16.astype(np.float32), mode).astype(np.float16)
        np.testing.assert_array_equal(via32.view(np.uint16), round_reference(x16, mode).view(np.uint16))


def _exact_round(value: float, mode: dml.RoundingMode) -> float:
    """Round with exact rationals (Fraction), independent of any floating-point rounding."""
    q = Fraction(value)
    magnitude = abs(q)
    whole = magnitude.numerator // magnitude.denominator
    rest = magnitude - whole
    if mode == dml.RoundingMode.HALVES_TO_NEAREST_EVEN:
        up = rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2 == 1)
    elif mode == dml.RoundingMode.TOWARD_INFINITY:
        up = rest >= Fraction(1, 2)
    else:
        up = False
    return math.copysign(float(whole + up), value)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_oracle_matches_exact_rationals(mode):
    x = np.concatenate([FLOAT32_EDGES, np.random.default_rng(8).uniform(-2e7, 2e7, 2000).astype(np.float32)])
    x = x[np.isfinite(x)]
    want = np.array([_exact_round(float(v), mode) for v in x], dtype=np.float32)
    np.testing.assert_array_equal(round_reference(x, mode).view(np.uint32), want.view(np.uint32))
