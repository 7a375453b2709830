"""Guards from issue 12 that need no subprocess: buffers take plain numeric data only and check a read before
allocating it (defect 2), a released buffer refuses every use (defect 5), and every public entry point of the
runtime's object model refuses ill-typed arguments with InvalidArgumentError naming the argument (defect 12).

Each test asserts a real outcome: the error and its message, bytes that stay as they were, memory that is (not)
allocated. See docs/reliability.md."""

from __future__ import annotations

import gc
import re
import tracemalloc
import weakref
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pyopencl as cl
import pytest

import dmlpy as dml

SENTINEL = 0x5A
SIZES = (1, 1, 2, 4)


def _compiled(device: dml.Device, sizes: tuple[int, ...] = SIZES) -> dml.CompiledOperator:
    tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=sizes)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return compiled


def _sentinel_buffer(device: dml.Device, nbytes: int = 64) -> dml.Buffer:
    return device.upload(np.full(nbytes, SENTINEL, np.uint8))


# ------------------------------------------------------------------------------------ 2: plain dtypes only

NOT_PLAIN = [
    pytest.param(object, id="object"),
    pytest.param("U2", id="str"),
    pytest.param("S4", id="bytes"),
    pytest.param("V8", id="void"),
    pytest.param([("a", "<f4"), ("b", "<i4")], id="structured"),
    pytest.param(("<f4", (2,)), id="subarray"),
    pytest.param("M8[s]", id="datetime"),
    pytest.param("m8[s]", id="timedelta"),
    pytest.param(np.complex64, id="complex"),
]

NOT_PLAIN_ARRAYS = [param for param in NOT_PLAIN if param.id != "subarray"]
"""NumPy expands a subarray dtype into the array's shape, so an array never has one."""

PLAIN = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    ml_dtypes.bfloat16,
    ">f4",
]


@pytest.mark.parametrize("dtype", NOT_PLAIN)
def test_read_refuses_dtypes_that_are_not_plain_numbers(device: dml.Device, dtype: Any) -> None:
    buffer = device.create_buffer(64)
    with pytest.raises(dml.InvalidArgumentError, match=r"Buffer\.read: dtype is .*plain numeric dtype"):
        buffer.read(dtype, 2)


@pytest.mark.parametrize("dtype", NOT_PLAIN_ARRAYS)
def test_write_and_upload_refuse_arrays_that_are_not_plain_numbers(device: dml.Device, dtype: Any) -> None:
    array = np.zeros(2, dtype=dtype)
    buffer = _sentinel_buffer(device)
    with pytest.raises(dml.InvalidArgumentError, match=r"Buffer\.write: array\.dtype is .*plain numeric"):
        buffer.write(array)
    assert (buffer.read(np.uint8, 64) == SENTINEL).all()
    with pytest.raises(dml.InvalidArgumentError, match=r"upload: array\.dtype is .*plain numeric"):
        device.upload(array)


@pytest.mark.parametrize(
    "array",
    [
        pytest.param([None, 1], id="list_with_none"),
        pytest.param(["1.5", "2"], id="list_of_text"),
        pytest.param("text", id="text"),
        pytest.param(object(), id="an_object"),
        pytest.param([[1, 2], [3]], id="ragged"),
    ],
)
def test_upload_refuses_what_is_not_numeric_data(device: dml.Device, array: Any) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"upload: array"):
        device.upload(array)


@pytest.mark.parametrize("dtype", PLAIN, ids=lambda d: np.dtype(d).str)
def test_plain_dtypes_round_trip(device: dml.Device, dtype: Any) -> None:
    values = np.array([0, 1, 0, 1, 1, 0, 1, 1], dtype=dtype) if np.dtype(dtype) == np.bool_ else None
    if values is None:
        values = np.arange(8).astype(dtype)
    buffer = device.upload(values)
    got = buffer.read(dtype, 8)
    assert got.dtype == np.dtype(dtype)
    assert got.tobytes() == values.tobytes()
    buffer.write(values[::-1], offset=0)
    assert buffer.read(dtype, (2, 4)).tobytes() == values[::-1].tobytes()


