"""ONNX's normalization and indexing op types (dmlpy.onnx.normalization, dmlpy.onnx.indexing) beyond the runner
of ONNX's node tests (test_onnx_backend.py): the node tests whose K, axis or depth is a graph input run again with it
as an initializer, and dmlpy's results are compared with onnx.reference's (float64 for the normalizations, exact
for the indexing op types) where the node tests leave forms out: statistics as initializers, LayerNormalization
with one output, axes and negative indices, INT32 indices from an initializer, batch_dims, TopK's smallest,
CumSum's exclusive and reverse; the refusals say why."""

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

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.device.normalization.lrn_cases import lrn_reference  # noqa: E402
from tests.helpers.onnx_normalization_indexing import FIELD_GIVEN_AS_INPUT, NORMALIZED_ULPS  # noqa: E402

BOUND = NORMALIZED_ULPS * 2.0**-23
"""A float32 normalization within 64 float32 ULPs of 1 of onnx.reference's float64 result, relative and absolute
(the runner's bound: tests/helpers/onnx_normalization_indexing.py)."""
RNG = np.random.default_rng(44)


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {case.name.removeprefix("test_"): case for case in load_model_tests(kind="node")}


FIELD_CASES = sorted(
    name
    for name in _node_cases()
    if name.startswith(tuple(FIELD_GIVEN_AS_INPUT)) and "_expanded" not in name and "bfloat16" not in name
)
FIELD_REFUSED = {
    **{f"cumsum_{form}": "FLOAT64" for form in ("1d", "1d_exclusive", "1d_reverse", "1d_reverse_exclusive")},
    **{f"cumsum_2d_{form}": "FLOAT64" for form in ("axis_0", "axis_1", "negative_axis")},
    "onehot_with_axis": "IndicesTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32",
    "onehot_with_negative_axis": "IndicesTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32",
}
"""With the field an initializer, the ones DirectML's tables refuse: CumSum of DOUBLE (CUMULATIVE_SUMMATION has no
FLOAT64) and OneHot of float indices (ONE_HOT's indices are integers)."""


@pytest.mark.parametrize("name", FIELD_CASES)
def test_node_tests_with_their_field_as_an_initializer_run(name: str) -> None:
    case = _node_cases()[name]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, outputs), *_ = case.data_sets
    inputs = list(inputs)
    field = model.graph.input[1].name
    model.graph.initializer.append(numpy_helper.from_array(np.asarray(inputs.pop(1)), field))
    del model.graph.input[1]
    if name in FIELD_REFUSED:
        with pytest.raises(NodeRefused, match=FIELD_REFUSED[name]):
            DmlBackend.prepare(model).run(inputs)
        return
    got = DmlBackend.prepare(model).run(inputs)
    for value, expected in zip(got, outputs, strict=True):
        assert value.dtype == expected.dtype and value.shape == expected.shape, (value.dtype, value.shape)
        np.testing.assert_array_equal(value, expected)


def _model(node: Any, inputs: dict[str, np.ndarray[Any, Any]], initializers: dict[str, Any], opset: int = 21) -> Any:
    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [node],
        "g",
        [value(name, helper.np_dtype_to_tensor_dtype(x.dtype), list(x.shape)) for name, x in inputs.items()],
        [],
        [numpy_helper.from_array(np.asarray(x), name) for name, x in initializers.items()],
    )
    # The outputs' types and shapes as ONNX's shape inference gives them.
    inferred = onnx.shape_inference.infer_shapes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    )
    typed = {value.name: value for value in inferred.graph.value_info}
    # Where inference gives none (a refused form): a float of the first input's shape.
    like = list(next(iter(inputs.values())).shape)
    floats = helper.make_tensor_value_info
    inferred.graph.output.extend(typed.get(name, floats(name, TensorProto.FLOAT, like)) for name in node.output)
    del inferred.graph.value_info[:]
    return inferred


def _wide(model: Any) -> Any:
    """``model`` with every float32 value float64: onnx.reference's result in float64."""
    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    for value in (*wide.graph.input, *wide.graph.output):
        if value.type.tensor_type.elem_type == TensorProto.FLOAT:
            value.type.tensor_type.elem_type = TensorProto.DOUBLE
    for index, tensor in enumerate(wide.graph.initializer):
        array = numpy_helper.to_array(tensor)
        if array.dtype == np.float32:
            wide.graph.initializer[index].CopyFrom(numpy_helper.from_array(array.astype(np.float64), tensor.name))
    return wide


