"""dmlpy.onnx.folding: shape arithmetic folded on the host for known input shapes, against onnx.reference running
the whole model; what reads a graph input's values, or is large, stays a device node."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from dmlpy.onnx.folding import SMALL, fold

F = TensorProto.FLOAT


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any] | None = None) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, inits or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _ints(name: str, values: list[int]) -> Any:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def test_a_flatten_written_as_shape_arithmetic_folds_to_a_reshape_of_a_constant_shape() -> None:
    """torch.flatten(x, 1) as torch exports it: Shape, Gather, Unsqueeze, Concat, Reshape; then Relu."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"), _ints("axes", [0]), _ints("minus_one", [-1])]
    x_info = helper.make_tensor_value_info("x", F, ["N", 3, 4])
    model = _model(nodes, [x_info], [helper.make_tensor_value_info("y", F, ["N", 12])], inits)
    folded = fold(model, {"x": (2, 3, 4)})
    assert [node.op_type for node in folded.graph.node] == ["Reshape", "Relu"]
    shape = next(t for t in folded.graph.initializer if t.name == "shape")
    assert numpy_helper.to_array(shape).tolist() == [2, -1]
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    (got,) = ReferenceEvaluator(folded).run(None, {"x": x})
    np.testing.assert_array_equal(got, want)
    assert model.graph.node[0].op_type == "Shape", "the model given is left as it was"


def test_constants_constant_of_shape_and_a_known_if_fold_and_device_work_stays() -> None:
    """Constant and ConstantOfShape of a known shape fold (the mask whatever its size); an If on a folded
    condition takes its branch; Mul of a graph input and MatMul of a large initializer stay device nodes."""
    big = numpy_helper.from_array(np.ones((SMALL + 1,), np.float32), "big")
    then_graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", F, None)]
    )
    else_graph = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", F, None)]
    )
    nodes = [
        helper.make_node("Constant", [], ["two"], value=numpy_helper.from_array(np.array(2.0, np.float32))),
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node(
            "ConstantOfShape", ["s"], ["mask"], value=numpy_helper.from_array(np.array([1.0], np.float32))
        ),
        helper.make_node("Size", ["x"], ["count"]),
        helper.make_node("Greater", ["count", "limit"], ["wide"]),
        helper.make_node("If", ["wide"], ["branch"], then_branch=then_graph, else_branch=else_graph),
        helper.make_node("Mul", ["branch", "two"], ["scaled"]),
        helper.make_node("Add", ["scaled", "mask"], ["y"]),
        helper.make_node("Mul", ["big", "big"], ["large"]),
    ]
    inits = [numpy_helper.from_array(np.array(5, np.int64), "limit"), big]
    outputs = [helper.make_tensor_value_info("y", F, [2, 4]), helper.make_tensor_value_info("large", F, [SMALL + 1])]
    model = _model(nodes, [helper.make_tensor_value_info("x", F, [2, 4])], outputs, inits)
    folded = fold(model, {"x": (2, 4)})
    assert [node.op_type for node in folded.graph.node] == ["Neg", "Identity", "Mul", "Add", "Mul"]
    # Weights are never copied on the host: the folded model keeps the large initializer's name, dims and type only.
    stub = next(tensor for tensor in folded.graph.initializer if tensor.name == "big")
    assert list(stub.dims) == [SMALL + 1] and not stub.raw_data and not stub.float_data
    stub.CopyFrom(big)
    x = np.arange(8, dtype=np.float32).reshape(2, 4) - 3
    want = ReferenceEvaluator(model).run(None, {"x": x})
    got = ReferenceEvaluator(folded).run(None, {"x": x})
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert onnx.checker.check_model(folded) is None
