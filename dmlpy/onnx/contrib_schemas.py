"""onnx schemas for the contrib op types dmlpy runs (``dmlpy.onnx.contrib.CONTRIB_OPS``), registered with
``onnx.defs`` once, where onnx has none (onnxruntime defines them in C++ and registers them with its own copy of
onnx only): ONNX's shape inference, which folding runs before lowering (``dmlpy.onnx.folding``), then knows their
outputs' shapes, and so the Shape nodes after them fold. Each output's shape is the one the standard op type of the
same attributes infers (``onnx.shape_inference.infer_node_outputs``): LSTM-7's of W and R transposed to ONNX's
(D, 4H, K), AveragePool-11's or GlobalAveragePool-1's, with channels_last's (N, D1, ..., C) read as (N, C, D1,
...)."""

from __future__ import annotations

from collections.abc import Callable

import onnx
from onnx import defs, shape_inference
from onnx.shape_inference import InferenceContext

from dmlpy.onnx.contrib import CONTRIB_DOMAIN, CONTRIB_OPS, ContribOp, standard_node

_SINCE = 1
"""The com.microsoft opset these op types are of (onnxruntime's since_version 1)."""
_PARAMETER = defs.OpSchema.FormalParameterOption
_TRANSPOSED = (1, 2)
"""DynamicQuantizeLSTM's W and R: (D, K, 4H), ONNX's LSTM's (D, 4H, K)."""


def register_contrib_schemas() -> None:
    """Each contrib op type's schema registered, unless one is already (by an earlier call, or another library)."""
    for op_type, op in CONTRIB_OPS.items():
        if not defs.has(op_type, CONTRIB_DOMAIN):
            defs.register_schema(_schema(op_type, op))


def _schema(op_type: str, op: ContribOp) -> defs.OpSchema:
    inputs = [
        defs.OpSchema.FormalParameter(
            f"input{index}",
            f"T{index}",
            param_option=_PARAMETER.Single if index in op.required else _PARAMETER.Optional,
        )
        for index in range(len(op.inputs))
    ]
    option = _PARAMETER.Optional if op.optional_outputs else _PARAMETER.Single
    outputs = [
        defs.OpSchema.FormalParameter(f"output{index}", "T0", param_option=option) for index in range(op.outputs)
    ]
    constraints = [(f"T{index}", [f"tensor({name})" for name in types], "") for index, types in enumerate(op.inputs)]
    standard = defs.get_schema(op.attributes_of, op.attributes_opset)
    attributes = [_attribute(attribute) for attribute in standard.attributes.values()]
    attributes += [
        defs.OpSchema.Attribute(name, onnx.helper.make_attribute(name, value)) for name, value in op.own.items()
    ]
    schema = defs.OpSchema(
        op_type,
        CONTRIB_DOMAIN,
        _SINCE,
        f"onnxruntime's {op_type}, as dmlpy.onnx.contrib reads it",
        inputs=inputs,
        outputs=outputs,
        type_constraints=constraints,
        attributes=attributes,
    )
    schema.set_type_and_shape_inference_function(_inference(op_type, op, standard))
    return schema


def _attribute(attribute: defs.OpSchema.Attribute) -> defs.OpSchema.Attribute:
    """A standard schema's attribute, declared again: with its default, or of its type (required or not)."""
    if attribute.default_value.type != onnx.AttributeProto.UNDEFINED:
        return defs.OpSchema.Attribute(attribute.name, attribute.default_value, attribute.description)
    return defs.OpSchema.Attribute(attribute.name, attribute.type, attribute.description, required=attribute.required)


def _inference(op_type: str, op: ContribOp, standard: defs.OpSchema) -> Callable[[InferenceContext], None]:
    """The op type's outputs as ``standard``'s schema infers them for the same attributes and reordered inputs."""

    def infer(context: InferenceContext) -> None:
        node = onnx.helper.make_node(
            op_type,
            [f"input{index}" if context.has_input(index) else "" for index in range(context.get_num_inputs())],
            [f"output{index}" for index in range(context.get_num_outputs())],
            domain=CONTRIB_DOMAIN,
        )
        for name in op.own:
            if context.get_attribute(name) is not None:
                node.attribute.append(context.get_attribute(name))
        for name in standard.attributes:
            if context.get_attribute(name) is not None:
                node.attribute.append(context.get_attribute(name))
        last = any(a.name == "channels_last" and a.i == 1 for a in node.attribute)
        types = {}
        for index, name in enumerate(node.input):
            if name:
                proto = context.get_input_type(index)
                if proto is not None:
                    types[name] = _reordered(proto, op_type, index, last)
        inferred = shape_inference.infer_node_outputs(standard, standard_node(node), types)
        given = context.get_input_type(0)
        for index, name in enumerate(node.output):
            if name in inferred:
                output = _reordered(inferred[name], op_type, -1, last)
                if given is not None:  # each output is of X's type (T0), the standard node's of FLOAT
                    output.tensor_type.elem_type = given.tensor_type.elem_type
                context.set_output_type(index, output)

    return infer


def _reordered(proto: onnx.TypeProto, op_type: str, index: int, channels_last: bool) -> onnx.TypeProto:
    """``proto`` as the standard op type reads it (``index`` -1: its output, as the contrib op type gives it)."""
    reordered = onnx.TypeProto()
    reordered.CopyFrom(proto)
    if index >= 0:  # the standard node reads FLOAT (AveragePool takes no INT8 or UINT8; LSTM's W and R are X's type)
        reordered.tensor_type.elem_type = onnx.TensorProto.FLOAT
    dims = proto.tensor_type.shape.dim
    if not proto.tensor_type.HasField("shape") or len(dims) < 3:
        return reordered
    kept = [onnx.TensorShapeProto.Dimension() for _ in dims]
    for place, dim in zip(kept, dims, strict=True):
        place.CopyFrom(dim)
    if op_type == "DynamicQuantizeLSTM" and index in _TRANSPOSED:
        order = [0, 2, 1]
    elif channels_last and index == 0:
        order = [0, len(dims) - 1, *range(1, len(dims) - 1)]
    elif channels_last and index == -1:
        order = [0, *range(2, len(dims)), 1]
    else:
        return reordered
    del reordered.tensor_type.shape.dim[:]
    reordered.tensor_type.shape.dim.extend(kept[d] for d in order)
    return reordered
