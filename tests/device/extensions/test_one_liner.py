"""``dml.round(x, mode=...)`` with everything the issue adds: nGraph's nine mode names (and ExtRoundingMode
members), the ONNX/OpenVINO names and DirectML's, on float32, float16, float64, bfloat16 and integer arrays,
checked bit for bit against the exact oracle."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from dmlpy.extensions import ExtRoundingMode
from tests.helpers.dtypes import INTEGER_DTYPES
from tests.helpers.ext_cases import edge_values, is_nan, random_values
from tests.helpers.ext_oracle import BFLOAT16, FLOAT16, FLOAT32, FLOAT64, assert_rounded, format_of
from tests.helpers.modes import NGRAPH_MODES as MODES

# Every spelling the one-liner takes, with the nGraph mode it means.
SPELLINGS: list[tuple[object, str]] = [
    *[("ROUND_" + mode, mode) for mode in MODES],
    *[(ExtRoundingMode[mode], mode) for mode in MODES],
    *[(ExtRoundingMode[mode].c_name, mode) for mode in MODES],
    ("half_to_even", "NEAREST_TOWARD_EVEN"),
    ("half_away_from_zero", "NEAREST_TOWARD_INFINITY"),
    ("toward_zero", "TOWARD_ZERO"),
    ("HALVES_TO_NEAREST_EVEN", "NEAREST_TOWARD_EVEN"),
    ("TOWARD_INFINITY", "NEAREST_TOWARD_INFINITY"),  # DirectML's name: nearest, ties away from zero
    ("TOWARD_ZERO", "TOWARD_ZERO"),
    ("DML_ROUNDING_MODE_TOWARD_INFINITY", "NEAREST_TOWARD_INFINITY"),
    (dml.RoundingMode.HALVES_TO_NEAREST_EVEN, "NEAREST_TOWARD_EVEN"),
    (dml.RoundingMode.TOWARD_ZERO, "TOWARD_ZERO"),
    (dml.RoundingMode.TOWARD_INFINITY, "NEAREST_TOWARD_INFINITY"),
    (0, "NEAREST_TOWARD_EVEN"),
    (1, "TOWARD_ZERO"),
    (2, "NEAREST_TOWARD_INFINITY"),
]
SPELLING_IDS = [f"{type(s).__name__}:{s}" for s, _ in SPELLINGS]


@pytest.mark.parametrize(("spelling", "mode"), SPELLINGS, ids=SPELLING_IDS)
def test_every_spelling_on_float32(spelling, mode):
    x = edge_values(FLOAT32)
    got = dml.round(x, mode=spelling)
    assert got.dtype == np.float32 and got.shape == x.shape
    assert_rounded(got, x, mode)


def test_directml_and_ngraph_toward_infinity_differ():
    x = np.array([0.1, -0.1, 2.5, -2.5], dtype=np.float32)
    assert dml.round(x, mode="TOWARD_INFINITY").tolist() == [0.0, -0.0, 3.0, -3.0]  # DirectML: ties away
    assert dml.round(x, mode="ROUND_TOWARD_INFINITY").tolist() == [1.0, -1.0, 3.0, -3.0]  # nGraph: directed


FORMATS = [FLOAT16, BFLOAT16, FLOAT32, FLOAT64]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_every_float_dtype_in_every_mode(fmt, mode):
    if fmt is FLOAT64 and "cl_khr_fp64" not in dml.default_device().cl_device.extensions:
        pytest.skip("the default device has no cl_khr_fp64")
    x = np.concatenate([edge_values(fmt), random_values(fmt, 4000, seed=3)])
    got = dml.round(x, mode="ROUND_" + mode)
    assert got.dtype == fmt.dtype and got.shape == x.shape
    assert_rounded(got, x, mode)


@pytest.mark.parametrize("fmt", [FLOAT64, BFLOAT16], ids=["float64", "bfloat16"])
def test_extension_dtypes_with_the_default_mode(fmt):
    if fmt is FLOAT64 and "cl_khr_fp64" not in dml.default_device().cl_device.extensions:
        pytest.skip("the default device has no cl_khr_fp64")
    x = edge_values(fmt)
    assert_rounded(dml.round(x), x, "NEAREST_TOWARD_EVEN")
    assert_rounded(dml.round(x, mode="half_away_from_zero"), x, "NEAREST_TOWARD_INFINITY")


def test_bfloat16_round_values():
    x = np.array([0.5, 1.5, 2.5, -2.5, 127.5, -127.5, 0.1, -0.0], dtype=ml_dtypes.bfloat16)
    got = dml.round(x, mode="ROUND_NEAREST_UPWARD")
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.astype(np.float32).tolist() == [1.0, 2.0, 3.0, -2.0, 128.0, -127.0, 0.0, -0.0]
    # -2, -127 and -0 are negative; the zero from 0.1 is +0 and the one from -0.0 keeps its sign.
    assert np.signbit(got.astype(np.float32)).tolist() == [False, False, False, True, False, True, False, True]


@pytest.mark.parametrize("mode", ["ROUND_UP", "ROUND_DOWN", "half_to_even", "TOWARD_ZERO"])
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=[d.name for d in INTEGER_DTYPES])
def test_integer_arrays_come_back_unchanged(dtype, mode):
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min + 1, 0, 1, info.max - 1, info.max], dtype=dtype).reshape(2, 3)
    got = dml.round(x, mode=mode)
    assert got.dtype == dtype and got.shape == x.shape
    assert np.array_equal(got, x)


@pytest.mark.parametrize("fmt", [BFLOAT16, FLOAT16], ids=["bfloat16", "float16"])
def test_in_place_and_views(fmt):
    base = random_values(fmt, 6 * 7 * 8, seed=11).reshape(6, 7, 8)
    view = base[::2, 1:, ::3]
    got = dml.round(view, mode="ROUND_NEAREST_DOWNWARD")
    assert_rounded(got, np.ascontiguousarray(view), "NEAREST_DOWNWARD")
    transposed = base.transpose(2, 0, 1)
    assert_rounded(dml.round(transposed, mode="ROUND_DOWN"), np.ascontiguousarray(transposed), "DOWN")
    work = base.copy()
    before = work.copy()
    result = dml.round(work, mode=ExtRoundingMode.UP, out=work)
    assert result is work
    assert_rounded(work, before, "UP")


def test_out_argument_for_float64():
    if "cl_khr_fp64" not in dml.default_device().cl_device.extensions:
        pytest.skip("the default device has no cl_khr_fp64")
    x = np.array([0.5, 1.5, 2.0**52 - 0.5, 2.0**52 + 1, -0.49999999999999994], dtype=np.float64)
    out = np.empty_like(x)
    assert dml.round(x, mode="ROUND_NEAREST_TOWARD_ZERO", out=out) is out
    assert_rounded(out, x, "NEAREST_TOWARD_ZERO")


def test_scalar_input():
    got = dml.round(np.float32(-2.5), mode="ROUND_NEAREST_UPWARD")
    assert np.asarray(got).shape == () and float(got) == -2.0


@pytest.mark.parametrize("mode", ["ceil", "ROUND_SIDEWAYS", 7])
def test_unknown_mode_refused(mode):
    with pytest.raises(dml.InvalidArgumentError, match="ROUND_NEAREST_UPWARD"):
        dml.round(np.zeros(3, np.float32), mode=mode)


def test_unsupported_dtype_refused():
    with pytest.raises(dml.InvalidArgumentError):
        dml.round(np.zeros(3, np.complex64), mode="ROUND_UP")


def test_nan_sign_and_payload_kept():
    for fmt in FORMATS:
        if fmt is FLOAT64 and "cl_khr_fp64" not in dml.default_device().cl_device.extensions:
            continue
        x = edge_values(fmt)
        x = x[is_nan(x)]
        assert x.size >= 8
        got = dml.round(x, mode="ROUND_UP")
        assert format_of(got.dtype) is fmt
        assert_rounded(got, x, "UP")
