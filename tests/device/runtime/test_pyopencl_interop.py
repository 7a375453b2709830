"""Memory shared with pyopencl: ``device.wrap_buffer`` wraps a user's ``cl.Buffer`` (or a
``pyopencl.array.Array``'s data) without copying, ``buffer.as_array`` views a dmlpy buffer as a pyopencl array,
and dmlpy's dispatches and the user's own kernels run on the same bytes. Every refusal names the argument."""

from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
import pytest
from pyopencl.elementwise import ElementwiseKernel

import dmlpy as dml
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.references import round_reference

COUNT = 256
NBYTES = 4 * COUNT


def times_three(device) -> ElementwiseKernel:
    return ElementwiseKernel(device.context, "float *x", "x[i] = x[i] * 3.0f", "times_three")


def round_desc(count: int = COUNT):
    tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(1, 1, 1, count))
    return dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)


def expect_refusal(action, *words: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as error:
        action()
    for word in words:
        assert word in str(error.value), f"{word!r} not in {str(error.value)!r}"


def test_users_kernels_and_a_dispatch_share_memory(device):
    x = np.linspace(-9.8, 9.8, COUNT, dtype=np.float32)
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=x)
    target = cl.Buffer(device.context, flags.READ_WRITE, NBYTES)
    kernel = times_three(device)

    # The user's kernel, then dmlpy's Round, then the user's kernel again, all on the same memory.
    kernel(cl_array.Array(device.queue, COUNT, np.float32, data=source)).wait()
    compiled = compile_and_initialize(device, round_desc())
    wrapped_source, wrapped_target = device.wrap_buffer(source), device.wrap_buffer(target)
    dispatch(device, compiled, [dml.BufferBinding(wrapped_source)], [dml.BufferBinding(wrapped_target)])
    out = cl_array.Array(device.queue, COUNT, np.float32, data=target)
    kernel(out).wait()

    tripled = x * np.float32(3)
    np.testing.assert_array_equal(out.get(), round_reference(tripled, 0) * np.float32(3))
    np.testing.assert_array_equal(wrapped_source.read(np.float32, COUNT), tripled)


def test_wrap_shares_memory_both_ways(device):
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, NBYTES)
    buffer = device.wrap_buffer(memory)
    assert buffer.memory is memory and buffer.memory.int_ptr == memory.int_ptr
    assert buffer.size == memory.size == NBYTES

    values = np.arange(COUNT, dtype=np.float32)
    cl.enqueue_copy(device.queue, memory, values, is_blocking=True)  # written by pyopencl ...
    np.testing.assert_array_equal(buffer.read(np.float32, COUNT), values)  # ... read by dmlpy

    buffer.write(-values)  # written by dmlpy ...
    seen = np.empty(COUNT, np.float32)
    cl.enqueue_copy(device.queue, seen, memory, is_blocking=True)  # ... read by pyopencl
    np.testing.assert_array_equal(seen, -values)


def test_wrap_an_array_wraps_its_base_data(device):
    values = np.arange(COUNT, dtype=np.float32)
    array = cl_array.to_device(device.queue, values)
    buffer = device.wrap_buffer(array)
    assert buffer.memory is array.base_data
    assert buffer.size == array.base_data.size
    np.testing.assert_array_equal(buffer.read(np.float32, COUNT), values)
    times_three(device)(array).wait()
    np.testing.assert_array_equal(buffer.read(np.float32, COUNT), values * 3)


def test_release_drops_only_dmlpys_reference(device):
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, NBYTES)
    values = np.arange(COUNT, dtype=np.float32)
    with device.wrap_buffer(memory) as buffer:
        buffer.write(values)
    assert buffer.released
    expect_refusal(lambda: buffer.read(np.float32, COUNT), "was released")
    seen = np.empty(COUNT, np.float32)
    cl.enqueue_copy(device.queue, seen, memory, is_blocking=True)  # the user's buffer still works
    np.testing.assert_array_equal(seen, values)
    again = device.wrap_buffer(memory)  # and can be wrapped anew
    assert again is not buffer
    np.testing.assert_array_equal(again.read(np.float32, COUNT), values)


def test_the_same_memory_is_one_buffer(device):
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, NBYTES)
    assert device.wrap_buffer(memory) is device.wrap_buffer(memory)
    created = device.create_buffer(NBYTES)
    assert device.wrap_buffer(created.memory) is created
    uploaded = device.upload(np.arange(COUNT, dtype=np.float32))
    assert device.wrap_buffer(uploaded.memory) is uploaded


