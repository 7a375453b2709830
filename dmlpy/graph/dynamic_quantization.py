"""The builder function of DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, which DirectMLX lists as a TODO: its arguments
follow the descriptor's fields (the input, and the quantized type, which sets the range), its three outputs
returned as a list, as ``top_k`` returns its two."""

from __future__ import annotations

from dmlpy.enums import TensorDataType
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node
from dmlpy.graph.values import data_type_argument
from dmlpy.ops import DynamicQuantizeLinearOperatorDesc
from dmlpy.tensor import BufferTensorDesc


def dynamic_quantize_linear(
    x: Expression, dtype: TensorDataType | str | int = TensorDataType.UINT8
) -> list[Expression]:
    """DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR: ``[y, scale, zero_point]``, ``x`` (FLOAT32 or FLOAT16) quantized with
    a scale and zero point computed from its own range (ONNX's DynamicQuantizeLinear): ``y`` of x's Sizes in
    ``dtype`` (UINT8, the default and ONNX's only choice, or INT8), ``scale`` one FLOAT32 element and
    ``zero_point`` one element of ``dtype``, both of x's DimensionCount."""
    where = "dml.graph.dynamic_quantize_linear"
    x = operand(x, where, "x")
    chosen = data_type_argument(dtype, where)
    shapes = DynamicQuantizeLinearOperatorDesc.output_shapes({"input_tensor": x.desc}, {})
    names = DynamicQuantizeLinearOperatorDesc.OUTPUTS
    outputs = {}
    for name, shape in zip(names, shapes, strict=True):
        assert shape.sizes is not None
        outputs[name] = BufferTensorDesc(data_type=shape.data_type or chosen, sizes=shape.sizes)
    return add_node(DynamicQuantizeLinearOperatorDesc, {"input_tensor": x}, outputs, {})
