"""The movement kernels that copy whole rows under the "cpu" launch profile: opencl/block_copy.cl (DEPTH_TO_SPACE
and SPACE_TO_DEPTH, rows interleaved by the block), opencl/join_rows.cl (JOIN along an inner axis, one launch) and
movement.cl's spans several vectors long (span_copy.h).
Cases bigger than one work-item's share, so that work-items end mid-row, blocks of 2 to 4, each element width,
strided outer dimensions and byte offsets, alone and in a graph, bit for bit against onnx.reference and NumPy
(tests/device/movement/cases.py); under the "gpu" profile the same cases run the element-wise template's copies
(the `device` fixture runs both)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.kernels import CPU_PROFILE, LaunchProfile
from tests.device.movement.cases import (
    MovementCase,
    onnx_depth_space,
    padded_strides,
    rows_depth_space_case,
    rows_join_case,
    rows_slice1_case,
    rows_tile_case,
    space_to_depth,
    tensor,
)
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
WIDTHS = [T.INT8, T.FLOAT16, T.FLOAT32, T.INT64]
"""One data type per element width: the kernels move bits, so the width is what varies their code."""
GPU_PROFILE = LaunchProfile("gpu", vector_width=4, work_group_size=64, grid_size=1024)


def _check(device: Any, case: MovementCase) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=case.offsets)
    expected = case.expected["output_tensor"]
    bits = f"u{expected.dtype.itemsize}"
    np.testing.assert_array_equal(got["output_tensor"].view(bits), expected.view(bits))


@pytest.mark.parametrize(
    ("to_depth", "order", "block", "strided", "data_type"),
    [
        (False, None, 3, False, T.INT8),
        (True, None, 3, True, T.FLOAT16),
        (False, "COLUMN_ROW_DEPTH", 2, True, T.FLOAT32),
        (True, "COLUMN_ROW_DEPTH", 4, False, T.INT64),
    ],
    ids=["d2s-3-int8", "s2d-3-strided-float16", "d2s1-crd-2-strided-float32", "s2d1-crd-4-int64"],
)
def test_depth_space_over_many_work_items(
    device: Any, to_depth: bool, order: str | None, block: int, strided: bool, data_type: Any
) -> None:
    _check(device, rows_depth_space_case(data_type, strided, to_depth, order, block))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", WIDTHS, ids=lambda t: t.name)
@pytest.mark.parametrize("to_depth", [False, True], ids=["d2s", "s2d"])
def test_depth_space_in_every_width(device: Any, data_type: Any, to_depth: bool) -> None:
    _check(device, rows_depth_space_case(data_type, to_depth, to_depth, None, 3))


@pytest.mark.parametrize(
    ("shares", "strided", "data_type"),
    [((4, 1, 5), True, T.FLOAT16), ((3, 2), False, T.INT64), ((1,) * 8, False, T.INT8)],
    ids=["3-strided-float16", "2-int64", "8-parts-int8"],
)
def test_join_along_an_inner_axis_over_many_work_items(
    device: Any, shares: tuple[int, ...], strided: bool, data_type: Any
) -> None:
    _check(device, rows_join_case(data_type, strided, shares))


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", WIDTHS, ids=lambda t: t.name)
def test_join_in_every_width(device: Any, data_type: Any) -> None:
    _check(device, rows_join_case(data_type, True))


@pytest.mark.parametrize("data_type", WIDTHS, ids=lambda t: t.name)
@pytest.mark.parametrize("build", [rows_slice1_case, rows_tile_case], ids=["slice1-reversed", "tile"])
def test_movement_spans_several_vectors_long(device: Any, data_type: Any, build: Any) -> None:
    """movement.cl's row spans (span_copy.h: vectors of 16 and the rest under VECTOR_SPANS), forwards and back."""
    _check(device, build(data_type, data_type == T.FLOAT16))


def _kernels(desc: Any, profile: LaunchProfile) -> list[str]:
    return [step.lowered.kernel.kernel_name for step in desc.plan(profile).steps]


