"""Run the indexing operators on Oclgrind's simulated device (opencl/indexing.cl's gather, scatter and one_hot, and
the scatters' Identity copy before them): GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS,
SCATTER_ND and ONE_HOT, each element width (8, 16, 32 and 64 bits: one data type each) and index type (UINT32,
INT32, INT64, UINT64), packed and strided, through the object model (tests/helpers/structured_runs.py) with each
buffer exactly as large as its binding (no slack: an access past a tensor is an access past its buffer); the strided
variants pad every tensor's rows and bind each at a byte offset. Every variant's indices hold negative ones (signed
types) and ones outside their dimension (past the end, before -size, the type's extremes): a gather reads the
nearest element, a scatter writes nothing, ONE_HOT's sequence is OffValue, and none may touch memory outside its
tensors. Results are compared bit for bit with tests/device/indexing/cases.py's onnx.reference results. Under the
uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten, so a read of it or a store of a
value never loaded is reported (a scatter's elements come from its Identity copy); the memory pass fills it with
sentinel bytes and checks that none outside its elements changed.

Started by test_indexing_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernels each ran
(``gather``, ``scatter``, ``one_hot``, the Identity copy ``elementwise``) and the mismatches.

``--short-input`` is this script's own negative control: GATHER (INT64, packed: an index past the end reads the
input's last row) with an input buffer one element shorter than dmlpy is told, which Oclgrind must report as an
invalid read in ``gather``.

    python oclgrind_indexing_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
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
from tests.device.indexing.cases import (
    IndexingCase,
    gather_case,
    gather_elements_case,
    gather_nd_case,
    one_hot_case,
    scatter_elements_case,
    scatter_nd_case,
)
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
WIDTHS = {8: T.INT8, 16: T.FLOAT16, 32: T.FLOAT32, 64: T.INT64}
"""One data type per element width: the kernels move bits, so the width is what varies their code."""
INDEX_TYPES = (T.UINT32, T.INT32, T.INT64, T.UINT64)
"""Every index type of the tables (FL 3_0 on): INDEX_T and INDEX_SIGNED, the ways an index resolves."""
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
SLOTS = ("input_tensor", "indices_tensor", "updates_tensor", "values_tensor", "output_tensor")
"""Every tensor slot of the operators: a strided variant pads the rows of each its operator has."""
OPERATORS = {
    "GATHER": lambda dt, it, padded: gather_case(dt, it, padded, outside=True),
    "GATHER_ELEMENTS": lambda dt, it, padded: gather_elements_case(dt, it, 2, padded, outside=True),
    "GATHER_ND": lambda dt, it, padded: gather_nd_case(dt, it, 0, padded, outside=True),
    "GATHER_ND1": lambda dt, it, padded: gather_nd_case(dt, it, 1, padded, outside=True),
    "SCATTER_ELEMENTS": lambda dt, it, padded: scatter_elements_case(dt, it, padded, outside=True),
    "SCATTER_ND": lambda dt, it, padded: scatter_nd_case(dt, it, padded, outside=True),
    "ONE_HOT": lambda dt, it, padded: one_hot_case(dt, it, 1, padded, outside=True),
}
"""Each operator's case (cases.py), indices outside their dimensions among them."""
KERNELS = {"SCATTER_ELEMENTS": ["elementwise", "scatter"], "SCATTER_ND": ["elementwise", "scatter"]}
"""The kernels a plan runs, in order, where it is not the one indexing.cl kernel its name says (the scatters copy
InputTensor first)."""


def kernels_expected(operator: str) -> list[str]:
    return KERNELS.get(operator, ["one_hot" if operator == "ONE_HOT" else "gather"])


def every_variant() -> list[str]:
    """Every ``operator width index-type layout`` label, in the order the sweep runs them."""
    return [
        f"{op} {width} {index_type.name} {layout}"
        for op in OPERATORS
        for width in WIDTHS
        for index_type in INDEX_TYPES
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """One variant per operator, the width, index type and layout taking turns so that each of them appears: the
    default run's cheap share."""
    widths = list(WIDTHS)
    return [
        f"{op} {widths[k % 4]} {INDEX_TYPES[3 * k % 4].name} {LAYOUTS[k // 4 % 2]}" for k, op in enumerate(OPERATORS)
    ]


def case_of(label: str) -> tuple[IndexingCase, dict[str, int]]:
    """The label's case and its tensors' byte offsets."""
    operator, width, index_name, layout = label.split()
    strided = layout == "strided"
    case = OPERATORS[operator](WIDTHS[int(width)], T[index_name], SLOTS if strided else ())
    slots = (*case.desc.input_fields(), *case.desc.output_fields())
    return case, dict.fromkeys(slots, OFFSET) if strided else {}


def kernels_of(device: Any, desc: Any) -> list[str]:
    """The kernel each step of ``desc``'s plan runs, in order (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    return [step.lowered.kernel.kernel_name for step in compiled.plan.steps]


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> list[str]:
    log.begin(label)
    (desc, inputs, expected), offsets = case_of(label)
    desc.validate_on(device.feature_level)
    try:
        got = run_structured(device, desc, inputs, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the output changed
        log.mismatch(f"{label}: {error}")
        return kernels_of(device, desc)
    result = got["output_tensor"]
    bits = f"u{result.dtype.itemsize}"
    wrong = np.flatnonzero(result.view(bits).reshape(-1) != np.ascontiguousarray(expected).view(bits).reshape(-1))
    if wrong.size:
        log.mismatch(f"{label}: wrong at elements {wrong[:8].tolist()} ({wrong.size} in all)")
    return kernels_of(device, desc)


def short_input(device: Any) -> None:
    """The negative control: GATHER reading an input buffer one element shorter than its binding claims (a dmlpy
    Buffer told the full size, so the binding checks pass and only Oclgrind can see the read)."""
    (desc, inputs, _), _ = case_of("GATHER 64 INT64 packed")
    compiled = compile_and_initialize(device, desc)
    flags = cl.mem_flags
    bindings = []
    for slot in desc.input_fields():
        total = getattr(desc, slot).desc.total_tensor_size_in_bytes
        host = inputs[slot].reshape(-1)
        host = host[:-1].copy() if slot == "input_tensor" else host.copy()
        memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=host)
        bindings.append(dml.BufferBinding(Buffer(device, memory, total), 0, total))
    out_total = desc.output_tensor.desc.total_tensor_size_in_bytes
    output = device.create_buffer(out_total)
    dispatch(device, compiled, bindings, [dml.BufferBinding(output, 0, out_total)])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    # The uninitialised pass leaves the output unwritten; the memory pass fills it to check the bytes around it.
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
                ("--sample", "one variant per operator (the default test's share), not every one"),
                ("--short-input", "the indexing negative control: an input buffer one element short"),
            ],
        )
    )
