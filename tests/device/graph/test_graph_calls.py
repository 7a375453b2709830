"""A compiled graph called on arrays in one call (``compiled(x, s)``, dmlpy/runtime/graph_calls.py): NumPy in and
out, pyopencl in and out, dmlpy Buffers bound as they are, 4-bit tensors as ml_dtypes arrays, the initializer and
the temporary resource handled inside, the device buffers kept across calls, and the binding order explained
when the arguments do not fit. Results are checked against an independent NumPy reference."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt
import pyopencl.array as cl_array
import pytest

import dmlpy as dml
from dmlpy.runtime import graph_calls
from tests.device.graph.test_graph_run import quantize_reference

T = dml.TensorDataType
SIZES = (1, 1, 4, 4)


def fake_quantization(device: Any) -> tuple[Any, Any, Any]:
    """x (FLOAT32) and a broadcast scale s in; q = QuantizeLinear(x, s) to UINT8 and y = DequantizeLinear(q, s)
    out; the graph and its two expressions."""
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SIZES))
    s = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SIZES, strides=(0, 0, 0, 0)))
    q = dml.graph.quantize_linear(x, s)
    y = dml.graph.dequantize_linear(q, s, dtype=T.FLOAT32)
    return g, q, y


def values(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    return rng.uniform(-20, 140, size=SIZES).astype(np.float32)


def reference(x: npt.NDArray[Any], scale: float) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    q = quantize_reference(x, np.float32(scale), None, np.dtype(np.uint8))
    return q, (q.astype(np.float32) * np.float32(scale)).astype(np.float32)


def test_numpy_arrays_in_numpy_arrays_out(device: Any) -> None:
    g, q, y = fake_quantization(device)
    compiled = g.compile([q, y])
    rng = np.random.default_rng(30)
    for scale in (0.5, 0.25, 3.0):  # the same shapes again: the kept buffers, new values
        x = values(rng)
        got_q, got_y = compiled(x, np.array(scale, np.float32))
        want_q, want_y = reference(x, scale)
        assert got_q.dtype == np.uint8 and got_q.shape == SIZES
        np.testing.assert_array_equal(got_q, want_q)
        np.testing.assert_array_equal(got_y, want_y)
    assert compiled.initialized  # the initializer was dispatched inside


def test_one_output_is_an_array_leading_ones_aside_and_broadcast_ones(device: Any) -> None:
    g, _, y = fake_quantization(device)
    compiled = g.compile([y])
    x = values(np.random.default_rng(1))
    want = reference(x, 0.5)[1]
    for given_x, given_s in [
        (x, np.float32(0.5)),
        (x.reshape(4, 4), np.array([0.5], np.float32)),
        (x.reshape(1, 1, 1, 4, 4), np.full((1, 1, 1, 1), 0.5, np.float32)),
    ]:
        result = compiled(given_x, given_s)
        assert isinstance(result, np.ndarray)
        np.testing.assert_array_equal(result, want)


def test_pyopencl_arrays_in_pyopencl_arrays_out(device: Any) -> None:
    g, q, y = fake_quantization(device)
    compiled = g.compile([q, y])
    x = values(np.random.default_rng(2))
    got_q, got_y = compiled(cl_array.to_device(device.queue, x), np.array(0.5, np.float32))
    assert isinstance(got_q, cl_array.Array) and isinstance(got_y, cl_array.Array)
    want_q, want_y = reference(x, 0.5)
    np.testing.assert_array_equal(got_q.get(), want_q)
    np.testing.assert_array_equal(got_y.get(), want_y)


def test_a_buffer_is_bound_as_it_is(device: Any) -> None:
    g, _, y = fake_quantization(device)
    compiled = g.compile([y])
    x = values(np.random.default_rng(3))
    np.testing.assert_array_equal(compiled(device.upload(x), np.float32(2.0)), reference(x, 2.0)[1])


def test_the_same_shapes_again_allocate_nothing(device: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[int] = []

    def counted(device: Any, size: int) -> Any:
        made.append(size)
        return allocate(device, size)

    allocate = graph_calls.allocate
    monkeypatch.setattr(graph_calls, "allocate", counted)
    g, q, y = fake_quantization(device)
    compiled = g.compile([q, y])
    x = values(np.random.default_rng(4))
    compiled(x, np.float32(0.5))
    first = len(made)
    # A fused graph needs no temporary resource. On a CPU device x (an aligned NumPy array) is read where it lies
    # and q and y are computed into the arrays returned: the scalar s is the one buffer kept; elsewhere x, s, q, y.
    assert first == (1 if device.is_cpu else 4)
    for _ in range(3):
        compiled(x, np.float32(0.5))
    assert len(made) == first


def test_the_temporary_resource_is_bound_inside(device: Any) -> None:
    g, _, y = fake_quantization(device)
    compiled = device.compile_graph(g.desc_for([y]), fuse=False)  # q passes between the kernels in it
    assert compiled.get_binding_properties().temporary_resource_size > 0
    x = values(np.random.default_rng(5))
    for scale in (0.25, 0.5):
        np.testing.assert_array_equal(compiled(x, np.float32(scale)), reference(x, scale)[1])


def test_a_graph_initialized_by_hand_runs_too(device: Any) -> None:
    g, _, y = fake_quantization(device)
    compiled = g.compile([y])
    device.create_operator_initializer([compiled]).initialize()
    x = values(np.random.default_rng(6))
    np.testing.assert_array_equal(compiled(x, np.float32(0.5)), reference(x, 0.5)[1])


def test_4_bit_tensors_are_ml_dtypes_arrays(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 7)))
    q = dml.graph.quantize(x, 0.5, np.zeros((1, 1), ml_dtypes.int4))
    compiled = g.compile([q])
    data = np.linspace(-5, 5, 14, dtype=np.float32).reshape(2, 7)
    got = compiled(data)
    assert got.dtype == ml_dtypes.int4
    want = np.clip(np.rint(data / np.float32(0.5)), -8, 7).astype(ml_dtypes.int4)
    np.testing.assert_array_equal(got.astype(np.int8), want.astype(np.int8))

    g = dml.Graph(device)
    nibbles = g.input(dml.BufferTensorDesc(data_type=T.INT4, sizes=(2, 7)))
    compiled = g.compile([dml.graph.dequantize(nibbles, 0.5, np.zeros((1, 1), ml_dtypes.int4))])
    np.testing.assert_array_equal(compiled(want), want.astype(np.float32) * np.float32(0.5))


BINDING_ORDER = (
    "It takes its 2 graph inputs in binding order (the order of g.input): 0: FLOAT32 of Sizes [1, 1, 4, 4] "
    "(given: {0}); 1: FLOAT32 of Sizes [1, 1, 4, 4], Strides [0, 0, 0, 0] (given: {1}). Give a NumPy array "
    "(ml_dtypes' int4 or uint4 for 4-bit inputs), a pyopencl array or a dmlpy Buffer per input, of its data type "
    "and Sizes (leading 1s aside; 1 where its Strides are 0)"
)


@pytest.mark.parametrize(
    ("arguments", "wrong", "given"),
    [
        (
            lambda x: (x,),
            "1 argument was given",
            ("a NumPy array of float32 and shape (1, 1, 4, 4)", "nothing"),
        ),
        (
            lambda x: (x.astype(np.float64), np.float32(0.5)),
            "argument 0 is a NumPy array of float64 and shape (1, 1, 4, 4): the input is FLOAT32 of Sizes "
            "[1, 1, 4, 4], whose NumPy dtype is float32; convert it (x.astype(np.float32))",
            ("a NumPy array of float64 and shape (1, 1, 4, 4)", "a NumPy array of float32 and shape ()"),
        ),
        (
            lambda x: (x, np.full(4, 0.5, np.float32)),
            "argument 1 is a NumPy array of float32 and shape (4,): the input is FLOAT32 of Sizes [1, 1, 4, 4], "
            "Strides [0, 0, 0, 0]; give an array of that shape",
            ("a NumPy array of float32 and shape (1, 1, 4, 4)", "a NumPy array of float32 and shape (4,)"),
        ),
        (
            lambda x: (x.tolist(), np.float32(0.5)),
            "argument 0 is list [[[[",
            None,
        ),
    ],
    ids=["too-few", "dtype", "shape", "not-an-array"],
)
def test_arguments_that_do_not_fit_are_refused_explaining_the_binding_order(
    device: Any, arguments: Any, wrong: str, given: tuple[str, str] | None
) -> None:
    g, _, y = fake_quantization(device)
    compiled = g.compile([y])
    x = values(np.random.default_rng(7))
    before = compiled(x, np.float32(0.5))
    with pytest.raises(dml.InvalidArgumentError) as raised:
        compiled(*arguments(x))
    message = str(raised.value)
    assert message.startswith(f"compiled graph of 2 operator nodes: {wrong}")
    if given is not None:
        assert message.endswith(f". {BINDING_ORDER.format(*given)}")
    # Nothing was written: the next call gives what the one before gave.
    np.testing.assert_array_equal(compiled(x, np.float32(0.5)), before)


def test_4_bit_outputs_into_pyopencl_arrays_are_refused(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 8)))
    compiled = g.compile([dml.graph.quantize(x, 0.5, np.zeros((1, 1), ml_dtypes.uint4))])
    with pytest.raises(dml.UnsupportedError, match="graph output 0 is UINT4, which a pyopencl array cannot hold"):
        compiled(cl_array.to_device(device.queue, np.zeros((2, 8), np.float32)))


def test_the_builders_axis_quantizes_along_it(device: Any) -> None:
    """dml.graph.quantize_linear(x, scale, zero_point, axis=1) with 1-D arrays, against NumPy."""
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 3, 5)))
    scale = np.array([0.5, 2.0, 0.125], np.float32)
    zero_point = np.array([-3, 0, 100], np.int8)
    q = dml.graph.quantize_linear(x, scale, zero_point, axis=1)
    y = dml.graph.dequantize_linear(q, scale, zero_point, axis=-2)
    data = np.random.default_rng(8).uniform(-30, 30, size=(2, 3, 5)).astype(np.float32)
    got_q, got_y = g.compile([q, y])(data)
    want_q = quantize_reference(data, scale.reshape(3, 1), zero_point.reshape(3, 1), np.dtype(np.int8))
    np.testing.assert_array_equal(got_q, want_q)
    want_y = (want_q.astype(np.float32) - zero_point.reshape(3, 1)) * scale.reshape(3, 1)
    np.testing.assert_array_equal(got_y, want_y)


def test_a_buffer_too_small_is_refused_by_the_binding_table_and_the_next_call_runs(device: Any) -> None:
    g, _, y = fake_quantization(device)
    compiled = g.compile([y])
    x = values(np.random.default_rng(9))
    with pytest.raises(dml.InvalidArgumentError, match="graph input 0"):
        compiled(device.upload(x[..., :2]), np.float32(0.5))  # 32 bytes where the input takes 64
    np.testing.assert_array_equal(compiled(x, np.float32(0.5)), reference(x, 0.5)[1])
