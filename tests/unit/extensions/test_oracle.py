"""The oracles themselves (no dmlpy, no OpenCL): both against hand-written tables from the specifications,
and against each other on every format's edge values, random values and 16-bit patterns."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.helpers.ext_cases import all_patterns, edge_values, random_values
from tests.helpers.ext_oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    describe,
    mismatches,
    round_fraction,
    round_fraction_array,
    round_values,
)
from tests.helpers.modes import NGRAPH_MODES as MODES

FORMATS = (FLOAT16, BFLOAT16, FLOAT32, FLOAT64)
FORMAT_IDS = [f.name for f in FORMATS]

# nGraph's enum comments (peers.md §2) give 2.5 and -3.5; the rest follow from each mode's definition.
TABLE_INPUTS = (2.5, -3.5, 0.1, -0.1, 2.6, -2.6, 0.5, -0.5, -0.0, 0.0, 1.5, -1.5)
TABLE = {
    "NEAREST_TOWARD_INFINITY": (3, -4, 0, -0.0, 3, -3, 1, -1, -0.0, 0, 2, -2),
    "NEAREST_TOWARD_ZERO": (2, -3, 0, -0.0, 3, -3, 0, -0.0, -0.0, 0, 1, -1),
    "NEAREST_UPWARD": (3, -3, 0, -0.0, 3, -3, 1, -0.0, -0.0, 0, 2, -1),
    "NEAREST_DOWNWARD": (2, -4, 0, -0.0, 3, -3, 0, -1, -0.0, 0, 1, -2),
    "NEAREST_TOWARD_EVEN": (2, -4, 0, -0.0, 3, -3, 0, -0.0, -0.0, 0, 2, -2),
    "TOWARD_INFINITY": (3, -4, 1, -1, 3, -3, 1, -1, -0.0, 0, 2, -2),
    "TOWARD_ZERO": (2, -3, 0, -0.0, 2, -2, 0, -0.0, -0.0, 0, 1, -1),
    "UP": (3, -3, 1, -0.0, 3, -2, 1, -0.0, -0.0, 0, 2, -1),
    "DOWN": (2, -4, 0, -1, 2, -3, 0, -1, -0.0, 0, 1, -2),
}
# DirectML's DML_ROUNDING_MODE documentation table, under the nGraph names of the three shared modes.
DML_INPUTS = (-2.5, -1.75, -1.5, -1.25, 0.0, 1.25, 1.5, 1.75, 2.5)
DML_TABLE = {
    "NEAREST_TOWARD_EVEN": (-2, -2, -2, -1, 0, 1, 2, 2, 2),
    "TOWARD_ZERO": (-2, -1, -1, -1, 0, 1, 1, 1, 2),
    "NEAREST_TOWARD_INFINITY": (-3, -2, -2, -1, 0, 1, 2, 2, 3),
}


def _same(a: float, b: float) -> bool:
    """Equal including the sign of zero."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@pytest.mark.parametrize("mode", MODES)
def test_fraction_oracle_matches_the_table(mode):
    for x, want in zip(TABLE_INPUTS, TABLE[mode], strict=True):
        assert _same(round_fraction(x, mode), float(want)), (mode, x, round_fraction(x, mode), want)


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_bit_oracle_matches_the_table(fmt, mode):
    # 0.1, 2.6 and friends are not exact in every format; the table only needs their side of the tie.
    inputs = np.array(TABLE_INPUTS, dtype=np.float64).astype(fmt.dtype)
    got = round_values(inputs, mode)
    for x, g, want in zip(inputs.tolist(), got.tolist(), TABLE[mode], strict=True):
        assert _same(float(g), float(want)), (mode, x, g, want)


@pytest.mark.parametrize("mode", list(DML_TABLE))
def test_both_oracles_match_directml_documentation(mode):
    inputs = np.array(DML_INPUTS, dtype=np.float32)
    assert round_values(inputs, mode).tolist() == list(DML_TABLE[mode])
    assert [round_fraction(x, mode) for x in DML_INPUTS] == list(DML_TABLE[mode])


