"""Issue 42 in the one-liners: a scale's or zero point's values enter ``dml.quantize_linear`` and
``dml.dequantize_linear`` by the graph builder's rule (``dmlpy.graph.values.held``), never converted silently: an
integer type takes a whole number in its range, compared exactly; a float type takes any number rounded once to
its nearest value, and refuses only a finite number that would become infinite. A refusal is an
InvalidArgumentError that begins with the argument's name and says the value (with its index), the type and what
to give; what runs keeps the ScaleWarning of a scale that is zero, negative, infinite or NaN as its type holds it.
The Dask path reads the values through the same functions."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml

F16, F32, I8, U8 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.uint8)
FLOAT16_RANGE = "whose largest finite value is 65504.0: give a number from -65504.0 to 65504.0"
FLOAT32_RANGE = "whose largest finite value is 3.4028234663852886e+38: give a number from -3.4028234663852886e+38"


def _x(dtype: np.dtype, shape: tuple[int, ...] = (3,)) -> np.ndarray:
    return np.arange(1, 1 + int(np.prod(shape)), dtype=dtype).reshape(shape)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(
            lambda: dml.quantize_linear(_x(F16), 1e6),
            f"scale: value is 1000000.0; the scale is read as FLOAT16, {FLOAT16_RANGE}",
            id="float16_x_python_float",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F16), np.float32(1e5)),
            f"scale: value is 100000.0; the scale is read as FLOAT16, {FLOAT16_RANGE}",
            id="float16_x_numpy_float32",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 1e39),
            f"scale: value is 1e+39; the scale is read as FLOAT32, {FLOAT32_RANGE}",
            id="float32_x",
        ),
        pytest.param(
            lambda: dml.quantize_linear(np.int32([1, 2, 3]), -1e39),
            f"scale: value is -1e+39; the scale is read as FLOAT32, {FLOAT32_RANGE}",
            id="int32_x",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F16, (2, 3)), [1.0, 7e4, 1.0]),
            f"scale: value[1] is 70000.0; the scale is read as FLOAT16, {FLOAT16_RANGE}",
            id="per_axis_list_index",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32, (2, 4)), np.array([[1.0, 1.0], [1.0, 1e300]])),
            f"scale: value[1, 1] is 1e+300; the scale is read as FLOAT32, {FLOAT32_RANGE}",
            id="blocked_array_index",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 2**1100),
            f"scale: value is {str(2**1100)[:77]}...; the scale is read as FLOAT32, {FLOAT32_RANGE}",
            id="python_int_beyond_a_double",
        ),
        pytest.param(
            lambda: dml.dequantize_linear(_x(I8), 1e39),
            f"scale: value is 1e+39; the scale is read as FLOAT32, {FLOAT32_RANGE}",
            id="dequantize_float64_scale",
        ),
    ],
)
def test_a_finite_scale_its_type_would_make_infinite_is_refused(call: Callable[[], Any], message: str) -> None:
    # It ran before, on an infinite scale nobody gave: NumPy's "overflow encountered in cast" and a ScaleWarning
    # about a scale of inf.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(dml.InvalidArgumentError) as error:
            call()
    assert str(error.value).startswith(message), str(error.value)
    assert str(error.value).endswith(
        "(one beyond would round to infinity; NaN and the infinities are taken as they are)"
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 0.5, 300),
            "zero_point: value is 300; the zero point is read as UINT8, which holds the integers 0 to 255: give one "
            "of them",
            id="python_int_for_uint8",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 0.5, 300, dtype=I8),
            "zero_point: value is 300; the zero point is read as INT8, which holds the integers -128 to 127",
            id="python_int_for_int8",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 0.5, 1.5, dtype=I8),
            "zero_point: value is 1.5; the zero point is read as INT8",
            id="python_float_fraction",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32, (2, 3)), 0.5, np.array([1.0, 2.5, 3.0]), dtype=U8),
            "zero_point: value[1] is 2.5; the zero point is read as UINT8",
            id="float_array_index",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 0.5, 2**70, dtype=I8),
            "zero_point: value is 1180591620717411303424; the zero point is read as INT8",
            id="python_int_beyond_64_bits",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32, (2, 3)), [1.0, 1.0, 1.0], [1, 2**64, 3], dtype=U8),
            "zero_point: value[1] is 18446744073709551616; the zero point is read as UINT8",
            id="list_with_an_int_beyond_64_bits",
        ),
        pytest.param(
            lambda: dml.dequantize_linear(_x(I8), np.float32(0.5), 2**64 + 1),
            "zero_point: value is 18446744073709551617; the zero point is read as INT8, which holds the integers "
            "-128 to 127",
            id="dequantize_python_int_beyond_64_bits",
        ),
        pytest.param(
            lambda: dml.quantize_linear(_x(F32), 0.5, float("nan"), dtype=I8),
            "zero_point: value is NaN; the zero point is read as INT8",
            id="nan",
        ),
        pytest.param(
            lambda: dml.dequantize_linear(_x(I8), np.float32(0.5), np.int16(300)),
            "zero_point is int16; it must be int8 here, the quantized data's type (ONNX's rule for a typed zero "
            "point): give zero_point as a NumPy int8 array, or as one Python int",
            id="numpy_int16_for_int8",
        ),
    ],
)
def test_a_zero_point_its_type_does_not_hold_is_refused_naming_value_and_type(
    call: Callable[[], Any], message: str
) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        call()
    assert str(error.value).startswith(message), str(error.value)


def test_a_python_int_beyond_64_bits_is_a_scale_its_type_holds() -> None:
    # NumPy holds 2**70 only as an object, which the one-liners refused ("NumPy can only hold as Python objects");
    # FLOAT32 holds it exactly.
    assert dml.quantize_linear(np.float32([2.0**71, 2.0**72]), 2**70).tolist() == [2, 4]
    assert dml.dequantize_linear(np.uint8([3]), 2**70).tolist() == [3 * 2.0**70]


def test_a_list_of_python_numbers_is_rounded_once() -> None:
    # 2^63 + 2^39 + 1 is just above the midpoint between the float32 neighbours 2^63 and 2^63 + 2^40. NumPy reads a
    # list that mixes it with floats as float64, 2^63 + 2^39 (the midpoint), which float32 rounds to even, 2^63;
    # the number itself rounds once, up.
    got = dml.dequantize_linear(np.uint8([1, 1]), [2**63 + 2**39 + 1, 1.0], axis=0)
    assert got.dtype == F32 and got.tolist() == [2.0**63 + 2.0**40, 1.0]


def test_a_scale_that_rounds_to_zero_runs_with_the_scale_warning() -> None:
    # A float type takes any number rounded to its nearest value: 1e-10 is 0 as float16, which runs, as a scale
    # of 0 given does, with the ScaleWarning (the policy for zero, negative, infinite and NaN scales).
    with pytest.warns(dml.ScaleWarning, match=r"^quantize_linear: scale is 0\.0 \(as float16\)"):
        assert dml.quantize_linear(np.float16([1, 0]), 1e-10).tolist() == [255, 0]
    for given in (float("inf"), float("nan"), -1.0):
        with pytest.warns(dml.ScaleWarning, match=rf"^quantize_linear: scale is {given} \(as float16\)"):
            dml.quantize_linear(np.float16([1, 0]), given)


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        pytest.param(lambda da: dml.quantize_linear(da.ones(4, dtype=np.float16, chunks=2), 1e6), "scale", id="scale"),
        pytest.param(
            lambda da: dml.dequantize_linear(da.ones(4, dtype=np.int8, chunks=2), np.float32(1), 2**70),
            "zero_point",
            id="zero_point",
        ),
    ],
)
def test_dask_arrays_take_their_values_by_the_same_rule(call: Callable[[Any], Any], argument: str) -> None:
    da = pytest.importorskip("dask.array")
    with pytest.raises(dml.InvalidArgumentError, match=rf"^{argument}: value is "):
        call(da)
