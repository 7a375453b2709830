"""The "cpu" profile's shape for Intel's CPU runtime (``LaunchProfile.lanes_across_work_items``): the element-wise
template's packed kernel takes one element a work-item (one pair where two 4-bit elements share a byte), launched
as exactly that many work-items, whole work-groups of ACROSS_GROUP and then the rest from a global offset
(``LoweredOperator.launch_ranges``), so the kernel checks no bound. Each device here runs the shape (forced on
PoCL too: its compiler and Intel's must both give the results) over a count of whole groups and a rest, and one
smaller than a group, at binding offsets, in place, with 0-stride scales, FLOAT16 bits, 4-bit pairs of an odd
count and a fused chain: NumPy's results, the same bits as the runs of PACKED_RUN elements (PoCL's shape), and
nothing outside an output changed."""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
from dmlpy.dtypes import data_type_of
from dmlpy.kernels.launch import ACROSS_GROUP, PACKED_RUN, LaunchProfile
from dmlpy.runtime.cpu_runtime import PLATFORM as INTEL_PLATFORM
from tests.device.runtime.test_grid_stride_lanes import values
from tests.helpers.object_model import run_graph, run_operator

T = dml.TensorDataType
ACROSS = LaunchProfile("cpu", vector_width=8, work_group_size=1, lanes_across_work_items=True)
SIZES = (1, 1, 3, 795)
"""2385 elements: two whole work-groups of 1024 and a rest of 337 (an odd count: 4-bit pairs and a lone last)."""
SMALL = (1, 1, 1, 337)
"""Fewer elements than a work-group: one launch of the driver's work-groups."""

pytestmark = pytest.mark.one_profile("cpu")  # each test makes its own devices from the fixture's OpenCL device


def tensor(data_type: Any, sizes: tuple[int, ...] = SIZES, strides: tuple[int, ...] | None = None) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def shaped(device: Any, across: bool) -> Any:
    """A device on ``device``'s OpenCL device under the "cpu" profile, its lanes across work-items or not."""
    made = dml.create_device(cl_device=device.cl_device, launch_profile="cpu")
    made.launch_profile = dataclasses.replace(made.launch_profile, lanes_across_work_items=across)
    return made


def test_packed_kernels_take_one_element_a_work_item_in_whole_groups_and_a_rest() -> None:
    f32 = tensor(T.FLOAT32)
    add = dml.ElementWiseAddOperatorDesc(a_tensor=f32, b_tensor=f32, output_tensor=f32).lower(ACROSS)
    assert ("ELEMENTS_PER_ITEM", "1") in add.kernel.defines and add.work_group_size == ACROSS_GROUP
    assert add.launch_ranges == ((0, 2048), (2048, 337))
    small = tensor(T.FLOAT32, SMALL)
    assert dml.ElementWiseAbsOperatorDesc(input_tensor=small, output_tensor=small).lower(ACROSS).launch_ranges == (
        (0, 337),
    )
    exact = tensor(T.FLOAT32, (1, 1, 4, 1024))
    assert dml.ElementWiseAbsOperatorDesc(input_tensor=exact, output_tensor=exact).lower(ACROSS).launch_ranges == (
        (0, 4096),
    )
    to_int4 = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=f32, scale_tensor=tensor(T.FLOAT32, strides=(0, 0, 0, 0)), output_tensor=tensor(T.INT4)
    ).lower(ACROSS)
    assert ("ELEMENTS_PER_ITEM", "2") in to_int4.kernel.defines
    assert to_int4.launch_ranges == ((0, 1024), (1024, 169))  # 1193 work-items: 1192 pairs and the lone last
    transposed = tensor(T.FLOAT32, strides=(2385, 2385, 1, 3))
    strided = dml.ElementWiseIdentityOperatorDesc(input_tensor=transposed, output_tensor=f32).lower(ACROSS)
    assert strided.work_group_size is None and strided.launch_ranges == ((0, 3),)
    runs = dml.ElementWiseAddOperatorDesc(a_tensor=f32, b_tensor=f32, output_tensor=f32).lower(
        dataclasses.replace(ACROSS, lanes_across_work_items=False)
    )
    assert ("ELEMENTS_PER_ITEM", str(PACKED_RUN)) in runs.kernel.defines and runs.launch_ranges == ((0, 2),)


def test_the_runtime_puts_lanes_across_work_items_on_intels_runtime_only(device: Any) -> None:
    on_intel = device.cl_device.platform.name == INTEL_PLATFORM
    for requested in ("auto", "cpu"):
        profile = dml.create_device(cl_device=device.cl_device, launch_profile=requested).launch_profile
        assert profile.lanes_across_work_items == on_intel
    assert not dml.create_device(
        cl_device=device.cl_device, launch_profile="gpu"
    ).launch_profile.lanes_across_work_items


