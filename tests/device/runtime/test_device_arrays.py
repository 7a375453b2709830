"""The one-liners on device arrays (pyopencl.array.Array): device in, device out, asynchronous, under both launch
profiles (the ``device`` fixture). Values are checked against the NumPy oracles of tests/device/round and
tests/device/quantize; ordering against the caller's own pyopencl kernels and events on the same queue."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest
from pyopencl.elementwise import ElementwiseKernel

import dmlpy as dml
from dmlpy.arrays import device_memory
from tests.helpers import quantize_oracle as oracle
from tests.helpers.modes import ONE_LINER_MODE_NAMES, ONE_LINER_MODES
from tests.helpers.references import assert_rounded, hard_cases


def values(dtype: Any, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """The hard cases (ties, NaN payloads, subnormals, ...) then random values with fractions, in ``shape``."""
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape))
    hard = hard_cases(dtype)
    noise = (rng.standard_normal(count) * 300).astype(dtype)
    noise[: min(count, hard.size)] = hard[: min(count, hard.size)]
    return noise.reshape(shape)


def on_device(device: Any, array: np.ndarray) -> cl_array.Array:
    return cl_array.to_device(device.queue, np.ascontiguousarray(array))


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
@pytest.mark.parametrize("mode", ONE_LINER_MODES)
def test_round_device_in_device_out(device: Any, dtype: Any, mode: str) -> None:
    x = values(dtype, (7, 131))
    got = dml.round(on_device(device, x), mode=mode, device=device)
    assert isinstance(got, cl_array.Array) and got.queue == device.queue and got.events
    assert_rounded(x, got.get(), ONE_LINER_MODE_NAMES[mode])


def test_round_without_device_runs_on_the_arrays_queue(device: Any) -> None:
    x = values(np.float32, (300,))
    got = dml.round(on_device(device, x))
    assert got.queue == device.queue and got.context == device.context
    assert_rounded(x, got.get(), "HALVES_TO_NEAREST_EVEN")


def test_extension_dtypes_on_device_arrays(device: Any) -> None:
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 7.25], dtype=np.float32)
    up = dml.round(on_device(device, x), mode="NEAREST_UPWARD")  # nGraph's mode: the extension
    np.testing.assert_array_equal(up.get(), np.floor(x.astype(np.float64) + 0.5).astype(np.float32))
    integers = np.arange(-5, 6, dtype=np.int16)
    np.testing.assert_array_equal(dml.round(on_device(device, integers)).get(), integers)


VIEWS = {
    "offset_4_bytes": lambda a: a[:, 1:],
    "offset_16_bytes": lambda a: a[:, 4:],
    "rows": lambda a: a[2:5],
    "transposed": lambda a: a.T,
    "step_2": lambda a: a[:, ::2],
    "scalar_element": lambda a: a[3, 5],
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_views_and_offsets(device: Any, view: str, dtype: Any) -> None:
    x = values(dtype, (9, 40), seed=1)
    taken = VIEWS[view](on_device(device, x))
    got = dml.round(taken, mode="half_away_from_zero", device=device)
    assert got.shape == taken.shape
    assert_rounded(np.asarray(VIEWS[view](x)), got.get(), "TOWARD_INFINITY")


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_in_place_and_out(device: Any, dtype: Any) -> None:
    x = values(dtype, (5, 64), seed=2)
    work = on_device(device, x)
    assert dml.round(work, mode="toward_zero", out=work, device=device) is work
    assert_rounded(x, work.get(), "TOWARD_ZERO")

    # out= a view DirectML cannot bind (4 bytes into its buffer): computed in scratch and copied into place.
    wide = cl_array.zeros(device.queue, (5, 65), dtype)
    dml.round(on_device(device, x), out=wide[:, 1:], device=device)
    host = wide.get()
    assert_rounded(x, host[:, 1:], "HALVES_TO_NEAREST_EVEN")
    assert not host[:, 0].any(), "the element before each row of the view was written"


def test_partial_overlap_reads_a_snapshot(device: Any) -> None:
    x = np.arange(40, dtype=np.float32) + 0.5
    shared = on_device(device, x)
    dml.round(shared[:32], out=shared[8:], device=device)
    expected = x.copy()
    expected[8:] = np.rint(x[:32])
    np.testing.assert_array_equal(shared.get(), expected)


@pytest.mark.parametrize("axis", [None, 1])
def test_quantize_and_dequantize_device_arrays(device: Any, axis: int | None) -> None:
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((6, 10)) * 40).astype(np.float32)
    scale = np.float32(0.37) if axis is None else np.linspace(0.1, 2.0, 10).astype(np.float32)
    zero_point = np.int8(-3) if axis is None else np.arange(-5, 5, dtype=np.int8)
    quantized = dml.quantize_linear(on_device(device, x), scale, zero_point, axis=axis, device=device)
    assert isinstance(quantized, cl_array.Array) and quantized.dtype == np.int8
    expected = oracle.quantize(x, scale, zero_point, axis=axis, out_dtype=np.int8)
    np.testing.assert_array_equal(quantized.get(), expected)
    restored = dml.dequantize_linear(quantized, scale, zero_point, axis=axis, device=device)
    np.testing.assert_array_equal(restored.get(), oracle.dequantize(expected, scale, zero_point, axis=axis))


def test_calls_enqueue_without_waiting_and_keep_queue_order(device: Any) -> None:
    """The call returns while its input is not ready (a user event holds it back); the result is right once
    the event completes, and the caller's own kernels before and after order with it on the queue."""
    x = np.linspace(-20.3, 20.3, 1000, dtype=np.float32)
    data = on_device(device, x)
    gate = cl.UserEvent(device.context)
    data.add_event(gate)
    times_three = ElementwiseKernel(device.context, "float *x", "x[i] = x[i] * 3.0f", "times_three")
    result = dml.round(data, device=device)  # must not wait for the gate
    assert result.events[-1].command_execution_status != cl.command_execution_status.COMPLETE
    times_three(result)  # the caller's kernel, enqueued after ours on the same in-order queue
    gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(result.get(), np.rint(x) * np.float32(3))


