"""Run the movement operators on Oclgrind's simulated device: every operator of cases.CASES (SLICE1 reading backwards
along two dimensions), PADDING1 in every DML_PADDING_MODE, each element width (8, 16, 32 and 64 bits: one data type
each), packed and strided, and the row kernels' bigger cases (block_copy.cl and join_rows.cl over several work-items,
cases.py's rows_* builders), through the object model (tests/helpers/structured_runs.py) with each buffer exactly as
large as its binding (offset + TotalTensorSizeInBytes: no slack, so an access past a tensor is an access past its
buffer); the strided variants bind every tensor at a byte offset. Results are compared bit for bit with the cases'
references (NumPy, onnx.reference). Under the uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffers are
left unwritten, so a read of an output or a store of a value never loaded is reported; the memory pass fills them
with sentinel bytes and checks that none outside the outputs' elements changed.

Started by test_movement_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``movement``, ``block_copy``, ``join_rows``, or the element-wise template's Identity copy, ``elementwise``), and
the mismatches.

``--short-input`` is this script's own negative control: PADDING1 (EDGE, INT64, packed: movement.cl reads the
input's last element for the output's last) with an input buffer one element shorter than dmlpy is told, which
Oclgrind must report as an invalid read in ``movement``.

    python oclgrind_movement_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.movement.cases import (
    CASES,
    PAD_MODES,
    MovementCase,
    padding_case,
    rows_depth_space_case,
    rows_join_case,
    rows_slice1_case,
    rows_tile_case,
)
from tests.helpers.oclgrind_sweep import (
    NegativeControl,
    Sweep,
    Variant,
    bit_problem,
    dispatch_short,
    kernel_names,
    offsets_at,
    sweep_main,
)

T = dml.TensorDataType
WIDTHS = {8: T.INT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
"""One data type per element width: the kernels move bits, so the width is what varies their code (INT64, not
FLOAT64: TILE's table has no FLOAT64)."""
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds each tensor the case does not place at this byte offset."""

ROWS_CASES: dict[str, Callable[[Any, bool], MovementCase]] = {
    "DEPTH_TO_SPACE-ROWS": lambda t, s: rows_depth_space_case(t, s, False, None, 3),
    "SPACE_TO_DEPTH1-ROWS": lambda t, s: rows_depth_space_case(t, s, True, "COLUMN_ROW_DEPTH", 2),
    "JOIN-ROWS": rows_join_case,
    "SLICE1-ROWS": rows_slice1_case,
    "TILE-ROWS": rows_tile_case,
}
"""Cases of several work-items of block_copy.cl and join_rows.cl ("cpu" profile), ending mid-row, and of
movement.cl's spans several vectors long (cases.py)."""
OPERATORS = [
    *(name for name in CASES if name != "PADDING1"),
    *(f"PADDING1 {mode}" for mode in PAD_MODES),
    *ROWS_CASES,
]
"""The variant classes: each operator of CASES, PADDING1 once per padding mode (CASES' PADDING1 is REFLECTION),
and the row kernels' bigger cases."""


def every_variant() -> list[str]:
    """Every ``operator width layout`` label, in the order the sweep runs them."""
    return [f"{op} {width} {layout}" for op in OPERATORS for width in WIDTHS for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per operator class, the width and layout taking turns, so that every width and both layouts
    appear: the default run's cheap share (a variant costs about a second of Oclgrind's compiles)."""
    widths = list(WIDTHS)
    return [
        f"{op} {widths[k % len(widths)]} {LAYOUTS[k // len(widths) % len(LAYOUTS)]}" for k, op in enumerate(OPERATORS)
    ]


def case_of(label: str) -> MovementCase:
    *operator, width, layout = label.split()
    data_type, strided = WIDTHS[int(width)], layout == "strided"
    if operator[0] == "PADDING1":
        return padding_case(data_type, strided, operator[1])
    return {**CASES, **ROWS_CASES}[operator[0]](data_type, strided)


def variant_of(label: str) -> Variant:
    case = case_of(label)
    offsets = offsets_at(case.desc, OFFSET, case.offsets) if label.endswith("strided") else case.offsets
    return Variant(case.desc, case.inputs, lambda got: bit_problem(got, case.expected), offsets)


def short_input(device: Any) -> None:
    """The negative control: PADDING1 EDGE reading an input buffer one element shorter than its binding claims."""
    case = padding_case(T.INT64, False, "EDGE")
    dispatch_short(device, case.desc, case.inputs, "input_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per operator class (the default test's share), not every one",
            NegativeControl(
                "--short-input", "the movement negative control: an input buffer one element short", short_input
            ),
        )
    )
