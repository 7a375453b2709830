"""opencl/half_bits.h's half_bits_to_float8, which reduce.cl's vector walks load FLOAT16 elements through, against
NumPy's float16 -> float32 conversion on all 65,536 halves: every non-NaN value bit for bit, and every NaN with the
sign and payload half_bits_to_float keeps (its 10 bits 13 places up, the float's exponent all ones). And the FLOAT16
sums' own load (reduce_lanes.h's load_lanes: vload_half8 outside PoCL) through REDUCE SUM: each half alone among
zeros in a group of eight, every non-NaN half back as itself (-0 as +0) and every NaN as a NaN."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dmlpy.kernels import opencl_source_dir
from tests.device.reduction.cases import F, T, reduce_desc, run_reduce

_KERNEL = """
#include "half_bits.h"
__kernel void widen(__global const ushort *bits, __global float *values)
{
    const size_t i = 8 * get_global_id(0);
    vstore8(half_bits_to_float8(vload8(0, bits + i)), 0, values + i);
}
"""


def _expected_bits(halves: np.ndarray) -> np.ndarray:
    """The float32 bits of each half: NumPy's conversion, NaN built from the half's sign and payload."""
    expected = halves.view(np.float16).astype(np.float32).view(np.uint32)
    wide = halves.astype(np.uint32)
    nan_bits = ((wide & 0x8000) << 16) | 0x7F800000 | ((wide & 0x7FFF) << 13)
    return np.where(np.isnan(halves.view(np.float16)), nan_bits, expected)


@pytest.mark.one_profile
def test_half_bits_to_float8_is_numpys_conversion_on_every_half(device: Any) -> None:
    import pyopencl as cl

    halves = np.arange(65536, dtype=np.uint16)
    program = cl.Program(device.context, _KERNEL).build(options=["-cl-std=CL1.2", f"-I{opencl_source_dir()}"])
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=halves)
    target = cl.Buffer(device.context, flags.WRITE_ONLY, size=4 * halves.size)
    program.widen(device.queue, (halves.size // 8,), None, source, target)
    got = np.empty(halves.size, np.uint32)
    cl.enqueue_copy(device.queue, got, target).wait()
    wrong = np.flatnonzero(got != _expected_bits(halves))
    assert wrong.size == 0, f"{wrong.size} halves converted wrongly, first {hex(int(halves[wrong[0]]))}"


@pytest.mark.one_profile
def test_a_float16_sum_loads_every_half_exactly(device: Any) -> None:
    """Group i of (65536, 8) holds half i in lane i % 8 and zeros elsewhere: its sum is the half (-0 gives +0, as
    0 + -0 does; a NaN stays a NaN), so a load that converted any half wrongly, in any lane, shows."""
    halves = np.arange(65536, dtype=np.uint16)
    x = np.zeros((halves.size, 8), np.uint16)
    x[np.arange(halves.size), np.arange(halves.size) % 8] = halves
    got = run_reduce(device, reduce_desc(F.SUM, T.FLOAT16, x.shape, (1,)), x.view(np.float16)).reshape(-1)
    nan = np.isnan(halves.view(np.float16))
    expected = np.where(halves == 0x8000, 0, halves)
    assert np.isnan(got[nan]).all()
    wrong = np.flatnonzero(got.view(np.uint16)[~nan] != expected[~nan])
    assert wrong.size == 0, f"{wrong.size} halves summed wrongly, first {hex(int(halves[~nan][wrong[0]]))}"
