"""A compiled graph run on arrays in one call: ``compiled(x, s)``. The call binds each argument as the graph input
of its position, dispatches the initializer the first time, binds the temporary resource, dispatches the graph,
and returns its outputs as arrays (a tuple for several).

An argument is a NumPy array (ml_dtypes' int4 and uint4 for 4-bit inputs), a ``pyopencl.array.Array`` of the
device's context, or a dmlpy Buffer bound as it is. An array has the input's data type and its Sizes (leading
1s aside); a dimension of 1 broadcasts where the input's Strides are 0 there (dmlpy/runtime/graph_arguments.py).
With NumPy arguments only, the outputs are NumPy arrays and the call returns when they are read; with a pyopencl
argument they are new pyopencl arrays on the device's queue, returned without waiting (as the one-liners' device
arrays are).

A masked NumPy array runs on its data (the data under the mask too), and every output of the call is then a
masked array, as the one-liners' results are: an output element is masked where an input element it reads is
masked, through element-wise nodes (a 0-stride broadcast and a blocked quantization tensor read by position); a
masked element that reaches an axis-reducing node (the softmax family: each output element reads a whole group,
where NumPy's masked reductions leave masked elements out) is refused, as is a masked array beside a pyopencl
one (the outputs would be pyopencl arrays, which hold no mask): dmlpy/runtime/graph_masks.py.

Device memory is made once per compiled graph and kept: a buffer per NumPy input and per output, and the
temporary resource; a call with the same shapes again allocates nothing on the device (pyopencl outputs are new
arrays each call: they are the caller's). On a CPU device a packed NumPy input is read where it lies (on Intel's
runtime only from a 128-byte boundary: ``input_alignment``), its host buffer kept while the same array comes
again, and a packed output is computed into the array returned, whose memory starts at a 128-byte boundary, so
nothing is copied (dmlpy/runtime/graph_host.py). The arrays returned are pooled: one is computed into again only
once nobody but the pool references it, so an array a caller holds never changes (dmlpy/runtime/graph_outputs.py).
What the compiled graph's descriptions decide for every call is worked out once, and a call that binds the very
buffers of the call before (the same arrays or dmlpy Buffers again, or new values in the kept buffers) launches the
bindings checked then. Every argument is checked, and bound, before anything is written or dispatched, so a
call that fails writes no output; one call at a time runs per compiled graph (the kept buffers are shared)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dmlpy.binding import BufferBinding
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer, allocate, wrappable_memory
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import CompiledGraph, OperatorInitializer
from dmlpy.runtime.fork import check_process
from dmlpy.runtime.graph_arguments import (
    check_arguments,
    is_device_array,
    numpy_type,
    packed,
    refuse_4_bit_device_outputs,
)
from dmlpy.runtime.graph_host import (
    HostInputs,
    bound_as_is,
    coherent,
    host_buffer,
    hosted,
    input_alignment,
    own_binding,
    write,
)
from dmlpy.runtime.graph_masks import masks_of_outputs, unmasked
from dmlpy.runtime.graph_outputs import OutputPool, Pooled
from dmlpy.runtime.recorder import CheckedDispatch, CommandRecorder
from dmlpy.tensor import BufferTensorDesc

if TYPE_CHECKING:
    from pyopencl import array as cl_array


@dataclass(frozen=True)
class _Facts:
    """What every call reads of one compiled graph's descriptions, worked out at its first call: a repeated call
    spends nothing on them (packedness takes a coalescing per tensor)."""

    inputs: list[BufferTensorDesc]
    outputs: list[BufferTensorDesc]
    inputs_packed: list[bool]
    outputs_hosted: list[bool]
    """Per output, whether a CPU device computes it into the NumPy array returned (``hosted``)."""
    output_types: list[np.dtype[Any]]
    input_alignment: int
    """Bytes at whose multiples a NumPy input must start to be bound where it lies (``input_alignment``)."""

    @classmethod
    def of(cls, compiled: CompiledGraph) -> _Facts:
        inputs = [desc for desc in compiled.input_descs() if desc is not None]
        outputs = [desc for desc in compiled.output_descs() if desc is not None]
        device = compiled.device
        return cls(
            inputs,
            outputs,
            [packed(desc) for desc in inputs],
            [hosted(device, desc) for desc in outputs],
            [numpy_type(desc) for desc in outputs],
            input_alignment(device),
        )


@dataclass(frozen=True)
class _Launched:
    """The buffers a call bound, each the call's own or a caller's dmlpy Buffer, and the dispatch checked over
    them: a call binding the very same buffers launches it again without checking the bindings again (nothing they
    are checked on can change: each buffer's size and device are fixed, a caller's is checked live at each call,
    the graph's tensors are fixed)."""

    buffers: tuple[object, ...]
    checked: CheckedDispatch

    def same(self, buffers: Sequence[object]) -> bool:
        return len(buffers) == len(self.buffers) and all(a is b for a, b in zip(buffers, self.buffers, strict=True))


class GraphCalls:
    """The device memory one compiled graph keeps for its calls on arrays, and the call itself."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._facts: _Facts | None = None
        self._table: BindingTable | None = None
        self._inputs: dict[int, Buffer] = {}
        self._host_inputs = HostInputs()
        self._outputs: list[Buffer | None] = []
        """Per output, the buffer kept for it; None where a CPU device computes it into the array returned."""
        self._pool = OutputPool()
        self._temporary: BufferBinding | None = None
        self._launched: _Launched | None = None

    def __call__(self, compiled: CompiledGraph, arguments: Sequence[Any]) -> Any:
        """``compiled``'s outputs for ``arguments`` (graph inputs in binding order): an array, or a tuple of
        arrays for several outputs."""
        arguments, masks = unmasked(arguments)
        facts = self._facts
        if facts is None:
            facts = self._facts = _Facts.of(compiled)  # the same whichever thread computes it first
        descs, output_descs = facts.inputs, facts.outputs
        check_arguments(compiled, descs, arguments)
        # Bound to buffers that stay what they are between calls: the call's own, or a caller's dmlpy Buffer
        # (checked live above; an ONNX model's initializers are such buffers); a pyopencl array's is new each call.
        lasting = all(isinstance(value, np.ndarray | np.generic | Buffer) for value in arguments)
        on_device = not lasting and any(is_device_array(value) for value in arguments)
        if on_device:
            refuse_4_bit_device_outputs(compiled, output_descs)
        output_masks = None if masks is None else masks_of_outputs(compiled, descs, masks, on_device=on_device)
        device = compiled.device
        results: list[Any]
        with self._lock:
            if self._table is None:
                self._table = self._prepare(compiled, facts)
            inputs = [
                self._binding(device, index, value, desc, packed, facts.input_alignment, on_device)
                for index, (value, desc, packed) in enumerate(zip(arguments, descs, facts.inputs_packed, strict=True))
            ]
            pooled: list[Pooled | None] = []
            if on_device:
                results = [_new_device_array(device, desc) for desc in output_descs]
                outputs = [_wrapped(device, array) for array in results]
            else:
                # On a CPU device a packed output is computed into a NumPy array nobody holds (graph_outputs.py).
                pooled = [
                    self._pool.take(device, index, desc, dtype) if is_hosted else None
                    for index, (desc, dtype, is_hosted) in enumerate(
                        zip(output_descs, facts.output_types, facts.outputs_hosted, strict=True)
                    )
                ]
                outputs = [
                    entry.binding if entry is not None else own_binding(kept)  # type: ignore[arg-type]  # kept: not None
                    for kept, entry in zip(self._outputs, pooled, strict=True)
                ]
            checked = self._checked(compiled, inputs, outputs, lasting=lasting)
            for index, buffer in self._inputs.items():
                if inputs[index].buffer is buffer:  # not bound where it lies (_binding)
                    write(buffer, arguments[index], descs[index])
            # A pyopencl argument may still be computed on another queue of the context.
            pending = (
                [event for value in arguments if is_device_array(value) for event in value.events] if on_device else []
            )
            event = compiled.launch(device.queue, *checked, pending)
            if not on_device:
                if not (output_descs and all(facts.outputs_hosted)):
                    event.wait()  # a kept buffer's read waits only on the queue, which may run out of order
                results = []
                for kept, desc, dtype, entry in zip(
                    self._outputs, output_descs, facts.output_types, pooled, strict=True
                ):
                    if entry is None:
                        assert kept is not None, "an output not hosted has its kept buffer"
                        results.append(kept.read(dtype, desc.sizes))
                    else:
                        coherent(device, entry.binding.buffer, event)  # type: ignore[arg-type]  # a Buffer
                        results.append(entry.array)
        if on_device:
            for array in results:
                array.add_event(event)
        if output_masks is not None:
            results = [np.ma.MaskedArray(array, mask=mask) for array, mask in zip(results, output_masks, strict=True)]
        return results[0] if len(results) == 1 else tuple(results)

    def _checked(
        self, compiled: CompiledGraph, inputs: list[BufferBinding], outputs: list[BufferBinding], *, lasting: bool
    ) -> CheckedDispatch:
        """The dispatch over these bindings, checked: bound through the binding table (each binding checked, the
        aliasing rules) and checked again as the recorder checks a dispatch, unless every binding is to a buffer
        that stays what it is (``lasting``: the call's own, a caller's live dmlpy Buffer) and they are the very
        ones the call before checked (``_Launched``)."""
        assert self._table is not None, "prepared before the first binding"
        buffers = [binding.buffer for binding in (*inputs, *outputs)]
        launched = self._launched
        if lasting and launched is not None and launched.same(buffers):
            check_process()
            return launched.checked
        self._table.bind_inputs(inputs)
        self._table.bind_outputs(outputs)
        self._table.bind_temporary_resource(self._temporary)
        checked = CommandRecorder(compiled.device).checked_dispatch(compiled.device.queue, compiled, self._table)
        assert checked is not None, "a compiled graph is no initializer"
        self._launched = _Launched(tuple(buffers), checked) if lasting else None
        return checked

    def _prepare(self, compiled: CompiledGraph, facts: _Facts) -> BindingTable:
        """At the first call: the initializer dispatched (unless the caller did), the outputs' buffers and the
        temporary resource made, and the binding table they are bound through."""
        device = compiled.device
        if not compiled.initialized:
            initializer = OperatorInitializer(device, [compiled])
            CommandRecorder(device).record_dispatch(device.queue, initializer, BindingTable(device, initializer))
        self._outputs = [
            None if is_hosted else allocate(device, max(4, desc.total_tensor_size_in_bytes))
            for desc, is_hosted in zip(facts.outputs, facts.outputs_hosted, strict=True)
        ]
        size = compiled.get_binding_properties().temporary_resource_size
        self._temporary = own_binding(allocate(device, size)) if size else None
        return BindingTable(device, compiled)

    def _binding(
        self,
        device: DeviceBase,
        index: int,
        value: Any,
        desc: BufferTensorDesc,
        packed: bool,
        alignment: int,
        on_device: bool,
    ) -> BufferBinding:
        """Graph input ``index`` (``packed`` where its tensor is) bound to ``value``: a Buffer as it is, a pyopencl
        array where it lies, a NumPy array where it lies if it can be (from a multiple of ``alignment`` bytes,
        ``bound_as_is``), else through the buffer kept for the input (made at its first NumPy argument). A call
        ``on_device`` returns before its kernels have read a NumPy input, so its host buffer holds the array
        alive; otherwise the call waits for them, and the host buffer kept for the array (``HostInputs``) holds
        only a weak reference and starts at ``alignment``'s multiple below the array, so that any array from a
        bindable start is read where it lies."""
        if isinstance(value, Buffer):
            return BufferBinding(value)
        if is_device_array(value):
            return _wrapped(device, value)
        address = value.ctypes.data if packed and isinstance(value, np.ndarray) else 0
        if packed and on_device and bound_as_is(device, value, desc, alignment, address):
            return own_binding(host_buffer(device, value, written=False))
        if packed and not on_device and bound_as_is(device, value, desc, DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, address):
            return self._host_inputs.binding(device, index, value, address, alignment)  # read where it lies: no copy
        buffer = self._inputs.get(index)
        if buffer is None:
            buffer = self._inputs[index] = allocate(device, max(4, desc.total_tensor_size_in_bytes))
        return own_binding(buffer)


def _new_device_array(device: DeviceBase, desc: BufferTensorDesc) -> cl_array.Array:
    from pyopencl import array as cl_array  # only when used: it loads pyopencl's kernel machinery

    return cl_array.empty(device.queue, desc.sizes, numpy_type(desc))


def _wrapped(device: DeviceBase, array: cl_array.Array) -> BufferBinding:
    memory = wrappable_memory(array.base_data, device.context)
    return BufferBinding(Buffer(device, memory, memory.size), offset=array.offset)
