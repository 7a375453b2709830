"""An ONNX backend (``onnx.backend.base.Backend``) that runs ONNX graphs through dmlpy's graphs, the way
onnxruntime's DirectML execution provider turns ONNX graphs into DirectML graphs.

    import dmlpy.onnx
    rep = dmlpy.onnx.DmlBackend.prepare(model)          # or dmlpy.onnx.prepare("model.onnx")
    (y,) = rep.run([x])                                  # NumPy in, NumPy out

It lowers graphs of the four ONNX operators whose semantics DirectML expresses exactly: Round (ties to even,
DirectML's HALVES_TO_NEAREST_EVEN), QuantizeLinear and DequantizeLinear (per-tensor and per-axis, 8-bit
outputs; DirectML's ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR) and Identity (tensors).
Any other node, and any form DirectML cannot express (blocked quantization, float8, 4- and 2-bit types, 16-bit
quantized outputs, sequences), is refused at ``prepare`` with a message naming the node, its operator and
opset, and why; so is a model that contradicts itself (an output declared of a type its node does not compute,
an ``output_dtype`` its zero point contradicts), and every malformed model (a dml.DmlError, the original
exception as its ``__cause__``). Initializers are graph inputs uploaded once at ``prepare``; dmlpy keeps no host
copy of them. The graph is compiled (fused where it can be) on the first ``run`` for each set of input shapes,
then reused: a prepared model keeps the ``max_compiled_graphs`` (64) most recently used.

External data (initializers stored in files beside the model) is read only from the model's folder: the folder
of the .onnx file given to ``prepare``, or the one named by ``prepare(model, base_dir=...)``; a location that
is absolute, goes through ``..`` or through a symbolic link out of that folder, or names a missing file, is
refused, and so is a ModelProto with external data and no folder: the working directory is never read.

Devices: ``"CPU"`` (ONNX's default name) runs on dmlpy's default OpenCL device; ``prepare(model,
dml_device=device)`` picks a dmlpy Device. This module needs the ``onnx`` package (``pip install dmlpy[onnx]``).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper
    from onnx.backend.base import Backend, BackendRep
    from onnx.external_data_helper import ExternalDataInfo, uses_external_data
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("dmlpy.onnx needs the onnx package: pip install 'dmlpy[onnx]'") from error

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import RoundingMode, TensorDataType
from dmlpy.errors import DmlError, InvalidArgumentError, OutOfMemoryError, UnsupportedError, argument_error
from dmlpy.graph import Expression, Graph
from dmlpy.graph import dequantize_linear as graph_dequantize_linear
from dmlpy.graph import identity as graph_identity
from dmlpy.graph import quantize_linear as graph_quantize_linear
from dmlpy.graph import round as graph_round
from dmlpy.runtime import Buffer, Device, default_device
from dmlpy.tensor import BufferTensorDesc, whole_dwords

T = TensorDataType
_ELEMENT_TYPES: dict[int, TensorDataType] = {
    onnx.TensorProto.FLOAT: T.FLOAT32,
    onnx.TensorProto.FLOAT16: T.FLOAT16,
    onnx.TensorProto.DOUBLE: T.FLOAT64,
    onnx.TensorProto.INT8: T.INT8,
    onnx.TensorProto.UINT8: T.UINT8,
    onnx.TensorProto.INT16: T.INT16,
    onnx.TensorProto.UINT16: T.UINT16,
    onnx.TensorProto.INT32: T.INT32,
    onnx.TensorProto.UINT32: T.UINT32,
    onnx.TensorProto.INT64: T.INT64,
    onnx.TensorProto.UINT64: T.UINT64,
}
"""ONNX element types DirectML has a tensor data type for."""
_ONNX_TYPES = {data_type: elem_type for elem_type, data_type in _ELEMENT_TYPES.items()}
SUPPORTED_OPS = ("Round", "QuantizeLinear", "DequantizeLinear", "Identity")
MAX_DIMENSIONS = 8
MAX_COMPILED_GRAPHS = 64
"""How many compiled graphs (one per set of input shapes) a prepared model keeps by default (each takes tens of
KB); the least recently used is dropped when a new set of shapes compiles."""
_INPUT_COUNTS = {"Round": (1, 1), "Identity": (1, 1), "QuantizeLinear": (2, 3), "DequantizeLinear": (2, 3)}
_ATTRIBUTES = {
    "Round": set(),
    "Identity": set(),
    "QuantizeLinear": {"axis", "saturate", "output_dtype", "block_size"},
    "DequantizeLinear": {"axis", "output_dtype", "block_size"},
}
"""The attributes each operator takes (all INT), and so the ones dmlpy reads."""
_VALUE_FIELDS = ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
_EXTERNAL_PIECE = 4 << 20
"""External data goes to the device in pieces of this many bytes, never whole on the host."""


def _type_name(elem_type: int) -> str:
    try:
        return str(onnx.TensorProto.DataType.Name(elem_type))
    except ValueError:  # a number TensorProto.DataType does not list
        return f"data type {elem_type}"


def _onnx_name(data_type: TensorDataType) -> str:
    return _type_name(_ONNX_TYPES[data_type])


class NodeRefused(UnsupportedError):
    """An ONNX node dmlpy cannot run, with the reason (an UnsupportedError, so a dml.DmlError)."""


def _desc(data_type: TensorDataType, shape: Sequence[int]) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=tuple(shape) or (1,))


def _opset(model: onnx.ModelProto, domain: str = "") -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx") and domain == "":
            return int(entry.version)
    return int(onnx.defs.onnx_opset_version())


def _node_name(node: onnx.NodeProto, opset: int) -> str:
    return f"ONNX node{' ' + repr(node.name) if node.name else ''} ({node.op_type}, opset {opset})"


def _declared_shape(value: onnx.ValueInfoProto) -> list[int | str | None] | None:
    """A graph input's declared shape: a number, a symbol or None (unknown) per dimension; None without one."""
    tensor_type = value.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [
        int(dim.dim_value) if dim.HasField("dim_value") else (dim.dim_param or None) for dim in tensor_type.shape.dim
    ]


