"""ONNX's If decided on the host (dmlpy/onnx/branches.py): a condition computed from graph inputs' values (a
sample rate given as an input, as silero-vad's; a ReduceMax of an input) is computed at each run, the taken branch
lowered inline between element-wise nodes, one compiled graph per set of shapes and condition values; the results
are onnx.reference's. A condition that depends on what the model's weights compute is refused, saying why."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.graph import Graph  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from dmlpy.onnx.backend import lower_for  # noqa: E402

F, I64 = TensorProto.FLOAT, TensorProto.INT64
RNG = np.random.default_rng(46)


def _branches() -> tuple[Any, Any]:
    """then: x * 2 + the outer value r; else: Relu(x) - r (r computed outside the If, read by both)."""
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    then = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["m"]), helper.make_node("Add", ["m", "r"], ["t_out"])],
        "then",
        [],
        [helper.make_tensor_value_info("t_out", F, None)],
        initializer=[two],
    )
    otherwise = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["e_relu"]), helper.make_node("Sub", ["e_relu", "r"], ["e_out"])],
        "else",
        [],
        [helper.make_tensor_value_info("e_out", F, None)],
    )
    return then, otherwise


def _model(cond_nodes: list[Any], inputs: list[Any], initializers: Sequence[Any] = ()) -> Any:
    then, otherwise = _branches()
    nodes = [
        helper.make_node("Neg", ["x"], ["r"]),
        *cond_nodes,
        helper.make_node("If", ["cond"], ["picked"], then_branch=then, else_branch=otherwise),
        helper.make_node("Abs", ["picked"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g", inputs, [helper.make_tensor_value_info("y", F, [2, 3])], initializer=list(initializers)
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _sample_rate_model() -> Any:
    """cond = (sr == 16000), sr an INT64 scalar graph input (silero-vad's form: Reshape, Gather, Equal)."""
    initializers = [
        numpy_helper.from_array(np.array([1], np.int64), "one_shape"),
        numpy_helper.from_array(np.array(0, np.int64), "first"),
        numpy_helper.from_array(np.array(16000, np.int64), "rate"),
    ]
    cond_nodes = [
        helper.make_node("Reshape", ["sr", "one_shape"], ["sr1"]),
        helper.make_node("Gather", ["sr1", "first"], ["sr0"]),
        helper.make_node("Equal", ["sr0", "rate"], ["cond"]),
    ]
    inputs = [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("sr", I64, [])]
    return _model(cond_nodes, inputs, initializers)


def test_a_condition_on_an_input_value_takes_its_branch_at_each_run(device: Any) -> None:
    model = _sample_rate_model()
    rep = DmlBackend.prepare(model, dml_device=device)
    reference = ReferenceEvaluator(model)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for rate in (16000, 8000, 16000, 8000):
        sr = np.array(rate, np.int64)
        (got,) = rep.run([x, sr])
        (want,) = reference.run(None, {"x": x, "sr": sr})
        np.testing.assert_array_equal(got, want)  # each branch's steps are exact or correctly rounded, as NumPy's
    assert len(rep.compiled_graphs) == 2  # one per condition value, reused


def test_a_condition_computed_from_an_input_on_the_host(device: Any) -> None:
    """cond = ReduceMax(x) > 0: x's values decide it at each run; x is also the branches' operand on the device."""
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    cond_nodes = [
        helper.make_node("ReduceMax", ["x"], ["top"], keepdims=0),
        helper.make_node("Greater", ["top", "zero"], ["cond"]),
    ]
    model = _model(cond_nodes, [helper.make_tensor_value_info("x", F, [2, 3])], [zero])
    rep = DmlBackend.prepare(model, dml_device=device)
    for x in (RNG.standard_normal((2, 3)).astype(np.float32), -np.abs(RNG.standard_normal((2, 3))).astype(np.float32)):
        (got,) = rep.run([x])
        (want,) = ReferenceEvaluator(model).run(None, {"x": x})
        np.testing.assert_array_equal(got, want)


def test_a_condition_on_what_the_weights_compute_is_refused_saying_why() -> None:
    """cond = ReduceSum(MatMul(x, w)) > 0 with w a weight of 4100 elements (more than the host reads)."""
    weight = numpy_helper.from_array(RNG.standard_normal((3, 4100 // 3 + 1)).astype(np.float32), "w")
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    cond_nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"]),
        helper.make_node("ReduceSum", ["p"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["cond"]),
    ]
    model = _model(cond_nodes, [helper.make_tensor_value_info("x", F, [2, 3])], [weight, zero])
    with pytest.raises(NodeRefused, match=r"\(If\): its condition reads 'w', a weight of more than 4096 elements"):
        DmlBackend.prepare(model)


def test_a_condition_on_another_ifs_output_is_refused_saying_why() -> None:
    then, otherwise = _branches()
    inner = helper.make_node("If", ["c0"], ["picked0"], then_branch=then, else_branch=otherwise)
    model = _sample_rate_model()
    nodes = list(model.graph.node)
    cond_index = next(i for i, n in enumerate(nodes) if n.op_type == "Equal")
    nodes[cond_index].output[0] = "c0"
    nodes.insert(cond_index + 1, inner)
    nodes.insert(cond_index + 2, helper.make_node("ReduceMax", ["picked0"], ["m0"], keepdims=0))
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    nodes.insert(cond_index + 3, helper.make_node("Greater", ["m0", "zero"], ["cond"]))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.graph.initializer.append(zero)
    with pytest.raises(
        NodeRefused, match=r"its condition 'cond' depends on 'picked0', an output of a node of op type If"
    ):
        DmlBackend.prepare(model)


def test_an_if_left_undecided_where_no_values_are_given_says_why() -> None:
    """``dmlpy explain`` and ``run_dask`` lower for shapes alone (backend.lower_for): an If the values decide stays
    undecided there, and the refusal says why."""
    rep = DmlBackend.prepare(_sample_rate_model())
    with pytest.raises(NodeRefused, match=r"If: 1 node, .*no control flow: an If runs where the input shapes or"):
        lower_for(rep, Graph(rep.device.feature_level), {"x": (2, 3), "sr": ()})
