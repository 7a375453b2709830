"""The "gpu" launch profile's LANES loop (opencl/elementwise.cl, elementwise_lanes.h): over packed tensors a work-item
takes 4 consecutive elements a step, read with one vload per input and written with one vstore per output, and the
grid strides on. A device's real grid is larger than the tests' tensors, so there every work-item takes one step at
most; here the grid is 8 work-items (32 elements a sweep), so that work-items take many steps, the tail after the
last whole group runs, and vector loads meet binding offsets (a 64-bit tensor 16 bytes in: 2 elements, so its
vectors of 32 bytes are not 32-byte aligned), a 0-stride scale, FLOAT16 bits and a dispatch in place. Every result
is NumPy's, and the same bits as the "cpu" profile's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.dtypes import data_type_of
from dmlpy.kernels import LaunchProfile
from dmlpy.kernels.launch import CPU_PROFILE
from tests.helpers.object_model import run_graph, run_operator

T = dml.TensorDataType
TINY_GRID = LaunchProfile("gpu", vector_width=4, work_group_size=4, grid_size=8)
SIZES = (1, 1, 3, 337)
"""1011 elements: 31 sweeps of the tiny grid, 252 whole groups and a tail of 3."""
COUNT = int(np.prod(SIZES))

pytestmark = pytest.mark.one_profile("gpu")  # the test makes its own tiny-grid device from the fixture's OpenCL device


@pytest.fixture
def tiny_grid(device: Any) -> Any:
    """A device on the fixture's OpenCL device whose "gpu" grid is 8 work-items."""
    tiny = dml.create_device(cl_device=device.cl_device, launch_profile="gpu")
    tiny.launch_profile = TINY_GRID
    return tiny


def packed(data_type: Any, strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=SIZES, strides=strides)


def values(dtype: Any, seed: int) -> Any:
    """``n`` values of ``dtype`` from ``seed``, the same for every call: every device gets the same inputs."""

    def make(n: int) -> Any:
        rng = np.random.default_rng(seed)
        if np.dtype(dtype).kind == "f":
            return (rng.standard_normal(n) * 100).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)

    return make


def test_lowering_takes_lanes_over_packed_tensors_only() -> None:
    """Packed tensors lower to LANES=4 (4 elements a work-item and step); strided ones and 4-bit ones do not."""
    f32 = packed(T.FLOAT32)
    add = dml.ElementWiseAddOperatorDesc(a_tensor=f32, b_tensor=f32, output_tensor=f32).lower(TINY_GRID)
    assert ("LANES", "4") in add.kernel.defines and add.elements_per_work_item == 4
    transposed = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=SIZES, strides=(COUNT, COUNT, 1, 3))
    strided = dml.ElementWiseIdentityOperatorDesc(input_tensor=transposed, output_tensor=f32).lower(TINY_GRID)
    assert not any(name == "LANES" for name, _ in strided.kernel.defines)
    scale = packed(T.FLOAT32, (0, 0, 0, 0))
    to_int4 = dml.ElementWiseQuantizeLinearOperatorDesc(
        input_tensor=f32, scale_tensor=scale, output_tensor=packed(T.INT4)
    ).lower(TINY_GRID)
    assert not any(name == "LANES" for name, _ in to_int4.kernel.defines)
    on_cpu = dml.ElementWiseAddOperatorDesc(a_tensor=f32, b_tensor=f32, output_tensor=f32).lower(CPU_PROFILE)
    assert not any(name == "LANES" for name, _ in on_cpu.kernel.defines)


