"""Run the movement operators on Oclgrind's simulated device: every operator of cases.CASES (SLICE1 reading backwards
along two dimensions), PADDING1 in every DML_PADDING_MODE, each element width (8, 16, 32 and 64 bits: one data type
each), packed and strided, through the object model (tests/helpers/structured_runs.py) with each buffer exactly as
large as its binding (offset + TotalTensorSizeInBytes: no slack, so an access past a tensor is an access past its
buffer); the strided variants bind every tensor at a byte offset. Results are compared bit for bit with the cases'
references (NumPy, onnx.reference). Under the uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffers are
left unwritten, so a read of an output or a store of a value never loaded is reported; the memory pass fills them
with sentinel bytes and checks that none outside the outputs' elements changed.

Started by test_movement_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``movement``, or the element-wise template's Identity copy, ``elementwise``), and the mismatches.

``--short-input`` is this script's own negative control: PADDING1 (EDGE, INT64, packed: movement.cl reads the
input's last element for the output's last) with an input buffer one element shorter than dmlpy is told, which
Oclgrind must report as an invalid read in ``movement``.

    python oclgrind_movement_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
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
from tests.device.movement.cases import CASES, PAD_MODES, MovementCase, padding_case
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
WIDTHS = {8: T.INT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
"""One data type per element width: the kernels move bits, so the width is what varies their code (INT64, not
FLOAT64: TILE's table has no FLOAT64)."""
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds each tensor the case does not place at this byte offset."""

OPERATORS = [*(name for name in CASES if name != "PADDING1"), *(f"PADDING1 {mode}" for mode in PAD_MODES)]
"""The variant classes: each operator of CASES, PADDING1 once per padding mode (CASES' PADDING1 is REFLECTION)."""


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
    return CASES[operator[0]](data_type, strided)


def offsets_of(case: MovementCase, strided: bool) -> dict[str, int]:
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


def short_input(device: Any) -> None:
    """The negative control: PADDING1 EDGE reading an input buffer one element shorter than its binding claims
    (a dmlpy Buffer told the full size, so the binding checks pass and only Oclgrind can see the read)."""
    case = padding_case(T.INT64, False, "EDGE")
    compiled = compile_and_initialize(device, case.desc)
    (x,) = case.inputs.values()
    total = case.desc.input_tensor.desc.total_tensor_size_in_bytes
    flags = cl.mem_flags
    short = x.reshape(-1)[:-1].copy()
    memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=short)
    lying = Buffer(device, memory, total)
    out_total = case.desc.output_tensor.desc.total_tensor_size_in_bytes
    output = device.create_buffer(out_total)
    dispatch(device, compiled, [dml.BufferBinding(lying, 0, total)], [dml.BufferBinding(output, 0, out_total)])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
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
                ("--short-input", "the movement negative control: an input buffer one element short"),
            ],
        )
    )