def test_read_checks_the_range_before_allocating(device: dml.Device) -> None:
    buffer = device.create_buffer(64)
    with pytest.raises(dml.InvalidArgumentError, match="4398046511104 bytes at offset 0 does not fit a 64-byte"):
        buffer.read(np.float32, (2**40,))  # 4 TiB: refused, never allocated
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(dml.InvalidArgumentError, match="does not fit a 64-byte buffer"):
            buffer.read(np.float32, (2**22,))  # 16 MiB
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**20, f"refusing the read allocated {peak} bytes first"


@pytest.mark.parametrize(
    "shape",
    [-1, (2, -1), 2.5, (2.0,), "4", None, True, (True, 2), [[2]], np.float32(2)],
    ids=repr,
)
def test_read_refuses_shapes_that_are_not_element_counts(device: dml.Device, shape: Any) -> None:
    buffer = device.create_buffer(64)
    with pytest.raises(dml.InvalidArgumentError, match=r"Buffer\.read: shape is"):
        buffer.read(np.float32, shape)


def test_read_takes_numpy_integers_and_lists(device: dml.Device) -> None:
    buffer = device.upload(np.arange(8, dtype=np.int32))
    assert buffer.read(np.int32, np.int64(8)).tolist() == list(range(8))
    assert buffer.read(np.int32, [np.uint8(2), 4]).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert buffer.read(np.int32, (0,)).shape == (0,)


# ------------------------------------------------------------------------------------ 5: released buffers


def test_release_is_idempotent_and_every_use_after_it_is_refused(device: dml.Device) -> None:
    buffer = device.upload(np.arange(16, dtype=np.float32))
    assert not buffer.released
    buffer.release()
    buffer.release()
    assert buffer.released and "released" in repr(buffer)
    uses: list[Callable[[], object]] = [
        lambda: buffer.read(np.float32, 4),
        lambda: buffer.write(np.zeros(4, np.float32)),
        lambda: buffer.memory,
        lambda: buffer.size,
        lambda: dml.BufferBinding(buffer),
    ]
    for use in uses:
        with pytest.raises(dml.InvalidArgumentError, match="was released"):
            use()


def test_with_block_releases_the_buffer(device: dml.Device) -> None:
    with device.create_buffer(64) as buffer:
        buffer.write(np.arange(16, dtype=np.float32))
        assert buffer.read(np.float32, 16).tolist() == list(range(16))
    assert buffer.released
    with pytest.raises(dml.InvalidArgumentError, match="was released"):
        buffer.read(np.float32, 16)
    with pytest.raises(ZeroDivisionError), device.create_buffer(64) as failing:
        1 / 0  # noqa: B018
    assert failing.released


def test_release_gives_the_opencl_memory_back(device: dml.Device, monkeypatch: pytest.MonkeyPatch) -> None:
    refs: list[weakref.ref[Any]] = []

    class TrackedBuffer(cl.Buffer):  # type: ignore[misc]  # pyopencl's Buffer takes no weak references
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            refs.append(weakref.ref(self))

    monkeypatch.setattr(cl, "Buffer", TrackedBuffer)
    buffer = device.create_buffer(4096)
    assert len(refs) == 1 and refs[0]() is not None
    buffer.release()
    gc.collect()
    assert refs[0]() is None, "release() left the OpenCL buffer alive"


def test_binding_a_released_buffer_is_refused(device: dml.Device) -> None:
    compiled = _compiled(device)
    table = device.create_binding_table(compiled)
    buffer = device.create_buffer(64)
    binding = dml.BufferBinding(buffer, 0, 32)
    buffer.release()
    with pytest.raises(dml.InvalidArgumentError, match="InputTensor is bound to a buffer that was released"):
        table.bind_inputs([binding])
    assert table.inputs == []