@pytest.mark.parametrize("in_place", [False, True])
def test_float16_add_at_offsets(tiny_grid: Any, device: Any, in_place: bool) -> None:
    """FLOAT16 ADD with its first input and its output at binding offsets, in place or not: NumPy's sum rounded to
    half (exact: a float sum of two halves rounds once to half), and the "cpu" profile's bits."""
    f16 = packed(T.FLOAT16)
    desc = dml.ElementWiseAddOperatorDesc(a_tensor=f16, b_tensor=f16, output_tensor=f16)
    offsets = {"a_tensor": 16, "output_tensor": 16} if in_place else {"a_tensor": 16, "output_tensor": 32}
    feeds = {"a_tensor": values(np.float16, 1), "b_tensor": values(np.float16, 2)}
    runs = [run_operator(d, desc, feeds, offsets=offsets, in_place=in_place) for d in (tiny_grid, cpu_of(device))]
    got, on_cpu = runs[0], runs[1]
    want = (got.inputs["a_tensor"].astype(np.float32) + got.inputs["b_tensor"].astype(np.float32)).astype(np.float16)
    assert got.got.tobytes() == want.tobytes() == on_cpu.got.tobytes()
    assert got.changed_outside == []


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64])
def test_integer_clip_with_every_width(tiny_grid: Any, device: Any, dtype: Any) -> None:
    """CLIP at 1, 2, 4 and 8 bytes an element (char4 to ulong4 vectors), the input and output 16 bytes into their
    buffers: NumPy's clip, the "cpu" profile's bits."""
    data_type = data_type_of(np.dtype(dtype))
    low, high = (-100, 100) if np.dtype(dtype).kind == "i" else (10, 100)
    tensor = packed(data_type)
    desc = dml.ElementWiseClipOperatorDesc(input_tensor=tensor, output_tensor=tensor, min=float(low), max=float(high))
    offsets = {"input_tensor": 16, "output_tensor": 16}
    feeds = {"input_tensor": values(dtype, 3)}
    runs = [run_operator(d, desc, feeds, offsets=offsets) for d in (tiny_grid, cpu_of(device))]
    want = np.clip(runs[0].inputs["input_tensor"], low, high)
    assert runs[0].got.tobytes() == want.tobytes() == runs[1].got.tobytes()
    assert runs[0].changed_outside == []


def test_fused_qdq_chain_with_per_tensor_scales(tiny_grid: Any, device: Any) -> None:
    """INT8 -> DequantizeLinear -> Add -> Clip -> QuantizeLinear -> INT8, fused into one kernel, its scales and zero
    points 0-stride (read once, or into every lane): the same bits on the tiny grid and the "cpu" profile, and
    NumPy's (the dequantized value is exact in float; QuantizeLinear divides correctly rounded and rounds halves
    to even)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(packed(T.INT8))
    scale, zero, bias = (g.input(packed(t, (0,) * 4)) for t in (T.FLOAT32, T.INT8, T.FLOAT32))
    real = dml.graph.add(dml.graph.dequantize_linear(x, scale, zero), bias)
    y = dml.graph.quantize_linear(dml.graph.clip(real, 0.0, 6.0), scale, zero)
    desc = g.desc_for([y])
    data = np.random.default_rng(4).integers(-128, 128, COUNT).astype(np.int8).reshape(SIZES)
    feeds = [data, np.float32([0.05]), np.int8([-3]), np.float32([0.25])]
    (got,), compiled = run_graph(tiny_grid, desc, feeds)
    (on_cpu,), _ = run_graph(cpu_of(device), desc, feeds)
    assert compiled.kernel_count == 1
    real_ = (data.astype(np.float32) - np.float32(-3)) * np.float32(0.05)
    clipped_ = np.clip(real_ + np.float32(0.25), np.float32(0), np.float32(6))
    want = np.clip(np.rint(clipped_ / np.float32(0.05)) + np.float32(-3), -128, 127).astype(np.int8)
    assert got.tobytes() == want.tobytes() == on_cpu.tobytes()


def cpu_of(device: Any) -> Any:
    """The fixture's OpenCL device under the "cpu" profile: one long loop a work-item (on Intel's runtime one
    element a work-item, LaunchProfile.lanes_across_work_items), no LANES groups."""
    return dml.create_device(cl_device=device.cl_device, launch_profile="cpu")
