"""Run REVERSE_SUBSEQUENCES and NONZERO_COORDINATES on Oclgrind's simulated device (sequence_cases.py's cases): each
element width (8, 16, 32, 64 bits for REVERSE_SUBSEQUENCES, its lengths UINT64 at 64; 8, 16, 32 for
NONZERO_COORDINATES, whose table stops there), packed and strided at byte offsets, through the object model with
each buffer exactly as large as its binding, compared bit for bit (NONZERO_COORDINATES: the count and its rows).
Under the uninitialised pass the outputs are left unwritten. Started by test_sequences_oclgrind.py; prints
``OCLGRIND_SUMMARY {json}``.

    python oclgrind_sequence_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import MovementCase
from tests.device.movement.sequence_cases import count_rows, nonzero_case, reverse_case
from tests.helpers.oclgrind_sweep import Sweep, Variant, bit_problem, sweep_main

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


def problem(got: dict[str, Any], expected: dict[str, Any]) -> str | None:
    """NONZERO_COORDINATES' rows cut to its count (their shape compared too), then every slot bit for bit."""
    if "output_count_tensor" in got:
        got = count_rows(got)
    shapes = [
        f"{slot} shape {got[slot].shape}, not {want.shape}"
        for slot, want in expected.items()
        if got[slot].shape != want.shape
    ]
    return "; ".join(shapes) or bit_problem(got, expected)


def variant_of(label: str) -> Variant:
    case = case_of(label)
    return Variant(case.desc, case.inputs, lambda got: problem(got, case.expected), case.offsets)


if __name__ == "__main__":
    sys.exit(
        sweep_main(Sweep(every_variant, sampled_variants, variant_of), "the default test's share, not every variant")
    )
