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
one (the outputs would be pyopencl arrays, which hold no mask).

Device memory is made once per compiled graph and kept: a buffer per NumPy input and per output, and the
temporary resource; a call with the same shapes again allocates nothing on the device (pyopencl outputs are new
arrays each call: they are the caller's). Every argument is checked, and bound, before anything is written or
dispatched, so a call that fails writes no output; one call at a time runs per compiled graph (the kept buffers
are shared)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import DATA_TYPES, is_nibble
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.graph.builder import tensor_bytes
from dmlpy.graph.desc import GraphAnalysis, GraphDesc, Source
from dmlpy.graph.rules import node_operator
from dmlpy.graph.views import same_view
from dmlpy.kernels import coalesce
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops.activation_softmax import AxisReducingDesc
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer, allocate, wrappable_memory
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import CompiledGraph, OperatorInitializer
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


def _at_rank(shape: tuple[int, ...], rank: int) -> tuple[int, ...] | None:
    """``shape`` with leading 1s dropped or added to make ``rank`` dimensions; None where it has more."""
    while len(shape) > rank and shape[0] == 1:
        shape = shape[1:]
    return None if len(shape) > rank else (1,) * (rank - len(shape)) + shape


def _fits(shape: tuple[int, ...], desc: BufferTensorDesc) -> bool:
    """Whether an array of ``shape`` holds the elements of ``desc``: its Sizes, leading 1s aside, with 1 where
    ``desc`` broadcasts (Strides 0: one value there, never several of which only one would be read)."""
    sizes, strides = desc.sizes, desc.effective_strides
    given = _at_rank(shape, len(sizes))
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


class GraphCalls:
    """The device memory one compiled graph keeps for its calls on arrays, and the call itself."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._table: BindingTable | None = None
        self._inputs: dict[int, Buffer] = {}
        self._outputs: list[Buffer | None] = []
        """Per output, the buffer kept for it; None where a CPU device computes it into the array returned."""
        self._temporary: Buffer | None = None

    def __call__(self, compiled: CompiledGraph, arguments: Sequence[Any]) -> Any:
        """``compiled``'s outputs for ``arguments`` (graph inputs in binding order): an array, or a tuple of
        arrays for several outputs."""
        arguments, masks = _unmasked(arguments)
        descs = [desc for desc in compiled.input_descs() if desc is not None]
        output_descs = [desc for desc in compiled.output_descs() if desc is not None]
        _check(compiled, descs, arguments)
        on_device = any(_is_device_array(value) for value in arguments)
        if on_device:
            _refuse_4_bit_device_outputs(compiled, output_descs)
        output_masks = None if masks is None else _output_masks(compiled, descs, masks, on_device=on_device)
        device = compiled.device
        results: list[Any]
        with self._lock:
            if self._table is None:
                self._table = self._prepare(compiled)
            inputs = [
                self._binding(device, index, value, desc)
                for index, (value, desc) in enumerate(zip(arguments, descs, strict=True))
            ]
            if on_device:
                results = [_new_device_array(device, desc) for desc in output_descs]
                outputs = [_wrapped(device, array) for array in results]
            else:
                # On a CPU device a packed output is computed into the new NumPy array the call returns.
                hosted = [_host_array(device, desc) for desc in output_descs]
                outputs = [
                    BufferBinding(host[1] if host is not None else kept)  # type: ignore[arg-type]  # kept: not None
                    for kept, host in zip(self._outputs, hosted, strict=True)
                ]
            # Bound (and so checked) before any NumPy argument is written into its kept buffer.
            self._table.bind_inputs(inputs)
            self._table.bind_outputs(outputs)
            self._table.bind_temporary_resource(None if self._temporary is None else BufferBinding(self._temporary))
            for index, (value, desc) in enumerate(zip(arguments, descs, strict=True)):
                kept = self._inputs.get(index)
                if kept is not None and inputs[index].buffer is kept:  # not bound where it lies (_binding)
                    _write(kept, value, desc)
            # A pyopencl argument may still be computed on another queue of the context.
            pending = [event for value in arguments if _is_device_array(value) for event in value.events]
            event = CommandRecorder(device).record_dispatch(device.queue, compiled, self._table, wait_for=pending)
            if not on_device:
                event.wait()
                results = []
                for kept, desc, host in zip(self._outputs, output_descs, hosted, strict=True):
                    if host is None:
                        assert kept is not None, "an output not hosted has its kept buffer"
                        results.append(kept.read(_numpy_type(desc), desc.sizes))
                    else:
                        _coherent(device, host[1])
                        results.append(host[0])
        if on_device:
            for array in results:
                array.add_event(event)
        if output_masks is not None:
            results = [np.ma.MaskedArray(array, mask=mask) for array, mask in zip(results, output_masks, strict=True)]
        return results[0] if len(results) == 1 else tuple(results)

    def _prepare(self, compiled: CompiledGraph) -> BindingTable:
        """At the first call: the initializer dispatched (unless the caller did), the outputs' buffers and the
        temporary resource made, and the binding table they are bound through."""
        device = compiled.device
        if not compiled.initialized:
            initializer = OperatorInitializer(device, [compiled])
            CommandRecorder(device).record_dispatch(device.queue, initializer, BindingTable(device, initializer))
        self._outputs = [
            None if _hosted(device, desc) else allocate(device, max(4, desc.total_tensor_size_in_bytes))
            for desc in compiled.output_descs()
            if desc is not None
        ]
        size = compiled.get_binding_properties().temporary_resource_size
        self._temporary = allocate(device, size) if size else None
        return BindingTable(device, compiled)

    def _binding(self, device: DeviceBase, index: int, value: Any, desc: BufferTensorDesc) -> BufferBinding:
        """Graph input ``index`` bound to ``value``: a Buffer as it is, a pyopencl array where it lies, a NumPy
        array through the buffer kept for the input (made at its first NumPy argument)."""
        if isinstance(value, Buffer):
            return BufferBinding(value)
        if _is_device_array(value):
            return _wrapped(device, value)
        if _bound_as_is(device, value, desc):
            return BufferBinding(_host_buffer(device, value, written=False))  # read where it lies: no copy
        buffer = self._inputs.get(index)
        if buffer is None:
            buffer = self._inputs[index] = allocate(device, max(4, desc.total_tensor_size_in_bytes))
        return BufferBinding(buffer)


def _bound_as_is(device: DeviceBase, value: Any, desc: BufferTensorDesc) -> bool:
    """Whether a NumPy argument is bound as its own memory: on a CPU device, a packed tensor of whole bytes
    (4-bit ones are packed two a byte first) whose array lies as it reads, from a bindable start, holding its
    TotalTensorSizeInBytes (a tensor's bytes are rounded up to 4)."""
    return (
        device.is_cpu
        and isinstance(value, np.ndarray)
        and not is_nibble(desc.data_type)
        and _packed(desc)
        and value.flags.c_contiguous
        and value.ctypes.data % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 0
        and value.nbytes >= desc.total_tensor_size_in_bytes
    )


def _hosted(device: DeviceBase, desc: BufferTensorDesc) -> bool:
    """Whether an output is computed into the NumPy array a call returns: on a CPU device, packed, whole bytes."""
    return device.is_cpu and not is_nibble(desc.data_type) and _packed(desc)


def _host_array(device: DeviceBase, desc: BufferTensorDesc) -> tuple[npt.NDArray[Any], Buffer] | None:
    """The new NumPy array a hosted output (``_hosted``) is computed into, and the buffer over its memory (enough
    bytes for its TotalTensorSizeInBytes); None where it is read from its kept buffer instead."""
    if not _hosted(device, desc):
        return None
    dtype = _numpy_type(desc)
    memory = np.empty(max(4, desc.total_tensor_size_in_bytes) // dtype.itemsize + 1, dtype)
    return memory[: int(np.prod(desc.sizes))].reshape(desc.sizes), _host_buffer(device, memory, written=True)


def _host_buffer(device: DeviceBase, memory: npt.NDArray[Any], *, written: bool) -> Buffer:
    """A buffer over ``memory`` itself (C-contiguous): a CPU device's kernels read it there, and write it where
    ``written`` (an output; an input may be a read-only array)."""
    flags = (cl.mem_flags.READ_WRITE if written else cl.mem_flags.READ_ONLY) | cl.mem_flags.USE_HOST_PTR
    return Buffer(device, cl.Buffer(device.context, flags, hostbuf=memory), memory.nbytes)


def _coherent(device: DeviceBase, buffer: Buffer) -> None:
    """The kernels' writes to a host buffer made visible: mapping is OpenCL's way to do so (on a CPU device it
    copies nothing)."""
    mapped, _ = cl.enqueue_map_buffer(
        device.queue, buffer.memory, cl.map_flags.READ, 0, (buffer.size,), np.dtype(np.uint8), is_blocking=True
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


# ---------------------------------------------------------------------------------------------- masked arrays

MaskArray = npt.NDArray[np.bool_]


def _unmasked(arguments: Sequence[Any]) -> tuple[list[Any], dict[int, MaskArray] | None]:
    """The arguments with each masked array's data in its place (a view), and by argument index each one's
    mask (all False where it has none); None where no argument is a masked array."""
    masked = {index: value for index, value in enumerate(arguments) if isinstance(value, np.ma.MaskedArray)}
    if not masked:
        return list(arguments), None
    data = [np.ma.getdata(masked[index]) if index in masked else value for index, value in enumerate(arguments)]
    return data, {index: np.ma.getmaskarray(value) for index, value in masked.items()}


def _output_masks(
    compiled: CompiledGraph, descs: list[BufferTensorDesc], masks: dict[int, MaskArray], *, on_device: bool
) -> list[MaskArray]:
    """Per graph output, a mask of its Sizes: an element is masked where an input element it reads is masked,
    carried node by node in the graph's order. InvalidArgumentError, before anything is written, where the
    outputs cannot hold a mask (pyopencl arrays) or where masked elements reach an axis-reducing node."""
    graph, analysis = compiled.graph, compiled.analysis
    if on_device:
        raise InvalidArgumentError(
            f"{compiled.describe()}: argument {min(masks)} is a masked array beside a pyopencl array, which makes "
            "the outputs pyopencl arrays, and they hold no mask: pass NumPy arrays only for masked outputs, or "
            "np.ma.getdata(x) to run on the data and drop the mask"
        )
    reached: dict[Source, tuple[MaskArray, frozenset[int]]] = {}
    for index, mask in masks.items():
        if mask.any():
            sizes = descs[index].sizes
            at_rank = _at_rank(mask.shape, len(sizes))
            assert at_rank is not None, "_check made sure the argument fits its input"
            reached[Source("input", index)] = (np.broadcast_to(mask.reshape(at_rank), sizes), frozenset({index}))
    for node in analysis.order:
        op = node_operator(graph, node)
        read = [
            reached[source]
            for slot in range(len(op.input_fields()))
            if (source := analysis.sources.get((node, slot))) in reached
        ]
        if not read:
            continue
        origins = frozenset().union(*(origin for _, origin in read))
        if isinstance(op, AxisReducingDesc):
            raise InvalidArgumentError(_reduced(compiled, node, op, min(origins)))
        if not isinstance(op, ElementwiseDesc):
            raise InvalidArgumentError(
                f"{compiled.describe()}: argument {min(origins)} is a masked array whose masked elements reach "
                f"{graph.node_label(node)}, which moves elements rather than computing on each in place; a mask is "
                "carried through element-wise nodes only: pass np.ma.getdata(x) to run on the data under the mask, "
                "or x.filled(value)"
            )
        reinterpreted = _reinterpreted_read(graph, analysis, node, reached)
        if reinterpreted is not None:
            raise InvalidArgumentError(
                f"{compiled.describe()}: argument {min(origins)} is a masked array whose masked elements reach "
                f"{graph.node_label(node)}, which reads {graph.node_label(reinterpreted)}'s output through other "
                "Sizes or Strides (a reshape, a transpose, a broadcast); a mask is carried through element-wise "
                "nodes that read each value as it was written: pass np.ma.getdata(x), or x.filled(value)"
            )
        output = op.output_tensors()[0]
        assert output is not None
        combined = np.zeros(output.desc.sizes, np.bool_)
        for mask, _ in read:
            combined |= _spread(mask, output.desc.sizes)
        for slot in range(len(op.output_fields())):
            reached[Source("node", node, slot)] = (combined, origins)
    carried = [reached.get(Source("node", node, slot)) for node, slot in analysis.outputs]
    return [
        np.zeros(desc.sizes, np.bool_) if mask is None else mask[0].copy()  # a node's outputs share one mask
        for mask, desc in zip(carried, analysis.output_descs, strict=True)
    ]


def _reinterpreted_read(graph: GraphDesc, analysis: GraphAnalysis, node: int, reached: dict[Source, Any]) -> int | None:
    """The producer whose masked output ``node`` reads through a view of its own, if any."""
    op = node_operator(graph, node)
    for slot, tensor in enumerate(op.input_tensors()):
        source = analysis.sources.get((node, slot))
        if tensor is None or source is None or source.kind != "node" or source not in reached:
            continue
        written = node_operator(graph, source.index).output_tensors()[source.output]
        if written is not None and not same_view(tensor.desc, written.desc):
            return source.index
    return None


def _spread(mask: MaskArray, sizes: tuple[int, ...]) -> MaskArray:
    """A mask of a node input's Sizes over the node's output Sizes: each entry of a blocked quantization tensor
    (a divisor of the output's size) over its block."""
    for axis, (given, size) in enumerate(zip(mask.shape, sizes, strict=True)):
        if given != size:
            mask = np.repeat(mask, size // given, axis=axis)
    return mask


def _reduced(compiled: CompiledGraph, node: int, op: AxisReducingDesc, argument: int) -> str:
    axes = ", ".join(str(axis) for axis in op.reduced_axes())
    return (
        f"{compiled.describe()}: argument {argument} is a masked array whose masked elements reach "
        f"{compiled.graph.node_label(node)}, which is not element-wise: each output element reads a whole group "
        f"along axes ({axes}), where NumPy's masked reductions leave masked elements out, which the graph cannot, "
        "so no mask of its outputs would be right; a mask is carried through element-wise nodes only: pass "
        "np.ma.getdata(x) to run on the data under the mask, or x.filled(value)"
    )
