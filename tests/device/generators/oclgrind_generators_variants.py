"""Run the generators on Oclgrind's simulated device: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and
DIAGONAL_MATRIX1 (with an InputTensor and without), each element width (8, 16, 32 and 64 bits: one data type each,
FLOAT16 and FLOAT32 among them so that the sequence's half and float arithmetic run), packed and strided, through the
object model (tests/helpers/structured_runs.py) with each buffer exactly as large as its binding (offset +
TotalTensorSizeInBytes: no slack, so an access past a tensor is an access past its buffer); the strided variants
bind every tensor at a byte offset. Results are compared bit for bit with the cases' NumPy references. Under the
uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffers are left unwritten, so a read of an output or a
store of a value never loaded is reported; the memory pass fills them with sentinel bytes and checks that none
outside the outputs' elements changed.

Started by test_generators_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``generate``), and the mismatches.

``--short-output`` is this script's own negative control: FILL_VALUE_CONSTANT (INT64, packed) into an output buffer
one element shorter than dmlpy is told, which Oclgrind must report as an invalid write in ``generate``.

    python oclgrind_generators_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-output]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.device.generators.cases import CASES, GeneratorCase, constant_case, diagonal1_case
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
WIDTHS = {8: T.UINT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
"""One data type per element width: the kernel stores bits, so the width is what varies its code, and the
sequence's arithmetic (integer, half, float) comes with the types."""
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds each tensor the case does not place at this byte offset."""
NO_INPUT = "DIAGONAL_MATRIX1-no-input"
OPERATORS = [*CASES, NO_INPUT]
"""The variant classes: each operator of CASES, and DIAGONAL_MATRIX1 without its InputTensor (a null buffer)."""


def every_variant() -> list[str]:
    """Every ``operator width layout`` label, in the order the sweep runs them."""
    return [f"{op} {width} {layout}" for op in OPERATORS for width in WIDTHS for layout in LAYOUTS]


def sampled_variants() -> list[str]:
    """One variant per operator class, the width and layout taking turns, so that every width and both layouts
    appear: the default run's cheap share."""
    widths = list(WIDTHS)
    return [
        f"{op} {widths[k % len(widths)]} {LAYOUTS[(k + k // len(widths)) % len(LAYOUTS)]}"
        for k, op in enumerate(OPERATORS)
    ]


def case_of(label: str) -> GeneratorCase:
    operator, width, layout = label.split()
    data_type, strided = WIDTHS[int(width)], layout == "strided"
    if operator == NO_INPUT:
        return diagonal1_case(data_type, strided, given=False)
    return CASES[operator](data_type, strided)


def variant_of(label: str) -> Variant:
    case = case_of(label)
    offsets = offsets_at(case.desc, OFFSET, case.offsets) if label.endswith("strided") else case.offsets
    return Variant(case.desc, case.inputs, lambda got: bit_problem(got, case.expected), offsets)


def short_output(device: Any) -> None:
    """The negative control: FILL_VALUE_CONSTANT writing an output buffer one element shorter than its binding
    claims."""
    case = constant_case(T.INT64, False)
    dispatch_short(device, case.desc, case.inputs, "output_tensor")


if __name__ == "__main__":
    sys.exit(
        sweep_main(
            Sweep(every_variant, sampled_variants, variant_of, kernel_names),
            "one variant per operator class (the default test's share), not every one",
            NegativeControl(
                "--short-output", "the generators' negative control: an output buffer one element short", short_output
            ),
        )
    )