@pytest.mark.parametrize("sizes", [SIZES, SMALL], ids=["groups-and-rest", "small"])
@pytest.mark.parametrize("in_place", [False, True])
def test_float16_add_at_offsets(device: Any, sizes: tuple[int, ...], in_place: bool) -> None:
    """FLOAT16 ADD with its first input and its output at binding offsets, in place or not: NumPy's sum rounded to
    half (exact: a float sum of two halves rounds once to half), and the runs' bits."""
    f16 = tensor(T.FLOAT16, sizes)
    desc = dml.ElementWiseAddOperatorDesc(a_tensor=f16, b_tensor=f16, output_tensor=f16)
    offsets = {"a_tensor": 16, "output_tensor": 16} if in_place else {"a_tensor": 16, "output_tensor": 32}
    feeds = {"a_tensor": values(np.float16, 1), "b_tensor": values(np.float16, 2)}
    got, runs = (
        run_operator(shaped(device, a), desc, feeds, offsets=offsets, in_place=in_place) for a in (True, False)
    )
    want = (got.inputs["a_tensor"].astype(np.float32) + got.inputs["b_tensor"].astype(np.float32)).astype(np.float16)
    assert got.got.tobytes() == want.tobytes() == runs.got.tobytes()
    assert got.changed_outside == []


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64])
def test_integer_clip_with_every_width(device: Any, dtype: Any) -> None:
    """CLIP at 1, 2, 4 and 8 bytes an element, input and output 16 bytes into their buffers: NumPy's clip."""
    low, high = (-100, 100) if np.dtype(dtype).kind == "i" else (10, 100)
    packed = tensor(data_type_of(np.dtype(dtype)))
    desc = dml.ElementWiseClipOperatorDesc(input_tensor=packed, output_tensor=packed, min=float(low), max=float(high))
    offsets = {"input_tensor": 16, "output_tensor": 16}
    got, runs = (
        run_operator(shaped(device, a), desc, {"input_tensor": values(dtype, 3)}, offsets=offsets)
        for a in (True, False)
    )
    assert got.got.tobytes() == np.clip(got.inputs["input_tensor"], low, high).tobytes() == runs.got.tobytes()
    assert got.changed_outside == []


def test_quantize_linear_to_uint8_with_one_scale_and_zero_point(device: Any) -> None:
    """FLOAT32 -> UINT8 (a narrowing store a lane), the scale and zero point 0-stride: NumPy's quotient rounded
    halves to even, saturated."""
    scale, zero = tensor(T.FLOAT32, strides=(0, 0, 0, 0)), tensor(T.UINT8, strides=(0, 0, 0, 0))
    desc = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor(T.FLOAT32), scale_tensor=scale, zero_point_tensor=zero, output_tensor=tensor(T.UINT8)
    )
    feeds = {
        "input_tensor": values(np.float32, 5),
        "scale_tensor": lambda n: np.full(n, 2.5, np.float32),
        "zero_point_tensor": lambda n: np.full(n, 7, np.uint8),
    }
    got, runs = (run_operator(shaped(device, a), desc, feeds, offsets={"input_tensor": 16}) for a in (True, False))
    want = np.clip(np.rint(got.inputs["input_tensor"] / np.float32(2.5)) + 7, 0, 255).astype(np.uint8)
    assert got.got.tobytes() == want.tobytes() == runs.got.tobytes()
    assert got.changed_outside == []


def test_quantize_linear_to_int4_pairs_of_an_odd_count(device: Any) -> None:
    """FLOAT32 -> INT4, two elements a byte, one pair a work-item: 1192 pairs and the last element alone in its
    byte (its high nibble 0), as NumPy's quotient rounded halves to even and saturated."""
    x = values(np.float32, 6)(int(np.prod(SIZES))).reshape(SIZES) / np.float32(50)
    got, runs = (dml.quantize_linear(x, 0.5, dtype=ml_dtypes.int4, device=shaped(device, a)) for a in (True, False))
    want = np.clip(np.rint(x / np.float32(0.5)), -8, 7)
    assert np.array_equal(got.astype(np.int64), want.astype(np.int64))
    assert got.tobytes() == runs.tobytes()


def test_fused_qdq_chain(device: Any) -> None:
    """INT8 -> DequantizeLinear -> Exp -> QuantizeLinear -> INT8 fused into one kernel, per-tensor scales and zero
    points: one kernel, and the runs' bits (EXP's own bound is tested with the unary math operators)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(tensor(T.INT8))
    scale, zero = (g.input(tensor(t, strides=(0,) * 4)) for t in (T.FLOAT32, T.INT8))
    y = dml.graph.quantize_linear(dml.graph.exp(dml.graph.dequantize_linear(x, scale, zero)), scale, zero)
    desc = g.desc_for([y])
    data = np.random.default_rng(4).integers(-128, 128, int(np.prod(SIZES))).astype(np.int8).reshape(SIZES)
    feeds = [data, np.float32([0.05]), np.int8([-3])]
    ((got,), compiled), ((runs,), _) = (run_graph(shaped(device, a), desc, feeds) for a in (True, False))
    assert compiled.kernel_count == 1
    assert got.tobytes() == runs.tobytes()
    real = np.exp((data.astype(np.float64) + 3) * 0.05)
    assert np.max(np.abs(got.astype(np.int64) - np.clip(np.rint(real / 0.05) - 3, -128, 127))) <= 1