def test_callers_kernel_before_and_in_place_after(device: Any) -> None:
    x = np.linspace(-9.9, 9.9, 333, dtype=np.float32)
    data = on_device(device, x)
    halve = ElementwiseKernel(device.context, "float *x", "x[i] = x[i] * 0.5f", "halve")
    halve(data)
    dml.round(data, out=data, device=device)
    halve(data)
    np.testing.assert_array_equal(data.get(), np.rint(x * np.float32(0.5)) * np.float32(0.5))


def expect_refusal(action: Any, *words: str) -> None:
    with pytest.raises(dml.DmlError) as error:
        action()
    for word in words:
        assert word in str(error.value), f"{word!r} not in {str(error.value)!r}"


def test_refusals_name_what_was_wrong(device: Any) -> None:
    x = np.linspace(-3, 3, 16, dtype=np.float32)
    data = on_device(device, x)
    other_context = cl.Context([device.cl_device])
    foreign = cl_array.to_device(cl.CommandQueue(other_context), x)
    expect_refusal(lambda: dml.round(foreign, device=device), "x is a pyopencl array of another OpenCL context")
    expect_refusal(lambda: dml.round(data, out=np.empty_like(x)), "out is a numpy.ndarray but x is one")
    expect_refusal(lambda: dml.round(x, out=data), "out is a pyopencl array but x is not")
    expect_refusal(lambda: dml.round(data, out=cl_array.empty(device.queue, 8, np.float32)), "out has shape (8,)")
    complex_data = cl_array.zeros(device.queue, 4, np.complex64)
    expect_refusal(lambda: dml.round(complex_data), "x is a pyopencl array of complex64", "dml.round takes")
    expect_refusal(lambda: dml.quantize_linear(data, data), "scale is a pyopencl.array.Array", "pass scale.get()")
    np.testing.assert_array_equal(data.get(), x)  # nothing written by any refused call


