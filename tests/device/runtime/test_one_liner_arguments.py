"""The one-liners' argument checks: ``dml.round``, ``dml.quantize_linear`` and ``dml.dequantize_linear`` refuse
every ill-typed argument with ``dml.InvalidArgumentError`` (a DmlError and a ValueError) whose message begins with
the argument's name, before any OpenCL work; a sweep of junk values through every parameter raises nothing but
DmlErrors (or succeeds, where the value happens to be valid)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.arrays import runner

F32, F16, U8, I8 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.uint8), np.dtype(np.int8)
RAGGED = [[1.0], [1.0, 2.0]]


def _floats() -> np.ndarray:
    return np.full((2, 3), 2.5, F32)


def _bytes() -> np.ndarray:
    return np.arange(6, dtype=U8).reshape(2, 3)


def _read_only() -> np.ndarray:
    out = np.zeros((2, 3), F32)
    out.flags.writeable = False
    return out


def round_(**arguments: Any) -> Callable[[], Any]:
    return lambda: dml.round(**{"x": _floats(), **arguments})


def quantize(**arguments: Any) -> Callable[[], Any]:
    return lambda: dml.quantize_linear(**{"x": _floats(), "scale": np.float32(0.5), **arguments})


def dequantize(**arguments: Any) -> Callable[[], Any]:
    return lambda: dml.dequantize_linear(**{"x": _bytes(), "scale": np.float32(0.5), **arguments})


# (id, call, the argument its message must begin with)
BAD_CALLS: list[tuple[str, Callable[[], Any], str]] = [
    # dml.round
    ("round-x-ragged", round_(x=RAGGED), "x"),
    ("round-x-str", round_(x="junk"), "x"),
    ("round-x-str-array", round_(x=np.array(["0.5"])), "x"),
    ("round-x-object", round_(x=object()), "x"),
    ("round-x-complex", round_(x=[0.5j]), "x"),
    ("round-x-None", round_(x=None), "x"),
    ("round-x-bool", round_(x=True), "x"),
    ("round-x-bytes", round_(x=b"x"), "x"),
    ("round-x-dict", round_(x={}), "x"),
    ("round-x-9-dims", round_(x=np.zeros((1,) * 9, F32)), "x"),
    ("round-mode-object", round_(mode=object()), "mode"),
    ("round-mode-None", round_(mode=None), "mode"),
    ("round-mode-float", round_(mode=1.5), "mode"),
    ("round-mode-whole-float", round_(mode=1.0), "mode"),
    ("round-mode-bool", round_(mode=True), "mode"),
    ("round-mode-list", round_(mode=[]), "mode"),
    ("round-mode-unknown-name", round_(mode="ceil"), "mode"),
    ("round-out-str", round_(out="x"), "out"),
    ("round-out-list", round_(out=[[0.0] * 3] * 2), "out"),
    ("round-out-wrong-dtype", round_(out=np.zeros((2, 3), np.float64)), "out"),
    ("round-out-read-only", lambda: dml.round(_floats(), out=_read_only()), "out"),
    ("round-device-str", round_(device="cpu"), "device"),
    ("round-device-index", round_(device=0), "device"),
    ("round-device-object", round_(device=object()), "device"),
    ("round-device-pyopencl", lambda: dml.round(_floats(), device=dml.default_device().cl_device), "device"),
    # dml.quantize_linear
    ("quantize-x-ragged", quantize(x=RAGGED), "x"),
    ("quantize-x-str", quantize(x=["a", "b"]), "x"),
    ("quantize-x-complex", quantize(x=np.zeros(3, np.complex64)), "x"),
    ("quantize-x-object", quantize(x=object()), "x"),
    ("quantize-x-float64", quantize(x=[1.0, 2.0]), "x"),
    ("quantize-x-9-dims", quantize(x=np.zeros((1,) * 9, F32)), "x"),
    ("quantize-scale-str", quantize(scale="a"), "scale"),
    ("quantize-scale-strs", quantize(scale=["a", "b", "c"]), "scale"),
    ("quantize-scale-None", quantize(scale=None), "scale"),
    # A (2, 3) scale is per element of the (2, 3) x (WebNN's blocked form); a (2, 2) one blocks nothing.
    ("quantize-scale-2d", quantize(scale=np.ones((2, 2), F32)), "scale"),
    ("quantize-scale-3d", quantize(scale=np.ones((1, 2, 3), F32)), "scale"),
    (
        "quantize-zero-point-not-scale-shape",
        quantize(scale=np.ones((2, 1), F32), zero_point=np.zeros((2, 3), U8)),
        "zero_point",
    ),
    ("quantize-axis-with-webnn-blocks", quantize(scale=np.ones((2, 1), F32), axis=1), "axis"),
    ("quantize-block-size-zero", quantize(scale=np.ones((2, 1), F32), block_size=0), "block_size"),
    ("quantize-block-size-bool", quantize(scale=np.ones((2, 1), F32), block_size=True), "block_size"),
    ("quantize-block-size-float", quantize(scale=np.ones((2, 1), F32), block_size=3.0), "block_size"),
    ("quantize-scale-not-onnx-block-shape", quantize(scale=np.ones((2, 1), F32), axis=1, block_size=2), "scale"),
    (
        "quantize-scale-9-dims-split",
        quantize(x=np.zeros((2,) * 7 + (4,), F32), scale=np.ones((1,) * 7 + (2,), F32)),
        "scale",
    ),
    ("quantize-scale-ragged", quantize(scale=RAGGED), "scale"),
    ("quantize-scale-complex", quantize(scale=1j), "scale"),
    ("quantize-scale-bool", quantize(scale=True), "scale"),
    ("quantize-scale-empty", quantize(scale=[]), "scale"),
    ("quantize-zero-point-str", quantize(zero_point="a"), "zero_point"),
    ("quantize-zero-point-fraction", quantize(zero_point=1.5, dtype=U8), "zero_point"),
    ("quantize-zero-point-numpy-fraction", quantize(zero_point=np.float32(2.5)), "zero_point"),
    ("quantize-zero-point-python-float", quantize(zero_point=2.0), "zero_point"),
    ("quantize-zero-point-out-of-range", quantize(zero_point=300), "zero_point"),
    ("quantize-zero-point-negative-uint8", quantize(zero_point=-1, dtype=U8), "zero_point"),
    ("quantize-zero-point-int16", quantize(zero_point=np.int16(3)), "zero_point"),
    ("quantize-zero-point-bool", quantize(zero_point=True), "zero_point"),
    ("quantize-zero-point-ragged", quantize(zero_point=RAGGED), "zero_point"),
    ("quantize-zero-point-vs-dtype", quantize(zero_point=np.uint8(0), dtype=I8), "zero_point"),
    # Values a type cannot hold (issue 42): refused before any OpenCL work, where a cast made 1e6 an inf scale.
    ("quantize-scale-infinite-as-float16", quantize(x=np.ones(3, F16), scale=1e6), "scale"),
    ("quantize-scale-infinite-as-float32", quantize(scale=np.float64(1e39)), "scale"),
    ("quantize-zero-point-beyond-64-bits", quantize(zero_point=2**64), "zero_point"),
    ("quantize-zero-point-nan", quantize(zero_point=float("nan"), dtype=U8), "zero_point"),
    ("quantize-axis-float", quantize(axis=1.5), "axis"),
    ("quantize-axis-whole-float", quantize(scale=np.ones(3, F32), axis=1.0), "axis"),
    ("quantize-axis-bool", quantize(axis=True), "axis"),
    ("quantize-axis-numpy-bool", quantize(axis=np.bool_(False)), "axis"),
    ("quantize-axis-str", quantize(axis="1"), "axis"),
    ("quantize-axis-array", quantize(axis=np.array([1])), "axis"),
    ("quantize-axis-out-of-range", quantize(axis=7), "axis"),
    ("quantize-dtype-nonsense", quantize(dtype="nonsense"), "dtype"),
    ("quantize-dtype-float", quantize(dtype=float), "dtype"),
    ("quantize-dtype-int16", quantize(dtype=np.int16), "dtype"),
    ("quantize-dtype-object", quantize(dtype=object()), "dtype"),
    ("quantize-dtype-bool", quantize(dtype=True), "dtype"),
    ("quantize-mode-None", quantize(mode=None), "mode"),
    ("quantize-mode-object", quantize(mode=object()), "mode"),
    ("quantize-out-str", quantize(out="x"), "out"),
    ("quantize-out-list", quantize(out=[0, 0, 0]), "out"),
    ("quantize-out-wrong-dtype", quantize(out=np.zeros((2, 3), I8)), "out"),
    ("quantize-device-str", quantize(device="cpu"), "device"),
    ("quantize-device-index", quantize(device=1), "device"),
    # dml.dequantize_linear
    ("dequantize-x-float32", dequantize(x=np.ones(3, F32)), "x"),
    ("dequantize-x-ragged", dequantize(x=RAGGED), "x"),
    ("dequantize-x-str", dequantize(x="junk"), "x"),
    ("dequantize-x-None", dequantize(x=None), "x"),
    ("dequantize-x-python-int", dequantize(x=3), "x"),
    ("dequantize-scale-str", dequantize(scale="a"), "scale"),
    ("dequantize-scale-None", dequantize(scale=None), "scale"),
    ("dequantize-scale-2d", dequantize(scale=np.ones((2, 2), F32)), "scale"),
    ("dequantize-block-size-negative", dequantize(scale=np.ones((2, 1), F32), block_size=-3), "block_size"),
    ("dequantize-scale-not-onnx-block-shape", dequantize(scale=np.ones((2, 3), F32), axis=1, block_size=2), "scale"),
    ("dequantize-scale-ragged", dequantize(scale=RAGGED), "scale"),
    ("dequantize-zero-point-str", dequantize(zero_point="a"), "zero_point"),
    ("dequantize-zero-point-int8-for-uint8", dequantize(zero_point=np.int8(-1)), "zero_point"),
    ("dequantize-zero-point-fraction", dequantize(zero_point=2.5), "zero_point"),
    ("dequantize-zero-point-out-of-range", dequantize(zero_point=256), "zero_point"),
    ("dequantize-scale-infinite-as-float32", dequantize(scale=[1.0, 1e39, 1.0]), "scale"),
    ("dequantize-zero-point-list-fraction", dequantize(zero_point=[1.0, 2.5, 3.0]), "zero_point"),
    ("dequantize-axis-float", dequantize(axis=1.5), "axis"),
    ("dequantize-axis-bool", dequantize(axis=False), "axis"),
    ("dequantize-axis-list", dequantize(axis=[1]), "axis"),
    ("dequantize-out-str", dequantize(out="x"), "out"),
    ("dequantize-out-list", dequantize(out=[0.0]), "out"),
    ("dequantize-device-str", dequantize(device="cpu"), "device"),
    ("dequantize-device-float", dequantize(device=1.5), "device"),
]


@pytest.fixture
def no_opencl(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any OpenCL work (choosing a default device, dispatching) fails the test: the checks come first."""

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an argument error must be raised before any OpenCL work")

    monkeypatch.setattr(runner, "run", forbidden)  # the one place that allocates, opens devices and dispatches


