"""Run LOCAL_RESPONSE_NORMALIZATION on Oclgrind's simulated device (lrn_cases.py's cases): FLOAT32 and FLOAT16,
across channels and over height and width, an even and an odd LocalSize, packed and strided, through the object
model with each buffer exactly as large as its binding, each result within lrn_cases.bound of the float64 formula.
Under the uninitialised pass the output is left unwritten. Started by test_lrn_oclgrind.py; prints
``OCLGRIND_SUMMARY {json}``.

    python oclgrind_lrn_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.normalization.lrn_cases import lrn_case, worst_excess
from tests.helpers.oclgrind_sweep import Sweep, Variant, sweep_main

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


def variant_of(label: str) -> Variant:
    data_type, window, size, layout = label.split()
    case = lrn_case(TYPES[data_type], WINDOWS[window], int(size), layout == "strided")
    offsets = {"input_tensor": 16, "output_tensor": 32} if layout == "strided" else {}

    def problem(got: dict[str, Any]) -> str | None:
        excess = worst_excess(got["output_tensor"], case)
        return f"{excess} past the bound" if excess > 0 else None

    return Variant(case.desc, {"input_tensor": case.x}, problem, offsets)


if __name__ == "__main__":
    sys.exit(
        sweep_main(Sweep(every_variant, sampled_variants, variant_of), "the default test's share, not every variant")
    )