def _normalized(node: Any, x: np.ndarray[Any, Any], initializers: dict[str, Any], opset: int = 21) -> None:
    model = _model(node, {"x": x}, initializers, opset)
    (got,) = DmlBackend.prepare(model).run([x])
    (want,) = ReferenceEvaluator(_wide(model)).run(None, {"x": x.astype(np.float64)})
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.all(np.abs(got - want) <= BOUND * (1 + np.abs(want))), np.max(np.abs(got - want))


def _channels(c: int) -> np.ndarray[Any, Any]:
    return RNG.uniform(0.5, 2.0, c).astype(np.float32)


def test_batch_normalization_reads_its_statistics_per_channel_from_initializers() -> None:
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    names = ("scale", "b", "mean", "var")
    node = helper.make_node("BatchNormalization", ["x", *names], ["y"], epsilon=1e-3)
    _normalized(node, x, {name: _channels(3) for name in names})


def test_instance_layer_and_mean_variance_normalization_take_their_axes() -> None:
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32) * 3 + 1
    # onnx.reference's InstanceNormalization adds a float32 epsilon to float64 statistics, which it refuses: NumPy.
    node = helper.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-4)
    scale, bias = _channels(3), _channels(3)
    (got,) = DmlBackend.prepare(_model(node, {"x": x}, {"s": scale, "b": bias})).run([x])
    wide, per_channel = x.astype(np.float64), (1, 3, 1, 1)
    mean, variance = wide.mean(axis=(2, 3), keepdims=True), wide.var(axis=(2, 3), keepdims=True)
    want = scale.reshape(per_channel) * (wide - mean) / np.sqrt(variance + 1e-4) + bias.reshape(per_channel)
    assert np.all(np.abs(got - want) <= BOUND * (1 + np.abs(want)))
    for axis, bias in ((1, True), (-2, False), (0, True)):
        inputs = ["x", "w", "b"] if bias else ["x", "w"]
        node = helper.make_node("LayerNormalization", inputs, ["y"], axis=axis)
        weights = RNG.uniform(0.5, 2, x.shape[axis:]).astype(np.float32)
        _normalized(node, x, {"w": weights, "b": weights[::-1].copy()} if bias else {"w": weights})
    # onnx.reference runs MeanVarianceNormalization's body, whose float32 constants refuse float64: NumPy, the
    # body's (x - mean) / (sqrt(variance) + 1e-9).
    wide = x.astype(np.float64)
    for axes in ([0, 2, 3], [1], [-1, -2]):
        node = helper.make_node("MeanVarianceNormalization", ["x"], ["y"], axes=axes)
        (got,) = DmlBackend.prepare(_model(node, {"x": x}, {}, 13)).run([x])
        mean, deviation = wide.mean(axis=tuple(axes), keepdims=True), wide.std(axis=tuple(axes), keepdims=True)
        want = (wide - mean) / (deviation + 1e-9)
        assert np.all(np.abs(got - want) <= BOUND * (1 + np.abs(want))), axes


def test_lp_normalization_and_lrn() -> None:
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    x[:, 1, :] = 0  # a norm of 0: onnx.reference's 0
    # onnx.reference's L1 norm sums the signed values (ONNX's is the sum of |x|): the float64 formula here.
    for p, axis in ((1, 1), (2, 1), (2, 0), (1, -1)):
        node = helper.make_node("LpNormalization", ["x"], ["y"], p=p, axis=axis)
        (got,) = DmlBackend.prepare(_model(node, {"x": x}, {})).run([x])
        norm = np.sum(np.abs(x.astype(np.float64)) ** p, axis=axis, keepdims=True) ** (1 / p)
        want = np.divide(x, norm, out=np.zeros(x.shape), where=norm != 0)
        assert np.all(np.abs(got - want) <= BOUND * (1 + np.abs(want))), (p, axis)
    # onnx.reference's LRN walks dimension 0 where it means the channels (test_lrn.py): the float64 formula here.
    x = RNG.standard_normal((2, 5, 3, 3)).astype(np.float32)
    node = helper.make_node("LRN", ["x"], ["y"], size=3, alpha=0.01, beta=0.6, bias=1.5)
    (got,) = DmlBackend.prepare(_model(node, {"x": x}, {})).run([x])
    want = lrn_reference(x.astype(np.float64), True, 3, 0.01, 0.6, 1.5)
    assert np.all(np.abs(got - want) <= BOUND * (1 + np.abs(want)))


