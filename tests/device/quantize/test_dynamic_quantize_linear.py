"""DYNAMIC_QUANTIZE_LINEAR runs (four launches: MIN, MAX, the scale and zero point, QuantizeLinear) and matches, bit
for bit, a NumPy reference written from ONNX's DynamicQuantizeLinear definition (``reference`` below; for UINT8 also
onnx.reference's own DynamicQuantizeLinear): every data type of the support table, strided tensors at offsets,
both launch profiles, the corner cases (no negative or no positive value, a constant input), and as a graph node
between element-wise ones."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from onnx.reference.ops.op_dynamic_quantize_linear import DynamicQuantizeLinear

import dmlpy as dml
from tests.device.quantize.dynamic_quantize_cases import ROW, SHAPE, T, desc_of, reference, values
from tests.helpers.structured_runs import run_structured


def _check(device: Any, x: npt.NDArray[Any], input_type: Any, output_type: Any, strided: bool = False) -> None:
    desc = desc_of(input_type, output_type, x.shape, strided)
    desc.validate_on(device.feature_level)
    offsets = {"input_tensor": 32, "output_tensor": 16, "output_scale_tensor": 48, "output_zero_point_tensor": 64}
    got = run_structured(device, desc, {"input_tensor": x}, offsets=offsets)
    y, scale, zero_point = reference(x, output_type)
    np.testing.assert_array_equal(got["output_scale_tensor"].reshape(()), scale)
    np.testing.assert_array_equal(got["output_zero_point_tensor"].reshape(()), zero_point)
    np.testing.assert_array_equal(got["output_tensor"], y)


@pytest.mark.one_profile
@pytest.mark.parametrize("output_type", sorted(ROW["OutputTensor"], key=int), ids=lambda t: t.name)
@pytest.mark.parametrize("input_type", sorted(ROW["InputTensor"], key=int), ids=lambda t: t.name)
def test_every_type_of_the_table(device: Any, input_type: Any, output_type: Any) -> None:
    _check(device, values(input_type, int(input_type) * 7 + int(output_type)), input_type, output_type)


@pytest.mark.parametrize("shift", [0.0, 20.0, -20.0], ids=["both-signs", "no-negative", "no-positive"])
def test_strided_tensors_under_both_profiles(device: Any, shift: float) -> None:
    """A range without a negative (or a positive) value is widened to hold 0: the zero point is qmin (qmax)."""
    _check(device, values(T.FLOAT32, 11, shift), T.FLOAT32, T.UINT8, strided=True)
    _check(device, values(T.FLOAT16, 12, shift), T.FLOAT16, T.INT8, strided=True)


@pytest.mark.one_profile
@pytest.mark.parametrize("value", [0.0, 2.5, -1.0])
def test_a_constant_input(device: Any, value: float) -> None:
    """max == min only where every element is 0 (the range holds 0): the scale is then 1 / 255, not 0."""
    _check(device, np.full((4, 9), value, np.float32), T.FLOAT32, T.UINT8)


@pytest.mark.one_profile
def test_onnx_reference_agrees(device: Any) -> None:
    """onnx.reference's DynamicQuantizeLinear (UINT8, ONNX's only output type) as a second, independent check."""
    x = np.random.default_rng(4).uniform(-3, 7, (37, 41)).astype(np.float32)
    desc = desc_of(T.FLOAT32, T.UINT8, x.shape, False)
    got = run_structured(device, desc, {"input_tensor": x})
    y, scale, zero_point = DynamicQuantizeLinear.eval(x)
    np.testing.assert_array_equal(got["output_tensor"], y)
    np.testing.assert_array_equal(got["output_scale_tensor"].reshape(()), scale)
    np.testing.assert_array_equal(got["output_zero_point_tensor"].reshape(()), zero_point)


def test_a_node_between_element_wise_nodes_in_a_graph(device: Any) -> None:
    x = values(T.FLOAT32, 9)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    y, scale, zero_point = dml.graph.dynamic_quantize_linear(gx * 2, dml.TensorDataType.INT8)
    got = g.compile([dml.graph.identity(y), scale, zero_point])(x)
    expected = reference(2 * x, T.INT8)
    for output, want in zip(got, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(output).reshape(np.shape(want)), want)
