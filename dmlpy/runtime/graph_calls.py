"""A compiled graph run on arrays in one call: ``compiled(x, s)``. The call binds each argument as the graph input
of its position, dispatches the initializer the first time, binds the temporary resource, dispatches the graph,
and returns its outputs as arrays (a tuple for several).

An argument is a NumPy array (ml_dtypes' int4 and uint4 for 4-bit inputs), a ``pyopencl.array.Array`` of the
device's context, or a dmlpy Buffer bound as it is. An array has the input's data type and its Sizes (leading
1s aside); a dimension of 1 broadcasts where the input's Strides are 0 there. With NumPy arguments only, the
outputs are new NumPy arrays and the call returns when they are read; with a pyopencl argument they are new
pyopencl arrays on the device's queue, returned without waiting (as the one-liners' device arrays are).

A masked NumPy array runs on its data (the data under the mask too), and every output of the call is then a
masked array, as the one-liners' results are: an output element is masked where an input element it reads is
masked, through element-wise nodes (a 0-stride broadcast and a blocked quantization tensor read by position); a
masked element that reaches an axis-reducing node (the softmax family: each output element reads a whole group,
where NumPy's masked reductions leave masked elements out) is refused, as is a masked array beside a pyopencl
one (the outputs would be pyopencl arrays, which hold no mask): dmlpy/runtime/graph_masks.py.

Device memory is made once per compiled graph and kept: a buffer per NumPy input and per output, and the
temporary resource; a call with the same shapes again allocates nothing on the device (pyopencl outputs are new
arrays each call: they are the caller's). On a CPU device a packed NumPy input is read where it lies (on Intel's
runtime only from a 128-byte boundary: ``_input_alignment``) and a packed output is computed into the array
returned, whose memory starts at a 128-byte boundary, so nothing is copied; what the compiled graph's descriptions
decide for every call is worked out once. Every argument is checked, and bound, before anything is written or
dispatched, so a call that fails writes no output; one call at a time runs per compiled graph (the kept buffers
are shared)."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import DATA_TYPES, is_nibble
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.graph.builder import tensor_bytes
from dmlpy.kernels import coalesce
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer, allocate, wrappable_memory
from dmlpy.runtime.cpu_runtime import PLATFORM as INTEL_PLATFORM
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import CompiledGraph, OperatorInitializer
from dmlpy.runtime.graph_masks import at_rank, masks_of_outputs, unmasked
from dmlpy.runtime.recorder import CommandRecorder
from dmlpy.tensor import BufferTensorDesc

if TYPE_CHECKING:
    from pyopencl import array as cl_array


def _is_device_array(value: object) -> bool:
    # pyopencl.array loads pyopencl's kernel machinery: test by type name before importing it.
    return type(value).__module__.startswith("pyopencl") and type(value).__name__ == "Array"


def _numpy_type(desc: BufferTensorDesc) -> np.dtype[Any]:
    numpy_type = DATA_TYPES[desc.data_type].numpy
    assert numpy_type is not None, "graphs hold DirectML's data types, each of which has a NumPy dtype"
    return np.dtype(numpy_type)


def _packed(desc: BufferTensorDesc) -> bool:
    return coalesce(desc.sizes, (desc.effective_strides,)).packed  # a size-1 dimension's stride moves nothing


def _fits(shape: tuple[int, ...], desc: BufferTensorDesc) -> bool:
    """Whether an array of ``shape`` holds the elements of ``desc``: its Sizes, leading 1s aside, with 1 where
    ``desc`` broadcasts (Strides 0: one value there, never several of which only one would be read)."""
    sizes, strides = desc.sizes, desc.effective_strides
    given = at_rank(shape, len(sizes))
    return given is not None and all(
        length == (size if stride else 1) for length, size, stride in zip(given, sizes, strides, strict=True)
    )


def _given(value: object) -> str:
    if isinstance(value, Buffer):
        return f"a dmlpy Buffer of {value.size} bytes" if not value.released else "a released dmlpy Buffer"
    if isinstance(value, np.ndarray | np.generic) or _is_device_array(value):
        kind = "pyopencl" if _is_device_array(value) else "NumPy"
        return f"a {kind} array of {value.dtype} and shape {tuple(value.shape)}"  # type: ignore[attr-defined]
    return f"{type(value).__name__} {value!r:.40}"


@dataclass(frozen=True)
class _Facts:
    """What every call reads of one compiled graph's descriptions, worked out at its first call: a repeated call
    spends nothing on them (packedness takes a coalescing per tensor)."""

    inputs: list[BufferTensorDesc]
    outputs: list[BufferTensorDesc]
    inputs_packed: list[bool]
    outputs_hosted: list[bool]
    """Per output, whether a CPU device computes it into the NumPy array returned (``_hosted``)."""
    output_types: list[np.dtype[Any]]
    input_alignment: int
    """Bytes at whose multiples a NumPy input must start to be bound where it lies (``_input_alignment``)."""

    @classmethod
    def of(cls, compiled: CompiledGraph) -> _Facts:
        inputs = [desc for desc in compiled.input_descs() if desc is not None]
        outputs = [desc for desc in compiled.output_descs() if desc is not None]
        device = compiled.device
        return cls(
            inputs,
            outputs,
            [_packed(desc) for desc in inputs],
            [_hosted(device, desc) for desc in outputs],
            [_numpy_type(desc) for desc in outputs],
            _input_alignment(device),
        )


class GraphCalls:
    """The device memory one compiled graph keeps for its calls on arrays, and the call itself."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._facts: _Facts | None = None
        self._table: BindingTable | None = None
        self._inputs: dict[int, Buffer] = {}
        self._outputs: list[Buffer | None] = []
        """Per output, the buffer kept for it; None where a CPU device computes it into the array returned."""
        self._temporary: BufferBinding | None = None

    def __call__(self, compiled: CompiledGraph, arguments: Sequence[Any]) -> Any:
        """``compiled``'s outputs for ``arguments`` (graph inputs in binding order): an array, or a tuple of
        arrays for several outputs."""
        arguments, masks = unmasked(arguments)
        facts = self._facts
        if facts is None:
            facts = self._facts = _Facts.of(compiled)  # the same whichever thread computes it first
        descs, output_descs = facts.inputs, facts.outputs
        _check(compiled, descs, arguments)
        on_device = any(_is_device_array(value) for value in arguments)
        if on_device:
            _refuse_4_bit_device_outputs(compiled, output_descs)
        output_masks = None if masks is None else masks_of_outputs(compiled, descs, masks, on_device=on_device)
        device = compiled.device
        results: list[Any]
        with self._lock:
            if self._table is None:
                self._table = self._prepare(compiled, facts)
            inputs = [
                self._binding(device, index, value, desc, packed, facts.input_alignment)
                for index, (value, desc, packed) in enumerate(zip(arguments, descs, facts.inputs_packed, strict=True))
            ]
            if on_device:
                results = [_new_device_array(device, desc) for desc in output_descs]
                outputs = [_wrapped(device, array) for array in results]
            else:
                # On a CPU device a packed output is computed into the new NumPy array the call returns.
                hosted = [
                    _host_array(device, desc, dtype) if is_hosted else None
                    for desc, dtype, is_hosted in zip(
                        output_descs, facts.output_types, facts.outputs_hosted, strict=True
                    )
                ]
                outputs = [
                    _made(host[1] if host is not None else kept)  # type: ignore[arg-type]  # kept: not None
                    for kept, host in zip(self._outputs, hosted, strict=True)
                ]
            # Bound (and so checked) before any NumPy argument is written into its kept buffer.
            self._table.bind_inputs(inputs)
            self._table.bind_outputs(outputs)
            self._table.bind_temporary_resource(self._temporary)
            for index, (value, desc) in enumerate(zip(arguments, descs, strict=True)):
                kept = self._inputs.get(index)
                if kept is not None and inputs[index].buffer is kept:  # not bound where it lies (_binding)
                    _write(kept, value, desc)
            # A pyopencl argument may still be computed on another queue of the context.
            pending = [event for value in arguments if _is_device_array(value) for event in value.events]
            event = CommandRecorder(device).record_dispatch(device.queue, compiled, self._table, wait_for=pending)
            if not on_device:
                if not (output_descs and all(facts.outputs_hosted)):
                    event.wait()  # a kept buffer's read waits only on the queue, which may run out of order
                results = []
                for kept, desc, dtype, host in zip(
                    self._outputs, output_descs, facts.output_types, hosted, strict=True
                ):
                    if host is None:
                        assert kept is not None, "an output not hosted has its kept buffer"
                        results.append(kept.read(dtype, desc.sizes))
                    else:
                        _coherent(device, host[1], event)
                        results.append(host[0])
        if on_device:
            for array in results:
                array.add_event(event)
        if output_masks is not None:
            results = [np.ma.MaskedArray(array, mask=mask) for array, mask in zip(results, output_masks, strict=True)]
        return results[0] if len(results) == 1 else tuple(results)

    def _prepare(self, compiled: CompiledGraph, facts: _Facts) -> BindingTable:
        """At the first call: the initializer dispatched (unless the caller did), the outputs' buffers and the
        temporary resource made, and the binding table they are bound through."""
        device = compiled.device
        if not compiled.initialized:
            initializer = OperatorInitializer(device, [compiled])
            CommandRecorder(device).record_dispatch(device.queue, initializer, BindingTable(device, initializer))
        self._outputs = [
            None if hosted else allocate(device, max(4, desc.total_tensor_size_in_bytes))
            for desc, hosted in zip(facts.outputs, facts.outputs_hosted, strict=True)
        ]
        size = compiled.get_binding_properties().temporary_resource_size
        self._temporary = _made(allocate(device, size)) if size else None
        return BindingTable(device, compiled)

    def _binding(
        self, device: DeviceBase, index: int, value: Any, desc: BufferTensorDesc, packed: bool, alignment: int
    ) -> BufferBinding:
        """Graph input ``index`` (``packed`` where its tensor is) bound to ``value``: a Buffer as it is, a pyopencl
        array where it lies, a NumPy array where it lies if it can be (from a multiple of ``alignment`` bytes,
        ``_bound_as_is``), else through the buffer kept for the input (made at its first NumPy argument)."""
        if isinstance(value, Buffer):
            return BufferBinding(value)
        if _is_device_array(value):
            return _wrapped(device, value)
        if packed and _bound_as_is(device, value, desc, alignment):
            return _made(_host_buffer(device, value, written=False))  # read where it lies: no copy
        buffer = self._inputs.get(index)
        if buffer is None:
            buffer = self._inputs[index] = allocate(device, max(4, desc.total_tensor_size_in_bytes))
        return _made(buffer)


