"""One-node ONNX models of each op type dmlpy runs at each version of its schema from opset 11 to 21 (the opsets
real models are written at), for tests/device/graph/test_onnx_opsets.py: built from the schema alone where its
inputs are plain tensors (its required inputs, each of one type the schema allows, no required attribute); the
op types whose inputs carry structure (indices, shapes, pads, scales, weights, sequence lengths) or that need an
attribute are left to their own tests, and ``unbuilt`` says why for each."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, defs, helper

from dmlpy.onnx import SUPPORTED_OPS

FIRST_OPSET, LAST_OPSET = 11, 21
TYPES = {
    "float": (TensorProto.FLOAT, np.float32),
    "int32": (TensorProto.INT32, np.int32),
    "int64": (TensorProto.INT64, np.int64),
    "uint8": (TensorProto.UINT8, np.uint8),
    "bool": (TensorProto.BOOL, np.bool_),
}
"""The element types a generated input takes, the first its schema allows (float where it may)."""
SHAPE = (2, 3, 4, 5)
"""Every generated input's shape: rank 4, as the poolings and MeanVarianceNormalization's default axes read."""
STRUCTURED = {
    "GatherElements": "its indices must lie within the data's axis",
    "Gather": "its indices must lie within the data's axis",
    "GatherND": "its indices are rows of coordinates",
    "OneHot": "its depth and values are structured",
    "ReverseSequence": "its sequence_lens are per batch",
    "Range": "start, limit and delta are scalars",
    "Tile": "its repeats are one per dimension",
    "Expand": "its shape is a target shape",
    "Reshape": "its shape is a target shape",
    "Slice": "starts, ends and axes are positions",
    "Pad": "its pads are two per axis",
    "Resize": "its scales or sizes are per axis",
    "Upsample": "its scales are per axis",
    "Unsqueeze": "its axes are positions in the output",
    "Squeeze": "its axes must be dimensions of size 1",
    "ScatterElements": "its indices must lie within the data's axis",
    "ScatterND": "its indices are rows of coordinates",
    "TopK": "its K is a count within the axis",
    "MatMul": "its operands' inner dimensions must agree",
    "MatMulInteger": "its operands' inner dimensions must agree",
    "QLinearMatMul": "its scales and zero points are per tensor",
    "QLinearConv": "its scales and zero points are per tensor or channel",
    "QuantizeLinear": "its scale and zero point are per tensor or axis",
    "DequantizeLinear": "its scale and zero point are per tensor or axis",
    "InstanceNormalization": "its scale and B are per channel",
    "BatchNormalization": "its statistics are per channel",
    "GroupNormalization": "its scale and bias are per channel or group",
    "LayerNormalization": "its scale broadcasts over the normalized axes",
    "RNN": "its weights are per direction and gate",
    "LSTM": "its weights are per direction and gate",
    "GRU": "its weights are per direction and gate",
    "Split": "its outputs are several",
    "Conv": "its weights are per channel and window",
    "ConvInteger": "its weights are per channel and window",
    "ConvTranspose": "its weights are per channel and window",
    "RoiAlign": "its rois are boxes",
    "MaxRoiPool": "its rois are boxes",
    "Attention": "its operands are query, key and value",
    "Mod": "fmod 0 on floats is malformed before opset 28 (its own tests)",
    "Cast": "its target type is an attribute",
    "EyeLike": "its input is 2-D",
    "Einsum": "its equation is an attribute",
    "CumSum": "its axis is a scalar",
    "Gemm": "its operands are 2-D matrices of agreeing sizes",
    "GlobalLpPool": "onnx.reference has no implementation of it (test_onnx_pooling.py has a NumPy one)",
}
"""The op types whose inputs are not plain tensors of one shape, each with why."""


def versions(op_type: str) -> list[int]:
    """The since_versions of ``op_type``'s schema in force at opsets 11 to 21."""
    found = set()
    for opset in range(FIRST_OPSET, LAST_OPSET + 1):
        try:
            found.add(defs.get_schema(op_type, opset).since_version)
        except onnx.defs.SchemaError:
            continue
    return sorted(found)


