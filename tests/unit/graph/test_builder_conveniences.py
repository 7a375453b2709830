"""What makes the builder as easy as DirectMLX, without a device: ``+ - * /`` and unary ``-`` on expressions (the
table's dml.graph.add, subtract, multiply, divide and negate, numbers and arrays on either side), ``dml.Graph()`` on
the default device, and ``g.input(sizes, dtype)`` with a NumPy dtype, an ml_dtypes type or a data type's name.
tests/device/graph/test_builder_conveniences.py runs such a graph."""

from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from dmlpy.graph.builder import EXPRESSION_OPERATORS
from dmlpy.graph.operators import BUILDERS

FL = dml.FeatureLevel
T = dml.TensorDataType
SIZES = (1, 1, 2, 3)


def nodes(g: dml.Graph, y: Any) -> list[Any]:
    """The nodes computing ``y``: each operator node's operator, each constant node's bytes."""
    found = []
    for node in g.desc_for([y]).nodes:
        found.append(node.desc.data if isinstance(node.desc, dml.ConstantDataGraphNodeDesc) else node.desc.op)
    return found


def test_python_s_operators_are_the_table_s_builder_functions() -> None:
    assert set(EXPRESSION_OPERATORS) == {"add", "subtract", "multiply", "divide", "negate"}
    assert all(EXPRESSION_OPERATORS[name] is BUILDERS[name] for name in EXPRESSION_OPERATORS)


@pytest.mark.parametrize(
    ("build", "operator", "constant_first"),
    [
        (lambda x: x + 2, dml.ElementWiseAddOperatorDesc, False),
        (lambda x: 2 + x, dml.ElementWiseAddOperatorDesc, True),
        (lambda x: x - 2, dml.ElementWiseSubtractOperatorDesc, False),
        (lambda x: 2 - x, dml.ElementWiseSubtractOperatorDesc, True),
        (lambda x: x * 2, dml.ElementWiseMultiplyOperatorDesc, False),
        (lambda x: 2 * x, dml.ElementWiseMultiplyOperatorDesc, True),
        (lambda x: x / 2, dml.ElementWiseDivideOperatorDesc, False),
        (lambda x: 2 / x, dml.ElementWiseDivideOperatorDesc, True),
        (lambda x: np.float32(2) * x, dml.ElementWiseMultiplyOperatorDesc, True),
    ],
    ids=["x+2", "2+x", "x-2", "2-x", "x*2", "2*x", "x/2", "2/x", "numpy-scalar*x"],
)
def test_an_operator_with_a_number_keeps_the_operands_order(build: Any, operator: Any, constant_first: bool) -> None:
    g = dml.Graph(FL.FL_6_4)
    x = g.input(SIZES, np.float32)
    y = build(x)
    constant, op = nodes(g, y)
    assert type(op) is operator and constant == np.float32(2).tobytes()
    a, b = (op.a_tensor.desc, op.b_tensor.desc)
    assert (a.strides, b.strides) == (((0,) * 4, None) if constant_first else (None, (0,) * 4))


def test_expressions_combine_as_dml_graph_s_functions_do() -> None:
    g = dml.Graph(FL.FL_6_4)
    x, y = g.input(SIZES, np.float32), g.input(SIZES, "FLOAT32")
    z = -(x * 2 + y) / x
    kinds = [type(n).__name__ if not isinstance(n, bytes) else "constant" for n in nodes(g, z)]
    assert kinds == [
        "constant",
        "ElementWiseMultiplyOperatorDesc",
        "ElementWiseAddOperatorDesc",
        "ElementWiseNegateOperatorDesc",
        "ElementWiseDivideOperatorDesc",
    ]
    # A NumPy array on the left: NumPy leaves it to the expression (no array of expressions).
    g = dml.Graph(FL.FL_6_4)
    row = np.array([[[[1.0, 2.0, 3.0]]]], np.float32)
    w = row + g.input(SIZES, np.float32)
    assert isinstance(w, dml.graph.Expression) and nodes(g, w)[0] == row.tobytes()


def test_an_operator_refused_names_the_function_and_leaves_the_graph_as_it_was() -> None:
    g = dml.Graph(FL.FL_6_4)
    x, u = g.input(SIZES, np.float32), g.input(SIZES, np.uint8)
    before = repr(g)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.add: b is 'a'; it must be an expression"):
        x + "a"
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.multiply: b has DataType UINT8, the other"):
        x * u
    with pytest.raises(dml.InvalidArgumentError, match=r"^ELEMENT_WISE_NEGATE.InputTensor.DataType is DML_TENSOR_D"):
        -u  # noqa: B018
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml.graph.subtract: a is -1; the other operand is UINT8"):
        -1 - u
    assert repr(g) == before