class DmlBackendRep(BackendRep):
    """A prepared ONNX model: ``run(inputs)`` binds, dispatches and returns the outputs as NumPy arrays.

    ``max_compiled_graphs`` bounds the graphs compiled for sets of input shapes (MAX_COMPILED_GRAPHS unless
    set); the least recently used goes first."""

    max_compiled_graphs: int = MAX_COMPILED_GRAPHS

    def __init__(self, model: onnx.ModelProto, device: Device, base_dir: str | None = None) -> None:
        self.model = model
        self.device = device
        self.opset = _opset(model)
        graph = model.graph
        if len(graph.sparse_initializer):
            raise NodeRefused(
                f"ONNX sparse initializer {graph.sparse_initializer[0].values.name!r}: DirectML has no sparse "
                "tensors; store it as a dense initializer"
            )
        self.initializer_types = _initializer_types(graph)
        """Each initializer's dims and data type (dmlpy keeps no host copy of its data)."""
        self.input_names = [value.name for value in graph.input if value.name not in self.initializer_types]
        self.output_names = [value.name for value in graph.output]
        self.input_types: dict[str, int] = {v.name: v.type.tensor_type.elem_type for v in graph.input}
        self.input_shapes = {value.name: _declared_shape(value) for value in graph.input}
        """Each graph input's declared shape (None: none declared); ``run`` refuses arrays of another."""
        self.output_types: dict[str, int] = {v.name: v.type.tensor_type.elem_type for v in graph.output}
        for value in graph.input:
            if not value.type.HasField("tensor_type"):
                raise NodeRefused(
                    f"ONNX graph input {value.name!r} is a {value.type.WhichOneof('value')}; dmlpy runs tensors only "
                    "(DirectML has no sequences or optionals)"
                )
            _element_type(value.type.tensor_type.elem_type, f"ONNX graph input {value.name!r}")
        for node in graph.node:
            _node_attributes(node, _node_name(node, self.opset))
        # Every rule but the shape-dependent ones, now: a graph of one-element values at the device's level.
        _lower(self, Graph(device.feature_level), None)
        self._uploaded = _upload_initializers(device, graph, self.initializer_types, base_dir)
        self._compiled: OrderedDict[tuple[tuple[int, ...], ...], _Compiled] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def compiled_graphs(self) -> list[Any]:
        """The dmlpy graphs compiled and kept, one per set of input shapes (``.kernel_count``, ``.source``),
        least recently used first."""
        with self._lock:
            return [entry.compiled for entry in self._compiled.values()]

    # ------------------------------------------------------------------------------------------------- run
    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray[Any, Any], ...]:
        """The model's outputs for ``inputs`` (a list in graph input order, or a dict by name)."""
        arrays = self._inputs(inputs)
        key = tuple(array.shape for array in arrays.values())
        with self._lock:
            compiled = self._compiled.get(key)
            if compiled is None:
                compiled = self._compiled[key] = _Compiled.build(self, {n: a.shape for n, a in arrays.items()})
                while len(self._compiled) > max(1, self.max_compiled_graphs):
                    self._compiled.popitem(last=False)
            else:
                self._compiled.move_to_end(key)
        return compiled.run(arrays)

    def _inputs(self, inputs: Any) -> dict[str, np.ndarray[Any, Any]]:
        if isinstance(inputs, Mapping):
            given = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray) or not isinstance(inputs, Sequence):
                inputs = [inputs]
            if len(inputs) != len(self.input_names):
                raise InvalidArgumentError(
                    f"the model takes {len(self.input_names)} inputs ({', '.join(self.input_names)}); "
                    f"{len(inputs)} were given"
                )
            given = dict(zip(self.input_names, inputs, strict=True))
        arrays: dict[str, np.ndarray[Any, Any]] = {}
        for name in self.input_names:
            if name not in given:
                raise InvalidArgumentError(f"the model's input {name!r} was not given")
            expected = f"an array of {_type_name(self.input_types[name])}"
            try:
                array = np.asarray(given[name])
            except (TypeError, ValueError) as error:
                raise argument_error("run", f"the model's input {name!r}", given[name], expected) from error
            wanted = _ELEMENT_TYPES.get(self.input_types[name])
            numpy_type = DATA_TYPES[wanted].numpy if wanted is not None else None
            if numpy_type is None or array.dtype != numpy_type:
                raise InvalidArgumentError(
                    f"the model's input {name!r} is {_type_name(self.input_types[name])}; an array of dtype "
                    f"{array.dtype} was given"
                )
            _check_shape(name, array.shape, self.input_shapes[name])
            arrays[name] = array
        return arrays


