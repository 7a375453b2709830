"""ONNX's movement op types (issue 44: Slice, Split, Concat, Pad, Tile, SpaceToDepth, DepthToSpace) beyond the runner
of ONNX's node tests (test_onnx_backend.py): the node tests whose fields are graph inputs run again with those inputs
as initializers, and dmlpy's results are compared exactly with onnx.reference's for Slice's clamping and negative
steps, Split's three forms, Pad's modes and a chain of the seven; the refusals name the input, the axis or the rule."""

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

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_movement import EMPTY_WITH_INITIALIZERS, MOVEMENT_GIVEN_AS_INPUTS  # noqa: E402

F = TensorProto.FLOAT
INT64_MAX, INT64_MIN = 2**63 - 1, -(2**63)


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # building every operator's cases warns about their NumPy arithmetic
        return {case.name: case for case in load_model_tests(kind="node")}


def _fields_as_initializers(case: Any) -> tuple[Any, list[Any], list[Any]]:
    """The node test's model with every graph input but the data (the first) made an initializer of the value its
    first data set gives, that data set's data input and its expected outputs."""
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, outputs), *_ = case.data_sets
    graph = model.graph
    for value, array in zip(graph.input[1:], inputs[1:], strict=True):
        graph.initializer.append(numpy_helper.from_array(np.asarray(array), value.name))
    del graph.input[1:]
    return model, list(inputs[:1]), list(outputs)


@pytest.mark.parametrize("name", MOVEMENT_GIVEN_AS_INPUTS)
def test_node_tests_with_their_fields_as_initializers_run_exactly(name: str) -> None:
    model, inputs, expected = _fields_as_initializers(_node_cases()[f"test_{name}"])
    if name in EMPTY_WITH_INITIALIZERS:
        with pytest.raises(NodeRefused, match=r"along axis \d, an empty tensor; DirectML has no empty tensors"):
            DmlBackend.prepare(model).run(inputs)
        return
    got = DmlBackend.prepare(model).run(inputs)
    assert len(got) == len(expected)
    for result, want in zip(got, expected, strict=True):
        assert result.dtype == want.dtype and result.shape == want.shape, (result, want)
        np.testing.assert_array_equal(result, want)


# ------------------------------------------------------------------------------------------------ own models


def _model(nodes: list[Any], x: np.ndarray[Any, Any], outputs: list[str], fields: dict[str, Any], opset: int) -> Any:
    """A model of ``nodes`` on the graph input x, ``fields`` as initializers (int64 unless already arrays)."""
    initializers = [
        numpy_helper.from_array(value if isinstance(value, np.ndarray) else np.array(value, np.int64), name)
        for name, value in fields.items()
    ]
    elem = helper.np_dtype_to_tensor_dtype(x.dtype)
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info(name, elem, None) for name in outputs],
        initializer=initializers,
    )
    # onnx.checker asks every graph output for a shape: a rank's worth of symbols, as the outputs' are unknown here.
    for value in graph.output:
        value.type.tensor_type.shape.SetInParent()
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _same_as_reference(model: Any, x: np.ndarray[Any, Any]) -> list[Any]:
    want = ReferenceEvaluator(model).run(None, {"x": x})
    got = DmlBackend.prepare(model).run([x])
    for result, expected in zip(got, want, strict=True):
        assert result.dtype == expected.dtype and result.shape == expected.shape, (result.shape, expected.shape)
        np.testing.assert_array_equal(result, expected)
    return list(got)


X = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)

SLICES = [
    # starts, ends, axes, steps: ONNX's clamping (INT_MAX and INT64_MIN ends, starts past either end), negative
    # starts, ends and axes, negative steps of 1 and more, steps larger than the axis.
    ([1, 0], [INT64_MAX, 3], [0, 2], [1, 1]),
    ([-1], [INT64_MIN], [1], [-1]),
    ([-10, -10], [-1, 10], [0, 2], [1, 2]),
    ([3, 4, 5], [-10, 0, -7], [0, 1, 2], [-2, -3, -1]),
    ([2], [1000], [-1], [7]),
    ([100], [-100], [-3], [-1]),
    ([-2, 1], [INT64_MAX, 4], [-1, -2], [1, 2]),
]


