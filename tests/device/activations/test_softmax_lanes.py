"""softmax.cl's ROWS path (a group of consecutive elements in both tensors) gives the same bits everywhere:

* opencl/softmax_lanes.h's float8 twins against the scalar helpers they mirror (float_math.h's exp_float,
  compensated.h's exact_difference and exp_of), bit for bit, on each device with the options dmlpy builds with
  (PoCL's clang builtins included), over the EXP sweep's floats (random patterns: every exponent, subnormals,
  infinities, NaNs; and -100 to 100) each against a maximum from the same sweep (terms_lanes where that maximum is
  finite and at least x, as in a row); and half_lanes, the FLOAT16
  stores, against half_bits.h's half_value_bits(half_value(x)) on the same sweep, every half, each midpoint
  between two neighbouring halves (a tie) and the floats either side of it;
* SOFTMAX1, LOG_SOFTMAX1 and HARDMAX1 along rows of 1000 (125 whole lanes) and of 21 (two lanes and a tail), FLOAT32
  and FLOAT16, on every device under test in its default launch profile and on the first one under the other
  profile too (test_bit_identity.py's devices), the same bits (a NaN as any NaN)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.kernels import opencl_source_dir
from dmlpy.runtime.programs import device_options
from tests.device.unary_math.sweeps import float32_sweep
from tests.device.unary_math.test_bit_identity import devices
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.object_model import run_operator
from tests.helpers.row_model import F16, F32
from tests.helpers.rows_softmax import softmax_values

_KERNEL = """
#include "half_bits.h"
#include "softmax_lanes.h"
__kernel void twins(__global const float *x, __global const float *maximum, __global float *scalar,
                    __global float *lanes)
{
    const size_t i = 8 * get_global_id(0);
    const float8 x8 = vload8(0, x + i);
    const float m = maximum[i];
    const DifferenceLanes d = difference_lanes(x8, m);
    vstore8(exp_lanes(x8), 0, lanes + 4 * i);
    vstore8(terms_lanes(x8, m), 0, lanes + 4 * i + 8);
    vstore8(d.hi, 0, lanes + 4 * i + 16);
    vstore8(d.lo, 0, lanes + 4 * i + 24);
    for (int j = 0; j < 8; ++j) {
        const float2 e = exact_difference(x[i + j], m);
        scalar[4 * i + j] = exp_float(x[i + j]);
        scalar[4 * i + 8 + j] = exp_of(e);
        scalar[4 * i + 16 + j] = e.x;
        scalar[4 * i + 24 + j] = e.y;
    }
}

