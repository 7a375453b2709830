"""The functions of opencl/float_math.h give the same bits on every device and under both launch profiles: the same
float32 inputs (random bit patterns: every exponent, subnormals, infinities, NaNs; and the functions' working ranges)
and every float16 pattern run through each operator that computes with them, on each OpenCL device under test in its
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
    dml.ElementWiseTanhOperatorDesc: {},
    dml.ElementWiseErfOperatorDesc: {},
    dml.ActivationSigmoidOperatorDesc: {},
    dml.ActivationEluOperatorDesc: {"alpha": 0.7},
    dml.ActivationSoftplusOperatorDesc: {"steepness": 3.0},
    dml.ActivationSwishOperatorDesc: {"sigmoid_input_scale": 1.5},
    dml.ActivationGeluOperatorDesc: {},
}
"""Operators computed with opencl/float_math.h's functions (exp, expm1, log, log1p, sin, cos, tan, tanh, erf, erfc),
and their parameters (none a power of two, so SOFTPLUS and SWISH take their rounding corrections)."""
INPUTS = {
    T.FLOAT32: float32_sweep(dml.ElementWiseExpOperatorDesc, 1 << 14),
    T.FLOAT16: np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16),
}


def devices() -> list[Any]:
    """Each device under test (DMLPY_TEST_DEVICES) in its default launch profile, and the first one under the other
    profile as well."""
    selected = opencl_test_devices(os.environ.get(DEVICES_VARIABLE))
    made = [dml.create_device(cl_device=entry.cl_device) for entry in selected]
    other = "gpu" if made[0].launch_profile.name == "cpu" else "cpu"
    return [*made, dml.create_device(cl_device=made[0].cl_device, launch_profile=other)]


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("desc", OPERATORS, ids=lambda d: d.OPERATOR_TYPE.name)
def test_every_device_gives_the_same_bits(desc: type[OperatorDescBase], data_type: T) -> None:
    x = INPUTS[data_type]
    results = []
    for device in devices():
        run = run_unary(
            device, unary_descriptor(desc, (x.size,), data_type, **OPERATORS[desc]), x.dtype, lambda n: x[:n], slack=0
        )
        results.append((f"{device.cl_device.name} ({device.launch_profile.name})", run.got))
    (first_name, first), *others = results
    for name, got in others:
        wrong = mismatches(got, first, nan="any")
        assert wrong.size == 0, f"{name} against {first_name}: " + describe(wrong, x, got, first)
