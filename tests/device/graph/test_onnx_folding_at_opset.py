"""Shape arithmetic folded on the host at the model's own opset (dmlpy/onnx/folding.py): an opset-11 Unsqueeze
(axes an attribute; onnx.reference evaluates a bare node at the latest opset, where axes is an input) and a
declared intermediate shape of -1 (Paddle writes them; it hid the inferred shape) no longer stop a computed
Reshape shape from folding. ddddocr's and ppocr-v6-rec's form: Shape, Gather, Unsqueeze, Concat, Reshape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend  # noqa: E402

F = TensorProto.FLOAT


def _model(opset: int, declared_minus_one: bool) -> Any:
    """y = Reshape(Relu(x), [shape(x)[0], -1]) with the target computed from x's shape."""
    axes = {"axes": [0]} if opset < 13 else {}
    axes_input = [] if opset < 13 else ["zero_axis"]
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Shape", ["r"], ["s"]),
        helper.make_node("Gather", ["s", "first"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", *axes_input], ["n1"], **axes),
        helper.make_node("Concat", ["n1", "rest"], ["target"], axis=0),
        helper.make_node("Reshape", ["r", "target"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0, np.int64), "first"),
        numpy_helper.from_array(np.array([-1], np.int64), "rest"),
        numpy_helper.from_array(np.array([0], np.int64), "zero_axis"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, ["n", 3, 4])],
        [helper.make_tensor_value_info("y", F, ["n", 12])],
        initializer=initializers,
    )
    if declared_minus_one:
        graph.value_info.append(helper.make_tensor_value_info("r", F, [-1, 3, 4]))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize(("opset", "declared_minus_one"), [(11, False), (12, True), (13, False)])
def test_a_computed_reshape_folds_at_the_models_opset(device: Any, opset: int, declared_minus_one: bool) -> None:
    model = _model(opset, declared_minus_one)
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(got, want)
