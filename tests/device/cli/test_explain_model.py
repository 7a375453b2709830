"""`dmlpy explain model.onnx`: what an ONNX model becomes in DirectML (dmlpy.onnx.explained), counted against the
model itself: its operator nodes, kernels, views, and the picture of the graph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tests.helpers.cli import Run, assert_one_line_error


def _model(path: Path, batch: int | str = 1) -> Path:
    """Transpose and Reshape (views, no node), Relu, a ReduceMean read broadcast by Sub, then Mul."""
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Relu", ["t"], ["r"]),
        helper.make_node("Reshape", ["r", "s"], ["rs"]),
        helper.make_node("ReduceMean", ["rs"], ["m"], axes=[1], keepdims=1),
        helper.make_node("Sub", ["rs", "m"], ["c"]),
        helper.make_node("Mul", ["c", "c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])],
        [numpy_helper.from_array(np.array([2, 6], np.int64), "s")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_a_model_is_explained_as_the_directml_graph_it_becomes(run: Run, tmp_path: Path) -> None:
    model, picture = _model(tmp_path / "small.onnx"), tmp_path / "small.svg"
    result = run("explain", str(model), "--svg", str(picture))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "// ONNX model of 6 nodes, for inputs x [1, 3, 4]:"
    assert lines[1].startswith("// a DML_GRAPH_DESC of 4 operator nodes, 3 kernels (1 fused, of 2 nodes)")
    counts = lines[lines.index("DirectML operators (nodes):") + 1 : lines.index("DirectML operators (nodes):") + 5]
    assert sorted(counts) == sorted(
        ["  ACTIVATION_RELU: 1", "  REDUCE: 1", "  ELEMENT_WISE_SUBTRACT: 1", "  ELEMENT_WISE_MULTIPLY: 1"]
    )
    assert "ONNX nodes that became views, no node at all: 2 (Transpose 1, Reshape 1)" in lines
    assert "  3. Nodes[2] (ELEMENT_WISE_SUBTRACT) -> Nodes[3] (ELEMENT_WISE_MULTIPLY) (fused)" in lines
    assert lines[-1] == f"// picture written to {picture}"
    assert picture.read_text(encoding="utf-8").startswith("<svg")


def test_a_shape_the_graph_leaves_open_is_asked_for(run: Run, tmp_path: Path) -> None:
    model = _model(tmp_path / "open.onnx", batch="N")
    assert_one_line_error(
        run("explain", str(model)), 1, "ONNX graph input 'x' is declared of shape ['N', 3, 4]", "--shape x="
    )
    result = run("explain", str(model), "--shape", "x=1,3,4")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "// ONNX model of 6 nodes, for inputs x [1, 3, 4]:"
    assert_one_line_error(run("explain", str(model), "--shape", "x=1,zero"), 2, "--shape 'x=1,zero': give NAME=D,D")


def test_a_model_whose_shapes_are_computed_is_explained_as_it_runs(tmp_path: Path) -> None:
    """torch's flatten (Shape, Gather, Unsqueeze, Concat, Reshape): folded on the host as a run folds it, so the
    explained graph is the run's, one ACTIVATION_RELU node and the Reshape a view."""
    import dmlpy.onnx
    from dmlpy.onnx.explained import explain_model

    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "axes"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 12])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    explained = explain_model(dmlpy.onnx.prepare(model), {"x": (2, 3, 4)})
    assert dict(explained.operators) == {"ACTIVATION_RELU": 1}
    assert len(explained.plan.steps) == 1