def _check_shape(name: str, shape: tuple[int, ...], declared: list[int | str | None] | None) -> None:
    """InvalidArgumentError unless ``shape`` is one the graph input ``name`` declares (symbols match any size)."""
    if declared is None:
        return
    shown = "[" + ", ".join("?" if d is None else str(d) for d in declared) + "]"
    if len(shape) != len(declared):
        why = f"{len(shape)} dimensions, not {len(declared)}"
    else:
        wrong = [
            k
            for k, (size, want) in enumerate(zip(shape, declared, strict=True))
            if isinstance(want, int) and size != want
        ]
        if not wrong:
            return
        why = f"dimension {wrong[0]} is {shape[wrong[0]]}, not {declared[wrong[0]]}"
    raise InvalidArgumentError(
        f"the model's input {name!r} has shape {shape}; the model declares {shown} ({why}): give an array of the "
        "declared shape"
    )


@dataclass
class _Lowered:
    """The model as nodes of a dmlpy Graph: the graph outputs' expressions, the ONNX value each graph input
    binds (in graph input order; one value may be bound twice, read two ways: a scale shared by nodes of
    different shapes) and each graph output's name, data type and shape."""

    expressions: list[Expression]
    bound_names: list[str]
    outputs: list[tuple[str, TensorDataType, tuple[int, ...]]]


