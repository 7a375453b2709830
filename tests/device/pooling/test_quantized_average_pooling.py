"""QUANTIZED_LINEAR_AVERAGE_POOLING runs (opencl/pooling.cl's quantized_average_pooling), against
quantized_cases.py's float64 reference of the page's formula: every INT8/UINT8 pair of its table, per-channel and
single scales and zero points (the channels along any dimension of theirs), absent zero points, IncludePadding, a
dilated 5-D window and a global one, strided tensors at byte offsets, exact ties (equal scales: the kernel rounds
exactly there), a window wholly in the padding, both launch profiles, a graph node; and com.microsoft's
QLinearAveragePool in onnxruntime where its float32 steps round alike."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

import dmlpy as dml
from tests.device.pooling.quantized_cases import PARAMETERS, QUANTIZED, QuantizedCase, T, quantized_case
from tests.device.pooling.test_pooling import ASYMMETRIC, DILATED_3D, OFFSETS
from tests.helpers.structured_runs import run_structured

from .cases import Window

GAPS = {"input_tensor": 3, "input_scale_tensor": 1, "output_zero_point_tensor": 2, "output_tensor": 1}
"""Strided tensors: their rows padded by that many elements."""
BYTE_OFFSETS = {**OFFSETS, "input_scale_tensor": 32, "output_zero_point_tensor": 16}


def _run(device: Any, case: QuantizedCase, offsets: dict[str, int] | None = None) -> Any:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)
    wrong = case.mismatch(got)
    assert wrong is None, wrong
    return got["output_tensor"]


@pytest.mark.parametrize("include_padding", [False, True], ids=["padding left out", "padding counted"])
@pytest.mark.parametrize("per_channel", [True, False], ids=["per channel", "one value"])
def test_quantized_average_pooling(device: Any, include_padding: bool, per_channel: bool) -> None:
    """A 4-D window cut by asymmetric padding, every tensor strided at byte offsets."""
    case = quantized_case(
        (T.UINT8, T.INT8), (2, 3, 7, 6), ASYMMETRIC, include_padding=include_padding, per_channel=per_channel, gaps=GAPS
    )
    _run(device, case, BYTE_OFFSETS)


@pytest.mark.one_profile
@pytest.mark.parametrize(
    "types",
    [
        (i, o)
        for i in sorted(QUANTIZED.SUPPORT.rows[-1].data_types["InputTensor"], key=int)
        for o in sorted(QUANTIZED.SUPPORT.rows[-1].data_types["OutputTensor"], key=int)
    ],
    ids=lambda pair: f"{pair[0].name} to {pair[1].name}",
)
def test_every_type_pair_of_the_table(device: Any, types: Any) -> None:
    """Each (InputTensor, OutputTensor) type pair; scales and zero points {C}, then {1, 1, C} (the channels last)."""
    for layout in ((1, 0), (3, 2)):
        case = quantized_case(types, (1, 2, 5, 6), ASYMMETRIC, include_padding=True, layout=layout, seed=int(types[0]))
        _run(device, case)


def test_dilated_5d_window_without_zero_points(device: Any) -> None:
    case = quantized_case((T.INT8, T.UINT8), (2, 3, 5, 4, 7), DILATED_3D, include_padding=False, zero_points=False)
    _run(device, case)


def test_global_window(device: Any) -> None:
    """GlobalAveragePool's window, 1024 elements a channel: the sum exact in integers."""
    case = quantized_case((T.UINT8, T.UINT8), (2, 3, 32, 32), Window((32, 32)), include_padding=False)
    got = _run(device, case)
    assert got.shape == (2, 3, 1, 1)


@pytest.mark.parametrize(
    ("scales", "window", "include_padding"),
    [((0.1, 0.1), Window((2, 1)), False), ((0.2, 0.1), Window((2, 2), (1, 1), (1, 0), (0, 1)), True)],
    ids=["equal scales, 2 x 1", "InputScale twice OutputScale, 2 x 2 padded"],
)
def test_ties_round_half_to_even_exactly(device: Any, scales: Any, window: Window, include_padding: bool) -> None:
    """A power-of-two scale ratio: the output is round(S / n * ratio) + zero point, a half for many windows, which
    the kernel keeps exact (docs/operators/pooling.md), so every element equals the reference with no tolerance."""
    given = tuple(np.array([scale], np.float32) for scale in scales)
    case = quantized_case(
        (T.INT8, T.INT8), (2, 2, 8, 5), window, include_padding=include_padding, per_channel=False, scales=given
    )
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    halves = np.abs(case.exact - np.floor(case.exact) - 0.5) == 0
    assert halves.sum() > 10
    np.testing.assert_array_equal(got, case.expected())
    assert not case.near_ties()[~halves].any()


