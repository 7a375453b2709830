"""The one-liners speak alike (issue 30): a scale that is not positive and finite runs, as DirectML and ONNX run
it, with a dml.ScaleWarning at the caller's line."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pyopencl.array as cl_array
import pytest

import dmlpy as dml
from tests.helpers import quantize_oracle

F32 = np.dtype(np.float32)
X = np.array([[-3.0, -0.5, 0.0, 0.5], [1.0, 2.5, 7.0, -7.0], [100.0, -100.0, 0.25, 3.5]], F32)
Q = np.array([[0, 3, 128, 250], [255, 7, 128, 1], [12, 200, 129, 130]], np.uint8)

QUANTIZE_EFFECT = (
    "neither DirectML nor ONNX checks scale values, so the call runs, but quantizing divides by it: x / scale is "
    "then infinite or NaN (saturated or zero results), or of the opposite sign: pass a positive, finite scale"
)
DEQUANTIZE_EFFECT = (
    "neither DirectML nor ONNX checks scale values, so the call runs, but dequantizing multiplies by it: the "
    "results are then 0, infinite, NaN, or of the opposite sign: pass a positive, finite scale"
)


def _warning_of(call: Any) -> tuple[Any, warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    scale_warnings = [w for w in caught if issubclass(w.category, dml.ScaleWarning)]
    assert len(scale_warnings) == 1, [str(w.message) for w in caught]
    return result, scale_warnings[0]


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), -0.5], ids=["nan", "inf", "negative"])
def test_quantize_warns_of_a_scale_that_is_not_positive_and_finite_and_runs_as_onnx_does(scale: float) -> None:
    result, caught = _warning_of(lambda: dml.quantize_linear(X, scale, np.uint8(128)))
    assert str(caught.message) == f"quantize_linear: scale is {scale} (as float32); {QUANTIZE_EFFECT}"
    assert caught.filename == __file__  # the caller's line, not dmlpy's
    assert np.array_equal(result, quantize_oracle.quantize(X, np.float32(scale), np.uint8(128)))


def test_a_zero_scale_saturates_and_warns() -> None:
    result, caught = _warning_of(lambda: dml.quantize_linear(X, 0.0, np.int8(0)))
    assert str(caught.message) == f"quantize_linear: scale is 0.0 (as float32); {QUANTIZE_EFFECT}"
    # x / 0 is an infinity of x's sign (saturated), 0 / 0 is NaN (0), as IEEE division gives them.
    expected = np.where(X > 0, 127, np.where(X < 0, -128, 0)).astype(np.int8)
    assert np.array_equal(result, expected)


def test_dequantize_warns_naming_how_many_values_and_the_first() -> None:
    scales = np.array([0.5, -0.25, 0.0, np.nan], F32)
    result, caught = _warning_of(lambda: dml.dequantize_linear(Q, scales, np.uint8(128), axis=1))
    assert str(caught.message) == (
        "dequantize_linear: 3 of the scale's 4 values are zero, negative, infinite or NaN (as float32), the first "
        f"-0.25 at index 1; {DEQUANTIZE_EFFECT}"
    )
    expected = (Q.astype(np.float64) - 128) * scales.astype(np.float64)
    assert np.array_equal(result, expected.astype(F32), equal_nan=True)


def test_a_finite_scale_the_input_type_cannot_hold_is_refused_not_made_infinite() -> None:
    # 1e6 is beyond float16, whose scale it becomes for a float16 x. Issue 30 ran it as +inf with a ScaleWarning;
    # issue 42's one rule for every value entering dmlpy refuses it, naming value and type (an infinite scale given
    # as such still runs with the warning: the next tests).
    with pytest.raises(dml.InvalidArgumentError, match=r"^scale: value is 1000000\.0; the scale is read as FLOAT16"):
        dml.quantize_linear(X.astype(np.float16), 1e6)


def test_blocked_scales_warn_with_the_index_of_the_first() -> None:
    scales = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]], F32)  # per (1, 2) block of X
    _, caught = _warning_of(lambda: dml.quantize_linear(X, scales))
    assert str(caught.message).startswith(
        "quantize_linear: 1 of the scale's 6 values are zero, negative, infinite or NaN (as float32), the first "
        "0.0 at index (1, 1);"
    )


def test_a_dask_array_warns_at_the_call_too() -> None:
    da = pytest.importorskip("dask.array")
    lazy, caught = _warning_of(lambda: dml.quantize_linear(da.from_array(X, chunks=(2, 2)), -1.0))
    assert str(caught.message) == f"quantize_linear: scale is -1.0 (as float32); {QUANTIZE_EFFECT}"
    assert caught.filename == __file__
    assert np.array_equal(lazy.compute(), quantize_oracle.quantize(X, np.float32(-1.0)))


def test_positive_finite_scales_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", dml.ScaleWarning)
        dml.quantize_linear(X, np.float32(np.finfo(F32).tiny))
        dml.quantize_linear(X, np.array([0.5, 1.0, 2.0, 4.0], F32), axis=1)
        dml.dequantize_linear(Q, np.float16(65504))


# -------------------------------------------------------------------- per-axis values: the default axis said


@pytest.mark.parametrize(
    ("shape", "axis", "message"),
    [
        (
            (3, 4),
            None,
            "scale has 3 values but the input's axis 1 has 4 entries; axis was left out, so it is 1 (ONNX's "
            "default): pass axis=0, the input's axis of 3 entries (shape (3, 4))",
        ),
        (
            (3, 4),
            -1,
            "scale has 3 values but the input's axis 1 has 4 entries: pass axis=0, the input's axis of 3 entries "
            "(shape (3, 4))",
        ),
        (
            (3, 2, 3),
            None,
            "scale has 3 values but the input's axis 1 has 2 entries; axis was left out, so it is 1 (ONNX's "
            "default): pass axis=0 or axis=2, the input's axes of 3 entries (shape (3, 2, 3))",
        ),
        (
            (2, 4),
            None,
            "scale has 3 values but the input's axis 1 has 4 entries; axis was left out, so it is 1 (ONNX's "
            "default), and no axis of the input (shape (2, 4)) has 3: give one value per index of the axis, or a "
            "single value",
        ),
    ],
    ids=["default-one-fits", "given-one-fits", "default-two-fit", "default-none-fits"],
)
def test_a_per_axis_mismatch_says_whether_the_axis_was_the_default_and_which_fits(
    shape: tuple[int, ...], axis: int | None, message: str
) -> None:
    x = np.zeros(shape, F32)
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.quantize_linear(x, np.ones(3, F32), axis=axis)
    assert str(error.value) == message
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.dequantize_linear(x.astype(np.uint8), np.float32(1), np.zeros(3, np.uint8), axis)
    assert str(error.value) == message.replace("scale", "zero_point", 1)


def test_the_suggested_axis_runs() -> None:
    scales = np.array([0.5, 1.0, 2.0], F32)
    expected = quantize_oracle.quantize(X, scales, axis=0)
    assert np.array_equal(dml.quantize_linear(X, scales, axis=0), expected)


def test_a_dask_array_gets_the_suggestion_from_its_whole_shape() -> None:
    da = pytest.importorskip("dask.array")
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.quantize_linear(da.from_array(X, chunks=(2, 2)), np.ones(3, F32))
    assert str(error.value) == (
        "scale has 3 values but the input's axis 1 has 4 entries; axis was left out, so it is 1 (ONNX's default): "
        "pass axis=0, the input's axis of 3 entries (shape (3, 4))"
    )


# ------------------------------------------------------------------ positional arguments past the signature


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: dml.round(X, 2),
            "dml.round takes 1 positional argument (x) but 2 were given; mode, out, device and devices are "
            "keyword-only: dml.round(x, 2) would read like np.round(x, 2), two decimals, but dml.round rounds to "
            "integral values, in a rounding mode: pass the mode by name, dml.round(x, mode=...)",
        ),
        (
            lambda: dml.quantize_linear(X, 0.5, np.uint8(1), 1, np.uint8, "ROUND_UP"),
            "dml.quantize_linear takes at most 5 positional arguments (x, scale, zero_point, axis, dtype) but 6 "
            "were given; block_size, mode, out, device and devices are keyword-only: the positional ones are ONNX "
            "QuantizeLinear's inputs and attributes, in its order, so that a mode or an output is never taken for "
            "one of them: pass the others by name, mode=...",
        ),
        (
            lambda: dml.dequantize_linear(Q, 0.5, np.uint8(1), 0, np.float32),
            "dml.dequantize_linear takes at most 4 positional arguments (x, scale, zero_point, axis) but 5 were "
            "given; block_size, out, device and devices are keyword-only: the positional ones are ONNX "
            "DequantizeLinear's inputs and attribute, in its order: pass the others by name, out=... (there is no "
            "mode or dtype: dequantizing rounds nothing, and the output has the scale's type)",
        ),
    ],
    ids=["round", "quantize_linear", "dequantize_linear"],
)
def test_a_positional_argument_past_the_signature_says_why_the_rest_are_keyword_only(call: Any, message: str) -> None:
    with pytest.raises(dml.KeywordOnlyArgumentError) as error:
        call()
    assert str(error.value) == message
    assert isinstance(error.value, TypeError) and isinstance(error.value, dml.DmlError)  # Python's kind of error


def test_the_same_calls_by_keyword_run() -> None:
    halves_away_from_zero = np.sign(X) * np.floor(np.abs(X) + 0.5)  # exact: X holds halves and small integers
    assert np.array_equal(dml.round(X, mode=2), halves_away_from_zero)
    expected = quantize_oracle.quantize(X, np.float32(0.5), np.uint8(1), 1, np.uint8, "NEAREST_TOWARD_INFINITY")
    assert np.array_equal(dml.quantize_linear(X, 0.5, np.uint8(1), 1, np.uint8, mode="ROUND_UP"), expected)


# ------------------------------------------------------- one input rule: x in its own dtype, the fix named

NEVER_CONVERTED = "(dmlpy never converts x itself: a conversion may change its values)"
QUANTIZE_TAKES = "quantize_linear takes float32, float16 or int32 input"
DEQUANTIZE_TAKES = "dequantize_linear takes 8-, 16- or 32-bit integer input, or ml_dtypes.int4 or uint4"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: dml.quantize_linear([1.5, 2.5], 0.5),
            f"x is a list that NumPy reads as float64; {QUANTIZE_TAKES}: pass np.asarray(x, np.float32) "
            f"{NEVER_CONVERTED}",
        ),
        (
            lambda: dml.quantize_linear(np.array([1.5, 2.5]), 0.5),
            f"x is a float64 array; {QUANTIZE_TAKES}: pass x.astype(np.float32) {NEVER_CONVERTED}",
        ),
        (
            lambda: dml.quantize_linear(np.ma.masked_array(np.array([1.5, 2.5]), [True, False]), 0.5),
            f"x is a float64 array; {QUANTIZE_TAKES}: pass x.astype(np.float32) {NEVER_CONVERTED}",
        ),
        (
            lambda: dml.quantize_linear(3, 0.5),
            f"x is an int that NumPy reads as int64; {QUANTIZE_TAKES}: pass np.asarray(x, np.float32) "
            f"{NEVER_CONVERTED}",
        ),
        (
            lambda: dml.dequantize_linear([0, 128, 255], 0.5),
            f"x is a list that NumPy reads as int64; {DEQUANTIZE_TAKES}: pass np.asarray(x, np.uint8), or the "
            f"integer type x was quantized to {NEVER_CONVERTED}",
        ),
        (
            lambda: dml.dequantize_linear(np.zeros(2, np.float32), 0.5),
            f"x is a float32 array; {DEQUANTIZE_TAKES}: pass x.astype(np.uint8), or the integer type x was "
            f"quantized to {NEVER_CONVERTED}",
        ),
        (  # what no conversion makes roundable stays as it was
            lambda: dml.round([0.5j]),
            "x is a list that NumPy reads as complex128; dml.round takes float32 or float16 arrays (DirectML's "
            "FLOAT32, FLOAT16), or float64, bfloat16 and integer arrays (dmlpy extensions)",
        ),
    ],
    ids=[
        "quantize-list",
        "quantize-float64",
        "quantize-masked",
        "quantize-int",
        "dequantize-list",
        "dequantize-float32",
        "round-complex",
    ],
)
def test_a_dtype_not_taken_is_refused_naming_the_conversion(call: Any, message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        call()
    assert str(error.value) == message


def test_the_named_conversions_run() -> None:
    given = [1.5, 2.5, -0.25]
    expected = quantize_oracle.quantize(np.asarray(given, np.float32), np.float32(0.5), np.int8(0))
    assert np.array_equal(dml.quantize_linear(np.asarray(given, np.float32), 0.5, np.int8(0)), expected)
    levels = [0, 128, 255]
    expected = quantize_oracle.dequantize(np.asarray(levels, np.uint8), np.float32(0.5), np.uint8(128))
    assert np.array_equal(dml.dequantize_linear(np.asarray(levels, np.uint8), 0.5, np.uint8(128)), expected)
    # dml.round takes the same list as it is: NumPy reads it as float64, which its extension rounds exactly.
    assert dml.round(given).dtype == np.float64


def test_dask_and_pyopencl_arrays_are_told_the_same(device: Any) -> None:
    da = pytest.importorskip("dask.array")
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.quantize_linear(da.from_array(np.zeros(4)), 0.5)
    assert str(error.value) == (
        f"x is a dask array of float64; {QUANTIZE_TAKES}: pass x.astype(np.float32) {NEVER_CONVERTED}"
    )
    on_device = cl_array.to_device(device.queue, np.zeros(4, np.int64))
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.dequantize_linear(on_device, np.float32(0.5))
    assert str(error.value) == (
        f"x is a pyopencl array of int64; {DEQUANTIZE_TAKES}: pass x.astype(np.uint8), or the integer type x was "
        f"quantized to {NEVER_CONVERTED}"
    )
