"""opencl/float_pow.h's pow_float, the float power as plain arithmetic (issue 47), in a probe kernel of its own on
each device: within POW_FLOAT_ULPS of float64 pow on random pairs (bases from e^-80 to e^80 of both signs, halved
integral exponents, results near the float range's ends, random bit patterns), C99 Annex F's special cases exactly
(every pair of special values, compared with NumPy's float32 power, which is C's powf), and the same bits on every
device. POW and CONSTANT_POW compute with it once their expression names it (docs/operators/element_wise_math.md)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pyopencl as cl
import pytest

from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.source import kernel_source
from dmlpy.runtime.programs import device_options
from tests.conftest import DEVICES_VARIABLE, opencl_test_devices
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.ulps import ulp_error

Array = np.ndarray[Any, Any]
POW_FLOAT_ULPS = 1.0
"""pow_float's bound: 0.92 ULPs measured at most on 8.4M pairs of these kinds (docs/operators/element_wise_math.md)."""
PROBE = """
__kernel void probe(__global const float *x, __global const float *y, __global float *out)
{
    const size_t i = get_global_id(0);
    out[i] = pow_float(x[i], y[i]);
}
"""
SPECIALS = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 1 / 3, 2**23 + 1, -(2**23 + 1), 2**24 + 2,
     np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38],
    dtype=np.float32,
)  # fmt: skip
"""Signed zeros, +-1, small integers of both parities, halves and a third, odd integers near 2^23 (the last odd
floats) and 2^24 + 2 (even), infinities, a NaN, the smallest subnormals and the largest finite values: every pair of
them is one of C99's special cases or near one."""


def pow_float_on(cl_device: Any, x: Array, y: Array) -> Array:
    """pow_float of the float32 pairs (x, y) on ``cl_device``, built as the element-wise template is (its options and
    the device's)."""
    context = cl.Context([cl_device])
    queue = cl.CommandQueue(context)
    options = ["-cl-std=CL1.2", *TEMPLATE_OPTIONS, *device_options(cl_device)]
    program = cl.Program(context, kernel_source("float_math.h") + PROBE).build(options=options)
    flags = cl.mem_flags
    x_buffer = cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=x)
    y_buffer = cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=y)
    out_buffer = cl.Buffer(context, flags.WRITE_ONLY, size=x.nbytes)
    cl.Kernel(program, "probe")(queue, (x.size,), None, x_buffer, y_buffer, out_buffer)
    out = np.empty_like(x)
    cl.enqueue_copy(queue, out, out_buffer)
    queue.finish()
    return out


def random_pairs(count: int, seed: int = 47) -> tuple[Array, Array]:
    """``count`` pairs of each kind: wide bases with halved integral exponents; bases on [0, 4] with exponents on
    [-60, 60]; bases from e^-100 to e^88 with exponents that put y log2(x) near +-150 (results near the float range's
    ends and subnormal); random bit patterns with normal exponents of a few units."""
    rng = np.random.default_rng(seed)
    wide = np.exp(rng.uniform(-80, 80, count)) * rng.choice([-1.0, 1.0], count)
    halved = np.round(rng.uniform(-40, 40, count) * 2) / 2
    near_ends = np.exp(rng.uniform(-100, 88, count))
    toward_ends = rng.uniform(-1, 1, count) * 150 / np.maximum(np.abs(np.log2(near_ends)), 1e-3)
    patterns = rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([wide, rng.uniform(0, 4, count), near_ends, patterns]).astype(np.float32)
    y = np.concatenate([halved, rng.uniform(-60, 60, count), toward_ends, rng.standard_normal(count) * 4])
    return x, y.astype(np.float32)


def devices() -> list[Any]:
    return [entry.cl_device for entry in opencl_test_devices(os.environ.get(DEVICES_VARIABLE))]


@pytest.mark.parametrize("cl_device", devices(), ids=lambda d: d.platform.name.strip()[:16])
def test_pow_float_is_within_its_bound_of_float64_pow(cl_device: Any) -> None:
    x, y = random_pairs(1 << 18)
    got = pow_float_on(cl_device, x, y)
    with np.errstate(all="ignore"):
        exact = np.power(x.astype(np.float64), y.astype(np.float64))
    error = ulp_error(got, exact)
    worst = int(np.argmax(error))
    assert error[worst] <= POW_FLOAT_ULPS, f"pow({x[worst]!r}, {y[worst]!r}) = {got[worst]!r}: {error[worst]:.2f} ULPs"


@pytest.mark.parametrize("cl_device", devices(), ids=lambda d: d.platform.name.strip()[:16])
def test_pow_float_gives_c99s_special_cases(cl_device: Any) -> None:
    x, y = (grid.reshape(-1) for grid in np.meshgrid(SPECIALS, SPECIALS, indexing="ij"))
    got = pow_float_on(cl_device, x, y)
    with np.errstate(all="ignore"):
        want = np.power(x, y)  # float32: C's powf, Annex F's cases
    special = ~np.isfinite(want) | (want == 0) | ~np.isfinite(x) | ~np.isfinite(y) | (x == 0) | (y == 0)
    wrong = mismatches(got[special], want[special], nan="any")
    exponents = y[special][wrong[:12]].tolist()
    assert wrong.size == 0, f"exponents {exponents}:\n" + describe(wrong, x[special], got[special], want[special])
    assert got[(y == 0) | (x == 1)].tolist() == [1.0] * int(((y == 0) | (x == 1)).sum())  # NaN operands too


def test_pow_float_gives_the_same_bits_on_every_device() -> None:
    x, y = random_pairs(1 << 16, seed=48)
    first, *others = (pow_float_on(cl_device, x, y) for cl_device in devices())
    for got in others:
        wrong = mismatches(got, first, nan="any")
        assert wrong.size == 0, describe(wrong, x, got, first)
