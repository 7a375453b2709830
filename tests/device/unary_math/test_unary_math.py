"""The 17 unary float math operators (dmlpy/ops/element_wise_math.py) on their own, beyond their rows in the
operator table (tests/helpers/operators.py: layouts, in place, ScaleBias, graphs):

* C99 Annex F's special values (IEEE 754's, where the standard names one), exact with the sign of a zero, at
  FLOAT32 and FLOAT16, and on the scaled value where a ScaleBias is given, as Microsoft's LOG page says;
* a float32 sweep per operator (2^16 values; 2^24 with --run-slow) within its FLOAT32_ULPS of the float64
  reference rounded to float32 (MATH_FUNCTIONS: NumPy's libm functions, Python's math.erf), the largest error
  seen per operator tallied in the summary. scripts/measure_ulps.py measures the same on every device and every
  float16 pattern for docs/operators/element_wise_math.md."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.ops._unary import UnaryMathDesc
from dmlpy.ops.element_wise_math import MATH_OPERATORS
from tests.device.unary_math.sweeps import float32_sweep
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.object_model import run_unary
from tests.helpers.operators import row_of, unary_descriptor
from tests.helpers.ulps import ulp_error

T = dml.TensorDataType
INF, NAN, HALF_PI = math.inf, math.nan, math.pi / 2

SPECIAL_VALUES: dict[str, tuple[tuple[float, float], ...]] = {
    # (x, f(x)) from ISO C99 Annex F.9 (IEC 60559 floating-point arithmetic), section by section; every
    # function also returns a NaN for a NaN. A result named "rounded" (pi/2) is the nearest value of the type.
    # A few exactly representable results (sqrt(4) = 2, exp(±0) = 1) and overflows to infinity, which any
    # result within the operator's bound also gives, stand beside them.
    "SQRT": ((0.0, 0.0), (-0.0, -0.0), (INF, INF), (-1.0, NAN), (-INF, NAN), (4.0, 2.0), (0.25, 0.5)),  # F.9.4.5
    "RECIP": ((0.0, INF), (-0.0, -INF), (INF, 0.0), (-INF, -0.0), (2.0, 0.5), (-4.0, -0.25)),  # IEEE 754 division
    "EXP": ((0.0, 1.0), (-0.0, 1.0), (-INF, 0.0), (INF, INF), (100.0, INF), (-200.0, 0.0)),  # F.9.3.1
    "LOG": ((0.0, -INF), (-0.0, -INF), (1.0, 0.0), (-1.0, NAN), (-INF, NAN), (INF, INF)),  # F.9.3.7
    "SIN": ((0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN)),  # F.9.1.6
    "COS": ((0.0, 1.0), (-0.0, 1.0), (INF, NAN), (-INF, NAN)),  # F.9.1.5
    "TAN": ((0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN)),  # F.9.1.7
    "ASIN": ((0.0, 0.0), (-0.0, -0.0), (1.5, NAN), (-2.0, NAN), (INF, NAN), (-INF, NAN)),  # F.9.1.2
    "ACOS": ((1.0, 0.0), (1.5, NAN), (-2.0, NAN), (INF, NAN), (-INF, NAN)),  # F.9.1.1
    "ATAN": ((0.0, 0.0), (-0.0, -0.0), (INF, HALF_PI), (-INF, -HALF_PI)),  # F.9.1.3
    "SINH": ((0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF), (100.0, INF), (-100.0, -INF)),  # F.9.2.5
    "COSH": ((0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, INF), (-100.0, INF)),  # F.9.2.4
    "TANH": ((0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0)),  # F.9.2.6
    "ASINH": ((0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF)),  # F.9.2.2
    "ACOSH": ((1.0, 0.0), (INF, INF), (0.5, NAN), (0.0, NAN), (-1.0, NAN), (-INF, NAN)),  # F.9.2.1
    "ATANH": ((0.0, 0.0), (-0.0, -0.0), (1.0, INF), (-1.0, -INF), (1.5, NAN), (-2.0, NAN), (INF, NAN)),  # F.9.2.3
    "ERF": ((0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0)),  # F.9.5.1
}
NUMPY = {data_type: dtype for dtype, data_type in DATA_TYPE.items() if data_type in (T.FLOAT32, T.FLOAT16)}


def function_id(desc: type[UnaryMathDesc]) -> str:
    return desc.FUNCTION.lower()


def assert_exactly(got: np.ndarray, want: np.ndarray, x: np.ndarray) -> None:
    """Each result bit for bit (the sign of a zero too), a NaN as any NaN (IEEE 754 fixes no payload)."""
    wrong = mismatches(got, want, nan="any")
    assert wrong.size == 0, describe(wrong, x, got, want)


def test_every_operator_has_special_values() -> None:
    assert set(SPECIAL_VALUES) == {desc.FUNCTION for desc in MATH_OPERATORS}


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("desc", MATH_OPERATORS, ids=function_id)
def test_special_values(device: Any, desc: type[UnaryMathDesc], data_type: T) -> None:
    dtype = NUMPY[data_type]
    pairs = (*SPECIAL_VALUES[desc.FUNCTION], (NAN, NAN), (-NAN, NAN))
    x = np.array([value for value, _ in pairs], dtype=dtype)
    want = np.array([result for _, result in pairs], dtype=dtype)
    run = run_unary(device, unary_descriptor(desc, (x.size,), data_type), dtype, lambda n: x[:n])
    assert_exactly(run.got, want, x)


@pytest.mark.one_profile  # values, not launch shapes: the operator rows run both profiles
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
def test_special_values_apply_to_the_scaled_value(device: Any, data_type: T) -> None:
    # Microsoft's LOG page: -INF where x * Scale + Bias is 0, NaN ("indefinite") where it is negative.
    dtype = NUMPY[data_type]
    scale_bias = dml.ScaleBias(scale=2.0, bias=-2.0)
    x = np.array([1.0, 0.5, 1.5, -INF, INF], dtype=dtype)
    cases = {
        dml.ElementWiseLogOperatorDesc: [-INF, NAN, 0.0, NAN, INF],
        dml.ElementWiseRecipOperatorDesc: [INF, -1.0, 1.0, -0.0, 0.0],
        dml.ElementWiseSqrtOperatorDesc: [0.0, NAN, 1.0, NAN, INF],
    }
    for desc, results in cases.items():
        operator = unary_descriptor(desc, (x.size,), data_type, scale_bias=scale_bias)
        run = run_unary(device, operator, dtype, lambda n: x[:n])
        assert_exactly(run.got, np.array(results, dtype=dtype), x)


def sweep_within_bound(device: Any, desc: type[UnaryMathDesc], count: int, tally: Counter[str]) -> None:
    """Run ``desc`` on ``count`` float32 inputs of its sweep; assert each result within FLOAT32_ULPS of the float64
    reference (ulps.ulp_error; a NaN where the reference is NaN), and tally the sweep under its largest error,
    rounded up to a whole ULP."""
    row = row_of(desc)
    (case,) = [case for case in row.cases if case.dtypes["input_tensor"] == np.float32]
    x = float32_sweep(desc, count)
    run = run_unary(device, unary_descriptor(desc, (x.size,), T.FLOAT32), x.dtype, lambda n: x[:n], slack=0)
    want = row.reference({"input_tensor": run.logical_input}, case)
    distance = ulp_error(run.got, want)
    name, worst = desc.OPERATOR_TYPE.name, math.ceil(distance.max())
    # Counts, not a maximum: pytest-xdist's workers' tallies are summed. Each sweep counts under its largest error.
    tally["unary math float32 values compared"] += x.size
    tally[f"unary math {count}-value sweeps of {name} (bound {desc.FLOAT32_ULPS}): largest error {worst} ULPs"] += 1
    bad = np.flatnonzero(distance > desc.FLOAT32_ULPS)
    assert bad.size == 0, [(float(x[i]), float(run.got[i]), float(want[i]), int(distance[i])) for i in bad[:10]]


@pytest.mark.parametrize("desc", MATH_OPERATORS, ids=function_id)
def test_float32_sweep_within_bound(device: Any, desc: type[UnaryMathDesc], tally: Counter[str]) -> None:
    sweep_within_bound(device, desc, 1 << 16, tally)


@pytest.mark.slow
@pytest.mark.parametrize("desc", MATH_OPERATORS, ids=function_id)
def test_float32_sweep_of_2_24_values_within_bound(device: Any, desc: type[UnaryMathDesc], tally: Counter[str]) -> None:
    sweep_within_bound(device, desc, 1 << 24, tally)
