"""LOCAL_RESPONSE_NORMALIZATION runs (opencl/local_response_normalization.cl), against the float64 formula of
docs/operators/normalization.md within the bound it derives (lrn_cases.py): FLOAT32 and FLOAT16, across channels and
over Height and Width, odd and even LocalSize (ONNX's centring), a window wider than the tensor, strided tensors at
both launch profiles, and as a graph node; the reference itself against onnx.reference's LRN."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx.reference
import pytest
from onnx import helper

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.device.normalization.lrn_cases import ALPHA, BETA, BIAS, SHAPE, lrn_case, lrn_reference, worst_excess
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = sorted(dml.LocalResponseNormalizationOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=int)


def _run(device: Any, data_type: Any, cross_channel: bool, size: int, strided: bool) -> None:
    case = lrn_case(data_type, cross_channel, size, strided)
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, {"input_tensor": case.x}, offsets={"output_tensor": 16})["output_tensor"]
    assert worst_excess(got, case) <= 0


def test_the_reference_is_onnx_lrn_across_channels() -> None:
    """onnx.reference's LRN (its loop runs over dimension 0 where it means the channels: N = C here keeps it right)."""
    x = np.random.default_rng(3).standard_normal((5, 5, 3, 2))
    for size in (1, 2, 3, 4):
        node = helper.make_node("LRN", ["x"], ["y"], alpha=ALPHA, beta=BETA, bias=BIAS, size=size)
        f64 = onnx.TensorProto.DOUBLE
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info("x", f64, x.shape)],
            [helper.make_tensor_value_info("y", f64, None)],
        )
        (onnx_y,) = onnx.reference.ReferenceEvaluator(helper.make_model(graph)).run(None, {"x": x})
        np.testing.assert_allclose(lrn_reference(x, True, size, ALPHA, BETA, BIAS), onnx_y, rtol=1e-6)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("cross_channel", [True, False], ids=["across channels", "over height and width"])
@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_every_type_of_the_table(device: Any, data_type: Any, cross_channel: bool, size: int) -> None:
    """LocalSize 9 is wider than every dimension: the window clipped at both edges."""
    _run(device, data_type, cross_channel, size, False)


@pytest.mark.parametrize("cross_channel", [True, False], ids=["across channels", "over height and width"])
def test_strided_tensors_under_both_profiles(device: Any, cross_channel: bool) -> None:
    _run(device, T.FLOAT32, cross_channel, 3, True)


def test_in_a_graph_between_element_wise_nodes(device: Any) -> None:
    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    f32 = tensor(T.FLOAT32, SHAPE)
    desc = dml.LocalResponseNormalizationOperatorDesc(
        input_tensor=f32, output_tensor=f32, cross_channel=True, local_size=3, alpha=ALPHA, beta=BETA, bias=BIAS
    )
    normalized = g.add_operator(desc, [gx + gx])
    got = np.asarray(g.compile([normalized * 3])(x))
    exact = 3 * lrn_reference(x.astype(np.float64) * 2, True, 3, ALPHA, BETA, BIAS)
    # the bound of lrn_cases, plus the final product's rounding
    np.testing.assert_allclose(got, exact, rtol=(6 * BETA + 38) * 2.0**-24, atol=0)
