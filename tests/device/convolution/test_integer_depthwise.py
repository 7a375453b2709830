"""A depth-wise CONVOLUTION_INTEGER or QUANTIZED_LINEAR_CONVOLUTION (GroupCount = InputChannelCount =
OutputChannelCount) runs in one launch of depthwise.cl's ``depthwise``, exactly (cases.integer_case's NumPy sums
and gemm.cl's requantization order): every input, filter and output type pair of the support tables, zero points per
output channel, one value or none, a bias or none, rows of one partial block and of several (the kernel's 64-output
blocks) at strides 1 (packed, the vectorised loop) and 2, 1-D, dilations, strided tensors at offsets."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.convolution.cases import Shape, integer_case
from tests.device.convolution.test_convolution import run_and_check
from tests.device.convolution.test_integer import BYTES, OPERATORS, OUTPUTS

T = dml.TensorDataType
ROWS = Shape((2, 3, 5, 21), (3, 3), 3, start=(1, 1), end=(1, 1), groups=3)
"""21 outputs a row: two full 8-output blocks, the first and last touching the padding, and a partial one."""
LONG_ROWS = Shape((1, 2, 3, 150), (3, 3), 2, start=(1, 1), end=(1, 1), groups=2)
"""Rows of 150 outputs: the "cpu" profile's 64-output blocks, two whole and a partial one a row."""
STRIDED = Shape((1, 4, 7, 37), (3, 2), 4, strides=(2, 2), dilations=(1, 2), start=(2, 0), end=(0, 1), groups=4)


def kernels(case: Any) -> list[str]:
    return [step.lowered.kernel.kernel_name for step in case.desc.plan().steps]


@pytest.mark.one_profile
@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("input_type", BYTES, ids=lambda t: t.name)
@pytest.mark.parametrize("filter_type", BYTES, ids=lambda t: t.name)
def test_every_type(device: Any, operator: str, input_type: Any, filter_type: Any) -> None:
    for output_type in OUTPUTS if operator != "CONVOLUTION_INTEGER" else (T.INT8,):
        run_and_check(device, integer_case(operator, input_type, filter_type, ROWS, output_type=output_type))


@pytest.mark.parametrize("operator", OPERATORS)
def test_windows_and_zero_points(device: Any, operator: str) -> None:
    """Strides 2 and a dilation; one-value zero points; none and no bias; 1-D."""
    run_and_check(device, integer_case(operator, T.UINT8, T.INT8, STRIDED, per_channel=False))
    run_and_check(device, integer_case(operator, T.INT8, T.UINT8, STRIDED, zero_points=False, bias=False))
    one_d = Shape((2, 5, 19), (3,), 5, dilations=(2,), start=(2,), end=(1,), groups=5)
    run_and_check(device, integer_case(operator, T.UINT8, T.UINT8, one_d))
    run_and_check(device, integer_case(operator, T.INT8, T.INT8, LONG_ROWS))


@pytest.mark.parametrize("operator", OPERATORS)
def test_strided_tensors_at_offsets(device: Any, operator: str) -> None:
    gaps = {"input_tensor": 3, "filter_tensor": 2, "output_tensor": 1}
    case = integer_case(operator, T.UINT8, T.INT8, ROWS, gaps=gaps)
    run_and_check(device, case, {"input_tensor": 16, "filter_tensor": 32, "output_tensor": 48})


@pytest.mark.parametrize("operator", OPERATORS)
def test_the_plan_is_one_depthwise_launch_and_a_depth_multiplier_stays_im2col(operator: str) -> None:
    plan = integer_case(operator, T.UINT8, T.INT8, ROWS).desc.plan()
    assert [step.lowered.kernel.kernel_name for step in plan.steps] == ["depthwise"] and not plan.temporaries
    doubled = integer_case(operator, T.UINT8, T.INT8, ROWS._replace(output_channels=6))
    assert "depthwise" not in kernels(doubled) and "contraction" in kernels(doubled)


def test_a_depthwise_convolution_integer_as_a_graph_node(device: Any) -> None:
    """CONVOLUTION_INTEGER's depth-wise launch between element-wise nodes: its INT32 sums added to themselves."""
    case = integer_case("CONVOLUTION_INTEGER", T.UINT8, T.INT8, ROWS)
    fields = case.desc.input_fields()
    arrays = [case.inputs[field] for field in fields if field in case.inputs]
    g = dml.Graph(device)
    values = [g.input(array.shape, T.UINT8 if array.dtype == np.uint8 else T.INT8) for array in arrays]
    convolved = g.add_operator(case.desc, values)
    got = np.asarray(g.compile([convolved + convolved])(*arrays))
    np.testing.assert_array_equal(got, 2 * case.expected.astype(np.int64))
