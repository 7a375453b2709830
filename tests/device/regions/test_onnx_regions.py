"""dmlpy.onnx's RoiAlign (opsets 10, 16 and 22) and MaxRoiPool: against onnx.reference and onnxruntime where the
definitions coincide (avg mode; regions neither empty nor inverted, and at least 1 element wide under
output_half_pixel, which ONNX widens to 1), and against cases.py's reference from DirectML's page where they do not
(max mode: the largest bilinear sample, where ONNX's reference and onnxruntime's CPU kernel take the largest weighted
corner term); refusals name the attribute or the type."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency")
from onnx import TensorProto, helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.device.regions.cases import ALIGN_BOUND, Align, T, align_reference, image  # noqa: E402
from tests.helpers.onnx_regions import REGION_DIFFERS  # noqa: E402

ONNX_BOUND = 2.0**-19
"""dmlpy against onnx.reference and onnxruntime, relative to max|X|: each within ALIGN_BOUND of the exact result
from its own sample coordinates, which ONNX computes in another order (roi_start + ph * bin + (iy + 0.5) * bin /
grid) than the page (one or two roundings of a coordinate apart)."""
ROIS = np.array(
    [[0.5, 1.25, 6.75, 5.5], [2.0, 0.0, 8.5, 6.75], [-1.5, 3.25, 4.0, 8.5], [3.25, 2.5, 4.75, 4.25]], np.float32
)
"""Regions where ONNX's definitions and DirectML's coincide: neither empty nor inverted, each at least 1 wide, one
reaching past the input."""
BATCHES = np.array([1, 0, 1, 1], np.int64)


def _model(op_type: str, opset: int, inputs: dict[str, Any], **attributes: Any) -> Any:
    types = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16}
    types |= {np.dtype(np.int64): TensorProto.INT64, np.dtype(np.float64): TensorProto.DOUBLE}
    node = helper.make_node(op_type, list(inputs), ["Y"], **attributes)
    given = [helper.make_tensor_value_info(n, types[v.dtype], v.shape) for n, v in inputs.items()]
    output = helper.make_tensor_value_info("Y", types[next(iter(inputs.values())).dtype], ["R", "C", "H", "W"])
    graph = helper.make_graph([node], op_type, given, [output])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _dmlpy(model: Any, inputs: dict[str, Any], device: Any) -> Any:
    return np.asarray(DmlBackend.prepare(model, dml_device=device).run(list(inputs.values()))[0])


def _onnxruntime(model: Any, inputs: dict[str, Any]) -> Any:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, inputs)[0]


@pytest.mark.parametrize(
    ("opset", "transformation", "ratio"),
    [(10, None, 2), (16, "half_pixel", 0), (16, "output_half_pixel", 0), (22, "half_pixel", 3)],
    ids=["10 (output half pixel), ratio 2", "16 half pixel, adaptive", "16 output half pixel, adaptive", "22, ratio 3"],
)
def test_roi_align_avg_is_onnx_reference_and_onnxruntime(
    device: Any, opset: int, transformation: Any, ratio: int
) -> None:
    x = image(T.FLOAT32, (2, 3, 8, 9), 11)
    inputs = {"X": x, "rois": ROIS, "batch_indices": BATCHES}
    attributes: dict[str, Any] = {"output_height": 3, "output_width": 4, "sampling_ratio": ratio, "spatial_scale": 0.75}
    if transformation is not None:
        attributes["coordinate_transformation_mode"] = transformation
    model = _model("RoiAlign", opset, inputs, **attributes)
    got = _dmlpy(model, inputs, device)
    limit = ONNX_BOUND * float(np.abs(x).max())
    assert got.shape == (4, 3, 3, 4)
    if opset < 22:  # onnxruntime implements RoiAlign up to opset 21
        assert np.abs(got - _onnxruntime(model, inputs)).max() <= limit
    if opset > 10:  # onnx.reference reads RoiAlign-10 as half_pixel, RoiAlign-16's default (docs/operators/roi.md)
        (expected,) = ReferenceEvaluator(model).run(None, inputs)
        assert np.abs(got - expected).max() <= limit


@pytest.mark.parametrize("transformation", ["half_pixel", "output_half_pixel"])
def test_roi_align_max_is_directml_s_largest_sample(device: Any, transformation: str) -> None:
    """max mode as DirectML's ROI_ALIGN1 MAX, the largest bilinear sample (cases.py's reference with the DirectML
    provider's fields); onnx.reference's largest weighted corner term differs here by far more than any rounding."""
    x = image(T.FLOAT32, (2, 3, 8, 9), 12)
    inputs = {"X": x, "rois": ROIS, "batch_indices": BATCHES}
    model = _model(
        "RoiAlign", 22, inputs, mode="max", output_height=2, output_width=3, sampling_ratio=2,
        coordinate_transformation_mode=transformation,
    )  # fmt: skip
    got = _dmlpy(model, inputs, device)
    align = Align(reduction="MAX", input_offset=0.5 if transformation == "half_pixel" else 0.0, minimum=2, maximum=2)
    expected = align_reference(x, ROIS, BATCHES.tolist(), (2, 3), align)
    assert np.abs(got - expected).max() <= ALIGN_BOUND * 4
    (weighted,) = ReferenceEvaluator(model).run(None, inputs)
    assert np.abs(weighted - expected).max() > 0.1


def test_the_node_test_of_max_mode_runs_as_directml_defines_it(device: Any) -> None:
    """test_roialign_mode_max, excluded from the runner (tests/helpers/onnx_regions.py's reason), runs: its result is
    DirectML's, and the shipped output is onnx.reference's other definition."""
    assert "largest bilinear sample" in REGION_DIFFERS["roialign_mode_max"]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        (case,) = [c for c in load_model_tests(kind="node") if c.name == "test_roialign_mode_max"]
    ((inputs, (shipped,)),) = case.data_sets
    names = [value.name for value in case.model.graph.input]
    got = np.asarray(DmlBackend.prepare(case.model, dml_device=device).run(inputs)[0])
    (node,) = case.model.graph.node
    attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    x, rois, batches = (dict(zip(names, inputs, strict=True))[n] for n in node.input)
    align = Align(reduction="MAX", input_offset=0.0, minimum=2, maximum=2, scale_x=1.0, scale_y=1.0)
    assert attributes["sampling_ratio"] == 2 and attributes["coordinate_transformation_mode"] == b"output_half_pixel"
    hw = (attributes["output_height"], attributes["output_width"])
    expected = align_reference(x, rois, batches.tolist(), hw, align)
    assert np.abs(got - expected).max() <= ALIGN_BOUND * float(np.abs(x).max())
    assert np.abs(got - shipped).max() > 0.1


def test_max_roi_pool_is_onnxruntime(device: Any) -> None:
    x = image(T.FLOAT32, (2, 3, 8, 8), 13)
    rois = np.array([[0, 0, 0, 6, 4], [1, 2, 4, 14, 14], [1, 6, 2, 8, 10], [0, 4, 4, 5, 5]], np.float32)
    inputs = {"X": x, "rois": rois}
    model = _model("MaxRoiPool", 21, inputs, pooled_shape=[2, 4], spatial_scale=0.5)
    np.testing.assert_array_equal(_dmlpy(model, inputs, device), _onnxruntime(model, inputs))


def test_what_dmlpy_cannot_express_is_refused_naming_it(device: Any) -> None:
    x = image(T.FLOAT32, (1, 1, 4, 4), 14)
    doubled = {"X": x.astype(np.float64), "rois": ROIS[:1].astype(np.float64), "batch_indices": BATCHES[:1]}
    with pytest.raises(NodeRefused, match="X is FLOAT64; DirectML's ROI_POOLING and ROI_ALIGN1 take FLOAT32"):
        DmlBackend.prepare(_model("RoiAlign", 16, doubled), dml_device=device)
    inputs = {"X": x, "rois": ROIS[:1], "batch_indices": BATCHES[:1] * 0}
    with pytest.raises(dml.InvalidArgumentError, match="mode is 'median'; RoiAlign takes 'avg' or 'max'"):
        DmlBackend.prepare(_model("RoiAlign", 16, inputs, mode="median"), dml_device=device)
    with pytest.raises(dml.InvalidArgumentError, match="sampling_ratio is -1"):
        DmlBackend.prepare(_model("RoiAlign", 16, inputs, sampling_ratio=-1), dml_device=device)
