"""DMLPY_EXT_ELEMENT_WISE_ROUND's layout refusals. (Its values in every layout class, through DirectML's object
model, with the whole output buffer checked byte for byte, are the extension Round row of
tests/device/test_operator_rows_layouts.py: every storage class of the kernel in every layout, the floats' second
mode in one layout each by default, in every layout with --run-slow.)"""

from __future__ import annotations

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.extensions import ExtElementWiseRoundOperatorDesc, ExtRoundingMode
from tests.helpers.operators import unary_descriptor


def test_partial_overlap_is_refused(ext_device):
    # DirectML's aliasing rule holds for the extension too: input and output may share memory only when their
    # ranges and layouts are identical.
    desc = unary_descriptor(ExtElementWiseRoundOperatorDesc, (4, 4), np.float32, rounding_mode=ExtRoundingMode.UP)
    compiled = ext_device.compile_operator(ext_device.create_operator(desc))
    initializer = ext_device.create_operator_initializer([compiled])
    ext_device.create_command_recorder().record_dispatch(
        ext_device.queue, initializer, ext_device.create_binding_table(initializer)
    ).wait()
    buffer = ext_device.create_buffer(256)
    table = ext_device.create_binding_table(compiled)
    size = desc.input_tensor.desc.total_tensor_size_in_bytes
    table.bind_inputs([dml.BufferBinding(buffer, 0, size)])
    with pytest.raises(dml.InvalidArgumentError, match="share memory"):
        table.bind_outputs([dml.BufferBinding(buffer, 16, size)])
        ext_device.create_command_recorder().record_dispatch(ext_device.queue, compiled, table)