@pytest.mark.parametrize("released", ["input", "output"])
def test_dispatching_a_table_that_references_a_released_buffer_is_refused(device: dml.Device, released: str) -> None:
    compiled = _compiled(device)
    table = device.create_binding_table(compiled)
    source = device.upload(np.full(8, 1.5, np.float32))
    target = _sentinel_buffer(device)
    table.bind_inputs([dml.BufferBinding(source)])
    table.bind_outputs([dml.BufferBinding(target, 0, 32)])
    (source if released == "input" else target).release()
    tensor = "InputTensor" if released == "input" else "OutputTensor"
    with pytest.raises(dml.InvalidArgumentError, match=f"{tensor} is bound to a buffer that was released"):
        device.create_command_recorder().record_dispatch(device.queue, compiled, table)
    device.queue.finish()
    if released == "input":
        assert (target.read(np.uint8, 64) == SENTINEL).all(), "a refused dispatch wrote to its output"


def test_a_buffer_released_after_dispatch_keeps_the_result(device: dml.Device) -> None:
    """OpenCL keeps memory alive for commands already enqueued: releasing the input right after recording the
    dispatch neither crashes nor changes the result."""
    compiled = _compiled(device)
    table = device.create_binding_table(compiled)
    source = device.upload(np.arange(8, dtype=np.float32) + 0.5)
    target = device.create_buffer(32)
    table.bind_inputs([dml.BufferBinding(source)])
    table.bind_outputs([dml.BufferBinding(target)])
    done = device.create_command_recorder().record_dispatch(device.queue, compiled, table)
    source.release()
    done.wait()
    assert target.read(np.float32, 8).tolist() == np.round(np.arange(8) + 0.5).tolist()


# ------------------------------------------------------------------------------------ 12: ill-typed arguments


def _bad_calls() -> list[Any]:
    """(call on a Setup, the argument the message must name)."""

    def p(name: str, call: Callable[[Any], object], id: str) -> Any:
        return pytest.param(call, name, id=id)

    return [
        p("operator", lambda s: s.device.compile_operator(None), "compile_operator_none"),
        p("operator", lambda s: s.device.compile_operator(s.compiled), "compile_operator_compiled"),
        p("flags", lambda s: s.device.compile_operator(s.operator, "junk"), "compile_flags_text"),
        p("flags", lambda s: s.device.compile_operator(s.operator, object()), "compile_flags_object"),
        p("flags", lambda s: s.device.compile_operator(s.operator, 0x40), "compile_flags_unknown_bit"),
        p("flags", lambda s: s.device.compile_operator(s.operator, True), "compile_flags_bool"),
        p("desc", lambda s: s.device.create_operator(None), "create_operator_none"),
        p("queue", lambda s: s.recorder.record_dispatch(None, s.compiled, s.table), "record_queue_none"),
        p("queue", lambda s: s.recorder.record_dispatch("queue", s.compiled, s.table), "record_queue_text"),
        p("dispatchable", lambda s: s.recorder.record_dispatch(s.device.queue, None, s.table), "record_op_none"),
        p("table", lambda s: s.recorder.record_dispatch(s.device.queue, s.compiled, None), "record_table_none"),
        p("table", lambda s: s.recorder.record_dispatch(s.device.queue, s.compiled, object()), "record_table_obj"),
        p("dispatchable", lambda s: s.device.create_binding_table(None), "binding_table_none"),
        p("dispatchable", lambda s: s.device.create_binding_table(s.operator), "binding_table_operator"),
        p("dispatchable", lambda s: s.table.reset(None), "table_reset_none"),
        p("bindings", lambda s: s.table.bind_inputs(None), "bind_inputs_none"),
        p("bindings[0]", lambda s: s.table.bind_outputs([s.buffer]), "bind_outputs_a_buffer"),
        p("binding", lambda s: s.table.bind_temporary_resource(s.buffer), "bind_temporary"),
        p("operators", lambda s: s.device.create_operator_initializer(None), "initializer_none"),
        p("operators[0]", lambda s: s.device.create_operator_initializer([None]), "initializer_entry_none"),
        p("shape", lambda s: s.buffer.read(np.float32, -1), "read_negative_shape"),
        p("dtype", lambda s: s.buffer.read(None, 2), "read_dtype_none"),
        p("dtype", lambda s: s.buffer.read("no such dtype", 2), "read_dtype_text"),
        p("offset", lambda s: s.buffer.read(np.float32, 2, offset=-4), "read_negative_offset"),
        p("offset", lambda s: s.buffer.write(np.zeros(2, np.float32), offset="0"), "write_text_offset"),
        p("array", lambda s: s.buffer.write(np.array([object()])), "write_object_array"),
        p("size_in_bytes", lambda s: s.device.create_buffer("10"), "create_buffer_text"),
        p("size_in_bytes", lambda s: s.device.create_buffer(-1), "create_buffer_negative"),
        p("size_in_bytes", lambda s: s.device.create_buffer(None), "create_buffer_none"),
        p("array", lambda s: s.device.upload(np.array([None, 1.0])), "upload_object_array"),
        p("feature", lambda s: s.device.check_feature_support("junk", []), "feature_text"),
        p("feature", lambda s: s.device.check_feature_support(object(), []), "feature_object"),
        p("feature", lambda s: s.device.check_feature_support(True, ["FL_1_0"]), "feature_bool"),
        p("query", lambda s: s.device.check_feature_support("FEATURE_LEVELS", "FL_1_0"), "levels_text"),
        p("query", lambda s: s.device.check_feature_support("FEATURE_LEVELS", None), "levels_none"),
        p("query[1]", lambda s: s.device.check_feature_support("FEATURE_LEVELS", ["FL_1_0", 7]), "levels_junk"),
        p("query", lambda s: s.device.check_feature_support("TENSOR_DATA_TYPE_SUPPORT", object()), "type_obj"),
        p("max_feature_level", lambda s: dml.create_device(max_feature_level=object()), "max_level_object"),
        p("minimum_feature_level", lambda s: dml.create_device("FL_9_9"), "minimum_level_text"),
        p("extensions", lambda s: dml.create_device(extensions="yes"), "create_device_extensions"),
        p("cl_device", lambda s: dml.create_device(cl_device="pocl"), "create_device_cl_device"),
        p("extensions", lambda s: dml.default_device(extensions=None), "default_device_extensions"),
    ]


