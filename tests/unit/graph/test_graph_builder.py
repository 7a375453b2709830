"""The graph builder's refusals (dml.Graph and dml.graph.*): an explicit ``dtype`` that contradicts the zero
point's or the scale's type is refused instead of being ignored, and a call that raises leaves the graph as it
was (no constant node of a number it was given, no node at all)."""

from __future__ import annotations

import numpy as np
import pytest

import dmlpy as dml

FL = dml.FeatureLevel
SIZES = (1, 1, 2, 4)
BROADCAST = (0, 0, 0, 0)


def broadcast(data_type: str) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=SIZES, strides=BROADCAST)


def test_quantize_refuses_a_dtype_the_zero_point_contradicts() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))
    zero_point = g.input(broadcast("UINT8"))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.quantize_linear(x, 0.5, zero_point, dtype="INT8")
    message = str(refused.value)
    assert message.startswith("dml.graph.quantize_linear: dtype is INT8")
    assert "zero_point is UINT8" in message
    assert repr(g) == before  # the scale's constant node was not left behind
    # Leaving dtype out, or naming the zero point's type, gives the zero point's type.
    assert dml.graph.quantize_linear(x, 0.5, zero_point).data_type == dml.TensorDataType.UINT8
    assert dml.graph.quantize_linear(x, 0.5, zero_point, dtype="UINT8").data_type == dml.TensorDataType.UINT8
    assert dml.graph.quantize_linear(x, 0.5, dtype="INT8").data_type == dml.TensorDataType.INT8
    assert dml.graph.quantize_linear(x, 0.5).data_type == dml.TensorDataType.UINT8


def test_dequantize_refuses_a_dtype_the_scale_contradicts() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=SIZES))
    scale = g.input(broadcast("FLOAT16"))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.dequantize_linear(x, scale, 3, dtype="FLOAT32")
    message = str(refused.value)
    assert message.startswith("dml.graph.dequantize_linear: dtype is FLOAT32")
    assert "scale is FLOAT16" in message
    assert repr(g) == before  # the zero point's constant node was not left behind
    assert dml.graph.dequantize_linear(x, scale).data_type == dml.TensorDataType.FLOAT16
    assert dml.graph.dequantize_linear(x, scale, dtype="FLOAT16").data_type == dml.TensorDataType.FLOAT16
    assert dml.graph.dequantize_linear(x, 0.5).data_type == dml.TensorDataType.FLOAT32


def test_a_call_refused_by_validation_leaves_no_constant_node() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))
    before = repr(g)
    # The scale and zero point become constant nodes before ELEMENT_WISE_QUANTIZE_LINEAR's validation refuses
    # the 16-bit output.
    with pytest.raises(dml.InvalidArgumentError, match="ELEMENT_WISE_QUANTIZE_LINEAR"):
        dml.graph.quantize_linear(x, 0.5, 7, dtype="INT16")
    assert repr(g) == before
    y = dml.graph.quantize_linear(x, 0.5, 7, dtype="INT8")
    desc = g.desc_for([y])
    # Two constants (scale, zero point) and the node: nothing of the refused call.
    assert desc.node_count == 3
    assert [node.type for node in desc.nodes] == [
        dml.GraphNodeType.CONSTANT,
        dml.GraphNodeType.CONSTANT,
        dml.GraphNodeType.OPERATOR,
    ]
    assert desc.nodes[1].desc.data == np.int8(7).tobytes()
    assert dml.validate(desc, FL.FL_6_2) is None
