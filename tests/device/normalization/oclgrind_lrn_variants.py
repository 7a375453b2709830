"""Run LOCAL_RESPONSE_NORMALIZATION on Oclgrind's simulated device (lrn_cases.py's cases): FLOAT32 and FLOAT16,
across channels and over height and width, an even and an odd LocalSize, packed and strided, through the object
model with each buffer exactly as large as its binding, each result within lrn_cases.bound of the float64 formula.
Under the uninitialised pass the output is left unwritten. Started by test_lrn_oclgrind.py; prints
``OCLGRIND_SUMMARY {json}``.

    python oclgrind_lrn_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.normalization.lrn_cases import lrn_case, worst_excess
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = {"FLOAT32": T.FLOAT32, "FLOAT16": T.FLOAT16}
WINDOWS = {"across": True, "spatial": False}


def every_variant() -> list[str]:
    return [
        f"{t} {w} {size} {layout}"
        for t in TYPES
        for w in WINDOWS
        for size in (2, 3)
        for layout in ("packed", "strided")
    ]


def sampled_variants() -> list[str]:
    return ["FLOAT16 across 2 strided", "FLOAT32 spatial 3 packed"]


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> None:
    log.begin(label)
    data_type, window, size, layout = label.split()
    case = lrn_case(TYPES[data_type], WINDOWS[window], int(size), layout == "strided")
    offsets = {"input_tensor": 16, "output_tensor": 32} if layout == "strided" else {}
    try:
        got = run_structured(
            device, case.desc, {"input_tensor": case.x}, offsets=offsets, slack=0, fill_output=fill_output
        )["output_tensor"]
    except AssertionError as error:  # bytes outside the output changed
        log.mismatch(f"{label}: {error}")
        return
    if worst_excess(got, case) > 0:
        log.mismatch(f"{label}: {worst_excess(got, case)} past the bound")


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    for label in sampled_variants() if args.sample else every_variant():
        run_variant(device, label, log, fill_output)
    return {**log.summary(), "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--sample", "the default test's share, not every variant")]))