@pytest.mark.parametrize(("call", "argument"), [(c, a) for _, c, a in BAD_CALLS], ids=[i for i, _, _ in BAD_CALLS])
def test_bad_argument_refused_naming_it(call: Callable[[], Any], argument: str, no_opencl: None) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        call()
    assert isinstance(error.value, dml.DmlError) and isinstance(error.value, ValueError)
    message = str(error.value)
    assert re.match(rf"{argument}\b", message), message


def test_enough_bad_calls() -> None:
    assert len(BAD_CALLS) >= 40
    assert {a for _, _, a in BAD_CALLS} == {
        "x",
        "mode",
        "out",
        "device",
        "axis",
        "block_size",
        "dtype",
        "scale",
        "zero_point",
    }


def test_device_message_says_what_is_accepted() -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.round(_floats(), device="cpu")
    message = str(error.value)
    assert "dml.Device or None" in message and "'cpu'" in message and "index" in message


def test_ragged_message_says_rectangular() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="x must be a rectangular array of numbers"):
        dml.round(RAGGED)


def test_axis_message_says_int_or_none() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"axis must be an int or None, not float 1\.5"):
        dml.quantize_linear(_floats(), np.float32(1), axis=1.5)


def test_dtype_messages_say_uint8_or_int8() -> None:
    for dtype in ("nonsense", float):
        with pytest.raises(dml.InvalidArgumentError, match="uint8 or int8"):
            dml.quantize_linear(_floats(), np.float32(1), dtype=dtype)


