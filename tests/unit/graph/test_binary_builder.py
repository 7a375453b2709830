"""The binary builder functions (``dml.graph.add`` ... ``dml.graph.difference_square``) without a device: a number
or a NumPy array operand becomes a constant node read with 0-strides where it repeats (from DML_FEATURE_LEVEL_6_2,
refused below with Graph.constant's message), and what cannot be one operand of a binary operator is refused with
the field, the rule and the fix, leaving the graph as it was. tests/device/binary/test_binary_builder.py runs
such graphs."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.graph.operators import BUILDERS
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS

FL = dml.FeatureLevel
SIZES = (2, 3, 4)


def graph_with(data_type: str = "FLOAT32", level: FL = FL.FL_6_2) -> tuple[dml.Graph, Any]:
    g = dml.Graph(level)
    return g, g.input(dml.BufferTensorDesc(data_type=data_type, sizes=SIZES))


def operator_of(g: dml.Graph, y: Any) -> Any:
    """The operator of the node that computes ``y``, and the graph's node types, from ``g``'s DML_GRAPH_DESC."""
    desc = g.desc_for([y])
    return desc.nodes[-1].desc.op, [node.type for node in desc.nodes]


@pytest.mark.parametrize("desc", ARITHMETIC_OPERATORS, ids=lambda d: d.BUILDER_NAME)
def test_every_binary_operator_has_its_builder_function(desc: Any) -> None:
    build = BUILDERS[desc.BUILDER_NAME]
    assert list(inspect.signature(build).parameters) == ["a", "b"]
    g, x = graph_with()
    y = build(x, x)
    op, types = operator_of(g, y)
    assert type(op) is desc and types == [dml.GraphNodeType.OPERATOR]
    assert (y.data_type, y.sizes) == (x.data_type, SIZES) and op.output_tensor.desc.strides is None  # packed


def test_a_number_becomes_a_constant_node_read_with_zero_strides() -> None:
    g, x = graph_with()
    op, types = operator_of(g, dml.graph.add(x, 1.5))
    assert types == [dml.GraphNodeType.CONSTANT, dml.GraphNodeType.OPERATOR]
    assert op.b_tensor.desc.strides == (0, 0, 0) and op.b_tensor.desc.sizes == SIZES
    assert op.a_tensor.desc.strides is None  # x as g.input described it
    assert g.desc_for([dml.graph.add(x, 1.5)]).nodes[0].desc.data == np.float32(1.5).tobytes()


def test_a_number_first_is_a_tensor() -> None:
    g, x = graph_with()
    op, _ = operator_of(g, dml.graph.subtract(1.0, x))
    assert op.a_tensor.desc.strides == (0, 0, 0) and op.b_tensor.desc.strides is None


def test_a_number_below_6_2_is_refused_with_graph_constant_s_message() -> None:
    g, x = graph_with(level=FL.FL_6_1)
    before = repr(g)
    with pytest.raises(dml.UnsupportedError) as refused:
        dml.graph.multiply(x, 2.0)
    assert str(refused.value) == (
        "Graph.constant: constant data nodes arrived at DML_FEATURE_LEVEL_6_2; this graph is at "
        "DML_FEATURE_LEVEL_6_1. Make the value a graph input (g.input) instead"
    )
    assert repr(g) == before
    # Two expressions need no constant node: the same operator builds at 6_1.
    assert dml.graph.multiply(x, x).sizes == SIZES


def test_an_array_of_the_other_s_rank_is_broadcast_along_its_dimensions_of_size_1() -> None:
    g, x = graph_with()
    column = np.array([[[1.0], [2.0], [3.0]]], dtype=np.float32)  # shape (1, 3, 1)
    y = dml.graph.max(x, column)
    op, types = operator_of(g, y)
    assert y.sizes == SIZES
    assert types == [dml.GraphNodeType.CONSTANT, dml.GraphNodeType.OPERATOR]
    assert op.b_tensor.desc.strides == (0, 1, 0)
    full = np.arange(24, dtype=np.float32).reshape(SIZES)
    op, _ = operator_of(g, dml.graph.min(full, x))
    assert op.a_tensor.desc.strides == (12, 4, 1)


@pytest.mark.parametrize(
    ("b", "message"),
    [
        (
            np.ones((1, 3, 1)),
            "dml.graph.add: b is a NumPy array of FLOAT64; the other operand is FLOAT32: give an array of float32 "
            "(the operands have one DataType)",
        ),
        (
            np.ones((3, 1), dtype=np.float32),
            "dml.graph.add: b has shape (3, 1); an array operand has the other's rank and, along each dimension, 1 "
            "(broadcast) or the other's size (Sizes [2, 3, 4])",
        ),
        (
            np.ones((2, 2, 4), dtype=np.float32),
            "dml.graph.add: b has shape (2, 2, 4); an array operand has the other's rank and, along each dimension, "
            "1 (broadcast) or the other's size (Sizes [2, 3, 4])",
        ),
    ],
    ids=["dtype", "rank", "size"],
)
def test_an_array_that_is_not_one_operand_is_refused(b: Any, message: str) -> None:
    g, x = graph_with()
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.add(x, b)
    assert str(refused.value) == message
    assert repr(g) == before


@pytest.mark.parametrize(
    ("number", "shown"), [(2.5, "2.5"), (2**31, "2147483648"), (-(2**31) - 1, "-2147483649"), (float("nan"), "NaN")]
)
def test_an_integer_operand_takes_only_integers_its_type_holds(number: float, shown: str) -> None:
    g, x = graph_with("INT32")
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.divide(x, number)
    assert str(refused.value) == (
        f"dml.graph.divide: b is {shown}; the other operand is INT32, which holds the integers -2147483648 to "
        "2147483647: give one of them"
    )
    assert repr(g) == before
    desc = g.desc_for([dml.graph.divide(x, 3.0)])  # a whole float is the integer it equals
    assert desc.nodes[0].desc.data == np.int32(3).tobytes()


def test_two_expressions_of_different_sizes_or_types_are_refused_with_what_to_do() -> None:
    g, x = graph_with()
    row = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 3, 4)))
    halves = g.input(dml.BufferTensorDesc(data_type="FLOAT16", sizes=SIZES))
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dml.graph.mean(x, row)
    assert str(refused.value) == (
        "dml.graph.mean: b has Sizes [1, 3, 4], the other operand [2, 3, 4]; the operands of a binary operator have "
        "one DataType and Sizes. DirectML broadcasts by Strides: describe a graph input that repeats with the full "
        "Sizes and 0-strides along the repeated dimensions (g.input), or give the value as a number or a NumPy array"
    )
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.mean: b has DataType FLOAT16, the other operand"):
        dml.graph.mean(x, halves)
    assert repr(g) == before
    # What the message says to do: the repeated input described with the full Sizes and a 0-stride.
    g, x = graph_with()
    repeated = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES, strides=(0, 4, 1)))
    op, _ = operator_of(g, dml.graph.mean(x, repeated))
    assert op.b_tensor.desc.strides == (0, 4, 1)


def test_two_numbers_are_refused() -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.add: a "):
        dml.graph.add(1.0, 2.0)
