"""Run REVERSE_SUBSEQUENCES and NONZERO_COORDINATES on Oclgrind's simulated device (sequence_cases.py's cases): each
element width (8, 16, 32, 64 bits for REVERSE_SUBSEQUENCES, its lengths UINT64 at 64; 8, 16, 32 for
NONZERO_COORDINATES, whose table stops there), packed and strided at byte offsets, through the object model with
each buffer exactly as large as its binding, compared bit for bit (NONZERO_COORDINATES: the count and its rows).
Under the uninitialised pass the outputs are left unwritten. Started by test_sequences_oclgrind.py; prints
``OCLGRIND_SUMMARY {json}``.

    python oclgrind_sequence_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import MovementCase
from tests.device.movement.sequence_cases import count_rows, nonzero_case, reverse_case
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
WIDTHS = {8: T.INT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
LAYOUTS = ("packed", "strided")


def every_variant() -> list[str]:
    reverse = [f"REVERSE_SUBSEQUENCES {w} {layout}" for w in WIDTHS for layout in LAYOUTS]
    return reverse + [f"NONZERO_COORDINATES {w} {layout}" for w in (8, 16, 32) for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """REVERSE_SUBSEQUENCES at 64 bits strided and 16 packed, NONZERO_COORDINATES at 8 bits strided."""
    return ["REVERSE_SUBSEQUENCES 64 strided", "REVERSE_SUBSEQUENCES 16 packed", "NONZERO_COORDINATES 8 strided"]


def case_of(label: str) -> MovementCase:
    operator, width, layout = label.split()
    data_type, strided = WIDTHS[int(width)], layout == "strided"
    if operator == "REVERSE_SUBSEQUENCES":
        lengths = T.UINT64 if width == "64" else T.UINT32
        return reverse_case(data_type, (2, 5, 3), 1, lengths, strided=strided)
    return nonzero_case(data_type, (2, 3, 4), 3, strided=strided)


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> None:
    log.begin(label)
    case = case_of(label)
    case.desc.validate_on(device.feature_level)
    try:
        got = run_structured(device, case.desc, case.inputs, offsets=case.offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the outputs changed
        log.mismatch(f"{label}: {error}")
        return
    if "output_count_tensor" in got:
        got = count_rows(got)
    for slot, expected in case.expected.items():
        bits = f"u{expected.dtype.itemsize}"
        if got[slot].shape != expected.shape or not np.array_equal(got[slot].view(bits), expected.view(bits)):
            log.mismatch(f"{label}: {slot} wrong")


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    for label in sampled_variants() if args.sample else every_variant():
        run_variant(device, label, log, fill_output)
    return {**log.summary(), "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--sample", "the default test's share, not every variant")]))
