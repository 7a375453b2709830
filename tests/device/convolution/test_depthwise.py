"""The depth-wise CONVOLUTION (GroupCount = InputChannelCount = OutputChannelCount) runs in one launch of
depthwise.cl's ``depthwise``, not im2col, against cases.py's float64 reference within its bound: every data type of
the support table, both modes and directions, 1-D, 2-D and 3-D, strides, dilations, asymmetric padding, output
padding, no bias, a fused activation, strided tensors at offsets; a depth multiplier above 1 (OutputChannelCount
twice the groups) stays im2col. The "cpu" profile's fast path (row blocks: FLOAT32, 3 or 5 filter elements a side,
row stride 1 or 2) over its own shapes, packed and strided, alone and as a graph node, with the same bits as the
general run's (the "gpu" profile's kernel), an infinite filter element and NaN inputs included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.kernels.launch import CPU_PROFILE
from tests.device.convolution.cases import RELU, Shape, convolution_case, past_bound, reference
from tests.device.convolution.test_convolution import MODES, TYPES, run_and_check
from tests.device.matrix.cases import gamma
from tests.helpers.structured_runs import run_structured

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


ROW_BLOCK_SHAPES = {
    "3x3/1 two blocks and a part": Shape((1, 3, 6, 21), (3, 3), 3, start=(1, 1), end=(1, 1), groups=3),
    "3x3/2": Shape((1, 2, 7, 30), (3, 3), 2, strides=(2, 2), start=(1, 1), end=(1, 1), groups=2),
    "5x5/1 row dilation 2": Shape((2, 2, 9, 19), (5, 5), 2, dilations=(2, 1), start=(2, 2), end=(2, 2), groups=2),
    "5x5 row stride 2": Shape((1, 2, 6, 40), (5, 5), 2, strides=(1, 2), start=(2, 2), end=(2, 2), groups=2),
    "3x5 narrower than a block": Shape((1, 2, 4, 5), (3, 5), 2, start=(0, 3), end=(1, 0), groups=2),
    "3x3 row dilation 3, no ring": Shape(
        (2, 2, 9, 12), (3, 3), 2, dilations=(3, 1), start=(3, 1), end=(3, 1), groups=2
    ),
}
"""Batches and channels of several rows: a work-item's rows cross channels and batches (the padded rows it keeps
are tagged by input row); a row dilation of 3 with 3 filter rows would share slots, so the plan keeps none."""


def row_blocks(desc: Any, profile: Any) -> bool:
    """Whether ``desc``'s plan under ``profile`` takes depthwise.cl's fast path (its DEPTHWISE_KW define)."""
    return "DEPTHWISE_KW" in defines(desc, profile)


def defines(desc: Any, profile: Any) -> dict[str, str]:
    (step,) = desc.plan(profile).steps
    return dict(step.lowered.kernel.defines)


def under_profile(device: Any, profile: str) -> Any:
    """The same OpenCL device under ``profile``: "cpu" takes the fast path, "gpu"'s kernel is the general run."""
    return dml.create_device(cl_device=device.queue.device, launch_profile=profile)


def fast_and_general(device: Any, desc: Any, inputs: dict[str, Any]) -> tuple[Any, Any]:
    """``desc``'s output by the fast path and by the general run, on ``device``'s OpenCL device whatever the
    fixture's profile."""
    fast, general = (under_profile(device, profile) for profile in ("cpu", "gpu"))
    assert row_blocks(desc, fast.launch_profile) and not row_blocks(desc, general.launch_profile)
    return run_structured(fast, desc, inputs)["output_tensor"], run_structured(general, desc, inputs)["output_tensor"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ROW_BLOCK_SHAPES)
def test_row_blocks_within_the_bound(device: Any, name: str, mode: str) -> None:
    """The "cpu" profile's fast path (the "gpu" one keeps the general run), strided tensors at offsets: the bound."""
    gaps = {"input_tensor": 3, "filter_tensor": 1, "bias_tensor": 2, "output_tensor": 2}
    case = convolution_case(T.FLOAT32, ROW_BLOCK_SHAPES[name], mode=mode, fused=RELU, gaps=gaps)
    assert row_blocks(case.desc, device.launch_profile) == (device.launch_profile.name == "cpu")
    if device.launch_profile.name == "cpu":
        assert defines(case.desc, device.launch_profile)["DEPTHWISE_RING"] == str(int("no ring" not in name))
    run_and_check(device, case, {"input_tensor": 16, "filter_tensor": 32, "bias_tensor": 64, "output_tensor": 48})


