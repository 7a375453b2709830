"""The view op types of dmlpy.onnx (Transpose, Reshape, Flatten, Squeeze, Unsqueeze, Expand: dmlpy/onnx/views.py):
no operator, the reader's tensor desc reads the value another way. ONNX's node tests that give their shape or axes
as a graph input run again with them as initializers; own models chain views of graph inputs, initializers and
computed values, against onnx.reference, bit for bit."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.loader import load_model_tests
from onnx.reference import ReferenceEvaluator

from dmlpy.errors import InvalidArgumentError
from dmlpy.onnx import DmlBackend
from dmlpy.onnx.elements import NodeRefused
from tests.helpers.onnx_views import EMPTY_VIEWS, VIEWS_GIVEN_AS_INPUTS

F = TensorProto.FLOAT
RNG = np.random.default_rng(46)


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {case.name: case for case in load_model_tests(kind="node")}


@pytest.mark.parametrize("name", VIEWS_GIVEN_AS_INPUTS)
def test_node_tests_with_their_shapes_as_initializers_run_exactly(name: str) -> None:
    case = _node_cases()[f"test_{name}"]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, outputs), *_ = case.data_sets
    for value, array in zip(model.graph.input[1:], inputs[1:], strict=True):
        model.graph.initializer.append(numpy_helper.from_array(np.asarray(array), value.name))
    del model.graph.input[1:]
    if name in EMPTY_VIEWS:
        with pytest.raises(NodeRefused, match="holds no element; DirectML has no empty tensors"):
            DmlBackend.prepare(model).run(inputs[:1])
        return
    (got,) = DmlBackend.prepare(model).run(inputs[:1])
    (want,) = outputs
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def _run(
    nodes: list[Any], inputs: dict[str, np.ndarray[Any, Any]], outputs: list[str], inits: list[Any], ulps: int = 0
) -> Any:
    """The model's outputs from dmlpy, checked against onnx.reference's (bit for bit, or within ``ulps`` units in
    the last place of float32 for a mean, summed in another order); the prepared model."""
    want = ReferenceEvaluator(_model(nodes, inputs, {name: None for name in outputs}, inits)).run(None, inputs)
    model = _model(nodes, inputs, {name: list(a.shape) for name, a in zip(outputs, want, strict=True)}, inits)
    rep = DmlBackend.prepare(model)
    got = rep.run(list(inputs.values()))
    for result, expected in zip(got, want, strict=True):
        assert result.shape == expected.shape
        np.testing.assert_array_max_ulp(result, expected, ulps)
    return rep


def _model(
    nodes: list[Any], inputs: dict[str, np.ndarray[Any, Any]], outputs: dict[str, list[int] | None], inits: list[Any]
) -> Any:
    graph = helper.make_graph(
        nodes,
        "views",
        [helper.make_tensor_value_info(n, F, list(a.shape)) for n, a in inputs.items()],
        [helper.make_tensor_value_info(n, F, shape) for n, shape in outputs.items()],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _ints(name: str, values: list[int]) -> Any:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def test_views_of_computed_values_graph_inputs_and_initializers_chain() -> None:
    """A transpose of a computed value read reshaped by Add; a graph input transposed, unsqueezed and expanded
    straight to an output (written by an Identity); a transposed initializer as a MatMul-free weight (Mul)."""
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    weight = RNG.standard_normal((4, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[2, 0, 1]),
        helper.make_node("Reshape", ["t", "s"], ["rs"]),
        helper.make_node("Add", ["rs", "bias"], ["y"]),
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("Unsqueeze", ["xt", "axis"], ["u"]),
        helper.make_node("Expand", ["u", "e"], ["z"]),
        helper.make_node("Flatten", ["t"], ["w"], axis=2),
        helper.make_node("Transpose", ["weight"], ["wt"]),
        helper.make_node("Mul", ["x", "wt"], ["m"]),
    ]
    inits = [
        _ints("s", [4, 6]),
        numpy_helper.from_array(RNG.standard_normal((4, 6)).astype(np.float32), "bias"),
        _ints("axis", [0]),
        _ints("e", [2, 1, 1, 1]),
        numpy_helper.from_array(weight, "weight"),
    ]
    _run(nodes, {"x": x}, ["y", "z", "w", "m"], inits)


def test_a_reduction_without_its_kept_dimensions_feeds_a_reshape_and_a_broadcast() -> None:
    """ReduceMean with keepdims 0 (computed with the kept 1s) read by Sub as a broadcast of another shape, and by
    Squeeze/Unsqueeze: the value computed with Sizes of its own is read through views."""
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[1], keepdims=0),
        helper.make_node("Unsqueeze", ["mean", "one"], ["col"]),
        helper.make_node("Sub", ["x", "col"], ["centred"]),
        helper.make_node("Sub", ["mean", "row"], ["shifted"]),
    ]
    inits = [_ints("one", [1]), numpy_helper.from_array(np.float32([[1.0], [2.0]]), "row")]
    _run(nodes, {"x": x}, ["centred", "shifted"], inits, ulps=2)


def test_malformed_views_are_refused_naming_the_rule() -> None:
    x = np.zeros((2, 3), np.float32)

    def run(node: Any, inits: list[Any], shape: list[int]) -> None:
        DmlBackend.prepare(_model([node], {"x": x}, {"y": shape}, inits)).run([x])

    with pytest.raises(InvalidArgumentError, match=r"perm is \[0, 0\]; it must hold each of 0 to 1 once"):
        run(helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0]), [], [2, 2])
    with pytest.raises(InvalidArgumentError, match=r"reshapes \[2, 3\] \(6 elements\) to \[4, 2\] \(8 elements\)"):
        run(helper.make_node("Reshape", ["x", "s"], ["y"]), [_ints("s", [4, 2])], [4, 2])
    with pytest.raises(InvalidArgumentError, match=r"does not broadcast to \[4, 3\]"):
        run(helper.make_node("Expand", ["x", "s"], ["y"]), [_ints("s", [4, 3])], [4, 3])
