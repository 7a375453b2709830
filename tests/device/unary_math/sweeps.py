"""The float32 inputs of the unary math operators' accuracy sweeps (tests/device/unary_math/test_unary_math.py and
scripts/measure_ulps.py): half random bit patterns (every exponent, subnormals, infinities and NaNs as often as
their patterns occur) and half uniform values over the ranges where each function does its work, where a random
pattern rarely lands (a float32 pattern is within [-1, 1] about half the time, but within [1, 100] only 1.3% of
the time)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.ops._unary import UnaryMathDesc

RANGES: dict[str, tuple[tuple[float, float], ...]] = {
    "SQRT": ((0.0, 4.0),),
    "RECIP": ((-2.0, 2.0),),
    "EXP": ((-100.0, 100.0), (-1.0, 1.0)),  # float32 overflows above 88.7 and underflows to 0 below -103.97
    "LOG": ((0.0, 2.0), (0.0, 1e6)),
    "SIN": ((-10.0, 10.0), (-1e6, 1e6)),  # large arguments test the argument reduction
    "COS": ((-10.0, 10.0), (-1e6, 1e6)),
    "TAN": ((-10.0, 10.0), (-1e6, 1e6)),
    "ASIN": ((-1.0, 1.0),),
    "ACOS": ((-1.0, 1.0),),
    "ATAN": ((-10.0, 10.0), (-1e4, 1e4)),
    "SINH": ((-100.0, 100.0), (-1.0, 1.0)),  # overflows above 89.42
    "COSH": ((-100.0, 100.0), (-1.0, 1.0)),
    "TANH": ((-10.0, 10.0), (-1.0, 1.0)),
    "ASINH": ((-10.0, 10.0), (-1e6, 1e6)),
    "ACOSH": ((1.0, 10.0), (1.0, 1e6)),
    "ATANH": ((-1.0, 1.0),),
    "ERF": ((-4.0, 4.0),),  # erf(x) rounds to 1 in float32 from x = 3.92
}
"""Where each function (a UnaryMathDesc's FUNCTION) is worth sampling densely, beside the random patterns."""


def float32_sweep(desc: type[UnaryMathDesc], count: int, seed: int = 31) -> npt.NDArray[Any]:
    """``count`` float32 inputs for ``desc``'s function: half random bit patterns, the rest spread evenly over
    its RANGES, uniform within each."""
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, 1 << 32, count // 2, dtype=np.uint64).astype(np.uint32).view(np.float32)
    ranges = RANGES[desc.FUNCTION]
    per_range = [len(part) for part in np.array_split(np.arange(count - patterns.size), len(ranges))]
    spread = [rng.uniform(low, high, n).astype(np.float32) for (low, high), n in zip(ranges, per_range, strict=True)]
    return np.concatenate([patterns, *spread])