def _exactly(node: Any, inputs: dict[str, np.ndarray[Any, Any]], initializers: dict[str, Any], opset: int = 21) -> None:
    model = _model(node, inputs, initializers, opset)
    got = DmlBackend.prepare(model).run(list(inputs.values()))
    want = ReferenceEvaluator(model).run(None, inputs)
    for value, expected in zip(got, want, strict=True):
        assert value.dtype == expected.dtype and value.shape == expected.shape, (value.shape, expected.shape)
        np.testing.assert_array_equal(value, expected)


def test_gathers_take_indices_from_initializers_and_graph_inputs() -> None:
    data = RNG.integers(-100, 100, (3, 4, 5)).astype(np.float32)
    for indices, axis in ((np.array([[2, -1], [0, 1]], np.int32), 1), (np.array(-2, np.int64), 2)):
        node = helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)
        _exactly(node, {"x": data}, {"i": indices})
        _exactly(node, {"x": data, "i": indices}, {})
    # GATHER_ELEMENTS takes indices of the data's Sizes but along the axis (ONNX allows smaller ones: refused).
    indices = RNG.integers(-3, 3, (2, 4, 5)).astype(np.int64)
    _exactly(helper.make_node("GatherElements", ["x", "i"], ["y"], axis=0), {"x": data, "i": indices}, {})
    tuples = np.array([[[1, 2], [0, -1]], [[2, 0], [1, 1]], [[0, 0], [3, 4]]], np.int64)
    _exactly(helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=1), {"x": data, "i": tuples[..., :1]}, {})
    _exactly(helper.make_node("GatherND", ["x", "i"], ["y"]), {"x": data, "i": tuples[:2, :, :1]}, {})


def test_scatters_one_hot_top_k_and_cumulative_sums() -> None:
    data = RNG.integers(-100, 100, (4, 3)).astype(np.int32)
    updates = RNG.integers(-9, 9, (2, 3)).astype(np.int32)
    indices = np.array([[3, -4, 1], [0, 2, -1]], np.int64)
    node = helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0)
    _exactly(node, {"x": data, "i": indices, "u": updates}, {})
    node = helper.make_node("ScatterND", ["x", "i", "u"], ["y"])
    _exactly(node, {"x": data, "i": np.array([[2], [0]], np.int64), "u": updates}, {})
    node = helper.make_node("OneHot", ["i", "depth", "v"], ["y"], axis=0)
    values = np.array([-1.5, 4.0], np.float32)
    _exactly(node, {"i": np.array([[0, -1, 4], [2, 7, -6]], np.int64)}, {"depth": np.array(5), "v": values})
    x = RNG.standard_normal((3, 6, 2)).astype(np.float32)
    for largest in (0, 1):
        node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)
        _exactly(node, {"x": x}, {"k": np.array([4], np.int64)})
    for exclusive, reverse in ((0, 0), (1, 0), (0, 1), (1, 1)):
        node = helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
        _exactly(node, {"x": data}, {"axis": np.array(-2, np.int32)})


def test_what_directml_cannot_express_is_refused_at_prepare_saying_why() -> None:
    x = np.zeros((1, 2, 3, 3), np.float32)
    c = np.ones(2, np.float32)
    stats = {"s": c, "b": c, "m": c, "v": c}
    refused = [
        (helper.make_node("BatchNormalization", ["x", *stats], ["y"], training_mode=1), stats, "training_mode 1"),
        (helper.make_node("LayerNormalization", ["x", "s"], ["y", "mean"], axis=1), {"s": c}, "InvStdDev"),
        (helper.make_node("LpNormalization", ["x"], ["y"], p=3), {}, "P 1 or 2"),
    ]
    node = helper.make_node("ScatterElements", ["x", "i", "x"], ["y"], reduction="add")
    refused.append((node, {"i": np.zeros((1, 2, 3, 3), np.int64)}, "reduction 'add'"))
    for node, initializers, why in refused:
        with pytest.raises(NodeRefused, match=why):
            DmlBackend.prepare(_model(node, {"x": x}, initializers))
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    with pytest.raises(NodeRefused, match=r"its K 'k' is a graph input.*give the K as an initializer"):
        DmlBackend.prepare(_model(node, {"x": x, "k": np.array([1], np.int64)}, {}))