def _lower(rep: DmlBackendRep, graph: Graph, shapes: Mapping[str, tuple[int, ...]] | None) -> _Lowered:
    """``rep``'s model as nodes of ``graph`` for the graph inputs' ``shapes``. With ``shapes`` None, every value
    is one element and every scale and zero point one value: what ``prepare`` checks, every rule that does not
    depend on the shapes (data types, output_dtype, declared output types, what DirectML's validation asks)."""
    computed: dict[str, tuple[Expression, tuple[int, ...], TensorDataType]] = {}
    """ONNX values computed by lowered nodes."""
    leaves: dict[tuple[str, BufferTensorDesc], Expression] = {}
    bound: list[str] = []
    pending: dict[str, tuple[tuple[int, ...], TensorDataType]] = {}
    for name in rep.input_names:
        shape = shapes[name] if shapes is not None else ()
        pending[name] = (shape, _element_type(rep.input_types[name], f"ONNX graph input {name!r}"))
    for name, (dims, data_type) in rep.initializer_types.items():
        pending[name] = (dims if shapes is not None else (), data_type)

    def leaf(name: str, desc: BufferTensorDesc) -> Expression:
        """The graph input binding ``name`` read as ``desc``: one per way it is read."""
        key = (name, desc)
        if key not in leaves:
            leaves[key] = graph.input(desc)
            bound.append(name)
        return leaves[key]

    def data(name: str, where: str) -> tuple[Expression, tuple[int, ...], TensorDataType]:
        if name in computed:
            return computed[name]
        if name not in pending:
            raise NodeRefused(f"{where}: {name!r} is computed by no node and is no graph input or initializer")
        shape, data_type = pending[name]
        if len(shape) > MAX_DIMENSIONS:
            raise NodeRefused(f"{where}: {name!r} has {len(shape)} dimensions; DirectML tensors have 1 to 8")
        return leaf(name, _desc(data_type, shape)), shape, data_type

    def parameter(name: str, like: tuple[int, ...], axis: int, where: str, what: str) -> Expression:
        """A scale or zero point: one value (per tensor; ``axis`` is then ignored, as ONNX says) or one per
        index of ``axis`` (per axis), described with the input's Sizes and 0-strides elsewhere."""
        if name in computed:
            raise NodeRefused(f"{where}: {what} {name!r} is computed by a node; dmlpy takes it from an input")
        if name not in pending:
            raise NodeRefused(f"{where}: {what} {name!r} is no graph input or initializer")
        shape, data_type = pending[name]
        sizes = like or (1,)
        if (int(np.prod(shape)) if shape else 1) == 1:
            return leaf(name, BufferTensorDesc(data_type=data_type, sizes=sizes, strides=(0,) * len(sizes)))
        along = axis + len(like) if axis < 0 else axis
        if not 0 <= along < len(like):
            raise NodeRefused(f"{where}: axis {axis} is out of range for an input of rank {len(like)}")
        if len(shape) != 1 or shape[0] != like[along]:
            raise NodeRefused(
                f"{where}: {what} {name!r} has shape {list(shape)}; DirectML takes one value per tensor, or one "
                f"per index of the axis (axis {axis}: {like[along]} values); blocked and other shapes cannot be "
                "expressed"
            )
        strides = tuple(1 if d == along else 0 for d in range(len(sizes)))
        return leaf(name, BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides))

    for node in _needed_nodes(rep.model.graph):
        where = _node_name(node, rep.opset)
        attributes = _node_attributes(node, where)
        x, shape, data_type = data(node.input[0], where)
        if node.op_type == "Round":
            result = _expressed(where, graph_round, x, RoundingMode.HALVES_TO_NEAREST_EVEN)
        elif node.op_type == "Identity":
            result = _expressed(where, graph_identity, x)
        else:
            axis = attributes.get("axis", 1)
            scale = parameter(node.input[1], shape, axis, where, "scale")
            zero_name = node.input[2] if len(node.input) > 2 and node.input[2] else None
            zero = parameter(zero_name, shape, axis, where, "zero point") if zero_name else None
            if node.op_type == "QuantizeLinear":
                result = _quantize(x, scale, (zero_name, zero), attributes, where)
            else:
                result = _dequantize(x, scale, zero, attributes, where)
        computed[node.output[0]] = (result, shape, result.data_type)

    outputs: list[tuple[str, TensorDataType, tuple[int, ...]]] = []
    expressions: list[Expression] = []
    for name in rep.output_names:
        expression, shape, data_type = data(name, f"ONNX graph output {name!r}")
        declared = rep.output_types[name]
        if declared and _ELEMENT_TYPES.get(declared) != data_type:
            raise InvalidArgumentError(
                f"ONNX graph output {name!r} is declared {_type_name(declared)}; the model computes "
                f"{_onnx_name(data_type)} there: correct the output's declared type"
            )
        if expression.node is None or expression in expressions:
            # A graph input passed straight out, or one value listed twice: DirectML writes each node output
            # to one graph output, so the copy is an ELEMENT_WISE_IDENTITY node.
            expression = _expressed(f"ONNX graph output {name!r}", graph_identity, expression)
        expressions.append(expression)
        outputs.append((name, data_type, shape))
    return _Lowered(expressions, bound, outputs)


@dataclass
class _Compiled:
    """The model compiled for one set of input shapes."""

    rep: DmlBackendRep
    compiled: Any
    bound_names: list[str]
    outputs: list[tuple[str, TensorDataType, tuple[int, ...]]]

    @classmethod
    def build(cls, rep: DmlBackendRep, shapes: Mapping[str, tuple[int, ...]]) -> _Compiled:
        graph = Graph(rep.device)
        lowered = _lower(rep, graph, shapes)
        compiled = graph.compile(lowered.expressions)
        device = rep.device
        initializer = device.create_operator_initializer([compiled])
        recorder = device.create_command_recorder()
        recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer))
        return cls(rep, compiled, lowered.bound_names, lowered.outputs)

    def run(self, arrays: Mapping[str, np.ndarray[Any, Any]]) -> tuple[np.ndarray[Any, Any], ...]:
        device = self.rep.device
        table = device.create_binding_table(self.compiled)
        buffers = []
        uploaded = dict(self.rep._uploaded)
        for name in self.bound_names:
            if name not in uploaded:
                uploaded[name] = device.upload(np.ascontiguousarray(arrays[name]))
                buffers.append(uploaded[name])
        bindings = [BufferBinding(uploaded[name]) for name in self.bound_names]
        table.bind_inputs(bindings)
        outputs = [
            device.create_buffer(max(4, desc.total_tensor_size_in_bytes)) for desc in self.compiled.output_descs()
        ]
        buffers += outputs
        table.bind_outputs([BufferBinding(buffer) for buffer in outputs])
        size = self.compiled.get_binding_properties().temporary_resource_size
        if size:
            temporary = device.create_buffer(size)
            buffers.append(temporary)
            table.bind_temporary_resource(BufferBinding(temporary))
        device.create_command_recorder().record_dispatch(device.queue, self.compiled, table).wait()
        results = []
        for (_, data_type, shape), buffer in zip(self.outputs, outputs, strict=True):
            numpy_type = DATA_TYPES[data_type].numpy
            assert numpy_type is not None
            results.append(buffer.read(numpy_type, int(np.prod(shape)) if shape else 1).reshape(shape))
        for buffer in buffers:
            buffer.release()
        return tuple(results)