class FakeDevice:
    feature_level = FL.FL_6_3

    def compile_graph(self, graph_desc: Any, flags: Any = 0) -> Any:
        return ("compiled", graph_desc.node_count)


def test_graph_without_an_argument_builds_on_the_default_device(monkeypatch: pytest.MonkeyPatch) -> None:
    device = FakeDevice()
    # Looked up on the package at call time, as a user's dml.default_device is: graph/ imports no runtime.
    monkeypatch.setattr(dml, "default_device", lambda: device, raising=False)
    g = dml.Graph()
    assert g.device is device and g.feature_level == FL.FL_6_3
    x = g.input(SIZES, np.float32)
    assert g.compile([x * 2]) == ("compiled", 2)


def test_building_at_a_feature_level_loads_no_runtime() -> None:
    loaded = "dmlpy.runtime" in sys.modules
    dml.Graph(FL.FL_6_4).input(SIZES, np.float16)
    assert ("dmlpy.runtime" in sys.modules) == loaded


@pytest.mark.parametrize(
    ("dtype", "data_type"),
    [
        (np.float32, T.FLOAT32),
        (np.dtype(np.float16), T.FLOAT16),
        ("float16", T.FLOAT16),
        ("f8", T.FLOAT64),
        ("INT8", T.INT8),
        ("DML_TENSOR_DATA_TYPE_UINT16", T.UINT16),
        (T.UINT64, T.UINT64),
        (ml_dtypes.int4, T.INT4),
        (np.dtype(ml_dtypes.uint4), T.UINT4),
    ],
)
def test_an_input_of_sizes_and_a_dtype_is_packed(dtype: Any, data_type: Any) -> None:
    g = dml.Graph(FL.FL_6_4)
    x = g.input(SIZES, dtype)
    assert x.desc == dml.BufferTensorDesc(data_type=data_type, sizes=SIZES)
    assert g.input(np.zeros(SIZES).shape, dtype).sizes == SIZES and g.input([np.int64(3)], dtype).sizes == (3,)
    if data_type not in (T.INT4, T.UINT4):  # CAST takes no 4-bit type
        assert dml.graph.cast(x, dtype).data_type == data_type  # the same rule names a builder's output type


BFLOAT16 = (
    "Graph.input: dtype is <class 'ml_dtypes.bfloat16'>, which no DirectML tensor data type holds; give one that "
    "does, by name (FLOAT32, INT8, ...), NumPy dtype (np.float32) or ml_dtypes type (ml_dtypes.int4); UINT8 holds "
    "bools as 1 and 0"
)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ((2, 3),),
            "Graph.input: Sizes [2, 3] are given without a dtype; give one (g.input(sizes, np.float32)), or a "
            "dml.BufferTensorDesc",
        ),
        (
            (dml.BufferTensorDesc(data_type="INT8", sizes=(2,)), np.int8),
            "Graph.input: dtype is <class "
            "'numpy.int8'> beside a desc, which names its own DataType; give a desc alone, or Sizes and a dtype",
        ),
        (((2, 3), ml_dtypes.bfloat16), BFLOAT16),
        (((2, 3), np.bool_), BFLOAT16.replace("<class 'ml_dtypes.bfloat16'>", "<class 'numpy.bool'>")),
        (
            ((2, 3), 1.5),
            "Graph.input: dtype is 1.5; give a TensorDataType (dml.TensorDataType.UINT8), its name or its "
            "number, or a NumPy dtype (np.uint8)",
        ),
        (
            ((2, -1), np.float32),
            "Graph.input: DML_BUFFER_TENSOR_DESC.Sizes[1] is -1; it must be a whole number, at least 1",
        ),
        (
            ((2, True), np.float32),
            "Graph.input: desc_or_sizes is (2, True); it must be a dml.BufferTensorDesc (or "
            "dml.TensorDesc), or Sizes (ints)",
        ),
        (
            ("abc", np.float32),
            "Graph.input: desc_or_sizes is 'abc'; it must be a dml.BufferTensorDesc (or "
            "dml.TensorDesc), or Sizes (ints)",
        ),
    ],
    ids=["no-dtype", "desc-and-dtype", "bfloat16", "bool", "float", "size-negative", "bool-size", "text"],
)
def test_an_input_that_cannot_be_described_is_refused_and_none_is_added(arguments: Any, message: str) -> None:
    g = dml.Graph(FL.FL_6_4)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        g.input(*arguments)
    assert str(refused.value) == message
    assert repr(g) == "<dmlpy.Graph of 0 inputs and 0 nodes, at DML_FEATURE_LEVEL_6_4>"
