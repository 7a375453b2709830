"""ONNX's reductions (issue 44: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, ArgMax, ArgMin) beyond the runner of ONNX's node tests
(test_onnx_backend.py): the node tests whose axes are a graph input run again with their axes as an initializer,
and dmlpy's results are compared with onnx.reference's for the axes as an attribute (before opset 18) and as an
input, keepdims 0 and 1, noop_with_empty_axes, select_last_index and a keepdims-0 result read by an element-wise
node; the refusals name the input, the axis or the rule."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.errors import InvalidArgumentError  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_reduction import axes_given_as_inputs  # noqa: E402

F32_EPS = 2.0**-23
BOUND_ULPS = 32
"""The float results are checked against onnx.reference's on the float64 input: within 32 float32 ULPs of it
relative, plus 32 ULPs of the sum of the terms' magnitudes absolute (a sum that cancels). REDUCE's own bounds
(docs/operators/reduction.md) are tighter for these few terms (at most 60); integers and indices exactly."""


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # building every operator's cases warns about their NumPy arithmetic
        return {case.name: case for case in load_model_tests(kind="node")}


AXES_GIVEN = axes_given_as_inputs(_node_cases())
EMPTY = "empty_set"
"""The node tests of an input with a dimension of 0 (DirectML has no empty tensors)."""


def _close(got: Any, model: Any, x: np.ndarray[Any, Any], expected: Any) -> None:
    """``got`` equals ``expected`` (integers, indices, MAX and MIN) or lies within BOUND_ULPS of the float64
    reference: the model run by onnx.reference on x in float64."""
    if got.dtype.kind == expected.dtype.kind == "i":
        # onnx.reference's ReduceSumSquare widens int32 to int64 (NumPy's sum); ONNX's schema keeps T.
        expected = expected.astype(got.dtype)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    if got.dtype.kind != "f" or np.array_equal(got, expected, equal_nan=True):
        np.testing.assert_array_equal(got, expected)
        return
    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    wide.graph.input[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    wide.graph.output[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    (reference,) = ReferenceEvaluator(wide).run(None, {wide.graph.input[0].name: x.astype(np.float64)})
    magnitude = np.sum(np.abs(x.astype(np.float64)))
    error = np.abs(got.astype(np.float64) - reference)
    assert np.all(error <= BOUND_ULPS * F32_EPS * (np.abs(reference) + magnitude)), (got, reference)


@pytest.mark.parametrize("name", sorted(name for name, word in AXES_GIVEN.items() if word == "initializer"))
def test_node_tests_with_their_axes_as_an_initializer_run(name: str) -> None:
    case = _node_cases()[f"test_{name}"]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, outputs), *_ = case.data_sets
    model.graph.initializer.append(numpy_helper.from_array(np.asarray(inputs[1]), "axes"))
    del model.graph.input[1:]
    if EMPTY in name:
        with pytest.raises(NodeRefused, match=r"Sizes\[1\] is 0 .*DirectML has no empty tensors"):
            DmlBackend.prepare(model).run(inputs[:1])
        return
    if inputs[0].dtype == np.float64 and "log_sum_exp" in name:
        with pytest.raises(NodeRefused, match=r"REDUCE.InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT64"):
            DmlBackend.prepare(model)
        return
    (got,) = DmlBackend.prepare(model).run(inputs[:1])
    _close(got, model, inputs[0], outputs[0])


def _model(node: Any, x: np.ndarray[Any, Any], axes: list[int] | None, opset: int) -> Any:
    initializers = [numpy_helper.from_array(np.array(axes, np.int64), "axes")] if axes is not None else []
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info(node.output[-1], TensorProto.UNDEFINED, None)],
        initializer=initializers,
    )
    graph.output[0].type.tensor_type.shape.SetInParent()
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _same_as_reference(model: Any, x: np.ndarray[Any, Any]) -> Any:
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = DmlBackend.prepare(model).run([x])
    _close(got, model, x, expected)
    return got


X = np.random.default_rng(44).uniform(0.5, 2.0, (3, 4, 5)).astype(np.float32)
"""Positive, so that every function (LogSum's log, Prod's product) is defined."""
REDUCE_OPS = (
    *("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2"),
    *("ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"),
)


@pytest.mark.parametrize("op_type", REDUCE_OPS)
@pytest.mark.parametrize("axes", [[1], [0, -1], None])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_matches_onnx_reference_with_axes_as_input_and_attribute(op_type: str, axes: Any, keepdims: int) -> None:
    """Opset 18 (the axes an initializer input; ReduceSum's from 13) and 13 (an attribute but for ReduceSum);
    left out, every axis."""
    node = helper.make_node(op_type, ["x", "axes"] if axes is not None else ["x"], ["y"], keepdims=keepdims)
    _same_as_reference(_model(node, X, axes, 18), X)
    attribute = {"axes": axes} if axes is not None and op_type != "ReduceSum" else {}
    inputs = ["x", "axes"] if axes is not None and op_type == "ReduceSum" else ["x"]
    older = helper.make_node(op_type, inputs, ["y"], keepdims=keepdims, **attribute)
    _same_as_reference(_model(older, X, axes if "axes" in inputs else None, 13), X)


def test_integer_reductions_are_exact_and_noop_with_empty_axes_copies() -> None:
    x = np.random.default_rng(1).integers(-100, 100, (4, 6), dtype=np.int32)
    for op_type in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceSumSquare"):
        node = helper.make_node(op_type, ["x", "axes"], ["y"], keepdims=0)
        _same_as_reference(_model(node, x, [1], 18), x)
    noop = helper.make_node("ReduceSum", ["x"], ["y"], noop_with_empty_axes=1)
    assert np.array_equal(_same_as_reference(_model(noop, x, None, 18), x), x)


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_max_and_min_give_int64_first_or_last_of_ties(op_type: str) -> None:
    x = np.array([[[1, 3, 3, 0], [2, 2, 0, 0], [5, 5, 5, 5]]], np.float32)
    for axis in (0, 1, -1):
        for keepdims in (0, 1):
            for last in (0, 1):
                node = helper.make_node(op_type, ["x"], ["y"], axis=axis, keepdims=keepdims, select_last_index=last)
                got = _same_as_reference(_model(node, x, None, 13), x)
                assert got.dtype == np.int64


def test_a_keepdims_0_result_feeds_an_element_wise_node_and_a_shaped_node() -> None:
    """The output keeps the reduced dimensions in DirectML (Sizes 1) and drops them in ONNX: the same bytes, so Exp
    reads it as it is, and Concat, which reads its ONNX shape, reads it through a view of those Sizes."""
    reduce = helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=0)
    exp = helper.make_node("Exp", ["m"], ["y"])
    graph = helper.make_graph(
        [reduce, exp],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])],
        initializer=[numpy_helper.from_array(np.array([1], np.int64), "axes")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    (got,) = DmlBackend.prepare(model).run([X])
    (expected,) = ReferenceEvaluator(model).run(None, {"x": X})
    assert got.shape == (3, 5)
    np.testing.assert_allclose(got, expected, rtol=BOUND_ULPS * F32_EPS)
    model.graph.node[1].CopyFrom(helper.make_node("Concat", ["m", "m"], ["y"], name="cat", axis=0))
    model.graph.output[0].CopyFrom(helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 5]))
    (got,) = DmlBackend.prepare(model).run([X])
    (expected,) = ReferenceEvaluator(model).run(None, {"x": X})
    assert got.shape == (6, 5)
    np.testing.assert_allclose(got, expected, rtol=BOUND_ULPS * F32_EPS)


def test_refusals_name_the_input_the_axis_and_the_rule() -> None:
    node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="r")
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4, 5]),
            helper.make_tensor_value_info("axes", TensorProto.INT64, [1]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(NodeRefused, match=r"'r' \(ReduceSum, opset 18\): its axes 'axes' is a graph input; .*Axes"):
        DmlBackend.prepare(model)
    for axes, rule in (([3], r"axis 3 is out of range for an input of rank 3"), ([1, -2], r"name an axis twice")):
        bad = helper.make_node("ReduceMax", ["x", "axes"], ["y"], name="r")
        with pytest.raises(InvalidArgumentError, match=rule):
            DmlBackend.prepare(_model(bad, X, axes, 18)).run([X])
    arg = helper.make_node("ArgMax", ["x"], ["y"], name="a", keepdims=2)
    with pytest.raises(InvalidArgumentError, match=r"'a' \(ArgMax, opset 18\): keepdims 2; ONNX takes 0 or 1"):
        DmlBackend.prepare(_model(arg, X, None, 18))