def _needed_nodes(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """The nodes the graph outputs depend on, in the model's order: a node nothing reads is left out, as
    onnxruntime prunes it (a DirectML graph refuses a node used by nothing)."""
    producer = {output: node for node in graph.node for output in node.output}
    needed: set[int] = set()
    stack = [value.name for value in graph.output]
    while stack:
        node = producer.get(stack.pop())
        if node is not None and id(node) not in needed:
            needed.add(id(node))
            stack.extend(name for name in node.input if name)
    return [node for node in graph.node if id(node) in needed]


def _node_attributes(node: onnx.NodeProto, where: str) -> dict[str, int]:
    """The node's attributes, after checking the node is one dmlpy runs, with the inputs, outputs and INT
    attributes its operator takes."""
    if node.domain not in ("", "ai.onnx"):
        raise NodeRefused(f"{where}: domain {node.domain!r} is not ONNX's; dmlpy runs {', '.join(SUPPORTED_OPS)}")
    if node.op_type not in SUPPORTED_OPS:
        raise NodeRefused(
            f"{where}: dmlpy runs only {', '.join(SUPPORTED_OPS)}, the ONNX operators whose semantics DirectML's "
            "ELEMENT_WISE_ROUND, ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR and "
            "ELEMENT_WISE_IDENTITY express exactly"
        )
    fewest, most = _INPUT_COUNTS[node.op_type]
    if not fewest <= len(node.input) <= most or not node.input[0] or (most > 1 and not node.input[1]):
        takes = f"{fewest}" if fewest == most else f"{fewest} or {most} (the zero point is optional)"
        raise InvalidArgumentError(f"{where}: inputs {list(node.input)}; {node.op_type} takes {takes}")
    if len(node.output) != 1 or not node.output[0]:
        raise InvalidArgumentError(f"{where}: outputs {list(node.output)}; {node.op_type} has one output")
    attributes: dict[str, int] = {}
    for attribute in node.attribute:
        if attribute.name not in _ATTRIBUTES[node.op_type]:
            raise NodeRefused(
                f"{where}: attribute {attribute.name!r} is not one dmlpy knows how to express in DirectML"
            )
        if attribute.type != onnx.AttributeProto.INT:
            try:
                kind = onnx.AttributeProto.AttributeType.Name(attribute.type)
            except ValueError:
                kind = f"attribute type {attribute.type}"
            raise InvalidArgumentError(f"{where}: attribute {attribute.name!r} is {kind}; {node.op_type} takes an INT")
        attributes[attribute.name] = int(attribute.i)
    if attributes.get("block_size", 0) != 0:
        raise NodeRefused(
            f"{where}: block_size {attributes['block_size']} is blocked quantization, which DirectML's "
            "ELEMENT_WISE_QUANTIZE_LINEAR cannot express (one scale per tensor or per axis only)"
        )
    return attributes


def _expressed(where: str, build: Callable[..., Expression], *args: Any, **kwargs: Any) -> Expression:
    """``build(*args, **kwargs)``, a dml.graph node; what DirectML's validation refuses becomes a NodeRefused
    naming the ONNX node."""
    try:
        return build(*args, **kwargs)
    except DmlError as error:
        raise NodeRefused(f"{where}: DirectML cannot express it: {error}") from error


def _element_type(elem_type: int, where: str) -> TensorDataType:
    data_type = _ELEMENT_TYPES.get(elem_type)
    if data_type is None:
        raise NodeRefused(f"{where} is {_type_name(elem_type)}, which DirectML has no tensor data type for")
    return data_type


def _quantize(
    x: Expression,
    scale: Expression,
    zero_point: tuple[str | None, Expression | None],
    attributes: Mapping[str, int],
    where: str,
) -> Expression:
    zero_name, zero = zero_point
    output_dtype = attributes.get("output_dtype", 0)
    if output_dtype:
        output_type = _element_type(output_dtype, f"{where}: output_dtype")
        if zero is not None and zero.data_type != output_type:
            raise InvalidArgumentError(
                f"{where}: output_dtype {_type_name(output_dtype)}, but the zero point {zero_name!r} is "
                f"{_onnx_name(zero.data_type)}; QuantizeLinear outputs its zero point's type, and ONNX asks "
                "output_dtype to agree with it"
            )
    elif zero is not None:
        output_type = zero.data_type
    else:
        output_type = T.UINT8
    if output_type not in (T.UINT8, T.INT8):
        raise NodeRefused(
            f"{where}: the output is {output_type.name}; DirectML's ELEMENT_WISE_QUANTIZE_LINEAR outputs UINT8 or INT8"
        )
    return _expressed(where, graph_quantize_linear, x, scale, zero, dtype=output_type)


def _dequantize(
    x: Expression, scale: Expression, zero: Expression | None, attributes: Mapping[str, int], where: str
) -> Expression:
    output_dtype = attributes.get("output_dtype", 0)
    if output_dtype and _element_type(output_dtype, f"{where}: output_dtype") != scale.data_type:
        raise NodeRefused(
            f"{where}: output_dtype {_type_name(output_dtype)} differs from the scale's type {scale.data_type.name}; "
            "DirectML's ELEMENT_WISE_DEQUANTIZE_LINEAR outputs the scale's type"
        )
    return _expressed(where, graph_dequantize_linear, x, scale, zero)


# -------------------------------------------------------------------------------------------- initializers
def _initializer_types(graph: onnx.GraphProto) -> dict[str, tuple[tuple[int, ...], TensorDataType]]:
    """Each initializer's dims and data type, read from the TensorProto (its data is not touched)."""
    types: dict[str, tuple[tuple[int, ...], TensorDataType]] = {}
    for tensor in graph.initializer:
        where = f"ONNX initializer {tensor.name!r}"
        if tensor.name in types:
            raise InvalidArgumentError(f"{where} is given twice; each initializer has one name")
        if any(dim < 0 for dim in tensor.dims):
            raise InvalidArgumentError(f"{where} has dims {list(tensor.dims)}; a dimension is at least 0")
        types[tensor.name] = (tuple(int(dim) for dim in tensor.dims), _element_type(tensor.data_type, where))
    return types


def _upload_initializers(
    device: Device,
    graph: onnx.GraphProto,
    types: Mapping[str, tuple[tuple[int, ...], TensorDataType]],
    base_dir: str | None,
) -> dict[str, Buffer]:
    """Every initializer on the device, one at a time (its host copy dropped before the next); the ones already
    uploaded are released when one cannot be."""
    uploaded: dict[str, Buffer] = {}
    try:
        for tensor in graph.initializer:
            dims, data_type = types[tensor.name]
            where = f"ONNX initializer {tensor.name!r}"
            if uses_external_data(tensor):
                uploaded[tensor.name] = _upload_external(device, tensor, dims, data_type, base_dir, where)
            else:
                uploaded[tensor.name] = device.upload(_inline_array(tensor, dims, data_type, where))
    except BaseException:
        for buffer in uploaded.values():
            buffer.release()
        raise
    return uploaded


def _inline_array(
    tensor: onnx.TensorProto, dims: tuple[int, ...], data_type: TensorDataType, where: str
) -> np.ndarray[Any, Any]:
    """An initializer's data held in the model, as an array (a view of raw_data's bytes, not a second copy)."""
    fields = [
        name for name in _VALUE_FIELDS if (tensor.HasField(name) if name == "raw_data" else getattr(tensor, name))
    ]
    numpy_type = DATA_TYPES[data_type].numpy
    assert numpy_type is not None
    if not fields and 0 in dims:
        return np.zeros(dims, numpy_type)
    if len(fields) != 1:
        raise InvalidArgumentError(
            f"{where} holds its data in {len(fields)} fields ({', '.join(fields) or 'none'}); a tensor holds it in one"
        )
    try:
        array = numpy_helper.to_array(tensor)
    except (TypeError, ValueError, KeyError) as error:
        raise InvalidArgumentError(
            f"{where}: its {fields[0]} does not hold the {int(np.prod(dims, dtype=object))} {_onnx_name(data_type)} "
            f"values its dims {list(dims)} describe ({error})"
        ) from error
    return np.asarray(array, dtype=numpy_type)


def _external_file(tensor: onnx.TensorProto, base_dir: str | None, where: str) -> tuple[str, str, int, int | None]:
    """The file holding an initializer's external data, found inside ``base_dir`` only: its location as the model
    gives it, its resolved path, the offset and the length (None: to the end of the file)."""
    try:
        info = ExternalDataInfo(tensor)
    except ValueError as error:
        raise InvalidArgumentError(
            f"{where}: its external data's offset or length is not a byte count: {error}"
        ) from error
    location = str(info.location)
    if not location:
        raise InvalidArgumentError(f"{where} is stored externally, but its external_data names no location")
    if base_dir is None:
        raise InvalidArgumentError(
            f"{where} keeps its data in the file {location!r}, and the model came without the folder that holds it: "
            "prepare the .onnx file's path, or name the folder with prepare(model, base_dir=...). dmlpy never reads "
            "external data from the working directory"
        )
    folder = os.path.realpath(base_dir)
    if os.path.isabs(location) or ".." in PurePosixPath(location.replace("\\", "/")).parts:
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r} is not a path inside the model's folder {folder}; "
            "external data is read from that folder only, never through '..' or an absolute path"
        )
    path = os.path.realpath(os.path.join(folder, location))
    if os.path.commonpath([folder, path]) != folder:
        raise InvalidArgumentError(
            f"{where}: its external data file {location!r} is a symbolic link (or goes through one) that leaves the "
            f"model's folder {folder}; external data is read from that folder only"
        )
    if not os.path.isfile(path):
        raise InvalidArgumentError(f"{where}: its external data file {location!r}: no such file in {folder}")
    return location, path, int(info.offset or 0), None if info.length is None else int(info.length)