def test_out_of_memory_is_raised_and_nothing_enqueued(device: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*args: Any, **kwargs: Any) -> Any:
        raise cl.MemoryError("clCreateBuffer", cl.status_code.MEM_OBJECT_ALLOCATION_FAILURE, "simulated")

    data = on_device(device, np.full(8, 2.5, np.float32))
    events_before = list(data.events)
    monkeypatch.setattr(device_memory.cl_array, "empty", no_memory)
    expect_refusal(lambda: dml.round(data, device=device), "could not allocate 32 bytes")
    assert data.events == events_before
    monkeypatch.undo()
    np.testing.assert_array_equal(dml.round(data, device=device).get(), np.full(8, 2.0, np.float32))


def test_repeated_calls_read_the_arrays_anew(device: Any) -> None:
    """The second call on the same arrays takes the prepared path: it must see new values, a new array of the
    same shape, and in place, never a stale result."""
    x = on_device(device, np.full(64, 1.5, np.float32))
    out = cl_array.empty_like(x)
    for value in (1.5, 2.5, -0.5, 7.25):
        x.fill(np.float32(value))
        dml.round(x, out=out, device=device)
        np.testing.assert_array_equal(out.get(), np.full(64, np.rint(np.float32(value)), np.float32))
    other = on_device(device, np.full(64, 3.5, np.float32))
    np.testing.assert_array_equal(dml.round(other, out=out, device=device).get(), np.full(64, 4.0, np.float32))
    for _ in range(3):
        dml.round(x, out=x, mode="half_away_from_zero", device=device)
        x += np.float32(0.5)
    np.testing.assert_array_equal(x.get(), np.full(64, 9.5, np.float32))  # 7.25 -> 7, 7.5 -> 8, 8.5 -> 9, +0.5


def test_out_of_resources_at_the_launch_is_out_of_memory_and_the_device_works_on(
    device: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = on_device(device, np.full(8, 2.5, np.float32))
    out = cl_array.empty_like(data)
    dml.round(data, out=out, device=device)  # the full path once: the next call takes the prepared one

    def out_of_resources(*args: Any, **kwargs: Any) -> Any:
        raise cl.MemoryError("clEnqueueNDRangeKernel", cl.status_code.OUT_OF_RESOURCES, "simulated")

    monkeypatch.setattr(cl, "enqueue_nd_range_kernel", out_of_resources)
    for call in (lambda: dml.round(data, out=out, device=device), lambda: dml.round(data, device=device)):
        with pytest.raises(dml.OutOfMemoryError, match="ran out of memory"):
            call()
    monkeypatch.undo()
    np.testing.assert_array_equal(dml.round(data, out=out, device=device).get(), np.full(8, 2.0, np.float32))


def test_a_view_larger_than_its_buffer_is_refused_before_anything_runs(device: Any) -> None:
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 16)
    oversized = cl_array.Array(device.queue, (1024,), np.float32, data=memory)
    expect_refusal(lambda: dml.round(oversized, out=oversized, device=device), "x reaches byte 4096", "has 16")
    fits = cl_array.to_device(device.queue, np.full(4, 1.5, np.float32))
    too_long_out = cl_array.Array(device.queue, (4,), np.float32, data=memory, offset=8)
    expect_refusal(lambda: dml.round(fits, out=too_long_out, device=device), "out reaches byte 24", "has 16")


