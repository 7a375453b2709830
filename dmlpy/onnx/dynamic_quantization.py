"""ONNX's DynamicQuantizeLinear as DirectML's DYNAMIC_QUANTIZE_LINEAR (``dml.graph.dynamic_quantize_linear``): x
(FLOAT32) quantized to UINT8 with a scale and zero point from its own range; the three outputs y, y_scale and
y_zero_point, the last two ONNX scalars (DirectML's one element of x's DimensionCount, the same bytes)."""

from __future__ import annotations

import onnx

from dmlpy.enums import TensorDataType
from dmlpy.graph.dynamic_quantization import dynamic_quantize_linear
from dmlpy.onnx.elements import expressed
from dmlpy.onnx.reads import Outputs, Reads

DYNAMIC_QUANTIZATION_OPS = ("DynamicQuantizeLinear",)


def dynamic_quantization_outputs(node: onnx.NodeProto, reads: Reads, where: str) -> Outputs:
    """The node's three outputs and their ONNX shapes: y of x's shape, y_scale and y_zero_point scalars."""
    shape, _ = reads.known(node.input[0], where)
    x = reads.shaped(node.input[0], shape or (1,), where)
    y, scale, zero_point = expressed(where, dynamic_quantize_linear, x, TensorDataType.UINT8)
    return [(y, shape), (scale, ()), (zero_point, ())]
