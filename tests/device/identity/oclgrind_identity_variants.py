"""Run ELEMENT_WISE_IDENTITY kernel variants on Oclgrind's simulated device: the copy for every element width and
ScaleBias for float32, float16 and integers, packed and strided (ranks 1 to 8: gaps, broadcast, transposition,
offsets, in place), each buffer exactly as large as its binding needs (tests/helpers/oclgrind_driver.py).

Started by test_identity_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind. Prints one JSON line,
``OCLGRIND_SUMMARY {...}``: the variants run, the kernel specs covered and the wrong results (copies compared bit
for bit, ScaleBias against NumPy float32 arithmetic). ScaleBias inputs hold no NaN here: Oclgrind's saturating
conversions turn NaN into the type's minimum where OpenCL (and PoCL) give 0.

    python oclgrind_identity_variants.py
    python oclgrind_identity_variants.py --negative-control
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.kernels.elementwise import ELEMENTS_PER_ITEM
from tests.helpers.layouts import gapped, padded, permuted
from tests.helpers.oclgrind_driver import Tally, main, run_layout_case, sampled_share

T = dml.TensorDataType
COPY = {T.FLOAT32: np.float32, T.FLOAT16: np.float16, T.INT8: np.int8, T.UINT16: np.uint16, T.UINT32: np.uint32,
        T.FLOAT64: np.float64, T.INT64: np.int64}  # fmt: skip
SCALE_BIAS = {T.FLOAT32: np.float32, T.FLOAT16: np.float16, T.INT8: np.int8, T.UINT8: np.uint8, T.INT16: np.int16,
              T.UINT16: np.uint16, T.INT32: np.int32, T.UINT32: np.uint32}  # fmt: skip
EXPECTED_SPECS = {"cpu": 75, "gpu": 75}
"""Distinct kernel specs the variants cover under each launch profile when every plan runs
(test_identity_oclgrind.py checks it), of the element-wise template (opencl/elementwise.cl) for 12 kinds: the
copy of each element width (8, 16, 32, 64 bits) and ScaleBias on each of 8 types. Per plan PACKED=1 twice (STEP0
1, and 0 for a broadcast single value) and the strided walk at RANK 1 to ``max_rank``, RANK 8 for the 16- and
32-bit copies and FLOAT32 ScaleBias: 12 * 2 + 12 * 3 + 3 * 5 (two copies of each width share their kernels). No
layout here has unit inner steps without being packed, so no ROWS=1 shape."""
FLOAT_SPECIALS = {2: [0x7C01, 0xFE2A, 0x8000, 0x0001], 4: [0x7F800001, 0xFFC0BEEF, 0x80000000, 0x00000001],
                  8: [0x7FF0000000000001, 0xFFF8000000000ABC, 0x8000000000000000, 0x1]}  # fmt: skip


def rank_sizes(rank: int) -> tuple[int, ...]:
    """Sizes (all at least 2, so nothing coalesces away) whose element count is odd in the last dimension."""
    return tuple(2 if d < rank - 1 else 3 for d in range(rank))


def layouts(max_rank: int) -> list[dict[str, Any]]:
    """helpers.layouts' keyword form: packed (1, 7 and 37 elements), strided over several work-items, then per rank
    a gapped input with offsets, a broadcast input, a transposed input, and gapped in place."""
    cases: list[dict[str, Any]] = [
        {"sizes": (1,), "output_offset": 16},
        {"sizes": (7,), "input_offset": 32},
        {"sizes": (37,), "in_place": True, "input_offset": 16, "output_offset": 16},
        {"sizes": (2 * ELEMENTS_PER_ITEM + 3,), "input_strides": (2,)},  # several work-items, a partial last one
    ]
    for rank in range(1, max_rank + 1):
        sizes = rank_sizes(rank)
        cases.append({"sizes": sizes, "input_strides": gapped(sizes), "input_offset": 16, "output_offset": 48})
        cases.append({"sizes": sizes, "input_strides": (0, *gapped(sizes, 2)[1:]), "output_strides": padded(sizes)})
        cases.append({"sizes": sizes, "input_strides": permuted(sizes, tuple(reversed(range(rank))))})
        cases.append({"sizes": sizes, "input_strides": gapped(sizes), "output_strides": gapped(sizes),
                      "input_offset": 16, "output_offset": 16, "in_place": True})  # fmt: skip
    return cases


def values(dtype: np.dtype[Any], rng: np.random.Generator, specials: bool) -> Any:
    def make(count: int) -> np.ndarray:
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, count, dtype=dtype, endpoint=True)
        out = (rng.standard_normal(count) * 100).astype(dtype)
        if specials:
            special = np.array(FLOAT_SPECIALS[dtype.itemsize], f"u{dtype.itemsize}").view(dtype)
            out[: min(count, special.size)] = special[: min(count, special.size)]
        return out

    return make


def scale_bias_reference(x: np.ndarray, scale: float, bias: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        result = x.astype(np.float32) * np.float32(scale) + np.float32(bias)  # float32 each step
        if x.dtype.kind == "f":
            return result.astype(x.dtype)
        info = np.iinfo(x.dtype)
        return np.clip(np.trunc(result.astype(np.float64)), info.min, info.max).astype(x.dtype)


def plans() -> list[str]:
    """``copy TYPE`` and ``scale_bias TYPE``, in the order the script runs them; the default passes share them."""
    return [f"copy {t.name}" for t in COPY] + [f"scale_bias {t.name}" for t in SCALE_BIAS]


def max_rank(plan: str) -> int:
    """Every rank for the copy of float32 and float16 and for ScaleBias on float32; ranks up to 3 otherwise."""
    return 8 if plan in ("copy FLOAT32", "copy FLOAT16", "scale_bias FLOAT32") else 3


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    tally = Tally()
    shared = sampled_share(plans())
    for plan in shared:
        kind, name = plan.split()
        data_type = T[name]
        dtype = np.dtype((COPY if kind == "copy" else SCALE_BIAS)[data_type])
        scale_bias = None if kind == "copy" else {"Scale": -1.5, "Bias": 0.25}
        for case in layouts(max_rank(plan)):
            sizes = case["sizes"]
            desc = dml.ElementWiseIdentityOperatorDesc(
                input_tensor=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=case.get("input_strides")),
                output_tensor=dml.BufferTensorDesc(
                    data_type=data_type, sizes=sizes, strides=case.get("output_strides")
                ),
                scale_bias=scale_bias,
            )
            run = run_layout_case(device, desc, dtype, values(dtype, rng, scale_bias is None), case)
            if scale_bias is None:
                want = run.logical_input
            else:
                want = scale_bias_reference(run.logical_input, scale_bias["Scale"], scale_bias["Bias"])
            wrong = int(np.count_nonzero(run.got.view(np.uint8) != want.view(np.uint8)))
            tally.add(run.kernel, wrong, f"{plan} {case}", plan)
    return tally.summary("wrong_bytes", plans=shared)


if __name__ == "__main__":
    sys.exit(main(run_all))