def _upload_external(
    device: Device,
    tensor: onnx.TensorProto,
    dims: tuple[int, ...],
    data_type: TensorDataType,
    base_dir: str | None,
    where: str,
) -> Buffer:
    """An initializer's external data copied to a new device buffer piece by piece."""
    location, path, offset, length = _external_file(tensor, base_dir, where)
    if tensor.HasField("raw_data"):
        raise InvalidArgumentError(f"{where} holds raw_data and names external data; a tensor holds its data in one")
    need = int(np.prod(dims, dtype=object)) * DATA_TYPES[data_type].bits // 8
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        if offset > size:
            raise InvalidArgumentError(f"{where}: offset {offset} is past the end of {location!r} ({size} bytes)")
        if length is not None and length != need:
            raise InvalidArgumentError(
                f"{where}: its external data has length {length}; its dims {list(dims)} of {_onnx_name(data_type)} "
                f"take {need} bytes"
            )
        if size - offset < need or (length is None and size - offset != need):
            raise InvalidArgumentError(
                f"{where}: {location!r} holds {size - offset} bytes from offset {offset}; its dims {list(dims)} of "
                f"{_onnx_name(data_type)} take {need}"
            )
        buffer = device.create_buffer(max(4, whole_dwords(need)))
        try:
            file.seek(offset)
            piece = np.empty(min(need, _EXTERNAL_PIECE), np.uint8)
            for start in range(0, need, _EXTERNAL_PIECE):
                part = piece[: min(_EXTERNAL_PIECE, need - start)]
                if file.readinto(part.data) != part.size:
                    raise InvalidArgumentError(f"{where}: {location!r} ended while it was read (did it change?)")
                buffer.write(part, offset=start)
        except BaseException:
            buffer.release()
            raise
    return buffer


