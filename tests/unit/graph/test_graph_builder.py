"""The graph builder's refusals (dml.Graph and dml.graph.*): an explicit ``dtype`` that contradicts the zero
point's or the scale's type is refused instead of being ignored, and a call that raises leaves the graph as it
was (no constant node of a number it was given, no node at all)."""

from __future__ import annotations

from typing import Any

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


def test_an_array_scale_of_x_rank_becomes_a_constant_with_zero_strides_where_it_repeats() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(3, 2, 4)))
    scale = np.array([[[0.5]], [[1.0]], [[2.0]]], np.float32)  # (3, 1, 1): per element of axis 0
    zero_point = np.arange(6, dtype=np.uint8).reshape(3, 2, 1)  # (3, 2, 1): one per block of x's split axis
    y = dml.graph.quantize_linear(x, scale, zero_point)
    (node,) = [n.desc for n in g.desc_for([y]).nodes if isinstance(n.desc, dml.OperatorGraphNodeDesc)]
    assert node.op.scale_tensor.desc.strides == (1, 0, 0)
    assert node.op.zero_point_tensor.desc.strides == (2, 1, 0)
    constants = [n.desc for n in g.desc_for([y]).nodes if isinstance(n.desc, dml.ConstantDataGraphNodeDesc)]
    # Each constant holds its array's values once, packed: the Strides repeat them.
    np.testing.assert_array_equal(np.frombuffer(constants[0].data, np.float32), scale.reshape(-1))
    np.testing.assert_array_equal(np.frombuffer(constants[1].data, np.uint8), zero_point.reshape(-1))


def test_an_array_that_blocks_x_is_refused_naming_the_split_sizes() -> None:
    # A graph has no Reshape: a scale per block of x's Sizes is x described split, which the message spells out.
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(4, 8)))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.graph.quantize_linear(x, np.ones((4, 2), np.float32))
    message = str(error.value)
    assert message.startswith("dml.graph.quantize_linear: scale of shape (4, 2) has a value per block along axes [1]")
    assert "as Sizes [4, 2, 4]" in message and "reshaped to (4, 2, 1)" in message
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.dequantize_linear: zero_point has 3 entries along"):
        dml.graph.dequantize_linear(
            g.input(dml.BufferTensorDesc(data_type="UINT8", sizes=(4, 8))), 0.5, np.ones((4, 3), np.uint8)
        )
    assert repr(g).replace("2 inputs", "1 inputs") == before  # no constant node was left behind


# ------------------------------------------------------------------ number zero points, as dml.quantize_linear
FIX_INT8 = "pass dtype='INT8', whose range holds it (the zero point has the output's type)"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda x, q: dml.graph.quantize_linear(x, 0.5, -3),
            f"dml.graph.quantize_linear: zero_point -3 is not a whole number from 0 to 255, as UINT8 holds them; "
            f"{FIX_INT8}",
        ),
        (
            lambda x, q: dml.graph.quantize_linear(x, 0.5, 300),
            "dml.graph.quantize_linear: zero_point 300 is not a whole number from 0 to 255, as UINT8 holds them; give "
            "a whole number that UINT8 or INT8 holds",
        ),
        (
            lambda x, q: dml.graph.quantize_linear(x, 0.5, 200, dtype="INT8"),
            "dml.graph.quantize_linear: zero_point 200 is not a whole number from -128 to 127, as INT8 holds them; "
            "pass dtype='UINT8', whose range holds it (the zero point has the output's type)",
        ),
        (
            lambda x, q: dml.graph.quantize_linear(x, 0.5, 1.5),
            "dml.graph.quantize_linear: zero_point 1.5 is not a whole number from 0 to 255, as UINT8 holds them; give "
            "a whole number that UINT8 or INT8 holds",
        ),
        (
            lambda x, q: dml.graph.dequantize_linear(q, 0.5, 1000),
            "dml.graph.dequantize_linear: zero_point 1000 is not a whole number from 0 to 255, as UINT8 holds them; "
            "the zero point has x's type, UINT8: give one it holds",
        ),
        (
            lambda x, q: dml.graph.quantize(x, 0.5, -3),
            f"dml.graph.quantize: zero_point -3 is not a whole number from 0 to 255, as UINT8 holds them; {FIX_INT8}",
        ),
        (
            lambda x, q: dml.graph.quantize(x, 0.5, 9, dtype="INT4"),
            "dml.graph.quantize: zero_point 9 is not a whole number from -8 to 7, as INT4 holds them; pass "
            "dtype='UINT8', whose range holds it (the zero point has the output's type)",
        ),
        (
            lambda x, q: dml.graph.dequantize(q, 0.5, -1),
            "dml.graph.dequantize: zero_point -1 is not a whole number from 0 to 255, as UINT8 holds them; the zero "
            "point has x's type, UINT8: give one it holds",
        ),
    ],
    ids=["negative", "300", "200-int8", "1.5", "dequantize-1000", "quantize-negative", "quantize-int4", "dequantize"],
)
def test_a_number_zero_point_its_type_cannot_hold_is_refused_leaving_the_graph_unchanged(
    call: Any, message: str
) -> None:
    """Before: NumPy's OverflowError ("Python integer -3 out of bounds for uint8"), and 1.5 silently truncated."""
    g = dml.Graph(FL.FL_6_3)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))
    q = g.input(dml.BufferTensorDesc(data_type="UINT8", sizes=SIZES))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        call(x, q)
    assert str(refused.value) == message
    assert repr(g) == before