def _made(buffer: Buffer) -> BufferBinding:
    """A binding of the whole of a buffer the call made itself (so live and of this device): pydantic's checks of
    a caller's binding, which cost more than the rest of the binding, have nothing to find in it. The binding
    table still checks its size against the tensor's."""
    return BufferBinding.model_construct(buffer=buffer, offset=0, size_in_bytes=None)


ALIGNED_FROM_BYTES = 1 << 16
"""From how many bytes a NumPy input must start at ``_input_alignment``'s multiple to be read where it lies."""


def _input_alignment(device: DeviceBase) -> int:
    """Bytes at whose multiples a NumPy input of ALIGNED_FROM_BYTES or more must start to be read where it lies:
    Intel's CPU runtime copies host memory that does not start at a multiple of HOST_ALIGNMENT at every call, at a
    third of a plain copy's speed, and the kept buffer is then faster (rep.run of a float32 Relu, least of 300 or
    30 calls, in place against through the kept buffer: 1K 108 against 131 us, 64K 320 against 215 us, 1M 3.8
    against 1.5 ms; 16M 136-188 against 73-78 ms, from an aligned array 42-60 ms); PoCL reads any in place (16M:
    12.6 ms, aligned 11.4 ms)."""
    return HOST_ALIGNMENT if device.cl_device.platform.name == INTEL_PLATFORM else DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT


