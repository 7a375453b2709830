"""An ONNX backend (``onnx.backend.base.Backend``) that runs ONNX graphs through dmlpy's graphs, the way
onnxruntime's DirectML execution provider turns ONNX graphs into DirectML graphs.

    import dmlpy.onnx
    rep = dmlpy.onnx.DmlBackend.prepare(model)          # or dmlpy.onnx.prepare(model)
    (y,) = rep.run([x])                                  # NumPy in, NumPy out

It lowers graphs of the four ONNX operators whose semantics DirectML expresses exactly: Round (ties to even,
DirectML's HALVES_TO_NEAREST_EVEN), QuantizeLinear and DequantizeLinear (per-tensor and per-axis, 8-bit
outputs; DirectML's ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR) and Identity (tensors).
Any other node, and any form DirectML cannot express (blocked quantization, float8, 4- and 2-bit types, 16-bit
quantized outputs, sequences), is refused at ``prepare`` with a message naming the node, its operator and
opset, and why. Initializers are graph inputs uploaded once at ``prepare``. The graph is compiled (fused where
it can be) on the first ``run`` for each set of input shapes, then reused.

Devices: ``"CPU"`` (ONNX's default name) runs on dmlpy's default OpenCL device; ``prepare(model,
dml_device=device)`` picks a dmlpy Device. This module needs the ``onnx`` package (``pip install dmlpy[onnx]``).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import onnx
    from onnx import helper, numpy_helper
    from onnx.backend.base import Backend, BackendRep
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("dmlpy.onnx needs the onnx package: pip install 'dmlpy[onnx]'") from error

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import RoundingMode, TensorDataType
from dmlpy.errors import DmlError, InvalidArgumentError, UnsupportedError
from dmlpy.graph import Expression, Graph
from dmlpy.graph import dequantize_linear as graph_dequantize_linear
from dmlpy.graph import identity as graph_identity
from dmlpy.graph import quantize_linear as graph_quantize_linear
from dmlpy.graph import round as graph_round
from dmlpy.runtime import Device, default_device
from dmlpy.tensor import BufferTensorDesc

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
SUPPORTED_OPS = ("Round", "QuantizeLinear", "DequantizeLinear", "Identity")
MAX_DIMENSIONS = 8


def _type_name(elem_type: int) -> str:
    return str(onnx.TensorProto.DataType.Name(elem_type))


class NodeRefused(UnsupportedError):
    """An ONNX node dmlpy cannot run, with the reason (an UnsupportedError, so a dml.DmlError)."""


def _desc(data_type: TensorDataType, shape: Sequence[int]) -> BufferTensorDesc:
    return BufferTensorDesc(data_type=data_type, sizes=tuple(shape) or (1,))


def _opset(model: onnx.ModelProto, domain: str = "") -> int:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx") and domain == "":
            return int(entry.version)
    return int(onnx.defs.onnx_opset_version())


class DmlBackendRep(BackendRep):
    """A prepared ONNX model: ``run(inputs)`` binds, dispatches and returns the outputs as NumPy arrays."""

    def __init__(self, model: onnx.ModelProto, device: Device) -> None:
        self.model = model
        self.device = device
        self.opset = _opset(model)
        graph = model.graph
        initializers = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
        self.initializers = initializers
        self.input_names = [value.name for value in graph.input if value.name not in initializers]
        self.output_names = [value.name for value in graph.output]
        self.input_types: dict[str, int] = {v.name: v.type.tensor_type.elem_type for v in graph.input}
        for value in graph.input:
            if not value.type.HasField("tensor_type"):
                raise NodeRefused(
                    f"ONNX graph input {value.name!r} is a {value.type.WhichOneof('value')}; dmlpy runs tensors only "
                    "(DirectML has no sequences or optionals)"
                )
            _element_type(value.type.tensor_type.elem_type, f"ONNX graph input {value.name!r}")
        for name, array in initializers.items():
            _data_type_of(array, f"ONNX initializer {name!r}")
        for node in graph.node:
            self._check_node(node)
        self._uploaded = {name: device.upload(np.ascontiguousarray(array)) for name, array in initializers.items()}
        self._compiled: dict[tuple[tuple[int, ...], ...], _Compiled] = {}
        self._lock = threading.Lock()

    def _check_node(self, node: onnx.NodeProto) -> None:
        where = f"ONNX node{' ' + repr(node.name) if node.name else ''} ({node.op_type}, opset {self.opset})"
        if node.domain not in ("", "ai.onnx"):
            raise NodeRefused(f"{where}: domain {node.domain!r} is not ONNX's; dmlpy runs {', '.join(SUPPORTED_OPS)}")
        if node.op_type not in SUPPORTED_OPS:
            raise NodeRefused(
                f"{where}: dmlpy runs only {', '.join(SUPPORTED_OPS)}, the ONNX operators whose semantics DirectML's "
                "ELEMENT_WISE_ROUND, ELEMENT_WISE_QUANTIZE_LINEAR, ELEMENT_WISE_DEQUANTIZE_LINEAR and "
                "ELEMENT_WISE_IDENTITY express exactly"
            )
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if int(attributes.get("block_size", 0)) != 0:
            raise NodeRefused(
                f"{where}: block_size {attributes['block_size']} is blocked quantization, which DirectML's "
                "ELEMENT_WISE_QUANTIZE_LINEAR cannot express (one scale per tensor or per axis only)"
            )
        known = {"Round": set(), "Identity": set(), "QuantizeLinear": {"axis", "saturate", "output_dtype"}}
        known["DequantizeLinear"] = {"axis", "output_dtype"}
        for name in attributes:
            if name not in known[node.op_type] | {"block_size"}:
                raise NodeRefused(f"{where}: attribute {name!r} is not one dmlpy knows how to express in DirectML")

    @property
    def compiled_graphs(self) -> list[Any]:
        """The dmlpy graphs compiled so far, one per set of input shapes (``.kernel_count``, ``.source``)."""
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
            array = np.asarray(given[name])
            wanted = _ELEMENT_TYPES.get(self.input_types[name])
            numpy_type = DATA_TYPES[wanted].numpy if wanted is not None else None
            if numpy_type is None or array.dtype != numpy_type:
                raise InvalidArgumentError(
                    f"the model's input {name!r} is {_type_name(self.input_types[name])}; an array of dtype "
                    f"{array.dtype} was given"
                )
            arrays[name] = array
        return arrays


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
        computed: dict[str, tuple[Expression, tuple[int, ...], TensorDataType]] = {}
        """ONNX values computed by lowered nodes."""
        leaves: dict[tuple[str, BufferTensorDesc], Expression] = {}
        bound: list[str] = []
        """The ONNX value each graph input binds, in graph input order (one value may be bound twice, read two
        ways: a scale shared by nodes of different shapes)."""
        pending: dict[str, tuple[tuple[int, ...], TensorDataType]] = {}
        for name, shape in shapes.items():
            pending[name] = (shape, _element_type(rep.input_types[name], f"ONNX graph input {name!r}"))
        for name, array in rep.initializers.items():
            data_type = _data_type_of(array, f"ONNX initializer {name!r}")
            pending[name] = (tuple(array.shape), data_type)

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
                raise NodeRefused(f"{where}: input {name!r} is computed by no node and is no graph input")
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
            where = f"ONNX node{' ' + repr(node.name) if node.name else ''} ({node.op_type}, opset {rep.opset})"
            attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            try:
                x, shape, data_type = data(node.input[0], where)
                if node.op_type == "Round":
                    result = graph_round(x, RoundingMode.HALVES_TO_NEAREST_EVEN)
                elif node.op_type == "Identity":
                    result = graph_identity(x)
                else:
                    axis = int(attributes.get("axis", 1))
                    scale = parameter(node.input[1], shape, axis, where, "scale")
                    zero_name = node.input[2] if len(node.input) > 2 and node.input[2] else None
                    zero = parameter(zero_name, shape, axis, where, "zero point") if zero_name else None
                    if node.op_type == "QuantizeLinear":
                        result = _quantize(x, scale, zero, attributes, where)
                    else:
                        result = _dequantize(x, scale, zero, attributes, where)
            except NodeRefused:
                raise
            except DmlError as error:
                raise NodeRefused(f"{where}: DirectML cannot express it: {error}") from error
            computed[node.output[0]] = (result, shape, result.data_type)

        outputs: list[tuple[str, TensorDataType, tuple[int, ...]]] = []
        expressions: list[Expression] = []
        for name in rep.output_names:
            expression, shape, data_type = data(name, f"ONNX graph output {name!r}")
            if expression.node is None or expression in expressions:
                # A graph input passed straight out, or one value listed twice: DirectML writes each node output
                # to one graph output, so the copy is an ELEMENT_WISE_IDENTITY node.
                expression = graph_identity(expression)
            expressions.append(expression)
            outputs.append((name, data_type, shape))
        compiled = graph.compile(expressions)
        device = rep.device
        initializer = device.create_operator_initializer([compiled])
        recorder = device.create_command_recorder()
        recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer))
        return cls(rep, compiled, bound, outputs)

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


def _element_type(elem_type: int, where: str) -> TensorDataType:
    data_type = _ELEMENT_TYPES.get(elem_type)
    if data_type is None:
        raise NodeRefused(f"{where} is {_type_name(elem_type)}, which DirectML has no tensor data type for")
    return data_type


def _data_type_of(array: np.ndarray[Any, Any], where: str) -> TensorDataType:
    for data_type in _ELEMENT_TYPES.values():
        if DATA_TYPES[data_type].numpy == array.dtype:
            return data_type
    raise NodeRefused(f"{where} has dtype {array.dtype}, which DirectML has no tensor data type for")


def _quantize(
    x: Expression, scale: Expression, zero: Expression | None, attributes: Mapping[str, Any], where: str
) -> Expression:
    output_dtype = int(attributes.get("output_dtype", 0))
    if output_dtype:
        output_type = _element_type(output_dtype, f"{where}: output_dtype")
    elif zero is not None:
        output_type = zero.data_type
    else:
        output_type = T.UINT8
    if output_type not in (T.UINT8, T.INT8):
        raise NodeRefused(
            f"{where}: the output is {output_type.name}; DirectML's ELEMENT_WISE_QUANTIZE_LINEAR outputs UINT8 or INT8"
        )
    return graph_quantize_linear(x, scale, zero, dtype=output_type)


def _dequantize(
    x: Expression, scale: Expression, zero: Expression | None, attributes: Mapping[str, Any], where: str
) -> Expression:
    output_dtype = int(attributes.get("output_dtype", 0))
    if output_dtype and _element_type(output_dtype, f"{where}: output_dtype") != scale.data_type:
        raise NodeRefused(
            f"{where}: output_dtype {_type_name(output_dtype)} differs from the scale's type {scale.data_type.name}; "
            "DirectML's ELEMENT_WISE_DEQUANTIZE_LINEAR outputs the scale's type"
        )
    return graph_dequantize_linear(x, scale, zero)


class DmlBackend(Backend):
    """onnx.backend.base.Backend over dmlpy (see the module docstring)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> DmlBackendRep:
        """Check and lower ``model``; NodeRefused (an UnsupportedError) names any node dmlpy cannot run.
        ``dml_device`` picks a dmlpy Device; ``rtol`` and ``atol`` (which onnx's test runner passes along) are
        ignored."""
        dml_device = kwargs.pop("dml_device", None)
        for tolerance in ("rtol", "atol"):
            kwargs.pop(tolerance, None)
        if kwargs:
            raise InvalidArgumentError(f"prepare got unknown options {sorted(kwargs)}; it takes dml_device")
        if not cls.supports_device(device):
            raise UnsupportedError(f"device {device!r}: dmlpy's ONNX backend runs on 'CPU' (dmlpy's default device)")
        super().prepare(model, device)  # onnx.checker
        return DmlBackendRep(model, dml_device if dml_device is not None else default_device())

    @classmethod
    def run_node(
        cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU", outputs_info: Any = None, **kwargs: Any
    ) -> tuple[np.ndarray[Any, Any], ...]:
        """Run one node on ``inputs`` (NumPy arrays in the node's input order)."""
        arrays = [np.asarray(value) for value in inputs]
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
        model = helper.make_model(helper.make_graph([node], "run_node", graph_inputs, graph_outputs))
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

__all__ = ["DmlBackend", "DmlBackendRep", "NodeRefused", "prepare", "run_model", "run_node", "supports_device"]