def test_valid_spellings_keep_working() -> None:
    assert dml.round(2.5).item() == 2.0  # a Python scalar
    assert dml.round(3).item() == 3
    assert dml.round([0.5, 1.5]).tolist() == [0.0, 2.0]
    assert dml.round(_floats(), mode=np.int64(0)).shape == (2, 3)  # a NumPy integer mode
    x = np.float32([[1, 2, 3], [4, 5, 6]])
    expected = dml.quantize_linear(x, np.float32([1, 2, 4]), np.uint8(1), axis=1)
    assert np.array_equal(dml.quantize_linear(x, [1.0, 2.0, 4.0], np.uint8(1), axis=np.int64(1)), expected)
    assert np.array_equal(dml.quantize_linear(x, [1.0, 2.0, 4.0], np.uint8(1), axis=-1), expected)
    assert dml.quantize_linear(x, 1.0, 1, dtype="int8").dtype == I8
    assert dml.dequantize_linear(np.uint8(3), 0.5, 1).shape == ()


# ---------------------------------------------------------------------------------------------------------------
# The sweep: junk through every parameter; a DmlError or a result of the right shape, never anything else.

JUNK: list[Any] = [
    None,
    "",
    "junk",
    object(),
    1.5,
    -1,
    0,
    True,
    [],
    {},
    b"x",
    np.array([]),
    1j,
    float,
    "cpu",
    set(),
    (1,),
    RAGGED,
    float("nan"),
    10**30,
    np.float32(2.0),
    np.bool_(True),
    np.array(["a"]),
    np.ones((2, 2)),
    np.zeros((1,) * 9, F32),
    lambda: None,
]