def _bound_as_is(device: DeviceBase, value: Any, desc: BufferTensorDesc, alignment: int) -> bool:
    """Whether a NumPy argument of a packed tensor is bound as its own memory: on a CPU device, a tensor of whole
    bytes (4-bit ones are packed two a byte first) whose array lies as it reads, from a bindable start (from
    ``alignment``'s multiple at ALIGNED_FROM_BYTES or more), holding its TotalTensorSizeInBytes (a tensor's bytes
    are rounded up to 4)."""
    if not (device.is_cpu and isinstance(value, np.ndarray)) or is_nibble(desc.data_type):
        return False
    start = alignment if value.nbytes >= ALIGNED_FROM_BYTES else DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
    return (
        bool(value.flags.c_contiguous)
        and value.ctypes.data % start == 0
        and value.nbytes >= desc.total_tensor_size_in_bytes
    )


def _hosted(device: DeviceBase, desc: BufferTensorDesc) -> bool:
    """Whether an output is computed into the NumPy array a call returns: on a CPU device, packed, whole bytes."""
    return device.is_cpu and not is_nibble(desc.data_type) and _packed(desc)


HOST_ALIGNMENT = 128
"""Bytes at whose multiples a hosted output's memory starts: Intel's CPU runtime computes in host memory in place
only from its CL_DEVICE_MEM_BASE_ADDR_ALIGN (1024 bits), and copies it twice a call otherwise
(docs/performance.md, the two CPU runtimes)."""