# ------------------------------------------------------------------------------------------ loading a model
def _model_and_folder(model: Any, base_dir: Any) -> tuple[onnx.ModelProto, str | None]:
    """The ModelProto ``prepare`` was given (or loaded from the path or bytes it was given), and the folder its
    external data is read from: ``base_dir``, else a path's folder, else None."""
    if base_dir is not None and not isinstance(base_dir, str | os.PathLike):
        raise argument_error("prepare", "base_dir", base_dir, "the folder (a str or os.PathLike) of the model's data")
    folder = os.fspath(base_dir) if base_dir is not None else None
    if isinstance(model, onnx.ModelProto):
        return model, folder
    if isinstance(model, bytes | bytearray):
        return _parsed(bytes(model), "the model's bytes"), folder
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as error:
            raise InvalidArgumentError(f"prepare: the model file {path!r} cannot be read: {error}") from error
        proto = _parsed(data, f"the model file {path!r}")
        return proto, folder if folder is not None else os.path.dirname(os.path.abspath(path))
    raise argument_error(
        "prepare", "model", model, "an onnx.ModelProto, the path of a .onnx file, or a serialized model (bytes)"
    )


def _parsed(data: bytes, what: str) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except MemoryError:
        raise
    except Exception as error:  # protobuf's DecodeError, or what its parser raises for bytes it cannot take
        raise InvalidArgumentError(f"prepare: {what} cannot be parsed as an ONNX ModelProto: {error}") from error
    return model


