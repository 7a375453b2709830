"""dmlpy.onnx.dask.run_dask: a prepared model over Dask arrays, the batch in chunks, lazily; the same values as one
run on the whole batch (and as onnx.reference), under the threaded scheduler (tests/device/scale/test_dask_cluster.py
runs it on worker processes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import dmlpy.onnx
from dmlpy.errors import InvalidArgumentError
from dmlpy.onnx.dask import run_dask

da = pytest.importorskip("dask.array")


def _model() -> onnx.ModelProto:
    """x [N, 3] and y [N, 3] in; Relu(x) * w and x + y out (two outputs, a weight initializer)."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Mul", ["r", "w"], ["scaled"]),
        helper.make_node("Add", ["x", "y"], ["sum"]),
    ]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 3]) for n in ("x", "y")]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["N", 3]) for n in ("scaled", "sum")]
    weight = numpy_helper.from_array(np.float32([0.5, 2.0, -1.0]), "w")
    graph = helper.make_graph(nodes, "g", inputs, outputs, [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _check(results: Any, x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], model: onnx.ModelProto) -> None:
    want = ReferenceEvaluator(model).run(None, {"x": x, "y": y})
    for got, expected in zip(results, want, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_chunks_of_a_batch_run_lazily_and_give_one_runs_values() -> None:
    model = _model()
    rep = dmlpy.onnx.prepare(model)
    rng = np.random.default_rng(46)
    x, y = rng.standard_normal((10, 3)).astype(np.float32), rng.standard_normal((10, 3)).astype(np.float32)
    lazy = run_dask(rep, [da.from_array(x, chunks=(4, 3)), da.from_array(y, chunks=(4, 3))])
    assert [part.chunks[0] for part in lazy] == [(4, 4, 2), (4, 4, 2)]
    computed = [part.compute(scheduler="threads") for part in lazy]
    _check(computed, x, y, model)
    for got, whole in zip(computed, rep.run([x, y]), strict=True):
        np.testing.assert_array_equal(got, whole)


def test_inputs_chunked_differently_along_the_batch_are_refused() -> None:
    rep = dmlpy.onnx.prepare(_model())
    x, y = da.zeros((6, 3), chunks=(2, 3), dtype=np.float32), da.zeros((6, 3), chunks=(3, 3), dtype=np.float32)
    with pytest.raises(InvalidArgumentError, match="chunked differently"):
        run_dask(rep, [x, y])
    with pytest.raises(InvalidArgumentError, match=r"graph inputs are \['x', 'y'\]"):
        run_dask(rep, [x])