ONE_LINERS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "round": (dml.round, {"x": _floats(), "mode": "half_to_even", "out": None, "device": None}),
    "quantize_linear": (
        dml.quantize_linear,
        {
            "x": _floats(),
            "scale": np.float32(0.5),
            "zero_point": None,
            "axis": None,
            "dtype": None,
            "mode": "half_to_even",
            "out": None,
            "device": None,
        },
    ),
    "dequantize_linear": (
        dml.dequantize_linear,
        {"x": _bytes(), "scale": np.float32(0.5), "zero_point": None, "axis": None, "out": None, "device": None},
    ),
}

SWEEP = [(name, parameter) for name, (_, base) in ONE_LINERS.items() for parameter in base]


@pytest.mark.parametrize(("name", "parameter"), SWEEP, ids=[f"{n}-{p}" for n, p in SWEEP])
@pytest.mark.filterwarnings("ignore::dmlpy.ScaleWarning")  # junk scales (0, -1, nan) warn by design
def test_junk_raises_only_dml_errors(name: str, parameter: str) -> None:
    function, base = ONE_LINERS[name]
    wrong = []
    for junk in JUNK:
        arguments = {**base, parameter: junk}
        try:
            result = function(**arguments)
        except dml.DmlError:
            continue
        except Exception as error:  # the very thing this test looks for
            wrong.append(f"{parameter}={junk!r}: {type(error).__name__}: {error}")
            continue
        expected = np.shape(junk) if parameter == "x" else base["x"].shape
        if not isinstance(result, np.ndarray) or result.shape != expected:
            wrong.append(f"{parameter}={junk!r}: returned {result!r}, expected an array of shape {expected}")
    assert not wrong, "\n".join(wrong)


def test_per_axis_values_on_a_1d_input_with_axis_left_out_are_per_element() -> None:
    """axis defaults to 1 (ONNX's), which a 1-D input does not have: a 1-D scale is then WebNN's, of the input's
    rank, which one value per element makes the same as axis=0 (tests/device/quantize/test_quantize_blocked.py
    has the blocked reading)."""
    expected = np.rint(np.float32(1) / np.array([1, 2, 4], np.float32)).astype(np.uint8)
    for axis in (None, 0):
        got = dml.quantize_linear(np.ones(3, np.float32), np.array([1, 2, 4], np.float32), axis=axis)
        assert np.array_equal(got, expected)
