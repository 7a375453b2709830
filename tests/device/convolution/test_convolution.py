"""CONVOLUTION runs (gemm.cl's contraction over the input unfolded by opencl/convolution.cl, or under the "cpu" profile
read through the window by the contraction itself, IMPLICIT, with the same bits; dmlpy/kernels/convolution.py)
against cases.py's float64 reference within the bound docs/operators/convolution.md derives: every data type of its
support table, both modes and directions, 1-D, 2-D and 3-D, strides, dilations, asymmetric padding, output padding,
groups and depth-wise, a bias, a fused activation, strided tensors (the filter copied, the output staged), a
pointwise filter reading the input as it is, and as a graph node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.convolution.cases import RELU, Case, Shape, convolution_case, past_bound, reference
from tests.device.matrix.cases import gamma
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = sorted(dml.ConvolutionOperatorDesc.SUPPORT.rows[-1].data_types["InputTensor"], key=lambda t: t.value)
MODES = ("CROSS_CORRELATION", "CONVOLUTION")


def run_and_check(device: Any, case: Case, offsets: dict[str, int] | None = None) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)["output_tensor"]
    assert got.shape == case.expected.shape
    wrong = past_bound(got, case.expected, case.allowed)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)"


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_every_type_mode_and_direction(device: Any, data_type: Any, mode: str, backward: bool) -> None:
    shape = Shape((2, 4, 6, 7), (3, 2), 6, strides=(2, 1), start=(1, 0), end=(0, 1), groups=2, backward=backward)
    run_and_check(device, convolution_case(data_type, shape, mode=mode))


@pytest.mark.parametrize(
    "shape",
    [
        Shape((2, 3, 13), (4,), 5, strides=(3,), dilations=(2,), start=(2,), end=(1,)),
        Shape((1, 2, 4, 5, 6), (2, 3, 2), 3, strides=(1, 2, 1), start=(1, 0, 1), end=(0, 1, 1)),
        Shape((1, 2, 3, 4, 3), (2, 2, 3), 4, strides=(2, 1, 2), start=(0, 1, 1), end=(1, 0, 0), backward=True),
    ],
    ids=["1-D", "3-D", "3-D backward"],
)
def test_one_and_three_spatial_dimensions(device: Any, shape: Shape) -> None:
    run_and_check(device, convolution_case(T.FLOAT32, shape, mode="CONVOLUTION"))


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_dilations_and_output_padding(device: Any, backward: bool) -> None:
    """OutputPadding: FORWARD's added outputs are 0 plus the bias (then the activation); BACKWARD's the scatter's."""
    shape = Shape((1, 3, 7, 8), (3, 3), 4, strides=(2, 3), dilations=(2, 1), start=(1, 2), end=(2, 0))
    shape = shape._replace(output_padding=(1, 2), backward=backward)
    run_and_check(device, convolution_case(T.FLOAT32, shape, fused=RELU))


def test_depthwise_and_a_deep_window(device: Any) -> None:
    """GroupCount = InputChannelCount (one channel a group), then K past gemm.cl's 128-deep blocks (8 x 5 x 5)."""
    run_and_check(
        device, convolution_case(T.FLOAT32, Shape((2, 6, 9, 8), (3, 3), 12, start=(1, 1), end=(1, 1), groups=6))
    )
    run_and_check(device, convolution_case(T.FLOAT32, Shape((1, 8, 9, 9), (5, 5), 70, start=(2, 2), end=(2, 2))))


@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
def test_strided_tensors_at_offsets(device: Any, backward: bool) -> None:
    """Gaps after every row: the filter is copied packed, the input read through its strides (FORWARD under the
    "cpu" profile by the contraction's panel itself, else unfolded first), the output's spatial axes are not one
    run, so the contraction writes a temporary the plan copies out."""
    gaps = {"input_tensor": 3, "filter_tensor": 1, "bias_tensor": 2, "output_tensor": 2}
    shape = Shape((2, 4, 5, 6), (2, 3), 4, strides=(1, 2), start=(1, 1), end=(1, 0), groups=2, backward=backward)
    case = convolution_case(T.FLOAT32, shape, gaps=gaps)
    steps = [step.lowered.kernel.source_name for step in case.desc.plan(device.launch_profile).steps]
    unfolded = backward or device.launch_profile.grid_stride
    assert steps == ["elementwise.cl", *(["convolution.cl"] if unfolded else []), "gemm.cl", "elementwise.cl"]
    run_and_check(device, case, {"input_tensor": 16, "filter_tensor": 32, "output_tensor": 48})