def test_known_hard_float32_cases():
    # peers.md §3: what the buggy "x + 0.5" construction gets wrong.
    x = np.array([0.49999997, -0.49999997, 8388609.0, -8388609.0, 16777215.0, 8388607.5], dtype=np.float32)
    assert round_values(x, "NEAREST_TOWARD_INFINITY").tolist() == [
        0.0,
        -0.0,
        8388609.0,
        -8388609.0,
        16777215.0,
        8388608.0,
    ]
    assert math.copysign(1.0, float(round_values(x, "NEAREST_TOWARD_INFINITY")[1])) == -1.0
    assert round_values(x, "NEAREST_TOWARD_EVEN")[5] == 8388608.0
    assert round_values(x, "NEAREST_TOWARD_ZERO")[5] == 8388607.0
    d = np.array([0.49999999999999994, 2.0**52 - 0.5, 2.0**52 + 1], dtype=np.float64)
    assert round_values(d, "NEAREST_UPWARD").tolist() == [0.0, 2.0**52, 2.0**52 + 1]
    assert round_values(d, "NEAREST_DOWNWARD").tolist() == [0.0, 2.0**52 - 1, 2.0**52 + 1]


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_bit_oracle_keeps_specials(fmt):
    values = edge_values(fmt)
    bits = values.view(fmt.bits_dtype).astype(np.uint64)
    exponent_field = np.uint64(fmt.exponent_mask << fmt.mantissa_bits)
    nan = ((bits & exponent_field) == exponent_field) & ((bits & np.uint64(fmt.mantissa_mask)) != 0)
    for mode in MODES:
        out = round_values(values, mode).view(fmt.bits_dtype).astype(np.uint64)
        assert np.array_equal(out[nan], bits[nan] | np.uint64(fmt.quiet_bit)), mode  # quieted, sign/payload kept
        infinite_or_zero = ((bits & ~np.uint64(fmt.sign_bit)) == exponent_field) | (
            (bits & ~np.uint64(fmt.sign_bit)) == 0
        )
        assert np.array_equal(out[infinite_or_zero], bits[infinite_or_zero]), mode


def _cross_check(values: np.ndarray, mode: str) -> None:
    exact = round_fraction_array(values, mode)
    by_bits = round_values(values, mode)
    wrong = mismatches(by_bits, exact)
    assert wrong.size == 0, "bit oracle vs Fraction oracle: " + describe(wrong, values, by_bits, exact)


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
@pytest.mark.parametrize("mode", MODES)
def test_oracles_agree_on_edge_and_random_values(fmt, mode):
    _cross_check(edge_values(fmt), mode)
    _cross_check(random_values(fmt, 1000, seed=7), mode)


@pytest.mark.parametrize("fmt", [FLOAT16, BFLOAT16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("mode", MODES)
def test_oracles_agree_on_sampled_16_bit_patterns(fmt, mode):
    # Every 29th pattern, a different phase per mode; the full sweep is test_oracles_agree_on_all_16_bit_patterns.
    _cross_check(all_patterns(fmt)[MODES.index(mode) :: 29], mode)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [FLOAT16, BFLOAT16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("mode", MODES)
def test_oracles_agree_on_all_16_bit_patterns(fmt, mode):
    _cross_check(all_patterns(fmt), mode)


@pytest.mark.parametrize("fmt", FORMATS, ids=FORMAT_IDS)
def test_comparison_sees_what_matters(fmt):
    # The comparison must catch a wrong sign of zero, a NaN's sign and payload, and accept only the quiet bit.
    infinity = fmt.exponent_mask << fmt.mantissa_bits
    want = np.array([0, fmt.sign_bit, infinity | fmt.quiet_bit | 5, infinity | 5], dtype=np.uint64)
    want = want.astype(fmt.bits_dtype).view(fmt.dtype)

    def patched(index: int, pattern: int) -> np.ndarray:
        got = want.copy()
        got.view(fmt.bits_dtype)[index] = pattern
        return got

    assert mismatches(want.copy(), want).size == 0
    assert mismatches(patched(0, fmt.sign_bit), want).tolist() == [0]  # -0 for +0
    assert mismatches(patched(1, 0), want).tolist() == [1]  # +0 for -0
    assert mismatches(patched(2, fmt.sign_bit | infinity | fmt.quiet_bit | 5), want).tolist() == [2]  # NaN sign
    assert mismatches(patched(2, infinity | fmt.quiet_bit | 4), want).tolist() == [2]  # NaN payload
    assert mismatches(patched(2, infinity), want).tolist() == [2]  # infinity for NaN
    assert mismatches(patched(3, infinity | fmt.quiet_bit | 5), want).size == 0  # quieted sNaN is fine
    assert mismatches(patched(2, infinity | fmt.quiet_bit | 4), want, nan="sign").size == 0
