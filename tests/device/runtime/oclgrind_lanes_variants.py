"""Run the element-wise template's one-element shape (``LaunchProfile.lanes_across_work_items``, Intel's runtime's
"cpu" shape, forced here: Oclgrind's own "cpu" shape is PoCL's) on Oclgrind's simulated device: packed kernels of
one element a work-item launched as exactly that many work-items (whole work-groups of ACROSS_GROUP, then the rest
from a global offset: ``LoweredOperator.launch_ranges``), with no bound check in the kernel, so that a launch one
work-item too long would read and write past every buffer, which here ends where its binding does.

Every operator class below at three counts: whole groups and a rest (2385 = 2 x 1024 + 337), fewer than a group (337)
and whole groups only (2048), each tensor at a byte offset in the "offset" layout. The classes: FLOAT16 ADD (half
bits), INT8 and UINT64 CLIP, FLOAT32 -> UINT8 QUANTIZE_LINEAR with 0-stride scale and zero point (read once),
FLOAT32 -> FLOAT16 CAST, and FLOAT32 -> INT4 QUANTIZE (FL 6_3's, one scale and zero point: one pair a work-item,
the last element of an odd count alone in its byte). Results are compared bit for bit with NumPy (the INT4 ones with
tests/helpers/quantize_6_3.py's oracle); the memory pass fills output buffers with sentinel bytes and checks that
none outside the outputs' elements changed, the uninitialised pass leaves them unwritten. Prints
``OCLGRIND_SUMMARY {json}``: the variants run, each one's ELEMENTS_PER_ITEM (1, or 2 for pairs: the shape ran), and
the mismatches.

    python oclgrind_lanes_variants.py [--sample] [--negative-control]
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.helpers.oclgrind_driver import VariantLog, main, sampled_share
from tests.helpers.oclgrind_sweep import Variant, bit_problem, kernel_defines, offsets_at, run_variant
from tests.helpers.quantize_6_3 import quantize_desc, quantize_reference, run_quantization

T = dml.TensorDataType
COUNTS = {"groups-and-rest": 2385, "small": 337, "whole-groups": 2048}
LAYOUTS = ("packed", "offset")
OFFSET = 16
"""Bytes into its buffer that the "offset" layout binds every tensor at."""
OPERATORS = ("ADD-F16", "CLIP-I8", "CLIP-U64", "QUANTIZE-U8", "CAST-F16", "QUANTIZE-I4")


def every_variant() -> list[str]:
    return [f"{op} {count} {layout}" for op in OPERATORS for count in COUNTS for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per operator class, the counts and layouts taking turns so that each half of the sample (every
    other variant, the default passes' shares) has every count and layout."""
    counts = list(COUNTS)
    return [f"{op} {counts[k % 3]} {LAYOUTS[k // 2 % 2]}" for k, op in enumerate(OPERATORS)]


def tensor(data_type: Any, count: int, one: bool = False) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=(1, 1, 1, count), strides=(0, 0, 0, 0) if one else None)


def variant_of(label: str) -> Variant:
    operator, count_name, layout = label.split()
    count, rng = COUNTS[count_name], np.random.default_rng(len(label))
    shape = (1, 1, 1, count)
    x = (rng.standard_normal(shape) * 100).astype(np.float32)
    if operator == "ADD-F16":
        f16 = tensor(T.FLOAT16, count)
        desc: Any = dml.ElementWiseAddOperatorDesc(a_tensor=f16, b_tensor=f16, output_tensor=f16)
        a, b = x.astype(np.float16), (x[..., ::-1] / 3).astype(np.float16)
        inputs, want = {"a_tensor": a, "b_tensor": b}, (a.astype(np.float32) + b.astype(np.float32)).astype(np.float16)
    elif operator.startswith("CLIP"):
        dtype = np.int8 if operator == "CLIP-I8" else np.uint64
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        packed = tensor(T.INT8 if dtype == np.int8 else T.UINT64, count)
        desc = dml.ElementWiseClipOperatorDesc(input_tensor=packed, output_tensor=packed, min=10.0, max=100.0)
        inputs, want = {"input_tensor": data}, np.clip(data, 10, 100).astype(dtype)
    elif operator == "QUANTIZE-U8":
        desc = dml.ElementWiseQuantizeLinearOperatorDesc(
            input_tensor=tensor(T.FLOAT32, count),
            scale_tensor=tensor(T.FLOAT32, count, one=True),
            zero_point_tensor=tensor(T.UINT8, count, one=True),
            output_tensor=tensor(T.UINT8, count),
        )
        inputs = {"input_tensor": x, "scale_tensor": np.full(shape, 2.5, np.float32)}
        inputs["zero_point_tensor"] = np.full(shape, 7, np.uint8)
        want = np.clip(np.rint(x / np.float32(2.5)) + 7, 0, 255).astype(np.uint8)
    else:  # CAST-F16
        desc = dml.CastOperatorDesc(input_tensor=tensor(T.FLOAT32, count), output_tensor=tensor(T.FLOAT16, count))
        inputs, want = {"input_tensor": x}, x.astype(np.float16)
    offsets = offsets_at(desc, OFFSET) if layout == "offset" else {}
    return Variant(desc, inputs, lambda got: bit_problem(got, {"output_tensor": want}), offsets)


def run_int4(device: Any, label: str, log: VariantLog) -> Any:
    """QUANTIZE-I4: through tests/helpers/quantize_6_3.py's run (4-bit buffers, the pad nibble checked), as that
    helper binds them: each tensor at OFFSET in the "offset" layout; the descriptor."""
    _, count_name, layout = label.split()
    count = COUNTS[count_name]
    desc = quantize_desc(T.FLOAT32, T.INT4, (1, 1, 1, count), (1, 1, 1, 1), zero_point=True)
    x = (np.random.default_rng(count).standard_normal((1, 1, 1, count)) * 4).astype(np.float32)
    scale, zero = np.full((1, 1, 1, 1), 0.5, np.float32), np.full((1, 1, 1, 1), -1, np.int64)
    offsets = [OFFSET] * 4 if layout == "offset" else None
    log.begin(label)
    run = run_quantization(device, desc, [x, scale, zero], offsets=offsets, slack=0)
    want = quantize_reference(x, scale, zero, T.INT4)
    if not np.array_equal(run.got.astype(np.int64), want.astype(np.int64)):
        log.mismatch(f"{label}: wrong at {np.flatnonzero(run.got.reshape(-1) != want.reshape(-1))[:8].tolist()}")
    if run.changed_outside or run.pad_nibble not in (None, 0):
        log.mismatch(f"{label}: bytes {run.changed_outside[:8]} changed, pad nibble {run.pad_nibble}")
    return desc


def run_all(device: Any, args: Any) -> dict[str, Any]:
    device.launch_profile = dataclasses.replace(device.launch_profile, lanes_across_work_items=True)
    unwritten = os.environ.get("OCLGRIND_UNINITIALIZED") == "1"
    log, per_item = VariantLog(), {}
    for label in sampled_share(sampled_variants()) if args.sample else every_variant():
        if label.startswith("QUANTIZE-I4"):
            desc = run_int4(device, label, log)
        else:
            variant = variant_of(label)
            run_variant(device, label, variant, log, unwritten)
            desc = variant.desc
        per_item[label] = kernel_defines(device, desc)["ELEMENTS_PER_ITEM"]
    return {**log.summary(), "elements_per_item": per_item, "lanes": device.launch_profile.lanes_across_work_items}


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--sample", "one variant per operator class (the default share), not every one")]))