def test_the_cpu_profile_copies_rows_and_the_gpu_profile_keeps_the_template() -> None:
    """block_copy and join_rows under "cpu" only; a block of 9 stays the template's copy, and a JOIN of 8 parts,
    along its outer axis, or of rows that are not packed a copy per part."""
    f32 = T.FLOAT32
    depth = rows_depth_space_case(f32, True, False, None, 2).desc
    space = rows_depth_space_case(f32, False, True, "COLUMN_ROW_DEPTH", 3).desc
    assert _kernels(depth, CPU_PROFILE) == _kernels(space, CPU_PROFILE) == ["block_copy"]
    assert _kernels(depth, GPU_PROFILE) == _kernels(space, GPU_PROFILE) == ["elementwise"]
    wide = dml.DepthToSpaceOperatorDesc(
        input_tensor=tensor(f32, (1, 81, 2, 3)), output_tensor=tensor(f32, (1, 1, 18, 27)), block_size=9
    )
    assert _kernels(wide, CPU_PROFILE) == ["elementwise"]
    for shares, expected in [((4, 1, 5), ["join_rows"]), ((1,) * 8, ["elementwise"] * 8)]:
        join = rows_join_case(f32, True, shares).desc
        assert _kernels(join, CPU_PROFILE) == expected
        assert _kernels(join, GPU_PROFILE) == ["elementwise"] * len(shares)
    outer = dml.JoinOperatorDesc(
        inputs=[tensor(f32, (1, 2, 3, 4))] * 2, output_tensor=tensor(f32, (1, 4, 3, 4)), axis=1
    )
    first = dml.JoinOperatorDesc(inputs=[tensor(f32, (3,))] * 2, output_tensor=tensor(f32, (6,)), axis=0)
    assert _kernels(outer, CPU_PROFILE) == _kernels(first, CPU_PROFILE) == ["elementwise"] * 2
    gapped = dml.JoinOperatorDesc(
        inputs=[tensor(f32, (2, 3, 4), padded_strides((2, 3, 4), 1))] * 2, output_tensor=tensor(f32, (2, 6, 4)), axis=1
    )
    assert _kernels(gapped, CPU_PROFILE) == ["elementwise"] * 2


def test_depth_to_space_and_join_in_a_graph_between_element_wise_nodes(device: Any) -> None:
    """x -> ADD -> DEPTH_TO_SPACE -> JOIN along W with y -> SPACE_TO_DEPTH -> ABS."""
    f32 = T.FLOAT32
    x = np.random.default_rng(9).standard_normal((1, 8, 3, 5)).astype(np.float32)
    y = np.random.default_rng(10).standard_normal((1, 2, 6, 4)).astype(np.float32)
    g = dml.Graph(device)
    gx, gy = g.input(x.shape, f32), g.input(y.shape, f32)
    spread = g.add_operator(
        dml.DepthToSpaceOperatorDesc(
            input_tensor=tensor(f32, x.shape), output_tensor=tensor(f32, (1, 2, 6, 10)), block_size=2
        ),
        [gx + gx],
    )
    joined = g.add_operator(
        dml.JoinOperatorDesc(
            inputs=[tensor(f32, (1, 2, 6, 10)), tensor(f32, y.shape)], output_tensor=tensor(f32, (1, 2, 6, 14)), axis=3
        ),
        [spread, gy],
    )
    deep = g.add_operator(
        dml.SpaceToDepthOperatorDesc(
            input_tensor=tensor(f32, (1, 2, 6, 14)), output_tensor=tensor(f32, (1, 8, 3, 7)), block_size=2
        ),
        [joined],
    )
    got = g.compile([dml.graph.abs(deep)])(x, y)
    spread_ref = onnx_depth_space("DepthToSpace", x + x, 2, None)
    expected = np.abs(space_to_depth(np.concatenate([spread_ref, y], axis=3), 2, "DCR"))
    np.testing.assert_array_equal(np.asarray(got), expected)
