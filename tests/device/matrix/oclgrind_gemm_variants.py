"""Run opencl/gemm.cl on Oclgrind's simulated device: GEMM (FLOAT32 and FLOAT16; every TransA/TransB pair; no C, C in
full and one row of C broadcast by 0 strides; RELU fused on every other variant), MATRIX_MULTIPLY_INTEGER (every
INT8/UINT8 pair, with and without zero points), QUANTIZED_LINEAR_MATRIX_MULTIPLY (every pair, parameters per row and
column or one value) and MATRIX_MULTIPLY_INTEGER_TO_FLOAT (every integer type of its table), each packed and strided
(rows padded, every tensor bound at a byte offset), through the object model (tests/helpers/structured_runs.py) with
each buffer exactly as large as its binding. The shapes put tails in M, N and K of both launch shapes' tiles. Results
are compared with cases.py's references (integers exactly, floats within its bounds). Under the uninitialised pass
(OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten; the memory pass fills it with sentinel bytes and
checks that none outside its elements changed. The PAIRS variants (pairs_cases.py) take the integer tiles
(gemm_pairs.h) through two blocks of K with an odd last one and A row- or column-major, and an extreme one.

Started by test_gemm_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernel's defines, and
the mismatches. ``--short-input``: GEMM (FLOAT32, packed) with A's buffer one element shorter than dmlpy is told,
which Oclgrind must report as an invalid read in ``contraction``.

    python oclgrind_gemm_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import pyopencl as cl

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
import dmlpy as dml
from dmlpy.runtime.buffer import Buffer
from tests.device.matrix.cases import RELU, Case, gemm_case, integer_case, past_bound
from tests.device.matrix.pairs_cases import extreme_case, random_case
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main, sampled_share
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
BYTES = ("INT8", "UINT8")
TRANSPOSES = ("AB", "AtB", "ABt", "AtBt")
C_FORMS = ("noC", "C", "rowC")
LAYOUTS = ("packed", "strided")
TO_FLOAT = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
GAPS = {"a_tensor": 3, "b_tensor": 1, "c_tensor": 2, "bias_tensor": 2, "output_tensor": 1}


def every_variant() -> list[str]:
    gemm = [
        f"GEMM {t} {tr} {c} {layout}"
        for t in ("FLOAT32", "FLOAT16")
        for tr in TRANSPOSES
        for c in C_FORMS
        for layout in LAYOUTS
    ]
    mmi = [f"MMI {a} {b} {z} {layout}" for a in BYTES for b in BYTES for z in ("zero", "nozero") for layout in LAYOUTS]
    qlmm = [
        f"QLMM {a} {b} {p} {layout}" for a in BYTES for b in BYTES for p in ("vectors", "one") for layout in LAYOUTS
    ]
    to_float = [f"MMITF {a} {layout}" for a in TO_FLOAT for layout in LAYOUTS]
    pairs = [f"PAIRS {a} {layout}" for a in BYTES for layout in ("rows", "columns")] + ["PAIRS extremes"]
    return [*gemm, *mmi, *qlmm, *to_float, *pairs]


def sampled_variants() -> list[str]:
    """Two of GEMM and one of each integer operator: every type family, a transpose, C broadcast, both layouts."""
    return [
        "GEMM FLOAT32 AtB rowC strided",
        "GEMM FLOAT16 ABt C packed",
        "MMI UINT8 INT8 zero strided",
        "QLMM INT8 UINT8 vectors packed",
        "MMITF INT16 strided",
        "PAIRS UINT8 columns",
    ]


def case_of(label: str) -> tuple[Case, dict[str, int]]:
    """The label's case and its tensors' byte offsets."""
    words = label.split()
    if (
        words[0] == "PAIRS"
    ):  # M 13, N 21 (a partial tile each), K 133 (128 + 5): small, for the "gpu" uninitialised pass
        pairs = (
            extreme_case(2, 9, 17)
            if words[1] == "extremes"
            else random_case(T[words[1]], 13, 133, 21, a_by_columns=words[2] == "columns")
        )
        return pairs, {}
    strided = words[-1] == "strided"
    gaps = GAPS if strided else {}
    if words[0] == "GEMM":
        data_type, transposes, c = T[words[1]], words[2], words[3]
        fused = RELU if every_variant().index(label) % 2 else None
        case = gemm_case(
            data_type,
            (2,),
            9,
            20,
            19,
            trans_a="At" in transposes,
            trans_b="Bt" in transposes,
            c={"noC": None, "C": "full", "rowC": "row"}[c],
            gaps={k: v for k, v in gaps.items() if c == "C" or k != "c_tensor"},
            fused=fused,
        )
    elif words[0] == "MMI":
        case = integer_case("MATRIX_MULTIPLY_INTEGER", T[words[1]], T[words[2]], T.INT32, "vectors",
                            zero_points=words[3] == "zero", gaps=gaps)  # fmt: skip
    elif words[0] == "QLMM":
        out = T.UINT8 if words[1] == words[2] else T.INT8
        case = integer_case("QUANTIZED_LINEAR_MATRIX_MULTIPLY", T[words[1]], T[words[2]], out, words[3], gaps=gaps)
    else:
        out = T.FLOAT16 if words[1] in BYTES else T.FLOAT32
        case = integer_case("MATRIX_MULTIPLY_INTEGER_TO_FLOAT", T[words[1]], T[words[1]], out, "vectors", gaps=gaps)
    slots = [s for s in (*case.desc.input_fields(), *case.desc.output_fields()) if getattr(case.desc, s) is not None]
    return case, dict.fromkeys(slots, OFFSET) if strided else {}


def compiled_kernel(device: Any, desc: Any) -> dict[str, str]:
    """The kernel ``desc`` runs and its -D defines (dmlpy's program cache makes this compile free)."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    (step,) = compiled.plan.steps
    return {"kernel": step.lowered.kernel.kernel_name, **dict(step.lowered.kernel.defines)}


def run_variant(device: Any, label: str, log: VariantLog, fill_output: bool) -> dict[str, str]:
    log.begin(label)
    case, offsets = case_of(label)
    case.desc.validate_on(device.feature_level)
    try:
        got = run_structured(device, case.desc, case.inputs, offsets=offsets, slack=0, fill_output=fill_output)
    except AssertionError as error:  # bytes outside the output changed
        log.mismatch(f"{label}: {error}")
        return compiled_kernel(device, case.desc)
    wrong = past_bound(got["output_tensor"], case.expected, case.allowed)
    if wrong.size:
        log.mismatch(f"{label}: past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)")
    return compiled_kernel(device, case.desc)


def short_input(device: Any) -> None:
    """The negative control: GEMM reading an A buffer one element shorter than its binding claims (a dmlpy Buffer
    told the full size, so the binding checks pass and only Oclgrind can see the read)."""
    case, _ = case_of("GEMM FLOAT32 AB noC packed")
    compiled = compile_and_initialize(device, case.desc)
    flags = cl.mem_flags
    bindings = []
    for slot in case.desc.input_fields():
        if getattr(case.desc, slot) is None:
            bindings.append(None)
            continue
        total = getattr(case.desc, slot).desc.total_tensor_size_in_bytes
        host = case.inputs[slot].reshape(-1)
        host = host[:-1].copy() if slot == "a_tensor" else host.copy()
        memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=host)
        bindings.append(dml.BufferBinding(Buffer(device, memory, total), 0, total))
    out_total = case.desc.output_tensor.desc.total_tensor_size_in_bytes
    output = device.create_buffer(out_total)
    dispatch(device, compiled, bindings, [dml.BufferBinding(output, 0, out_total)])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any] | None:
    if args.short_input:
        short_input(device)
        return {"short_input": True}
    fill_output = os.environ.get("OCLGRIND_UNINITIALIZED") != "1"
    log = VariantLog()
    kernels = {
        label: run_variant(device, label, log, fill_output)
        for label in (sampled_share(sampled_variants()) if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "two GEMM variants and one of each integer operator, not every one"),
                ("--short-input", "the gemm.cl negative control: A's buffer one element short"),
            ],
        )
    )
