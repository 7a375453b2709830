"""The depth-wise CONVOLUTION (GroupCount = InputChannelCount = OutputChannelCount) runs in one launch of
convolution.cl's ``depthwise``, not im2col, against cases.py's float64 reference within its bound: every data type of
the support table, both modes and directions, 1-D, 2-D and 3-D, strides, dilations, asymmetric padding, output
padding, no bias, a fused activation, strided tensors at offsets; a depth multiplier above 1 (OutputChannelCount
twice the groups) stays im2col."""

from __future__ import annotations

from typing import Any

import pytest

import dmlpy as dml
from tests.device.convolution.cases import RELU, Shape, convolution_case
from tests.device.convolution.test_convolution import MODES, TYPES, run_and_check

T = dml.TensorDataType


def kernels(case: Any) -> list[str]:
    return [step.lowered.kernel.kernel_name for step in case.desc.plan().steps]


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_every_type_mode_and_direction(device: Any, data_type: Any, mode: str, backward: bool) -> None:
    shape = Shape((2, 3, 7, 6), (3, 2), 3, strides=(2, 1), dilations=(1, 2), start=(1, 0), end=(0, 1), groups=3)
    run_and_check(device, convolution_case(data_type, shape._replace(backward=backward), mode=mode))


@pytest.mark.parametrize(
    "shape",
    [
        Shape((2, 4, 11), (3,), 4, strides=(2,), dilations=(2,), start=(2,), end=(1,), groups=4),
        Shape((1, 2, 4, 5, 6), (2, 3, 2), 2, strides=(1, 2, 1), start=(1, 0, 1), end=(0, 1, 1), groups=2),
        Shape((1, 2, 3, 4, 3), (2, 2, 3), 2, strides=(2, 1, 2), start=(0, 1, 1), end=(1, 0, 0), groups=2,
              backward=True),
        Shape((1, 3, 7, 8), (3, 3), 3, strides=(2, 3), dilations=(2, 1), start=(1, 2), end=(2, 0),
              output_padding=(1, 2), groups=3),
        Shape((1, 2, 3, 150), (3, 3), 2, start=(1, 1), end=(1, 1), groups=2),
        Shape((1, 2, 3, 75), (3, 3), 2, strides=(1, 2), dilations=(1, 3), start=(0, 3), end=(1, 2), groups=2,
              backward=True),
    ],
    ids=["1-D", "3-D", "3-D backward", "output padding", "long rows", "long rows backward"],
)  # fmt: skip
def test_windows_without_bias_and_with_an_activation(device: Any, shape: Shape) -> None:
    """OutputPadding's outputs are the bias (here none) through the activation, as im2col's are."""
    run_and_check(device, convolution_case(T.FLOAT32, shape, mode="CONVOLUTION", bias=False, fused=RELU))


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_strided_tensors_at_offsets(device: Any, backward: bool) -> None:
    gaps = {"input_tensor": 3, "filter_tensor": 1, "bias_tensor": 2, "output_tensor": 2}
    shape = Shape((2, 4, 5, 6), (2, 3), 4, strides=(1, 2), start=(1, 1), end=(1, 0), groups=4, backward=backward)
    case = convolution_case(T.FLOAT32, shape, gaps=gaps)
    run_and_check(device, case, {"input_tensor": 16, "filter_tensor": 32, "bias_tensor": 64, "output_tensor": 48})


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_the_plan_is_one_depthwise_launch_and_a_depth_multiplier_stays_im2col(backward: bool) -> None:
    """FLOAT16, no bias, strided: still the one launch, no temporary; two output channels a group: im2col."""
    shape = Shape((1, 3, 5, 5), (3, 3), 3, groups=3, backward=backward)
    plan = convolution_case(T.FLOAT16, shape, bias=False, gaps={"input_tensor": 1}).desc.plan()
    assert [step.lowered.kernel.kernel_name for step in plan.steps] == ["depthwise"] and not plan.temporaries
    case = convolution_case(T.FLOAT32, shape._replace(output_channels=6))
    assert "depthwise" not in kernels(case) and "contraction" in kernels(case)