def _host_array(device: DeviceBase, desc: BufferTensorDesc, dtype: np.dtype[Any]) -> tuple[npt.NDArray[Any], Buffer]:
    """The new NumPy array of ``dtype`` a hosted output (``_hosted``) is computed into, and the buffer over its
    memory (enough bytes for its TotalTensorSizeInBytes), which starts at a multiple of HOST_ALIGNMENT."""
    nbytes = (max(4, desc.total_tensor_size_in_bytes) // dtype.itemsize + 1) * dtype.itemsize
    block = np.empty(nbytes + HOST_ALIGNMENT, np.uint8)
    start = -block.ctypes.data % HOST_ALIGNMENT
    memory = block[start : start + nbytes].view(dtype)
    return memory[: math.prod(desc.sizes)].reshape(desc.sizes), _host_buffer(device, memory, written=True)


def _host_buffer(device: DeviceBase, memory: npt.NDArray[Any], *, written: bool) -> Buffer:
    """A buffer over ``memory`` itself (C-contiguous): a CPU device's kernels read it there, and write it where
    ``written`` (an output; an input may be a read-only array)."""
    flags = (cl.mem_flags.READ_WRITE if written else cl.mem_flags.READ_ONLY) | cl.mem_flags.USE_HOST_PTR
    return Buffer(device, cl.Buffer(device.context, flags, hostbuf=memory), memory.nbytes)


def _coherent(device: DeviceBase, buffer: Buffer, dispatched: cl.Event) -> None:
    """The kernels' writes to a host buffer made visible once ``dispatched`` is done: mapping is OpenCL's way to
    do so (on a CPU device it copies nothing), and a blocking map after the dispatch's event is the call's one
    wait."""
    mapped, _ = cl.enqueue_map_buffer(
        device.queue,
        buffer.memory,
        cl.map_flags.READ,
        0,
        (buffer.size,),
        np.dtype(np.uint8),
        wait_for=[dispatched],
        is_blocking=True,
    )
    mapped.base.release(device.queue)


def _write(buffer: Buffer, value: npt.NDArray[Any] | np.generic, desc: BufferTensorDesc) -> None:
    """A NumPy argument into its kept buffer, as ``desc`` reads it."""
    if _packed(desc):
        buffer.write(np.ascontiguousarray(value))  # the same elements in the same order, whatever the shape
    else:
        buffer.write(np.frombuffer(tensor_bytes(value, desc), np.uint8))


def _check(compiled: CompiledGraph, descs: list[BufferTensorDesc], arguments: Sequence[Any]) -> None:
    """InvalidArgumentError, explaining the binding order, unless each argument fits its graph input."""
    wrong = (
        None
        if len(arguments) == len(descs)
        else f"{len(arguments)} {'argument was' if len(arguments) == 1 else 'arguments were'} given"
    )
    for index, (value, desc) in enumerate(zip(arguments, descs, strict=False)):
        if wrong is not None:
            break
        wrong = _misfit(value, desc, compiled)
        if wrong is not None:
            wrong = f"argument {index} is {_given(value)}: {wrong}"
    if wrong is None:
        return
    order = "; ".join(
        f"{index}: {_described(desc)} (given: {_given(arguments[index]) if index < len(arguments) else 'nothing'})"
        for index, desc in enumerate(descs)
    )
    raise InvalidArgumentError(
        f"{compiled.describe()}: {wrong}. It takes its {len(descs)} graph inputs in binding order (the order "
        f"of g.input): {order}. Give a NumPy array (ml_dtypes' int4 or uint4 for 4-bit inputs), a pyopencl "
        "array or a dmlpy Buffer per input, of its data type and Sizes (leading 1s aside; 1 where its Strides "
        "are 0)"
    )


def _refuse_4_bit_device_outputs(compiled: CompiledGraph, output_descs: list[BufferTensorDesc]) -> None:
    for index, desc in enumerate(output_descs):
        if is_nibble(desc.data_type):
            raise UnsupportedError(
                f"{compiled.describe()}: graph output {index} is {desc.data_type.name}, which a pyopencl array "
                "cannot hold (two elements a byte); call it with NumPy arrays to get an ml_dtypes array"
            )


def _described(desc: BufferTensorDesc) -> str:
    strides = "" if desc.strides is None else f", Strides {list(desc.strides)}"
    return f"{desc.data_type.name} of Sizes {list(desc.sizes)}{strides}"


def _misfit(value: object, desc: BufferTensorDesc, compiled: CompiledGraph) -> str | None:
    """Why ``value`` cannot be bound as a graph input of ``desc``; None when it can."""
    wanted = f"the input is {_described(desc)}"
    if isinstance(value, Buffer):
        return "it was released" if value.released else None  # the binding table checks its size and device
    if _is_device_array(value):
        if is_nibble(desc.data_type):
            return (
                f"{wanted}; a pyopencl array holds one element a byte, and the input two: give a NumPy array of "
                "ml_dtypes' 4-bit type"
            )
        if value.context != compiled.device.context:  # type: ignore[attr-defined]
            return "it lives in another OpenCL context than the graph's device; make it on device.queue"
        if not _packed(desc) or not value.flags.c_contiguous:  # type: ignore[attr-defined]
            return (
                f"{wanted}; a pyopencl array is bound where it lies, so it must be C-contiguous and the input "
                "packed (no Strides): give a NumPy array instead"
            )
    elif not isinstance(value, np.ndarray | np.generic):
        return f"{wanted}; give an array"
    if value.dtype != _numpy_type(desc):  # type: ignore[attr-defined]
        return f"{wanted}, whose NumPy dtype is {_numpy_type(desc)}; convert it (x.astype(np.{_numpy_type(desc)}))"
    if not _fits(tuple(value.shape), desc):  # type: ignore[attr-defined]
        return f"{wanted}; give an array of that shape"
    return None


def _new_device_array(device: DeviceBase, desc: BufferTensorDesc) -> cl_array.Array:
    from pyopencl import array as cl_array  # only when used: it loads pyopencl's kernel machinery

    return cl_array.empty(device.queue, desc.sizes, _numpy_type(desc))


def _wrapped(device: DeviceBase, array: cl_array.Array) -> BufferBinding:
    memory = wrappable_memory(array.base_data, device.context)
    return BufferBinding(Buffer(device, memory, memory.size), offset=array.offset)
