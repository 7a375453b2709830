"""ROI_POOLING runs, bit for bit against cases.py's reference from the page's bin formula (exact integers) and against
onnxruntime's MaxRoiPool where the bins agree: regions past the input, inverted and empty ones, a BatchID past
BatchCount, SpatialScale, strided tensors at byte offsets, every data type of the support table, NaN, both launch
profiles, and a graph node between element-wise nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper

import dmlpy as dml
from tests.device.regions.cases import T, pooling_case, pooling_reference
from tests.helpers.structured_runs import run_structured

STRIDED = {"input_tensor": 2, "roi_tensor": 3, "output_tensor": 1}
OFFSETS = {"input_tensor": 32, "roi_tensor": 64, "output_tensor": 16}


def _run(device: Any, case: Any, offsets: dict[str, int] | None = None) -> Any:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)["output_tensor"]
    np.testing.assert_array_equal(got, case.expected)
    return got


@pytest.mark.parametrize(("pooled", "scale"), [((2, 3), 1.0), ((3, 2), 0.5), ((4, 4), 0.0625)])
def test_roi_pooling(device: Any, pooled: tuple[int, int], scale: float) -> None:
    """Ten regions of every kind (cases.regions, in 1 / SpatialScale units), the last one's BatchID past BatchCount
    (0s); bins of one element, several and none."""
    case = pooling_case(T.FLOAT32, (2, 3, 7, 9), pooled, scale, count=10, gaps=STRIDED)
    _run(device, case, OFFSETS)


@pytest.mark.one_profile
@pytest.mark.parametrize(
    "data_type", sorted(dml.RoiPoolingOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)
)
def test_every_type_of_the_table(device: Any, data_type: Any) -> None:
    _run(device, pooling_case(data_type, (1, 2, 6, 5), (2, 2), 1.0, count=5, seed=2))


def test_nan_is_the_largest(device: Any) -> None:
    """A NaN is the largest element of its bin, as MAX_POOLING's (docs/operators/pooling.md)."""
    case = pooling_case(T.FLOAT32, (1, 1, 4, 4), (1, 1), 1.0, count=2)
    case.inputs["input_tensor"][0, 0, 1, 1] = np.nan
    case.inputs["roi_tensor"][0, 0] = [[0, 0, 0, 3, 3], [0, 2, 2, 3, 3]]
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    assert np.isnan(got[0, 0, 0, 0]) and got[1, 0, 0, 0] == case.inputs["input_tensor"][0, 0, 2:, 2:].max()


@pytest.mark.one_profile
def test_onnx_reference_max_roi_pool_agrees(device: Any) -> None:
    """onnxruntime's MaxRoiPool (Caffe's ROIPool: bins by float division; onnx.reference has none) on regions inside
    the input, where its bins and the page's exact integer ones coincide."""
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is a test dependency")
    case = pooling_case(T.FLOAT32, (2, 3, 8, 8), (2, 4), 0.5, count=5, seed=5)
    rois = case.inputs["roi_tensor"].reshape(5, 5)
    rois[:, 0] = [0, 1, 1, 0, 1]
    rois[:, 1:] = [[0, 0, 6, 4], [2, 4, 14, 14], [6, 2, 8, 10], [0, 0, 15, 15], [4, 4, 5, 5]]
    node = helper.make_node("MaxRoiPool", ["X", "rois"], ["Y"], pooled_shape=[2, 4], spatial_scale=0.5)
    typed = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("X", "rois", "Y")]
    graph = helper.make_graph([node], "max_roi_pool", typed[:2], typed[2:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"X": case.inputs["input_tensor"], "rois": rois})
    np.testing.assert_array_equal(pooling_reference(case.inputs["input_tensor"], rois, (2, 4), 0.5), expected)
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    np.testing.assert_array_equal(got, expected)


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    case = pooling_case(T.FLOAT32, (2, 3, 6, 7), (2, 2), 1.0, count=4, seed=7)
    x, rois = case.inputs["input_tensor"], case.inputs["roi_tensor"]
    g = dml.Graph(device)
    gx, grois = g.input(x.shape, T.FLOAT32), g.input(rois.shape, T.FLOAT32)
    pooled = g.add_operator(case.desc, [gx * 2, grois])
    got = np.asarray(g.compile([pooled - 1])(x, rois))
    np.testing.assert_array_equal(got, pooling_reference(x * 2, rois.reshape(4, 5), (2, 2), 1.0) - 1)