def test_aliasing_rules_see_wrapped_memory(device):
    # Wrapping the memory twice gives one Buffer, so a partial overlap is still refused before the dispatch.
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, 2 * NBYTES)
    compiled = compile_and_initialize(device, round_desc())
    inputs = [dml.BufferBinding(device.wrap_buffer(memory), 0, NBYTES)]
    outputs = [dml.BufferBinding(device.wrap_buffer(memory), 16, NBYTES)]
    expect_refusal(lambda: dispatch(device, compiled, inputs, outputs), "share memory")


def test_as_array_round_trip(device):
    values = np.arange(COUNT, dtype=np.float32)
    buffer = device.upload(values)
    view = buffer.as_array(np.float32, (16, 16))
    assert isinstance(view, cl_array.Array)
    assert view.base_data is buffer.memory and view.base_data.int_ptr == buffer.memory.int_ptr
    assert view.shape == (16, 16) and view.dtype == np.float32 and view.offset == 0
    np.testing.assert_array_equal(view.get(), values.reshape(16, 16))

    tail = buffer.as_array(np.float32, 8, offset=NBYTES - 32)
    assert tail.offset == NBYTES - 32
    np.testing.assert_array_equal(tail.get(), values[-8:])

    times_three(device)(view).wait()  # the user's kernel on dmlpy's memory ...
    np.testing.assert_array_equal(buffer.read(np.float32, COUNT), values * 3)  # ... seen by dmlpy
    buffer.write(-values)
    np.testing.assert_array_equal(view.get().ravel(), -values)


def test_as_array_checks_like_read(device):
    buffer = device.create_buffer(NBYTES)
    expect_refusal(lambda: buffer.as_array(np.float32, COUNT + 1), "as_array of 1028 bytes", "1024-byte buffer")
    expect_refusal(lambda: buffer.as_array(np.float32, COUNT, offset=4), "does not fit")
    expect_refusal(lambda: buffer.as_array(object, 4), "Buffer.as_array: dtype")
    expect_refusal(lambda: buffer.as_array(np.float32, -1), "Buffer.as_array: shape")
    expect_refusal(lambda: buffer.as_array(np.float32, 4, offset=-4), "Buffer.as_array: offset")
    expect_refusal(lambda: buffer.as_array(np.float32, 4, offset=2), "offset 2 is not a multiple", "4-byte")
    buffer.release()
    expect_refusal(lambda: buffer.as_array(np.float32, 4), "was released")


def test_wrap_refuses_what_it_cannot_share(device):
    expect_refusal(lambda: device.wrap_buffer(np.zeros(4, np.float32)), "wrap_buffer: memory is", "pyopencl.Buffer")
    expect_refusal(lambda: device.wrap_buffer(None), "wrap_buffer: memory is None")

    other = cl.Context([device.cl_device])
    foreign = cl.Buffer(other, cl.mem_flags.READ_WRITE, NBYTES)
    expect_refusal(lambda: device.wrap_buffer(foreign), "wrap_buffer: memory", "another OpenCL context")
    foreign_array = cl_array.zeros(cl.CommandQueue(other), COUNT, np.float32)
    expect_refusal(lambda: device.wrap_buffer(foreign_array), "memory.base_data", "another OpenCL context")

    parent = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, NBYTES)
    sub = parent.get_sub_region(0, NBYTES // 2)
    expect_refusal(lambda: device.wrap_buffer(sub), "sub-buffer", "wrap its parent")

    view = cl_array.zeros(device.queue, COUNT, np.float32)[4:]
    expect_refusal(lambda: device.wrap_buffer(view), "starting 16 bytes into", "dml.BufferBinding(buffer, offset=16)")
    empty = cl_array.zeros(device.queue, 0, np.float32)
    expect_refusal(lambda: device.wrap_buffer(empty), "empty pyopencl.array.Array")

    live = device.create_buffer(NBYTES)
    expect_refusal(lambda: device.wrap_buffer(live), "wrap_buffer: memory is <dmlpy.Buffer", "bound as it is")
    live.release()
    expect_refusal(lambda: device.wrap_buffer(live), "dmlpy Buffer that was released")


def test_refused_in_a_forked_child(device, monkeypatch):
    # What check_process sees in a child forked after OpenCL was initialised (test_fork.py forks for real).
    from dmlpy.runtime import fork as fork_module

    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, NBYTES)
    buffer = device.create_buffer(NBYTES)
    monkeypatch.setattr(fork_module, "_forked_from", 1)
    for call in (lambda: device.wrap_buffer(memory), lambda: buffer.as_array(np.float32, 4)):
        with pytest.raises(dml.UnsupportedError, match="OpenCL does not survive fork"):
            call()
