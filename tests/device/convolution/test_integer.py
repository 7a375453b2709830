"""CONVOLUTION_INTEGER and QUANTIZED_LINEAR_CONVOLUTION run exactly (cases.integer_case): every data type of their
support tables (input and filter of either signedness, both output types), zero points per tensor and per output
channel or absent (the padding holds the input's zero point), groups, 1-D, a bias, strided tensors; and cases.py's
reference agrees with onnx.reference's Conv, ConvTranspose and ConvInteger."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from tests.device.convolution.cases import Shape, integer_case, reference
from tests.device.convolution.test_convolution import run_and_check

T = dml.TensorDataType
OPERATORS = ("CONVOLUTION_INTEGER", "QUANTIZED_LINEAR_CONVOLUTION")
BYTES = sorted(dml.ConvolutionIntegerOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=lambda t: t.value)
OUTPUTS = sorted(
    dml.QuantizedLinearConvolutionOperatorDesc.SUPPORT.rows[-1].data_types["OutputTensor"], key=lambda t: t.value
)
PADDED = Shape((2, 4, 6, 7), (3, 3), 6, strides=(1, 2), start=(1, 1), end=(2, 0), groups=2)


@pytest.mark.one_profile
@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("input_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("filter_type", BYTES, ids=lambda t: t.name)
def test_every_type(device: Any, operator: str, input_type: Any, filter_type: Any) -> None:
    for output_type in OUTPUTS if operator != "CONVOLUTION_INTEGER" else (T.INT8,):
        run_and_check(device, integer_case(operator, input_type, filter_type, PADDED, output_type=output_type))


@pytest.mark.parametrize("operator", OPERATORS)
def test_one_value_zero_points_or_none_and_1d(device: Any, operator: str) -> None:
    shape = Shape((2, 3, 11), (3,), 6, strides=(2,), dilations=(2,), start=(2,), end=(1,), groups=3)
    run_and_check(device, integer_case(operator, T.UINT8, T.INT8, shape, per_channel=False))
    run_and_check(device, integer_case(operator, T.INT8, T.INT8, PADDED, zero_points=False, bias=False))


@pytest.mark.parametrize("operator", OPERATORS)
def test_strided_tensors(device: Any, operator: str) -> None:
    gaps = {"input_tensor": 3, "filter_tensor": 2, "output_tensor": 1}
    run_and_check(device, integer_case(operator, T.UINT8, T.UINT8, PADDED, gaps=gaps), {"input_tensor": 16})


def test_quantized_results_spread_over_the_range() -> None:
    """The quantized cases do not saturate everywhere: the scales keep most results inside the output type."""
    q = integer_case("QUANTIZED_LINEAR_CONVOLUTION", T.UINT8, T.INT8, PADDED).expected
    assert np.mean((q > -128) & (q < 127)) > 0.5


def _onnx(op_type: str, inputs: list[Any], **attributes: Any) -> Any:
    names = [f"i{k}" for k in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attributes)
    return ReferenceEvaluator(node).run(None, dict(zip(names, inputs, strict=True)))[0]


def _pads(shape: Shape) -> list[int]:
    return [*shape.field(shape.start, 0), *shape.field(shape.end, 0)]


def test_reference_matches_onnx() -> None:
    """cases.reference against onnx.reference: Conv (groups, dilations, asymmetric padding), ConvTranspose (output
    padding; onnx.reference's takes no group) and ConvInteger (zero points, padding with the input's), on which
    QLinearConv's sum rests."""
    rng = np.random.default_rng(0)
    conv = Shape((1, 4, 7, 8), (3, 2), 6, strides=(2, 1), dilations=(1, 2), start=(1, 0), end=(2, 1), groups=2)
    x, w = rng.standard_normal(conv.input_sizes), rng.standard_normal(conv.filter_sizes)
    fields = {"strides": list(conv.strides or ()), "dilations": list(conv.dilations or ()), "group": 2}
    np.testing.assert_allclose(reference(conv, x, w), _onnx("Conv", [x, w], pads=_pads(conv), **fields), rtol=1e-12)
    up = Shape((1, 4, 4, 5), (3, 2), 6, (2, 3), None, (1, 0), (0, 1), output_padding=(1, 2), backward=True)
    x, w = rng.standard_normal(up.input_sizes), rng.standard_normal(up.filter_sizes)
    onnx_up = _onnx("ConvTranspose", [x, w], strides=[2, 3], pads=_pads(up), output_padding=[1, 2])
    np.testing.assert_allclose(reference(up, x, w), onnx_up, rtol=1e-12)
    case = integer_case(
        "CONVOLUTION_INTEGER", T.UINT8, T.UINT8, PADDED._replace(groups=1, output_channels=3), per_channel=False
    )
    ins = case.inputs
    attributes = {"strides": [1, 2], "pads": _pads(PADDED)}
    onnx_sum = _onnx(
        "ConvInteger",
        [ins["input_tensor"], ins["filter_tensor"], ins["input_zero_point_tensor"].reshape(()),
         ins["filter_zero_point_tensor"].reshape(())],
        **attributes,
    )  # fmt: skip
    np.testing.assert_array_equal(case.expected, onnx_sum)