@pytest.mark.parametrize(("starts", "ends", "axes", "steps"), SLICES)
def test_slice_clamps_starts_and_ends_and_steps_either_way_as_onnx_reference(
    starts: list[int], ends: list[int], axes: list[int], steps: list[int]
) -> None:
    node = helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])
    _same_as_reference(_model([node], X, ["y"], {"s": starts, "e": ends, "a": axes, "t": steps}, 21), X)


def test_slice_of_opset_9_reads_its_attributes_and_of_int32_fields_its_inputs() -> None:
    node = helper.make_node("Slice", ["x"], ["y"], starts=[-3, 1], ends=[INT64_MAX, -1], axes=[2, 0])
    _same_as_reference(_model([node], X, ["y"], {}, 9), X)
    node = helper.make_node("Slice", ["x", "s", "e"], ["y"])
    fields = {"s": np.array([1, 2, 0], np.int32), "e": np.array([3, 2**31 - 1, -1], np.int32)}
    _same_as_reference(_model([node], X, ["y"], fields, 13), X)


def test_split_in_its_three_forms_and_concat_of_the_parts() -> None:
    """Split-11's attribute, Split-13's input, Split-18's num_outputs (7 into 3: 3, 3, 1, ONNX's uneven rule), each
    part an output; Concat of parts in another order, along a negative axis."""
    x = np.arange(2 * 7, dtype=np.int32).reshape(2, 7)
    parts = ["p0", "p1", "p2"]
    for opset, node, fields in (
        (11, helper.make_node("Split", ["x"], parts, axis=1, split=[2, 4, 1]), {}),
        (13, helper.make_node("Split", ["x", "s"], parts, axis=-1), {"s": [1, 1, 5]}),
        (18, helper.make_node("Split", ["x"], parts, axis=1, num_outputs=3), {}),
    ):
        got = _same_as_reference(_model([node], x, parts, fields, opset), x)
        assert [part.shape[1] for part in got] == (
            [2, 4, 1] if opset == 11 else [1, 1, 5] if opset == 13 else [3, 3, 1]
        )
        joined = helper.make_node("Concat", ["p2", "p0", "p1", "p0"], ["y"], axis=-1)
        _same_as_reference(_model([node, joined], x, ["y"], fields, opset), x)


def test_a_split_whose_parts_are_read_in_part_runs_them() -> None:
    x = np.arange(12, dtype=np.float32)
    nodes = [helper.make_node("Split", ["x"], ["a", "b", "c"], num_outputs=3), helper.make_node("Neg", ["c"], ["y"])]
    _same_as_reference(_model(nodes, x, ["a", "y"], {}, 18), x)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
def test_pad_in_every_mode_as_onnx_reference(mode: str) -> None:
    """Pad-19's modes on float and int8 data, pads before and after each axis, Pad-18's axes (negative), and the
    constant value of the data's type."""
    for x, value in ((X, np.array(-2.5, np.float32)), (X.astype(np.int8), np.array(-7, np.int8))):
        node = helper.make_node("Pad", ["x", "p", "v"], ["y"], mode=mode)
        _same_as_reference(_model([node], x, ["y"], {"p": [1, 0, 2, 3, 1, 0], "v": value}, 19), x)
        node = helper.make_node("Pad", ["x", "p", "v", "a"], ["y"], mode=mode)
        _same_as_reference(_model([node], x, ["y"], {"p": [2, 0, 1, 3], "v": value, "a": [-1, 0]}, 19), x)


def test_pad_of_opset_2_reads_its_attributes_and_tile_repeats_bools() -> None:
    node = helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 2, 0, 1], value=3.5)
    _same_as_reference(_model([node], X, ["y"], {}, 10), X)
    flags = X.astype(np.int64) % 3 == 0
    node = helper.make_node("Tile", ["x", "r"], ["y"])
    (got,) = _same_as_reference(_model([node], flags, ["y"], {"r": [2, 1, 3]}, 13), flags)
    assert got.dtype == np.bool_