def _structure(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` without its initializers' data, for onnx.checker: each initializer becomes a graph input of its
    type and dims (the data is dmlpy's to read, from the model's folder; the checker would read the working
    directory's, and copy every byte twice)."""
    skeleton = onnx.ModelProto()
    _copy_fields(model, skeleton, leave_out="graph")
    _copy_fields(model.graph, skeleton.graph, leave_out="initializer")
    declared = {value.name for value in model.graph.input}
    for tensor in model.graph.initializer:
        if tensor.name not in declared:
            skeleton.graph.input.append(helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
    return skeleton


def _copy_fields(source: Any, target: Any, leave_out: str) -> None:
    for field, value in source.ListFields():
        if field.name == leave_out:
            continue
        if isinstance(value, bool | int | float | str | bytes):
            setattr(target, field.name, value)
        elif hasattr(value, "ListFields"):  # a message
            getattr(target, field.name).CopyFrom(value)
        else:  # a repeated field
            getattr(target, field.name).extend(value)


def _check_with_onnx(model: onnx.ModelProto) -> None:
    try:
        onnx.checker.check_model(_structure(model))
    except MemoryError:
        raise
    except Exception as error:  # onnx.checker.ValidationError, or what it raises on fields it cannot read
        raise InvalidArgumentError(f"prepare: onnx.checker refuses the model: {error}") from error


def _node_model(node: onnx.NodeProto, arrays: Sequence[np.ndarray[Any, Any]]) -> onnx.ModelProto:
    """A model of ``node`` alone, its inputs typed and shaped as ``arrays``, its outputs as ONNX infers them."""
    graph_inputs = [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
        for name, array in zip(node.input, arrays, strict=False)
        if name
    ]
    inferred = onnx.shape_inference.infer_shapes(
        helper.make_model(helper.make_graph([node], "run_node", graph_inputs, []))
    )
    known = {value.name: value for value in inferred.graph.value_info}
    graph_outputs = [known.get(name) or onnx.ValueInfoProto(name=name) for name in node.output]
    return helper.make_model(helper.make_graph([node], "run_node", graph_inputs, graph_outputs))


class DmlBackend(Backend):
    """onnx.backend.base.Backend over dmlpy (see the module docstring)."""

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> DmlBackendRep:
        """Check and lower ``model`` (an onnx.ModelProto, the path of a .onnx file, or its bytes) and upload its
        initializers; NodeRefused (an UnsupportedError) names any node dmlpy cannot run, InvalidArgumentError any
        malformed part. ``base_dir`` names the folder of the model's external data (by default the .onnx file's
        folder; a ModelProto or bytes with external data need it); ``dml_device`` picks a dmlpy Device; ``rtol``
        and ``atol`` (which onnx's test runner passes along) are ignored."""
        dml_device = kwargs.pop("dml_device", None)
        base_dir = kwargs.pop("base_dir", None)
        for tolerance in ("rtol", "atol"):
            kwargs.pop(tolerance, None)
        if kwargs:
            raise InvalidArgumentError(
                f"prepare got unknown options {sorted(kwargs)}; it takes dml_device and base_dir"
            )
        if not cls.supports_device(device):
            raise UnsupportedError(f"device {device!r}: dmlpy's ONNX backend runs on 'CPU' (dmlpy's default device)")
        try:
            proto, folder = _model_and_folder(model, base_dir)
            _check_with_onnx(proto)
            return DmlBackendRep(proto, dml_device if dml_device is not None else default_device(), folder)
        except DmlError:
            raise
        except MemoryError as error:
            raise OutOfMemoryError(
                f"prepare: the host ran out of memory while reading the model ({error!r})"
            ) from error
        except Exception as error:  # a malformed model dmlpy's checks did not foresee: still a DmlError
            raise InvalidArgumentError(f"prepare: the model is malformed: {type(error).__name__}: {error}") from error

    @classmethod
    def run_node(
        cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU", outputs_info: Any = None, **kwargs: Any
    ) -> tuple[np.ndarray[Any, Any], ...]:
        """Run one node on ``inputs`` (NumPy arrays in the node's input order)."""
        try:
            arrays = [np.asarray(value) for value in inputs]
            model = _node_model(node, arrays)
        except MemoryError:
            raise
        except Exception as error:  # a malformed node, or arrays of a dtype ONNX has no element type for
            raise InvalidArgumentError(f"run_node: the node cannot be made a model: {error}") from error
        return cls.prepare(model, device, **kwargs).run(
            [a for name, a in zip(node.input, arrays, strict=False) if name]
        )

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """``"CPU"`` only: ONNX's device names are CPU and CUDA; dmlpy runs its default OpenCL device for "CPU"."""
        return str(device).upper() == "CPU"


prepare = DmlBackend.prepare
run_model = DmlBackend.run_model
run_node = DmlBackend.run_node
supports_device = DmlBackend.supports_device

__all__ = [
    "MAX_COMPILED_GRAPHS",
    "DmlBackend",
    "DmlBackendRep",
    "NodeRefused",
    "prepare",
    "run_model",
    "run_node",
    "supports_device",
]