class Setup:
    def __init__(self, device: dml.Device) -> None:
        self.device = device
        tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=SIZES)
        self.operator = device.create_operator(
            dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
        )
        self.compiled = _compiled(device)
        self.table = device.create_binding_table(self.compiled)
        self.recorder = device.create_command_recorder()
        self.buffer = device.create_buffer(64)


@pytest.mark.parametrize(("call", "name"), _bad_calls())
def test_ill_typed_arguments_raise_invalid_argument_naming_it(
    device: dml.Device, call: Callable[[Setup], object], name: str
) -> None:
    setup = Setup(device)
    with pytest.raises(dml.InvalidArgumentError) as caught:
        call(setup)
    assert isinstance(caught.value, dml.DmlError) and isinstance(caught.value, ValueError)
    assert re.search(rf"(?<![\w.]){re.escape(name)}(?![\w\[])", str(caught.value)), str(caught.value)


def test_valid_spellings_still_work(device: dml.Device) -> None:
    setup = Setup(device)
    assert device.compile_operator(setup.operator, "DML_EXECUTION_FLAG_NONE").flags == dml.ExecutionFlags.NONE
    assert device.compile_operator(setup.operator, 1).flags == dml.ExecutionFlags.ALLOW_HALF_PRECISION_COMPUTATION
    assert device.check_feature_support(dml.Feature.FEATURE_LEVELS, ["FL_1_0", 0x2000]) == dml.FeatureLevel.FL_2_0
    assert device.check_feature_support("TENSOR_DATA_TYPE_SUPPORT", "FLOAT16") is True
    assert dml.create_device(max_feature_level="FL_2_0").feature_level == dml.FeatureLevel.FL_2_0
    assert setup.buffer.read(np.uint8, np.int32(4), offset=np.int64(8)).tolist() == [0, 0, 0, 0]