def unbuilt(op_type: str, opset: int) -> str | None:
    """Why no one-node model of ``op_type`` at ``opset`` is built here, or None where one is."""
    if op_type in STRUCTURED:
        return STRUCTURED[op_type]
    schema = defs.get_schema(op_type, opset)
    if any(attribute.required for attribute in schema.attributes.values()):
        return "it needs an attribute"
    outputs = [output for output in schema.outputs if output.option != defs.OpSchema.FormalParameterOption.Optional]
    if len(outputs) > 1 or outputs[0].option == defs.OpSchema.FormalParameterOption.Variadic:
        return "its outputs are several"
    if any(_type_of(schema, formal.type_str) is None for formal in _required(schema)):
        return "no input type of its schema is one of " + ", ".join(TYPES)
    return None


def _required(schema: Any) -> list[Any]:
    return [formal for formal in schema.inputs if formal.option != defs.OpSchema.FormalParameterOption.Optional]


def _type_of(schema: Any, type_str: str) -> str | None:
    allowed = {c.type_param_str: list(c.allowed_type_strs) for c in schema.type_constraints}
    names = [t.removeprefix("tensor(").removesuffix(")") for t in allowed.get(type_str, [type_str])]
    return next((name for name in TYPES if name in names), None)


@functools.cache
def one_node_case(op_type: str, opset: int) -> tuple[Any, dict[str, Any]]:
    """The model of one ``op_type`` node at ``opset`` and its inputs: each required input of the first type its
    schema allows among TYPES and of SHAPE, values where every op type is defined (positive and above 1 for the
    logarithms and inverse functions: uniform in [1.1, 1.9]; integers 1 to 4; bools both)."""
    schema = defs.get_schema(op_type, opset)
    rng = np.random.default_rng(abs(hash((op_type, opset))) % 2**32)
    inputs, feeds = [], {}
    for index, formal in enumerate(_required(schema)):
        name = _type_of(schema, formal.type_str)
        assert name is not None, (op_type, opset)
        elem, dtype = TYPES[name]
        if dtype == np.bool_:
            value = rng.integers(0, 2, SHAPE).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            value = rng.integers(1, 5, SHAPE).astype(dtype)
        else:
            value = rng.uniform(-0.9, 0.9, SHAPE).astype(dtype)
            if op_type in ("Acosh", "Log", "Sqrt", "ReduceLogSum", "ReduceLogSumExp"):
                value = (np.abs(value) + 1.1).astype(dtype)
        inputs.append(helper.make_tensor_value_info(f"x{index}", elem, list(SHAPE)))
        feeds[f"x{index}"] = value
        if formal.option == defs.OpSchema.FormalParameterOption.Variadic:
            inputs.append(helper.make_tensor_value_info(f"x{index + 1}", elem, list(SHAPE)))
            feeds[f"x{index + 1}"] = value[::-1].copy()
    node = helper.make_node(op_type, list(feeds), ["y"])
    graph = helper.make_graph([node], "g", inputs, [helper.make_empty_tensor_value_info("y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    inferred = onnx.shape_inference.infer_shapes(model)
    (declared,) = [value for value in inferred.graph.value_info if value.name == "y"] or [graph.output[0]]
    if not declared.type.tensor_type.HasField("shape"):  # a function-bodied op type (MeanVarianceNormalization)
        declared = helper.make_tensor_value_info("y", inputs[0].type.tensor_type.elem_type, list(SHAPE))
    del model.graph.output[:]
    model.graph.output.append(declared)
    return model, feeds


def coerced_reference(op_type: str, x: Any) -> Any:
    """Softmax, LogSoftmax and Hardmax before opset 13, from ONNX's definition: the input coerced to 2-D at axis 1
    (the dimensions before it, those from it on), each row reduced (onnx.reference computes the opset-13 form at
    every opset)."""
    rows = x.reshape(x.shape[0], -1).astype(np.float64)
    if op_type == "Hardmax":
        hard = np.zeros_like(rows)
        hard[np.arange(len(rows)), rows.argmax(axis=1)] = 1
        return hard.reshape(x.shape).astype(x.dtype)
    shifted = rows - rows.max(axis=1, keepdims=True)
    log = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return (log if op_type == "LogSoftmax" else np.exp(log)).reshape(x.shape).astype(x.dtype)


CASES = [
    (op_type, version)
    for op_type in sorted(SUPPORTED_OPS)
    for version in versions(op_type)
    if unbuilt(op_type, max(version, FIRST_OPSET)) is None
]
"""(op type, since_version) of every one-node model built here."""
