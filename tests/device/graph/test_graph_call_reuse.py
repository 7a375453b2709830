"""What a repeated graph call keeps (dmlpy/runtime/graph_outputs.py, graph_host.py, graph_calls.py), and that a
caller never sees it: a held result is never computed into again (its values compared with NumPy's after later
calls), a dropped one is (its data pointer), a view or a memoryview holds it, a model's other input shapes get
other arrays; an input array kept bound is read afresh at every call (changed in place, or freed and another
made), and a new argument is bound and checked as at a first call."""

from __future__ import annotations

import gc
import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.errors import InvalidArgumentError
from dmlpy.runtime.binding_table import BindingTable

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402

from dmlpy.onnx import DmlBackend  # noqa: E402

T = dml.TensorDataType
N = 1024


def doubled_abs(device: Any) -> Any:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(N,)))
    return g.compile([dml.graph.abs(x) * 2.0])


def want(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    return np.abs(x) * np.float32(2)


def inputs(count: int) -> list[npt.NDArray[np.float32]]:
    rng = np.random.default_rng(47)
    return [rng.uniform(-8, 8, N).astype(np.float32) for _ in range(count)]


def test_a_held_result_is_never_computed_into_and_a_dropped_one_is(device: Any) -> None:
    compiled = doubled_abs(device)
    xs = inputs(6)
    held = [compiled(x) for x in xs[:4]]  # four held at once: past the pool's three
    for x in xs[4:]:
        compiled(x)  # dropped at once
    assert len({array.ctypes.data for array in held}) == 4
    for array, x in zip(held, xs[:4], strict=True):
        np.testing.assert_array_equal(array, want(x))
    if not device.is_cpu:
        return  # outputs are read from kept buffers into new arrays: nothing to reuse
    first = compiled(xs[0])
    address = first.ctypes.data
    del first
    again = compiled(xs[1])
    assert again.ctypes.data == address
    np.testing.assert_array_equal(again, want(xs[1]))


def test_a_loop_holding_the_last_result_takes_turns_between_two_arrays(device: Any) -> None:
    compiled = doubled_abs(device)
    xs = inputs(6)
    y = compiled(xs[0])
    addresses = []
    for before, x in itertools.pairwise(xs):
        previous = y
        y = compiled(x)  # the last result is held while this call runs
        np.testing.assert_array_equal(previous, want(before))
        np.testing.assert_array_equal(y, want(x))
        addresses.append(y.ctypes.data)
    if device.is_cpu:
        assert len(set(addresses)) == 2


@pytest.mark.parametrize("holder", ["view", "reshaped", "memoryview", "masked"])
def test_whatever_references_a_result_holds_it(device: Any, holder: str) -> None:
    compiled = doubled_abs(device)
    x, other = inputs(2)
    kept = _held_by(holder, compiled(x))  # the result itself referenced by the holder alone
    for _ in range(4):
        compiled(other)
    np.testing.assert_array_equal(np.asarray(kept).reshape(-1)[-(N - 1) :], want(x)[1:])


def _held_by(holder: str, result: npt.NDArray[np.float32]) -> Any:
    if holder == "view":
        return result[1:]
    if holder == "reshaped":
        return result.reshape(32, 32)
    if holder == "memoryview":
        return memoryview(result)
    return np.ma.MaskedArray(result, mask=False)


def test_an_input_bound_where_it_lies_is_read_afresh_at_every_call(device: Any) -> None:
    compiled = doubled_abs(device)
    for offset in (0, 16, 112):  # Intel's runtime reads from the 128-byte boundary below
        block = np.empty(N * 4 + 256, np.uint8)
        start = -block.ctypes.data % 128 + offset
        x = block[start : start + N * 4].view(np.float32)
        for values in inputs(3):
            x[...] = values  # the same array, new values
            np.testing.assert_array_equal(compiled(x), want(values))
    for values in inputs(4):  # a new array each call, the last freed: perhaps the same address
        x = values.copy()
        np.testing.assert_array_equal(compiled(x), want(values))
        del x
        gc.collect()


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per BindingTable.bind_inputs call from now on."""
    calls: list[int] = []
    bind_inputs = BindingTable.bind_inputs
    monkeypatch.setattr(BindingTable, "bind_inputs", lambda table, b: calls.append(1) or bind_inputs(table, b))
    return calls


def test_a_repeated_call_binds_nothing_again_and_a_new_argument_is_checked(device: Any, bound: list[int]) -> None:
    compiled = doubled_abs(device)
    x, other = inputs(2)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x), want(x))
    # x is read where it lies (a CPU device) or written into its kept buffer, the output pooled or kept: the
    # same buffers each call, bound once.
    assert len(bound) == 1
    np.testing.assert_array_equal(compiled(other), want(other))
    with pytest.raises(InvalidArgumentError, match="float32"):
        compiled(x.astype(np.float64))
    with pytest.raises(InvalidArgumentError, match="shape"):
        compiled(x[:-1])


def _relu_model() -> Any:
    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_rep_run_reuses_only_what_the_caller_dropped(device: Any) -> None:
    rep = DmlBackend.prepare(_relu_model(), dml_device=device)
    x, other = inputs(2)
    (held,) = rep.run([x])
    (dropped,) = rep.run([other])
    address = dropped.ctypes.data
    del dropped
    (again,) = rep.run([other])
    np.testing.assert_array_equal(held, np.maximum(x, 0))  # the two calls after it left it alone
    np.testing.assert_array_equal(again, np.maximum(other, 0))
    if device.is_cpu:
        assert again.ctypes.data == address and held.ctypes.data != address
    shorter = x[: N // 2].copy()
    (short,) = rep.run([shorter])
    assert short.shape == (N // 2,) and short.ctypes.data not in (held.ctypes.data, again.ctypes.data)
    np.testing.assert_array_equal(short, np.maximum(shorter, 0))
    np.testing.assert_array_equal(held, np.maximum(x, 0))


def test_a_read_only_input_is_read_where_it_lies(device: Any) -> None:
    compiled = doubled_abs(device)
    (x,) = inputs(1)
    x.setflags(write=False)
    np.testing.assert_array_equal(compiled(x), want(x))


def test_a_dmlpy_buffer_given_again_is_bound_once_and_refused_once_released(device: Any, bound: list[int]) -> None:
    compiled = doubled_abs(device)
    (x,) = inputs(1)
    buffer = device.upload(x)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(buffer), want(x))
    assert len(bound) == 1
    buffer.release()
    with pytest.raises(InvalidArgumentError, match="released"):
        compiled(buffer)