def test_a_zero_point_picks_the_output_type_as_dml_quantize_linear_does() -> None:
    g = dml.Graph(FL.FL_6_3)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))
    # A Python int leaves the type to dtype (UINT8 when left out); a NumPy integer has its own.
    assert dml.graph.quantize_linear(x, 0.5, 3).data_type == dml.TensorDataType.UINT8
    assert dml.graph.quantize_linear(x, 0.5, -3, dtype="INT8").data_type == dml.TensorDataType.INT8
    assert dml.graph.quantize_linear(x, 0.5, np.int8(-3)).data_type == dml.TensorDataType.INT8
    assert dml.graph.quantize_linear(x, 0.5, 2.0).data_type == dml.TensorDataType.UINT8  # a whole float is whole
    y = dml.graph.quantize_linear(x, 0.5, -128, dtype="INT8")
    (constant,) = [
        n.desc for n in g.desc_for([y]).nodes[1:2] if isinstance(n.desc, dml.ConstantDataGraphNodeDesc)
    ]  # the zero point's, after the scale's
    assert constant.data == np.int8(-128).tobytes()


def test_axis_takes_a_1d_scale_and_zero_point_along_it() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(3, 2, 4)))
    scale = np.array([0.5, 1.0, 2.0], np.float32)
    for axis in (0, -3):
        y = dml.graph.quantize_linear(x, scale, np.array([1, 2, 3], np.uint8), axis=axis)
        (node,) = [n.desc for n in g.desc_for([y]).nodes if isinstance(n.desc, dml.OperatorGraphNodeDesc)]
        assert node.op.scale_tensor.desc.strides == (1, 0, 0)
        assert node.op.zero_point_tensor.desc.strides == (1, 0, 0)
    z = dml.graph.dequantize_linear(g.input(dml.BufferTensorDesc(data_type="INT8", sizes=(3, 2, 4))), 0.5, axis=2)
    assert z.data_type == dml.TensorDataType.FLOAT32  # a number applies to the whole tensor, whatever the axis


@pytest.mark.parametrize(
    ("scale", "axis", "message"),
    [
        (
            np.ones(4, np.float32),
            0,
            "dml.graph.quantize_linear: scale has shape (4,); with axis=0 it is 1-D, one value per index of axis 0 of "
            "x (Sizes [3, 2, 4]: 3 values) or one value: give such an array, or leave axis out to give an array of "
            "x's rank",
        ),
        (
            np.ones((3, 1, 1), np.float32),
            0,
            "dml.graph.quantize_linear: scale has shape (3, 1, 1); with axis=0 it is 1-D, one value per index of axis "
            "0 of x (Sizes [3, 2, 4]: 3 values) or one value: give such an array, or leave axis out to give an array "
            "of x's rank",
        ),
        (np.ones(3, np.float32), 3, "dml.graph.quantize_linear: axis is 3; it must be an int from -3 to 2"),
        (np.ones(3, np.float32), True, "dml.graph.quantize_linear: axis is True; it must be an int from -3 to 2"),
    ],
    ids=["length", "rank", "range", "bool"],
)
def test_axis_refusals_leave_the_graph_unchanged(scale: Any, axis: Any, message: str) -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(3, 2, 4)))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.quantize_linear(x, scale, axis=axis)
    assert str(refused.value).startswith(message)
    assert repr(g) == before
