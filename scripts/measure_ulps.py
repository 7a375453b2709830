"""Measure the largest error, in ULPs, of every unary math operator (dmlpy.ops.element_wise_math.MATH_OPERATORS)
on every OpenCL device whose compiler builds dmlpy's kernels, and print it as the Markdown table of
docs/operators/element_wise_math.md.

    .venv/bin/python scripts/measure_ulps.py                 # 2^22 float32 values per operator
    .venv/bin/python scripts/measure_ulps.py --count 65536

Each operator runs as a one-node graph built with its builder function (``dml.graph.sqrt``, ...) under the
device's own launch profile, on

* FLOAT32: the sweep of tests/device/unary_math/sweeps.py (half random bit patterns, half the function's ranges),
  against the float64 reference of the operator test table (tests/helpers/operators.py's MATH_FUNCTIONS: NumPy's
  libm functions, Python's math.erf);
* FLOAT16: all 65,536 patterns, against the same float64 reference.

Errors are tests/helpers/ulps.py's ulp_error, as the OpenCL specification measures them: |result - exact| in ULPs
of the result's type at the exact value (an overflow counted in floats up to the infinity); 0 where both are
NaN; "inf" for a NaN on one side only or a zero of the wrong sign (never seen so far).
The references and the sweep are the test helpers' (imported from this repository), so the docs' figures and the
tests' bounds come from one oracle."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.ops._unary import UnaryMathDesc
from dmlpy.ops.element_wise_math import MATH_OPERATORS
from tests.device.unary_math.sweeps import float32_sweep
from tests.helpers.operators import MATH_FUNCTIONS
from tests.helpers.ulps import ulp_error

Array = npt.NDArray[Any]
ALL_FLOAT16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


def run_operator(device: dml.Device, desc: type[UnaryMathDesc], x: Array) -> Array:
    """``desc`` on the packed 1-D array ``x`` (FLOAT32 or FLOAT16), through its builder function."""
    data_type = dml.TensorDataType.FLOAT32 if x.dtype == np.float32 else dml.TensorDataType.FLOAT16
    graph = dml.Graph(device)
    value = graph.input(dml.BufferTensorDesc(data_type=data_type, sizes=(x.size,)))
    builder: Callable[[Any], Any] = getattr(dml.graph, desc.BUILDER_NAME)
    result: Array = graph.compile([builder(value)])(x)
    return result.reshape(-1)


def worst(got: Array, exact: Array) -> str:
    """The largest error in ULPs (ulps.ulp_error), to a tenth, or "inf" where a NaN stands against a number or a
    zero has the wrong sign."""
    return f"{float(ulp_error(got, exact).max()):.1f}"


def reference(desc: type[UnaryMathDesc], x: Array) -> Array:
    """The operator's exact result on ``x``: its float64 reference."""
    with np.errstate(all="ignore"):
        result: Array = MATH_FUNCTIONS[desc](x.astype(np.float64))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1 << 22, help="float32 values per operator (default 2^22)")
    args = parser.parse_args()
    started = time.perf_counter()
    entries = [entry for entry in dml.devices() if entry.compiler_error is None]
    devices = [dml.create_device(cl_device=entry.cl_device) for entry in entries]
    float32_columns = " | ".join(f"float32, device {entry.index}" for entry in entries)
    float16_columns = " | ".join(f"float16, device {entry.index}" for entry in entries)
    print(f"| Operator | Bound (float32 ULPs) | {float32_columns} | {float16_columns} |")
    print("|---|---|" + "---|" * (2 * len(entries)))
    for desc in MATH_OPERATORS:
        x32 = float32_sweep(desc, args.count)
        want32, want16 = reference(desc, x32), reference(desc, ALL_FLOAT16)
        float32 = [worst(run_operator(device, desc, x32), want32) for device in devices]
        float16 = [worst(run_operator(device, desc, ALL_FLOAT16), want16) for device in devices]
        name = desc.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_")
        print(f"| {name} | {desc.FLOAT32_ULPS} | {' | '.join(float32)} | {' | '.join(float16)} |", flush=True)
    print()
    for entry in entries:
        print(f"device {entry.index}: {entry.platform}, {entry.name} ({entry.runtime})")
    elapsed = time.perf_counter() - started
    print(f"{args.count} float32 values and 65536 float16 patterns per operator and device; {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
