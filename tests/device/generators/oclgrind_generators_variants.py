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

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyopencl as cl

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.runtime.buffer import Buffer
from tests.device.generators.cases import CASES, GeneratorCase, constant_case, diagonal1_case
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

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


def offsets_of(case: GeneratorCase, strided: bool) -> dict[str, int]:
    """The case's own offsets; a strided variant binds every other tensor at OFFSET too."""
    if not strided:
        return case.offsets
    slots = [slot for slot in (*case.desc.input_fields(), *case.desc.output_fields()) if getattr(case.desc, slot)]
    return {slot: case.offsets.get(slot, OFFSET) for slot in slots}


def kernels_of(device: Any, desc: Any) -> list[str]:
    """The kernel each step of ``desc``'s plan runs, in order (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    return [step.lowered.kernel.kernel_name for step in compiled.plan.steps]


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> list[str]:
    log.begin(label)
    case = case_of(label)
    case.desc.validate_on(device.feature_level)
    offsets = offsets_of(case, label.endswith("strided"))
    try:
        got = run_structured(device, case.desc, case.inputs, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the outputs changed
        log.mismatch(f"{label}: {error}")
        return kernels_of(device, case.desc)
    for slot, expected in case.expected.items():
        bits = f"u{expected.dtype.itemsize}"
        wrong = np.flatnonzero(got[slot].view(bits).reshape(-1) != expected.view(bits).reshape(-1))
        if wrong.size:
            log.mismatch(f"{label}: {slot} wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)")
    return kernels_of(device, case.desc)


def short_output(device: Any) -> None:
    """The negative control: FILL_VALUE_CONSTANT writing an output buffer one element shorter than its binding
    claims (a dmlpy Buffer told the full size, so the binding checks pass and only Oclgrind can see the write)."""
    case = constant_case(T.INT64, False)
    compiled = compile_and_initialize(device, case.desc)
    total = case.desc.output_tensor.desc.total_tensor_size_in_bytes
    memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, total - 8)
    dispatch(device, compiled, [], [dml.BufferBinding(Buffer(device, memory, total), 0, total)])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_output:
        short_output(device)
        return {"short_output": True}
    # The uninitialised pass leaves outputs unwritten; the memory pass fills them to check the bytes around them.
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    kernels = {
        label: run_variant(device, label, log, fill_output)
        for label in (sampled_variants() if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "one variant per operator class (the default test's share), not every one"),
                ("--short-output", "the generators' negative control: an output buffer one element short"),
            ],
        )
    )
