"""Edges of the public API found in review: wrong objects and values get a dmlpy error that says what is wrong,
and a refused call leaves the binding table and every buffer as they were."""

from __future__ import annotations

import numpy as np
import pytest

import dmlpy as dml

SIZES = (1, 1, 2, 4)


def _compiled(device: dml.Device) -> dml.CompiledOperator:
    tensor = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=SIZES)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
    compiled = device.compile_operator(device.create_operator(desc))
    initializer = device.create_operator_initializer([compiled])
    device.create_command_recorder().record_dispatch(
        device.queue, initializer, device.create_binding_table(initializer)
    ).wait()
    return compiled


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda d: d.create_buffer(1.5), id="float_size"),
        pytest.param(lambda d: d.create_buffer("16"), id="text_size"),
        pytest.param(lambda d: d.create_buffer(True), id="bool_size"),
        pytest.param(lambda d: d.create_buffer(16).write(np.zeros(2, np.float32), offset=1.5), id="float_offset"),
        pytest.param(lambda d: d.create_buffer(16).read(np.float32, 2, offset=-4), id="negative_offset"),
        pytest.param(lambda d: dml.validate({"Type": 99}, "3_0"), id="validate_a_dict"),
        pytest.param(lambda d: d.create_operator("ELEMENT_WISE_ROUND"), id="create_operator_text"),
    ],
)
def test_junk_arguments_raise_invalid_argument(device: dml.Device, call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(dml.InvalidArgumentError):
        call(device)


def test_binding_offset_past_the_end_says_so(device: dml.Device) -> None:
    compiled = _compiled(device)
    table = device.create_binding_table(compiled)
    buffer = device.create_buffer(32)
    with pytest.raises(dml.InvalidArgumentError, match="past the end of the 32-byte buffer"):
        table.bind_inputs([dml.BufferBinding(buffer, offset=64)])


def test_refused_bind_outputs_keeps_the_previous_bindings(device: dml.Device) -> None:
    compiled = _compiled(device)
    table = device.create_binding_table(compiled)
    buffer = device.create_buffer(256)
    table.bind_inputs([dml.BufferBinding(buffer, 0, 32)])
    good = [dml.BufferBinding(buffer, 64, 32)]
    table.bind_outputs(good)
    kept = list(table.outputs)
    with pytest.raises(dml.InvalidArgumentError, match="share memory"):
        table.bind_outputs([dml.BufferBinding(buffer, 16, 32)])  # overlaps the input partially
    assert table.outputs == kept


def test_objects_of_another_device_are_refused(device: dml.Device) -> None:
    other = dml.create_device()
    compiled_elsewhere = _compiled(other)
    with pytest.raises(dml.InvalidArgumentError, match="another device"):
        device.create_binding_table(compiled_elsewhere)
    table = device.create_binding_table(_compiled(device))
    with pytest.raises(dml.InvalidArgumentError, match="another device"):
        table.reset(compiled_elsewhere)
    with pytest.raises(dml.InvalidArgumentError, match="another device"):
        device.create_command_recorder().record_dispatch(
            device.queue, compiled_elsewhere, other.create_binding_table(compiled_elsewhere)
        )


def test_big_endian_arrays_are_rounded(device: dml.Device) -> None:
    x = np.array([0.5, 1.5, 2.5, -2.5, -0.0], dtype=">f4")
    got = dml.round(x, device=device)
    assert got.dtype.isnative
    assert got.tolist() == [0.0, 2.0, 2.0, -2.0, -0.0]
    assert np.signbit(got).tolist() == [False, False, False, True, True]
