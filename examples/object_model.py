"""The whole DirectML sequence on an OpenCL device: device, compile, initialize, bind, dispatch.

Round reads a padded input (rows of 3 in a pitch of 4) and a broadcast input (one row read twice) and
writes packed outputs. Run: python examples/object_model.py [DEVICE_NUMBER]
"""

from __future__ import annotations

import sys

import numpy as np

import dmlpy as dml


def run_round(device: dml.Device, source: dml.BufferTensorDesc, data: np.ndarray, mode: dml.RoundingMode) -> np.ndarray:
    """One Round dispatch through the object model; returns the packed output."""
    target = dml.BufferTensorDesc(data_type=source.data_type, sizes=source.sizes)
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=source, output_tensor=target, rounding_mode=mode)
    compiled = device.compile_operator(device.create_operator(desc))  # CreateOperator + CompileOperator

    recorder = device.create_command_recorder()  # CreateCommandRecorder
    initializer = device.create_operator_initializer([compiled])  # CreateOperatorInitializer
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer))

    input_buffer = device.upload(data)  # an UPLOAD heap copy in D3D12 terms
    output_buffer = device.create_buffer(target.total_tensor_size_in_bytes)
    table = device.create_binding_table(compiled)  # CreateBindingTable
    table.bind_inputs([dml.BufferBinding(input_buffer, 0, source.total_tensor_size_in_bytes)])
    table.bind_outputs([dml.BufferBinding(output_buffer, 0, target.total_tensor_size_in_bytes)])
    recorder.record_dispatch(device.queue, compiled, table).wait()  # RecordDispatch, execute, wait on a fence
    return output_buffer.read(np.dtype(data.dtype), source.sizes)


def main() -> None:
    if len(sys.argv) > 1:
        from dmlpy.runtime.platforms import device_by_index

        device = dml.create_device(cl_device=device_by_index(int(sys.argv[1])).cl_device)
    else:
        device = dml.create_device(minimum_feature_level="2_1")
    print(device)

    # Padded: two rows of 3 values, each row stored in a pitch of 4 (the 4th value is padding, never read).
    padded_data = np.array([0.5, 1.5, 2.5, 99.0, -0.5, -1.5, -2.5, 99.0], dtype=np.float32)
    padded = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1))
    result = run_round(device, padded, padded_data, dml.RoundingMode.HALVES_TO_NEAREST_EVEN)
    print("padded, halves to even:\n", result[0, 0])
    assert result[0, 0].tolist() == [[0, 2, 2], [-0.0, -2, -2]]

    # Broadcast: one row of 3 values read for both rows (stride 0), rounded with halves away from zero.
    row = np.array([0.5, 1.5, -2.5], dtype=np.float16)
    broadcast = dml.BufferTensorDesc(data_type="FLOAT16", sizes=(1, 1, 2, 3), strides=(0, 0, 0, 1))
    result = run_round(device, broadcast, row, dml.RoundingMode.TOWARD_INFINITY)
    print("broadcast FLOAT16, TOWARD_INFINITY:\n", result[0, 0])
    assert result[0, 0].tolist() == [[1, 2, -3], [1, 2, -3]]


if __name__ == "__main__":
    main()
