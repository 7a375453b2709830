"""Run DMLPY_EXT_ELEMENT_WISE_ROUND's kernel variants (opencl/ext_round.cl) on Oclgrind's simulated device.

Started by test_oclgrind_ext.py in a subprocess whose environment makes Oclgrind an OpenCL platform and turns
its checks on (reports go to OCLGRIND_LOG). Each variant runs through the object model with buffers exactly
as large as the binding needs (offset + TotalTensorSizeInBytes), so an access past a tensor is an access past
its buffer, which Oclgrind reports (tests/helpers/oclgrind_driver.py). Results are compared with the bit oracle
(oracle.py, next to this file). Prints one line ``OCLGRIND_SUMMARY {json}``.

    python oclgrind_ext_variants.py [--negative-control]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.extensions import ExtElementWiseRoundOperatorDesc, ExtRoundingMode, ExtTensorDataType
from tests.helpers.ext_oracle import format_of, mismatches, round_values
from tests.helpers.layouts import column_major, padded
from tests.helpers.oclgrind_driver import Tally, main, run_layout_case, sampled_share

STORAGE = {
    "float32": (dml.TensorDataType.FLOAT32, np.dtype(np.float32)),
    "float16": (dml.TensorDataType.FLOAT16, np.dtype(np.float16)),
    "float64": (dml.TensorDataType.FLOAT64, np.dtype(np.float64)),
    "bfloat16": (ExtTensorDataType.BFLOAT16, np.dtype(ml_dtypes.bfloat16)),
    "int8": (dml.TensorDataType.INT8, np.dtype(np.int8)),
    "int32": (dml.TensorDataType.INT32, np.dtype(np.int32)),
    "uint64": (dml.TensorDataType.UINT64, np.dtype(np.uint64)),
}
FLOAT_MODES = ("NEAREST_TOWARD_EVEN", "NEAREST_UPWARD", "NEAREST_DOWNWARD", "TOWARD_INFINITY", "DOWN")
INTEGER_MODES = ("NEAREST_TOWARD_ZERO",)


def layouts() -> list[dict[str, Any]]:
    """Odd tiny packed counts (below, at and past one work-item's 16 elements), strided, broadcast, permuted,
    in place and binding offsets; ranks 1 to 8 (helpers.layouts' keyword form)."""
    cases: list[dict[str, Any]] = [{"sizes": (count,), "output_offset": 16} for count in (1, 3, 17)]
    s3, s4, s8 = (2, 3, 5), (2, 1, 3, 3), (2, 2, 2, 2, 2, 2, 2, 3)
    cases += [
        {"sizes": s3, "input_strides": padded(s3, 2), "output_strides": padded(s3, 1),
         "input_offset": 32, "output_offset": 16},
        {"sizes": (3, 7), "input_strides": (0, 1)},
        {"sizes": (5, 3), "input_strides": (1, 0), "output_strides": column_major((5, 3)), "input_offset": 16},
        {"sizes": s4, "input_strides": padded(s4), "output_strides": padded(s4), "input_offset": 16,
         "output_offset": 16, "in_place": True},
        {"sizes": s8, "output_strides": column_major(s8), "output_offset": 48},
    ]  # fmt: skip
    return cases


def values_for(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), count, dtype=dtype, endpoint=True)
    values = (rng.integers(-40, 41, count) / 4.0).astype(dtype)
    fmt = format_of(dtype)
    specials = np.array(
        [0, fmt.sign_bit, fmt.exponent_mask << fmt.mantissa_bits, (fmt.exponent_mask << fmt.mantissa_bits) | 1, 1],
        dtype=np.uint64,
    ).astype(fmt.bits_dtype)
    picks = rng.random(count) < 0.25
    values.view(fmt.bits_dtype)[picks] = specials[rng.integers(0, specials.size, int(picks.sum()))]
    return values


def run_variant(
    device: Any, storage: str, mode: str, case: dict[str, Any], rng: np.random.Generator
) -> tuple[Any, int]:
    data_type, dtype = STORAGE[storage]
    in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case.get("input_strides"))
    out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case.get("output_strides"))
    desc = ExtElementWiseRoundOperatorDesc(
        input_tensor=in_desc, output_tensor=out_desc, rounding_mode=ExtRoundingMode[mode]
    )
    run = run_layout_case(device, desc, dtype, lambda count: values_for(dtype, count, rng), case)
    x, got = run.logical_input.reshape(-1), run.got.reshape(-1)
    wrong = int(np.count_nonzero(got != x)) if dtype.kind in "iu" else int(mismatches(got, round_values(x, mode)).size)
    return run.kernel, wrong


def plan_labels() -> list[str]:
    """``storage mode`` for each storage and each mode it rounds in; the default passes share them."""
    return [
        f"{storage} {mode}"
        for storage, (_, dtype) in STORAGE.items()
        for mode in (INTEGER_MODES if dtype.kind in "iu" else FLOAT_MODES)
    ]


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    tally = Tally()
    # --half-bits builds FLOAT16 as on PoCL (half_bits.h's conversions), which no other storage uses.
    plans = [p for p in plan_labels() if p.startswith("float16 ")] if args.half_bits else sampled_share(plan_labels())
    for plan in plans:
        storage, mode = plan.split()
        for case in layouts():
            spec, bad = run_variant(device, storage, mode, case, rng)
            tally.add(spec, bad, f"{plan} {case}")
    return tally.summary("wrong", plans=plans)


if __name__ == "__main__":
    sys.exit(main(run_all, extensions=True))
