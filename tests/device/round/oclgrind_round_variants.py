"""Run every kernel variant dmlpy generates for ELEMENT_WISE_ROUND on Oclgrind's simulated device.

Started by test_oclgrind.py in a subprocess whose environment makes Oclgrind an OpenCL platform and turns its
checks on; Oclgrind writes its reports to the file named by OCLGRIND_LOG. Each variant runs through the object
model with buffers exactly as large as the binding needs (offset + TotalTensorSizeInBytes), so any access past
a tensor is an access past its buffer, which Oclgrind reports (tests/helpers/oclgrind_driver.py). Prints one
JSON line: ``OCLGRIND_SUMMARY {...}`` with the variants run, the kernel specs covered and any wrong results.

    python oclgrind_round_variants.py [--dml-round]   # --dml-round: also dml.round on NumPy views (host pointers)
    python oclgrind_round_variants.py --half-bits     # FLOAT16 only, converted through its bits as on PoCL
    python oclgrind_round_variants.py --negative-control
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.ops.element_wise_round import ELEMENTS_PER_ITEM
from tests.helpers.layouts import gapped, permuted
from tests.helpers.modes import DML_ROUNDING_MODES, ONE_LINER_MODE_NAMES, ONE_LINER_MODES
from tests.helpers.oclgrind_driver import Tally, main, run_layout_case, sampled_share

DTYPES = {dml.TensorDataType.FLOAT32: np.float32, dml.TensorDataType.FLOAT16: np.float16}


def expected_round(x: np.ndarray, mode: dml.RoundingMode) -> np.ndarray:
    a = x.astype(np.float64)
    if mode == dml.RoundingMode.HALVES_TO_NEAREST_EVEN:
        r = np.rint(a)
    elif mode == dml.RoundingMode.TOWARD_ZERO:
        r = np.trunc(a)
    else:
        r = np.copysign(np.floor(np.abs(a) + 0.5), a)  # exact in float64 for float32/float16 inputs
    return r.astype(x.dtype)


def rank_sizes(rank: int) -> tuple[int, ...]:
    """Sizes (all at least 2, so nothing coalesces away) whose element count is not a multiple of 16."""
    return tuple(2 if d < min(3, rank - 1) else 3 for d in range(rank))


def variants(vector_width: int) -> list[dict[str, Any]]:
    """Layouts (helpers.layouts' keyword form) per data type and mode: packed (vector kernel; counts below, at
    and above the launch profile's vector width), strided ranks 1 to 8 (gaps, broadcast, permutation), in place,
    binding offsets."""
    cases: list[dict[str, Any]] = []
    for count in (1, vector_width - 1, vector_width, 2 * vector_width + 3):
        cases.append({"sizes": (count,), "output_offset": 16})
    cases.append({"sizes": (1, 3, 1, 7), "input_offset": 32, "output_offset": 32, "in_place": True})
    for rank in range(1, 9):
        sizes = rank_sizes(rank)
        cases.append({"sizes": sizes, "input_strides": gapped(sizes), "input_offset": 16, "output_offset": 48})
        broadcast = (0, *gapped(sizes, 2)[1:])
        cases.append({"sizes": sizes, "input_strides": broadcast, "output_strides": gapped(sizes, 1)})
        cases.append({"sizes": sizes, "input_strides": gapped(sizes), "output_strides": gapped(sizes),
                      "input_offset": 16, "output_offset": 16, "in_place": True})  # fmt: skip
        column_major = gapped(sizes, 0, tuple(reversed(range(rank))))
        cases.append({"sizes": sizes, "output_strides": column_major, "output_offset": 16})
    # Transposes with both contiguous dimensions at least 8 long (the "cpu" profile's tiled kernel), partial
    # tiles at both edges, offsets.
    for sizes in ((19, 13), (2, 9, 17)):
        order = (*range(len(sizes) - 2), len(sizes) - 1, len(sizes) - 2)
        cases.append({"sizes": sizes, "input_strides": permuted(sizes, order), "input_offset": 16, "output_offset": 32})
    # Strided, fewer elements than one work-item handles, and a count one past it.
    for count in (ELEMENTS_PER_ITEM - 3, ELEMENTS_PER_ITEM + 1):
        cases.append({"sizes": (count,), "input_strides": (2,)})
    return cases


def run_variant(
    device: Any, data_type: dml.TensorDataType, mode: dml.RoundingMode, case: dict[str, Any], rng: np.random.Generator
) -> tuple[Any, int]:
    dtype = np.dtype(DTYPES[data_type])
    in_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case.get("input_strides"))
    out_desc = dml.BufferTensorDesc(data_type=data_type, sizes=case["sizes"], strides=case.get("output_strides"))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=in_desc, output_tensor=out_desc, rounding_mode=mode)
    run = run_layout_case(device, desc, dtype, lambda count: (rng.integers(-40, 40, count) / 4.0).astype(dtype), case)
    wrong = int(np.count_nonzero(run.got.view(np.uint8) != expected_round(run.logical_input, mode).view(np.uint8)))
    return run.kernel, wrong


def run_dml_round(device: Any, rng: np.random.Generator) -> int:
    """dml.round on NumPy arrays: packed, tail, views, broadcasts, in place (the host-pointer path)."""
    wrong = 0
    for dtype in (np.float32, np.float16):
        for mode in ONE_LINER_MODES:
            meaning = ONE_LINER_MODE_NAMES[mode]
            base = (rng.integers(-40, 40, (5, 6, 7)) / 4.0).astype(dtype)
            arrays = [
                base[0, 0],
                base,
                base[:, ::2, 1:],
                base.transpose(2, 0, 1),
                np.broadcast_to(base[:, :1], base.shape),
            ]
            for x in arrays:
                wrong += int(
                    np.count_nonzero(dml.round(x, mode=mode, device=device) != expected_round(np.asarray(x), meaning))
                )
            work = base[::2, 1:].copy()
            expected = expected_round(work, meaning)
            dml.round(work, mode=mode, out=work, device=device)
            wrong += int(np.count_nonzero(work != expected))
    return wrong


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    tally = Tally()
    # --half-bits builds the FLOAT16 kernels as on PoCL (half_bits.h's conversions); FLOAT32 has nothing to convert.
    data_types = [dml.TensorDataType.FLOAT16] if args.half_bits else list(DTYPES)
    plans = sampled_share([(data_type, mode) for data_type in data_types for mode in DML_ROUNDING_MODES])
    for data_type, mode in plans:
        for case in variants(device.launch_profile.vector_width):
            spec, bad = run_variant(device, data_type, mode, case, rng)
            tally.add(spec, bad, f"{data_type.name} {mode.name} {case}")
    extra = run_dml_round(device, rng) if args.dml_round else 0
    labels = [f"{data_type.name} {mode.name}" for data_type, mode in plans]
    return tally.summary("wrong_bytes", dml_round_wrong=extra, plans=labels)


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--dml-round", "also dml.round on NumPy arrays (the host-pointer path)")]))