@pytest.mark.one_profile
def test_row_blocks_give_the_general_runs_bits_infinities_nans_and_signed_zeros_included(device: Any) -> None:
    """Channel 0's filter holds an infinity where it meets only padding at a row's first output: the general run
    leaves padding out (a finite output), so the fast path must too. Channel 1: NaN inputs, one at a row's end.
    Channel 2: products that are -0 or underflow to -0 (fused), a positive filter column that meets padding at the
    last output (0 x 1 = +0 turns a sum of -0 into +0) and a bias of -0, which would show that zero's sign."""
    shape = ROW_BLOCK_SHAPES["3x3/1 two blocks and a part"]
    case = convolution_case(T.FLOAT32, shape)
    w, x = case.inputs["filter_tensor"].copy(), case.inputs["input_tensor"].copy()
    b = case.inputs["bias_tensor"].copy()
    w[0, 0, 1, 0] = np.inf  # the left column: at output column 0 it meets the padding
    x[0, 1, 2, 20] = x[0, 1, 4, 9] = np.nan
    x[0, 2] = 1e-30
    w[2, 0] = [[-0.0, -0.0, 1.0], [-0.0, -1e-30, 1.0], [-0.0, -0.0, 1.0]]
    b[0, 2] = -0.0
    inputs = {**case.inputs, "filter_tensor": w, "input_tensor": x, "bias_tensor": b}
    fast, general = fast_and_general(device, case.desc, inputs)
    assert np.array_equal(fast.view(np.uint32), general.view(np.uint32))
    assert np.all(np.isfinite(fast[0, 0, :, 0])) and np.isinf(fast[0, 0, :, 1:]).any()
    assert np.isnan(fast[0, 1, 1:4, 19:]).all() and np.isfinite(fast[0, 1, 0]).all()
    assert np.all(fast[0, 2, :, -1] == 0)


WIDEST_ROWS = {
    "5x5/1 312 outputs a row": Shape((1, 2, 5, 312), (5, 5), 2, start=(2, 2), end=(2, 2), groups=2),
    "3x3/2 152 outputs a row": Shape((1, 2, 3, 304), (3, 3), 2, strides=(2, 2), start=(1, 1), end=(0, 0), groups=2),
}
"""The widest rows whose padded input rows fit ROW_BLOCK_SPAN at each row stride."""


@pytest.mark.one_profile
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", [*ROW_BLOCK_SHAPES, *WIDEST_ROWS])
def test_row_blocks_give_the_general_runs_bits_on_every_shape(device: Any, name: str, mode: str) -> None:
    """Each output's window terms in the general run's order: the same bits, not only within the bound (a sum in
    another order, the filter's rows reversed say, would pass the bound and fail here)."""
    case = convolution_case(T.FLOAT32, {**ROW_BLOCK_SHAPES, **WIDEST_ROWS}[name], mode=mode, fused=RELU)
    fast, general = fast_and_general(device, case.desc, case.inputs)
    assert np.array_equal(fast.view(np.uint32), general.view(np.uint32))


@pytest.mark.parametrize(("row_stride", "widest"), [(1, 312), (2, 152)])
def test_rows_past_the_private_rows_span_take_the_general_run(row_stride: int, widest: int) -> None:
    """ROW_BLOCK_SPAN bounds a work-item's private rows: the widest row of outputs that fits takes the fast path,
    one output more does not (its blocks of 8 would read past the private rows)."""
    for outputs, fast in ((widest, True), (widest + 1, False)):
        width = (outputs - 1) * row_stride + 3 - 2  # a 3 x 3 window, one column of padding each side
        shape = Shape((1, 2, 4, width), (3, 3), 2, strides=(1, row_stride), start=(1, 1), end=(1, 1), groups=2)
        desc = convolution_case(T.FLOAT32, shape).desc
        assert row_blocks(desc, CPU_PROFILE) == fast, (row_stride, outputs)


def test_row_blocks_as_a_graph_node(device: Any) -> None:
    """(x + 1) convolved depth-wise by the fast path's shape, doubled: between element-wise nodes."""
    shape = ROW_BLOCK_SHAPES["3x3/2"]
    case = convolution_case(T.FLOAT32, shape, bias=False)
    x, w = case.inputs["input_tensor"], case.inputs["filter_tensor"]
    g = dml.Graph(device)
    gx, gw = g.input(x.shape, T.FLOAT32), g.input(w.shape, T.FLOAT32)
    got = np.asarray(g.compile([g.add_operator(case.desc, [gx + 1, gw]) * 2])(x, w))
    x1, w64 = x.astype(np.float64) + 1, w.astype(np.float64)
    exact, magnitude = reference(shape, x1, w64), reference(shape, np.abs(x1), np.abs(w64))
    # x + 1 rounds once more: gamma_(K + 2) covers it (K = 9); the doubling is exact
    wrong = past_bound(got, 2 * exact, 2 * gamma(11) * magnitude)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()}"