__kernel void halves(__global const float *x, __global ushort *scalar, __global ushort *lanes)
{
    const size_t i = 8 * get_global_id(0);
    vstore8(half_lanes(vload8(0, x + i)), 0, lanes + i);
    for (int j = 0; j < 8; ++j) {
        scalar[i + j] = half_value_bits(half_value(x[i + j]));
    }
}
"""


@pytest.mark.one_profile
def test_the_float8_twins_give_the_scalar_helpers_bits(device: Any) -> None:
    import pyopencl as cl

    x = float32_sweep(dml.ElementWiseExpOperatorDesc, 1 << 15)
    maximum = np.random.default_rng(5).permutation(x)
    options = ["-cl-std=CL1.2", f"-I{opencl_source_dir()}", *device_options(device.cl_device)]
    program = cl.Program(device.context, _KERNEL).build(options=options)
    flags = cl.mem_flags
    inputs = [cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=a) for a in (x, maximum)]
    outputs = [cl.Buffer(device.context, flags.WRITE_ONLY, size=16 * x.size) for _ in range(2)]
    program.twins(device.queue, (x.size // 8,), None, *inputs, *outputs)
    scalar, lanes = (np.empty(4 * x.size, np.float32) for _ in range(2))
    for host, buffer in zip((scalar, lanes), outputs, strict=True):
        cl.enqueue_copy(device.queue, host, buffer)
    device.queue.finish()
    # Per block of eight inputs: exp, the term, hi, lo; the maximum is the block's first one's. terms_lanes is compared
    # where softmax.cl calls it: a finite maximum at least x (so hi is at most 0, never NaN).
    blocks = x.size // 8
    block_maximum = np.repeat(maximum[::8], 8)
    in_a_row = np.isfinite(block_maximum) & (x <= block_maximum)
    for k, name in enumerate(("exp_lanes", "terms_lanes", "hi", "lo")):
        got = lanes.reshape(blocks, 4, 8)[:, k].reshape(-1)
        want = scalar.reshape(blocks, 4, 8)[:, k].reshape(-1)
        inputs = x
        if name == "terms_lanes":
            got, want, inputs = got[in_a_row], want[in_a_row], x[in_a_row]
        wrong = mismatches(got, want, nan="any")
        assert wrong.size == 0, f"{name}: " + describe(wrong, inputs, got, want)


def _halves_and_ties() -> np.ndarray:
    """Every finite half as a float32, each midpoint between two neighbouring ones (exact in float32) and the floats
    either side of each midpoint."""
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    ordered = np.unique(halves[np.isfinite(halves)])
    middles = ((ordered[:-1].astype(np.float64) + ordered[1:]) / 2).astype(np.float32)
    return np.concatenate([ordered, middles, np.nextafter(middles, np.inf), np.nextafter(middles, -np.inf)])


@pytest.mark.one_profile
def test_half_lanes_gives_the_scalar_stores_bits(device: Any) -> None:
    import pyopencl as cl

    x = np.concatenate([float32_sweep(dml.ElementWiseExpOperatorDesc, 1 << 15), _halves_and_ties()])
    x = np.concatenate([x, np.zeros(-x.size % 8, np.float32)])
    options = ["-cl-std=CL1.2", f"-I{opencl_source_dir()}", *device_options(device.cl_device)]
    program = cl.Program(device.context, _KERNEL).build(options=options)
    flags = cl.mem_flags
    source = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=x)
    outputs = [cl.Buffer(device.context, flags.WRITE_ONLY, size=2 * x.size) for _ in range(2)]
    program.halves(device.queue, (x.size // 8,), None, source, *outputs)
    scalar, lanes = (np.empty(x.size, np.uint16) for _ in range(2))
    for host, buffer in zip((scalar, lanes), outputs, strict=True):
        cl.enqueue_copy(device.queue, host, buffer)
    device.queue.finish()
    wrong = np.flatnonzero(scalar != lanes)
    assert wrong.size == 0, f"{wrong.size} floats stored otherwise, first {x[wrong[:4]].tolist()}"


OPERATORS = (
    dml.ActivationSoftmax1OperatorDesc,
    dml.ActivationLogSoftmax1OperatorDesc,
    dml.ActivationHardmax1OperatorDesc,
)


@pytest.mark.parametrize("dtype", [F32, F16], ids=["FLOAT32", "FLOAT16"])
@pytest.mark.parametrize("desc_class", OPERATORS, ids=lambda desc: desc.OPERATOR_TYPE.name)
def test_every_device_gives_the_same_bits(desc_class: Any, dtype: np.dtype[Any]) -> None:
    rng = np.random.default_rng(47)
    results = []
    for shape in ((12, 1000), (40, 21)):
        values = softmax_values(dtype, int(np.prod(shape)), rng)
        values[3] = -np.inf  # an element whose term is 0 in some lane
        tensor = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=shape)
        desc = desc_class(input_tensor=tensor, output_tensor=tensor, axes=(1,))
        results.append(
            [run_operator(device, desc, {"input_tensor": lambda n, v=values: v[:n]}) for device in devices()]
        )
    for runs in results:
        first, *others = runs
        for run in others:
            wrong = mismatches(run.got, first.got, nan="any")
            assert wrong.size == 0, describe(wrong, first.inputs["input_tensor"], run.got, first.got)