def test_a_window_wholly_in_the_padding_is_0_or_the_zero_point(device: Any) -> None:
    """No inside element: without IncludePadding 0 / 0, NaN, quantized to 0; with it the average 0, the zero point."""
    window = Window((1, 2), (1, 1), (0, 3), (0, 0))  # W: outputs 0 and 1 read only padding
    for include, first in ((False, 0), (True, None)):
        case = quantized_case((T.UINT8, T.UINT8), (1, 1, 1, 3), window, include_padding=include, per_channel=False)
        got = _run(device, case).ravel()[:2]
        expected = case.inputs["output_zero_point_tensor"].ravel()[0] if first is None else first
        assert got.tolist() == [expected, expected]


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    """The quantized pooling fed by a CAST from INT16 and feeding a CAST to FLOAT32 and a product."""
    case = quantized_case((T.INT8, T.INT8), (1, 2, 6, 6), ASYMMETRIC, include_padding=True)
    g = dml.Graph(device)
    wide = g.input(case.inputs["input_tensor"].shape, T.INT16)
    parameters = [g.input(case.inputs[slot].shape, getattr(case.desc, slot).desc.data_type) for slot in PARAMETERS]
    pooled = g.add_operator(case.desc, [dml.graph.cast(wide, T.INT8), *parameters])
    compiled = g.compile([dml.graph.cast(pooled, T.FLOAT32) * 2])
    arrays = [case.inputs[slot] for slot in PARAMETERS]
    got = np.asarray(compiled(case.inputs["input_tensor"].astype(np.int16), *arrays))
    assert case.mismatch({"output_tensor": got / 2}) is None


@pytest.mark.parametrize("zero_points", [True, False], ids=["zero-points", "none"])
def test_the_builder_function_builds_the_operator(device: Any, zero_points: bool) -> None:
    """dml.graph.quantized_linear_average_pooling: the node the descriptor makes, the same result as the case's
    reference; without an output zero point its output type is ``dtype``'s."""
    case = quantized_case((T.UINT8, T.UINT8), (1, 2, 6, 6), ASYMMETRIC, include_padding=True, zero_points=zero_points)
    given = ("input_tensor", *(slot for slot in PARAMETERS if zero_points or "zero" not in slot))
    g = dml.Graph(device)
    node = {slot: g.input(case.inputs[slot].shape, getattr(case.desc, slot).desc.data_type) for slot in given}
    pooled = dml.graph.quantized_linear_average_pooling(
        node["input_tensor"],
        node["input_scale_tensor"],
        node.get("input_zero_point_tensor"),
        node["output_scale_tensor"],
        node.get("output_zero_point_tensor"),
        ASYMMETRIC.strides,
        ASYMMETRIC.window_size,
        ASYMMETRIC.start_padding,
        ASYMMETRIC.end_padding,
        include_padding=True,
        dtype="UINT8",
    )
    assert pooled.desc.data_type == T.UINT8
    compiled = g.compile([pooled])
    got = np.asarray(compiled(*(case.inputs[slot] for slot in given)))
    assert case.mismatch({"output_tensor": got}) is None


def _onnxruntime_pool(case: QuantizedCase, window: Window, include_padding: bool) -> Any:
    """com.microsoft's QLinearAveragePool in onnxruntime on the case's input (one scale and zero point each)."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency (pip install -e .[dev])")
    x = case.inputs["input_tensor"]
    element = TensorProto.UINT8 if x.dtype == np.uint8 else TensorProto.INT8
    names = dict(zip(("xs", "xz", "ys", "yz"), PARAMETERS, strict=True))
    values = [
        helper.make_tensor(name, TensorProto.FLOAT if "scale" in slot else element, [], case.inputs[slot].ravel())
        for name, slot in names.items()
    ]
    sizes = len(window.window_size)
    pads = [*(window.start_padding or (0,) * sizes), *(window.end_padding or (0,) * sizes)]
    node = helper.make_node(
        "QLinearAveragePool",
        ["x", *names],
        ["y"],
        domain="com.microsoft",
        kernel_shape=list(window.window_size),
        strides=list(window.strides or (1,) * sizes),
        pads=pads,
        count_include_pad=int(include_padding),
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", element, x.shape)],
        [helper.make_tensor_value_info("y", element, None)],
        values,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    session = ort.InferenceSession(helper.make_model(graph, opset_imports=opsets).SerializeToString())
    return session.run(None, {"x": x})[0]


@pytest.mark.one_profile
def test_onnxruntime_quantized_average_pool_agrees(device: Any) -> None:
    """onnxruntime's QLinearAveragePool (com.microsoft) dequantizes each element in float32 and sums the floats:
    on random scales it gives the same outputs; at exact ties (equal scales) its float sum strays off some halves,
    where dmlpy's keep to the exact rounding."""
    for include_padding in (False, True):
        case = quantized_case(
            (T.UINT8, T.UINT8), (2, 3, 7, 6), ASYMMETRIC, include_padding=include_padding, per_channel=False
        )
        got = run_structured(device, case.desc, case.inputs)["output_tensor"]
        np.testing.assert_array_equal(got, _onnxruntime_pool(case, ASYMMETRIC, include_padding))
    scale = np.array([0.1], np.float32)
    ties = quantized_case(
        (T.UINT8, T.UINT8),
        (2, 2, 8, 5),
        Window((2, 1)),
        include_padding=False,
        per_channel=False,
        scales=(scale, scale),
    )
    got = run_structured(device, ties.desc, ties.inputs)["output_tensor"]
    theirs = _onnxruntime_pool(ties, Window((2, 1)), False)
    halves = ties.exact - np.floor(ties.exact) == 0.5
    np.testing.assert_array_equal(got, ties.expected())
    assert np.array_equal(got[~halves], theirs[~halves]) and 0 < np.count_nonzero(got != theirs) < halves.sum()
