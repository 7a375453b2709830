"""DMLPY_EXT_ELEMENT_WISE_ROUND's values, bit for bit, against the exact oracles (tests/helpers/ext_oracle.py):
every float16 and bfloat16 pattern in all nine modes; float32 and float64 edge values against Python's
fractions; seeded random values of every magnitude."""

from __future__ import annotations

import numpy as np
import pytest

from dmlpy.arrays.dispatch import ArrayCall
from dmlpy.arrays.runner import run
from dmlpy.extensions import ExtElementWiseRoundOperatorDesc
from tests.helpers.ext_cases import (
    MODE_IDS,
    all_patterns,
    edge_values,
    ext_mode,
    is_nan,
    random_values,
    run_ext_round,
)
from tests.helpers.ext_oracle import (
    BFLOAT16,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    assert_rounded,
    describe,
    mismatches,
    round_fraction_array,
    round_values,
)
from tests.helpers.modes import NGRAPH_MODES as MODES


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("fmt", [FLOAT16, BFLOAT16], ids=["float16", "bfloat16"])
def test_every_16_bit_pattern(ext_device, fmt, mode):
    """All 65,536 patterns: every non-NaN result bit-exact; every NaN comes back NaN of the same sign."""
    patterns = all_patterns(fmt)
    got = run_ext_round(ext_device, patterns, mode)
    assert_rounded(got, patterns, mode, nan="sign")


@pytest.mark.parametrize("fmt", [FLOAT16, BFLOAT16], ids=["float16", "bfloat16"])  # float32/64 NaNs: edge values
def test_every_16_bit_nan_keeps_its_payload(ext_device, fmt):
    patterns = all_patterns(fmt)
    nans = patterns[is_nan(patterns)]
    assert nans.size == 2 * ((1 << fmt.mantissa_bits) - 1)
    for mode in MODES:
        got = run_ext_round(ext_device, nans, mode)
        assert_rounded(got, nans, mode, nan="payload")


def _check_against_fractions(got: np.ndarray, values: np.ndarray, mode: str) -> None:
    exact = round_fraction_array(values, mode)
    wrong = mismatches(got, exact)
    assert wrong.size == 0, f"mode {mode}: " + describe(wrong, values, got, exact)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("fmt", [FLOAT32, FLOAT64], ids=["float32", "float64"])
def test_float_edge_values(request, ext_device, fmt, mode):
    """Ties, the floats next to ±0.5, odd integers above 2^23 / 2^52, subnormals, ±0, ±inf, NaN: against
    Python's fractions (NaN: same sign, payload kept modulo the quiet bit)."""
    if fmt is FLOAT64:
        request.getfixturevalue("ext_device_fp64")
    values = edge_values(fmt)
    got = run_ext_round(ext_device, values, mode)
    _check_against_fractions(got, values, mode)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_bfloat16_and_float16_edge_values_against_fractions(ext_device, mode):
    # The exhaustive tests use the bit oracle; the edge lists also go through Python's fractions.
    for fmt in (FLOAT16, BFLOAT16):
        values = edge_values(fmt)
        got = run_ext_round(ext_device, values, mode)
        _check_against_fractions(got, values, mode)


RANDOM_COUNT = 200_000


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("fmt", [FLOAT32, FLOAT64], ids=["float32", "float64"])
def test_random_values(request, ext_device, fmt, mode):
    """Seeded random bit patterns (huge, tiny, subnormal, NaN), spread values, quarters and powers of two."""
    if fmt is FLOAT64:
        request.getfixturevalue("ext_device_fp64")
    values = random_values(fmt, RANDOM_COUNT, seed=1000 + MODES.index(mode))
    got = run_ext_round(ext_device, values, mode)
    assert_rounded(got, values, mode)
    # A sample also against Python's fractions, so the bit oracle is not the only judge.
    _check_against_fractions(got[:600], values[:600], mode)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_random_values_multidimensional(ext_device, mode):
    """A packed rank-3 float32 tensor: same results as the flat one (the walk covers every element once)."""
    values = random_values(FLOAT32, 3 * 17 * 31, seed=5).reshape(3, 17, 31)
    got = np.empty_like(values)
    run(
        ArrayCall(ExtElementWiseRoundOperatorDesc, (("rounding_mode", ext_mode(mode)),), [values], got),
        ext_device,
    )
    expected = round_values(values, mode)
    wrong = mismatches(got, expected)
    assert wrong.size == 0, describe(wrong, values, got, expected)
