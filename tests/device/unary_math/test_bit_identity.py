"""The functions of opencl/float_math.h give the same bits on every device and under both launch profiles: the same
float32 inputs (random bit patterns: every exponent, subnormals, infinities, NaNs; the functions' working ranges; and
every float16 value) run through each operator that computes with them, on each OpenCL device under test in its
default launch profile and on the first one under the other profile too, compared bit for bit (a NaN with any NaN:
IEEE 754 fixes no payload, and a GPU may canonicalise it). One-node graphs and fused groups give an operator's bits
alone (tests/device/test_operator_rows_graphs.py), so these bits are also the fused ones. With one device and its
two profiles only, the test still compares the profiles."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._unary import UnaryMathDesc
from tests.conftest import DEVICES_VARIABLE, opencl_test_devices
from tests.device.unary_math.sweeps import float32_sweep
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.object_model import run_unary
from tests.helpers.operators import unary_descriptor

T = dml.TensorDataType
OPERATORS: dict[type[OperatorDescBase], dict[str, float]] = {
    dml.ElementWiseExpOperatorDesc: {},
    dml.ElementWiseLogOperatorDesc: {},
    dml.ElementWiseSinOperatorDesc: {},
    dml.ElementWiseCosOperatorDesc: {},
    dml.ElementWiseTanOperatorDesc: {},
    dml.ElementWiseAsinOperatorDesc: {},
    dml.ElementWiseAcosOperatorDesc: {},
    dml.ElementWiseAtanOperatorDesc: {},
    dml.ElementWiseSinhOperatorDesc: {},
    dml.ElementWiseCoshOperatorDesc: {},
    dml.ElementWiseTanhOperatorDesc: {},
    dml.ElementWiseAsinhOperatorDesc: {},
    dml.ElementWiseAcoshOperatorDesc: {},
    dml.ElementWiseAtanhOperatorDesc: {},
    dml.ElementWiseErfOperatorDesc: {},
    dml.ActivationSigmoidOperatorDesc: {},
    dml.ActivationEluOperatorDesc: {"alpha": 0.7},
    dml.ActivationSoftplusOperatorDesc: {"steepness": 3.0},
    dml.ActivationSwishOperatorDesc: {"sigmoid_input_scale": 1.5},
    dml.ActivationGeluOperatorDesc: {},
}
"""Operators computed with opencl/float_math.h's functions (every transcendental one),
and their parameters (none a power of two, so SOFTPLUS and SWISH take their rounding corrections)."""
FLOAT16_VALUES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
"""Every float16 as a float32 input: a FLOAT16 operator computes the same float function of the same values and
rounds its result, so equal float bits here make equal halves there."""


def devices() -> list[Any]:
    """Each device under test (DMLPY_TEST_DEVICES) in its default launch profile, and the first one under the other
    profile as well."""
    selected = opencl_test_devices(os.environ.get(DEVICES_VARIABLE))
    made = [dml.create_device(cl_device=entry.cl_device) for entry in selected]
    other = "gpu" if made[0].launch_profile.name == "cpu" else "cpu"
    return [*made, dml.create_device(cl_device=made[0].cl_device, launch_profile=other)]


def sweep(desc: type[OperatorDescBase], count: int, seed: int = 31) -> np.ndarray:
    """``count`` float32 inputs for ``desc`` (tests/device/unary_math/sweeps.py's; EXP's ranges for an activation)."""
    return float32_sweep(desc if issubclass(desc, UnaryMathDesc) else dml.ElementWiseExpOperatorDesc, count, seed)


def assert_same_bits(desc: type[OperatorDescBase], x: np.ndarray) -> None:
    """``desc`` on the float32 values ``x`` on every device of ``devices()``: the same bits (NaN as any NaN)."""
    results = []
    for device in devices():
        operator = unary_descriptor(desc, (x.size,), T.FLOAT32, **OPERATORS[desc])
        run = run_unary(device, operator, x.dtype, lambda n: x[:n], slack=0)
        results.append((f"{device.cl_device.name} ({device.launch_profile.name})", run.got))
    (first_name, first), *others = results
    for name, got in others:
        wrong = mismatches(got, first, nan="any")
        assert wrong.size == 0, f"{name} against {first_name}: " + describe(wrong, x, got, first)


@pytest.mark.parametrize("desc", OPERATORS, ids=lambda d: d.OPERATOR_TYPE.name)
def test_every_device_gives_the_same_bits(desc: type[OperatorDescBase]) -> None:
    assert_same_bits(desc, np.concatenate([sweep(desc, 1 << 14), FLOAT16_VALUES]))


@pytest.mark.slow
@pytest.mark.parametrize("desc", OPERATORS, ids=lambda d: d.OPERATOR_TYPE.name)
def test_every_device_gives_the_same_bits_on_2_22_values(desc: type[OperatorDescBase]) -> None:
    assert_same_bits(desc, sweep(desc, 1 << 22, seed=47))