WINDOW_READS = {
    "rows of 21, 9 x 8": Shape((1, 2, 3, 21), (9, 8), 6, start=(4, 3), end=(4, 4)),
    "rows of 20 at stride 2": Shape((1, 3, 9, 40), (3, 3), 5, strides=(2, 2), start=(1, 1), end=(1, 1)),
}
"""Rows of 21 outputs (tiles of 16 columns inside one row, padded at either end, or across two), 72 filter elements
(past the 64 a tile keeps recipes for), K 144 (past a 128-deep block), 2 x 3 = 6 row tiles' worth of channels; and
rows of 20 outputs at stride 2, whose first tile's 16 columns read whole runs with a step of 2."""


@pytest.mark.parametrize("name", WINDOW_READS)
def test_the_window_read_by_the_contraction(device: Any, name: str) -> None:
    """FORWARD under the "cpu" profile: gemm.cl's panel reads the input through the window (gemm_window.h, no
    unfold); under "gpu" the unfold."""
    case = convolution_case(T.FLOAT32, WINDOW_READS[name], fused=RELU)
    contraction = case.desc.plan(device.launch_profile).steps[-1].lowered.kernel
    assert (dict(contraction.defines).get("IMPLICIT") == "1") != device.launch_profile.grid_stride
    run_and_check(device, case)


@pytest.mark.one_profile
@pytest.mark.parametrize("name", WINDOW_READS)
def test_the_window_read_gives_the_unfolds_bits(device: Any, name: str) -> None:
    """The panel read through the window holds the values the unfolded columns would, in the same places, so the
    contraction sums the same terms in the same order: the same bits as the "gpu" profile's unfold and contraction
    (not only within the bound: a panel in another order, or a padding cell taken from the wrong place but small,
    would pass the bound and fail here)."""
    case = convolution_case(T.FLOAT32, WINDOW_READS[name], fused=RELU)
    implicit, unfolded = (dml.create_device(cl_device=device.queue.device, launch_profile=p) for p in ("cpu", "gpu"))
    got = [run_structured(d, case.desc, case.inputs)["output_tensor"] for d in (implicit, unfolded)]
    assert np.array_equal(got[0].view(np.uint32), got[1].view(np.uint32))


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_pointwise_reads_the_input_as_it_is(device: Any, data_type: Any) -> None:
    """A 1 x 1 filter at strides 1: no unfold, the contraction reads the input (and the filter) in place."""
    case = convolution_case(data_type, Shape((2, 6, 5, 7), (1, 1), 9, groups=3), fused=RELU)
    assert [step.lowered.kernel.source_name for step in case.desc.plan().steps] == ["gemm.cl"]
    run_and_check(device, case)


def test_convolution_as_a_graph_node(device: Any) -> None:
    """(x + 1) convolved, doubled: CONVOLUTION between element-wise nodes, its plan's launches among them."""
    case = convolution_case(T.FLOAT32, Shape((1, 3, 6, 6), (3, 3), 4, start=(1, 1), end=(1, 1)), bias=False)
    x, w = case.inputs["input_tensor"], case.inputs["filter_tensor"]
    g = dml.Graph(device)
    gx, gw = g.input(x.shape, T.FLOAT32), g.input(w.shape, T.FLOAT32)
    convolved = g.add_operator(case.desc, [gx + 1, gw])
    got = np.asarray(g.compile([convolved * 2])(x, w))
    x1, w64 = x.astype(np.float64) + 1, w.astype(np.float64)
    shape = Shape((1, 3, 6, 6), (3, 3), 4, start=(1, 1), end=(1, 1))
    exact, magnitude = reference(shape, x1, w64), reference(shape, np.abs(x1), np.abs(w64))
    # x + 1 rounds once more: gamma_(K + 2) covers it (K = 27); the doubling is exact
    wrong = past_bound(got, 2 * exact, 2 * gamma(29) * magnitude)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()}"
