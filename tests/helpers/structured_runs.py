"""One dispatch of any operator through DirectML's object model, for operators that are not element-wise: any number
of inputs and outputs (JOIN's and SPLIT's arrays, slot by slot), each in a buffer of sentinel bytes at a byte offset
with its own strides; the plan's temporary resource bound when it asks for one. What the run wrote is read back in
each output's shape, and every byte outside the outputs' elements is checked unchanged (inputs and outputs alike;
an output buffer left unwritten, ``fill_output=False``, has nothing to compare with)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml

from .layouts import byte_mask, element_offsets, sentinel_bytes, strided_view
from .object_model import NUMPY_TYPE, compile_and_initialize

SLACK = 40
"""Bytes past each tensor's binding in its buffer: a write past a tensor changes them."""


def run_structured(
    device: Any,
    desc: Any,
    inputs: Mapping[str, npt.NDArray[Any]],
    *,
    offsets: Mapping[str, int] | None = None,
    slack: int = SLACK,
    fill_output: bool = True,
) -> dict[str, npt.NDArray[Any]]:
    """Run ``desc`` once with ``inputs`` (by slot: ``input_tensor``, ``inputs[1]``; each in its tensor's Sizes)
    and return every output by slot. ``offsets`` gives a slot's byte offset in its buffer (0 when absent).
    ``slack``: bytes past each binding in its buffer (0: the buffer ends where the binding does, so that Oclgrind
    reports any access past a tensor); without ``fill_output`` the output buffers are left unwritten, so that
    Oclgrind's uninitialised-values pass reports a read of an output or a store of a value never loaded."""
    offsets = offsets or {}
    compiled = compile_and_initialize(device, desc)
    images: dict[str, npt.NDArray[np.uint8]] = {}
    buffers: dict[str, Any] = {}
    bindings: dict[str, Any] = {}
    for salt, slot in enumerate((*desc.input_fields(), *desc.output_fields())):
        tensor = getattr(desc, slot)
        if tensor is None:
            bindings[slot] = None
            continue
        td, offset = tensor.desc, offsets.get(slot, 0)
        dtype, strides = NUMPY_TYPE[td.data_type], tuple(td.effective_strides)
        image = sentinel_bytes(offset + td.total_tensor_size_in_bytes + slack, salt * 101)
        if slot in desc.input_fields():
            view = strided_view(image, dtype, offset, td.sizes, strides)
            view[...] = np.asarray(inputs[slot]).astype(dtype, copy=False)
        images[slot], buffers[slot] = image, device.create_buffer(image.size)
        if fill_output or slot in desc.input_fields():
            buffers[slot].write(image)
        bindings[slot] = dml.BufferBinding(buffers[slot], offset, td.total_tensor_size_in_bytes)
    table = device.create_binding_table(compiled)
    table.bind_inputs([bindings[slot] for slot in desc.input_fields()])
    table.bind_outputs([bindings[slot] for slot in desc.output_fields()])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        temporary = device.create_buffer(size)
        table.bind_temporary_resource(dml.BufferBinding(temporary, 0, size))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    results: dict[str, npt.NDArray[Any]] = {}
    for slot, image in images.items():
        after = buffers[slot].read(np.uint8, image.size)
        td, offset = getattr(desc, slot).desc, offsets.get(slot, 0)
        dtype, strides = NUMPY_TYPE[td.data_type], tuple(td.effective_strides)
        written = np.zeros(image.size, dtype=bool)
        if slot in desc.output_fields():
            results[slot] = strided_view(after, dtype, offset, td.sizes, strides).copy()
            written = byte_mask(image.size, offset, dtype.itemsize, element_offsets(td.sizes, strides))
        if slot in desc.output_fields() and not fill_output:
            continue
        changed = np.flatnonzero((after != image) & ~written)
        assert changed.size == 0, f"{slot}: bytes {changed[:8].tolist()} outside its written elements changed"
    return results
