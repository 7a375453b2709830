"""`dmlpy run MODEL.onnx --input NAME=FILE.npy`: the model's outputs written as .npy files, against onnx.reference;
nothing replaced without --force, every input named, a model's output names never a path."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from dmlpy.cli.run import output_file_name
from tests.helpers.cli import Run, assert_one_line_error


def _model(path: Path) -> Path:
    """Two outputs, one with a name that would be a path: Relu, and Relu + y."""
    nodes = [helper.make_node("Relu", ["x"], ["../relu out"]), helper.make_node("Add", ["../relu out", "y"], ["sum"])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("x", "y")]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("../relu out", "sum")]
    model = helper.make_model(
        helper.make_graph(nodes, "g", inputs, outputs), opset_imports=[helper.make_opsetid("", 17)]
    )
    onnx.save(model, path)
    return path


def test_a_model_runs_on_npy_files_and_writes_each_output(run: Run, tmp_path: Path) -> None:
    model = _model(tmp_path / "m.onnx")
    x, y = np.float32([[-1, 2, -3], [4, -5, 6]]), np.float32([[0.5] * 3, [1.5] * 3])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    out = tmp_path / "out"
    out.mkdir()
    arguments = ("run", str(model), "--input", f"x={tmp_path / 'x.npy'}", "--input", f"y={tmp_path / 'y.npy'}")
    result = run(*arguments, "--output-dir", str(out))
    assert result.returncode == 0, result.stderr
    relu, total = ReferenceEvaluator(str(model)).run(None, {"x": x, "y": y})
    assert sorted(p.name for p in out.iterdir()) == ["_relu_out.npy", "sum.npy"]  # no path out of the folder
    np.testing.assert_array_equal(np.load(out / "_relu_out.npy"), relu)
    np.testing.assert_array_equal(np.load(out / "sum.npy"), total)
    assert "sum: float32 [2, 3] ->" in result.stdout and "// ran it on" in result.stderr
    before = (out / "sum.npy").read_bytes()
    assert_one_line_error(run(*arguments, "--output-dir", str(out)), 2, "exists; refusing to replace it")
    assert (out / "sum.npy").read_bytes() == before
    assert run(*arguments, "--output-dir", str(out), "--force").returncode == 0


def test_every_graph_input_is_named_and_only_those(run: Run, tmp_path: Path) -> None:
    model = _model(tmp_path / "m.onnx")
    np.save(tmp_path / "x.npy", np.zeros((2, 3), np.float32))
    x = f"x={tmp_path / 'x.npy'}"
    assert_one_line_error(
        run("run", str(model), "--input", x), 2, "its graph inputs are ['x', 'y']; no --input for ['y']"
    )
    assert_one_line_error(
        run("run", str(model), "--input", x, "--input", f"z={tmp_path / 'x.npy'}"), 2, "no --input for ['y']", "['z']"
    )
    assert_one_line_error(run("run", str(model), "--input", "x"), 2, "--input 'x': give NAME=FILE.npy")
    assert not list(tmp_path.glob("*.npy"))[1:], "nothing written"


def test_output_names_become_file_names_in_the_folder() -> None:
    assert output_file_name("../../etc/passwd") == "_.._etc_passwd.npy"
    assert output_file_name("...") == "output.npy"
    assert output_file_name("logits:0") == "logits_0.npy"