# Arrays over OpenCL sub-buffers and their parent share memory through different pyopencl objects. Each array
# lies at ("parent", at[, offset]) or ("sub", origin, size[, offset]): positions and sizes in units of the device's
# sub-buffer alignment A (CL_DEVICE_MEM_BASE_ADDR_ALIGN), an extra offset in bytes. x is 2 A bytes of float32;
# out has as many elements. The copies expected (snapshots, scratch) are those the same overlap makes in one buffer.
SUB_BUFFER_CASES: dict[str, tuple[tuple[Any, ...], tuple[Any, ...], int, str]] = {
    # name: (x, out, copies on the device, operation)
    "sub_buffer_x_parent_out_identical": (("sub", 1, 2), ("parent", 1), 0, "round"),
    "sub_buffer_x_parent_out_partial": (("sub", 1, 2), ("parent", 2), 1, "round"),
    "parent_x_sub_buffer_out_identical": (("parent", 2), ("sub", 2, 2), 0, "round"),
    "parent_x_sub_buffer_out_partial": (("parent", 1), ("sub", 2, 2), 1, "round"),
    "overlapping_sub_buffers": (("sub", 1, 2), ("sub", 2, 2), 1, "round"),
    "two_sub_buffers_of_one_range": (("sub", 2, 2), ("sub", 2, 2), 0, "round"),
    "disjoint_sub_buffers": (("sub", 1, 2), ("sub", 3, 2), 0, "round"),
    "disjoint_parent_and_sub_buffer": (("parent", 0), ("sub", 3, 2), 0, "round"),
    "offset_views_in_a_sub_buffer_and_parent": (("sub", 1, 3, 64), ("parent", 1, 128), 1, "round"),
    "unbindable_out_over_a_sub_buffer_x": (("sub", 1, 2), ("parent", 1, 4), 1, "round"),  # the scratch only
    "quantize_sub_buffer_x_parent_out_partial": (("sub", 1, 2), ("parent", 2), 1, "quantize"),
    "quantize_parent_x_sub_buffer_out_partial": (("parent", 1), ("sub", 2, 1), 1, "quantize"),
    "quantize_overlapping_sub_buffers": (("sub", 1, 2), ("sub", 2, 1), 1, "quantize"),
    "quantize_disjoint_sub_buffers": (("sub", 1, 2), ("sub", 3, 1), 0, "quantize"),
    "quantize_disjoint_parent_and_sub_buffer": (("parent", 0), ("sub", 3, 1), 0, "quantize"),
}


def array_at(
    device: Any, parent: cl.Buffer, place: tuple[Any, ...], count: int, dtype: Any
) -> tuple[cl_array.Array, int]:
    """The array of SUB_BUFFER_CASES at ``place``, and the byte of the parent where it starts."""
    align = device.cl_device.mem_base_addr_align // 8
    if place[0] == "parent":
        _, at, *extra = place
        memory, origin = parent, 0
    else:
        _, at, size, *extra = place
        memory, origin = parent.get_sub_region(at * align, size * align), at * align
    start = at * align + sum(extra)
    return cl_array.Array(device.queue, (count,), dtype, data=memory, offset=start - origin), start


@pytest.mark.parametrize("case", list(SUB_BUFFER_CASES))
def test_arrays_sharing_memory_through_sub_buffers(device: Any, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    x_place, out_place, copies, operation = SUB_BUFFER_CASES[case]
    align = device.cl_device.mem_base_addr_align // 8
    count = align // 2  # 2 A bytes of float32
    out_dtype = np.dtype(np.float32 if operation == "round" else np.uint8)
    rng = np.random.default_rng(9)
    host = (rng.integers(-1200, 1200, 6 * align // 4) / 4).astype(np.float32).view(np.uint8)  # ties included
    parent = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, host.nbytes)
    x, x_start = array_at(device, parent, x_place, count, np.float32)
    out, out_start = array_at(device, parent, out_place, count, out_dtype)

    x_values = host[x_start : x_start + 4 * count].view(np.float32)
    if operation == "round":
        result = np.rint(x_values)
    else:
        result = oracle.quantize(x_values, np.float32(0.5), np.uint8(10), out_dtype=np.uint8)
    expected = host.copy()
    expected[out_start : out_start + out_dtype.itemsize * count] = result.view(np.uint8)

    made = []

    def counted(*args: Any) -> cl_array.Array:  # a snapshot or a scratch array: a copy on the device
        made.append(args)
        return cl_array.empty(*args)

    monkeypatch.setattr(device_memory, "new_device_array", counted)
    for _ in range(2):  # the same arrays again (the path repeated calls may take) must give the same
        made.clear()
        cl.enqueue_copy(device.queue, parent, host).wait()
        if operation == "round":
            dml.round(x, out=out, device=device)
        else:
            dml.quantize_linear(x, np.float32(0.5), np.uint8(10), out=out, device=device)
        got = np.empty_like(host)
        cl.enqueue_copy(device.queue, got, parent, wait_for=out.events).wait()
        wrong = np.flatnonzero(got != expected)
        assert wrong.size == 0, f"{wrong.size} bytes wrong, the first at byte {wrong[:1]} (output from {out_start})"
        assert len(made) == copies, f"{len(made)} copies made on the device, {copies} expected"