def test_a_chain_of_slice_concat_pad_tile_and_depth_to_space() -> None:
    """Slice (a negative step) -> Concat -> Pad (reflect) -> Tile -> DepthToSpace (CRD) -> SpaceToDepth, one graph."""
    x = np.arange(1 * 4 * 3 * 5, dtype=np.float32).reshape(1, 4, 3, 5)
    nodes = [
        helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["sliced"]),
        helper.make_node("Concat", ["sliced", "x"], ["joined"], axis=1),
        helper.make_node("Pad", ["joined", "p"], ["padded"], mode="reflect"),
        helper.make_node("Tile", ["padded", "r"], ["tiled"]),
        helper.make_node("DepthToSpace", ["tiled"], ["deep"], blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["deep"], ["y"], blocksize=2),
    ]
    fields = {"s": [-1], "e": [INT64_MIN], "a": [3], "t": [-1], "p": [0, 0, 1, 0, 0, 0, 0, 1], "r": [1, 1, 1, 2]}
    (got,) = _same_as_reference(_model(nodes, x, ["y"], fields, 21), x)
    assert got.shape == (1, 8, 4, 12)


# ------------------------------------------------------------------------------------------------ refusals


def test_a_field_given_as_a_graph_input_is_refused_at_prepare_naming_it() -> None:
    node = helper.make_node("Slice", ["x", "starts", "e"], ["y"], name="cut")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, [4]), helper.make_tensor_value_info("starts", TensorProto.INT64, [1])],
        [helper.make_tensor_value_info("y", F, [2])],
        initializer=[numpy_helper.from_array(np.array([3], np.int64), "e")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    with pytest.raises(
        NodeRefused,
        match=r"^ONNX node 'cut' \(Slice, opset 21\): its starts 'starts' is a graph input; DirectML's SLICE1 holds "
        r"the window in descriptor fields .*, fixed when the graph is built: give the starts as an initializer$",
    ):
        DmlBackend.prepare(model)


def test_negative_pads_and_empty_outputs_are_refused_saying_why() -> None:
    node = helper.make_node("Pad", ["x", "p"], ["y"], name="crop")
    with pytest.raises(NodeRefused, match=r"'crop' \(Pad, opset 21\): pads \[0, -1, 0, 0, 1, 0\] hold a negative pad"):
        DmlBackend.prepare(_model([node], X, ["y"], {"p": [0, -1, 0, 0, 1, 0]}, 21))  # at prepare: no run
    node = helper.make_node("Tile", ["x", "r"], ["y"])
    with pytest.raises(NodeRefused, match=r"repeats \[1, 0, 2\] repeat the input 0 times along axis 1, an empty"):
        DmlBackend.prepare(_model([node], X, ["y"], {"r": [1, 0, 2]}, 21))
    # An empty slice depends on the shape: refused at the run, naming the axis.
    node = helper.make_node("Slice", ["x", "s", "e", "a"], ["y"])
    rep = DmlBackend.prepare(_model([node], X, ["y"], {"s": [4], "e": [2], "a": [-1]}, 21))
    with pytest.raises(NodeRefused, match=r"starts 4, ends 2 and steps 1 select no element of 6 along axis 2"):
        rep.run([X])
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(NodeRefused, match=r"parts \[2, 2, 0\] of 4 elements leave part 2 empty along axis 1"):
        DmlBackend.prepare(_model([node], x, ["a", "b", "c"], {}, 18)).run([x])


def test_malformed_movement_nodes_are_invalid_arguments() -> None:
    cases = [
        (helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"]), {"s": [0], "e": [2], "a": [0], "t": [0]}, "0"),
        (helper.make_node("Pad", ["x", "p"], ["y"], mode="wrap"), {"p": [0, 0, 0, 0, 0, 0]}, "takes 'constant'"),
        (helper.make_node("DepthToSpace", ["x"], ["y"], blocksize=2, mode="RCD"), {}, "'DCR' or 'CRD'"),
        (helper.make_node("Split", ["x"], ["a", "b"], split=[1, 2, 1]), {}, "give one per output"),
    ]
    for node, fields, word in cases:
        with pytest.raises(dml.InvalidArgumentError, match=word):
            DmlBackend.prepare(_model([node], X, list(node.output), fields, 11 if node.op_type == "Split" else 18))
    node = helper.make_node("Concat", ["x", "x"], ["y"], axis=3)
    with pytest.raises(dml.InvalidArgumentError, match=r"axis 3 is out of range for an input of rank 3"):
        DmlBackend.prepare(_model([node], X, ["y"], {}, 13)).run([X])
