"""Run opencl/normalize.cl and BATCH_NORMALIZATION's element-wise kernel on Oclgrind's simulated device: every
MEAN_VARIANCE_NORMALIZATION form of cases.MVN_FORMS (MVN cross-channel and per channel, MVN1, MVN2 with and without
the mean) with ScaleTensor and BiasTensor both, either alone or neither (an absent one is bound but never read:
HAS_SCALE, HAS_BIAS 0), with and without a FusedActivation (RELU, ACTIVATION(v) in the prelude);
LP_NORMALIZATION with P 1 and 2 along the outermost and the innermost axis; BATCH_NORMALIZATION (the element-wise
template's batch_normalization, statistics broadcast with 0 strides) with and without RELU; each FLOAT32 and FLOAT16,
packed and strided (every tensor's rows padded and bound at a byte offset), through the object model
(tests/helpers/structured_runs.py) with each buffer exactly as large as its binding (no slack: an access past a
tensor is an access past its buffer). Results are compared with cases.py's float64 formulas within its bounds
(docs/operators/normalization.md; LP_NORMALIZATION 4u|exact| plus FLOAT16's rounding). Under the
uninitialised pass (OCLGRIND_UNINITIALIZED=1) the output buffer is left unwritten, so a read of it or a store of a
value never loaded is reported; the memory pass fills it with sentinel bytes and checks that none outside its
elements changed.

Started by test_normalize_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``: the variants run, the kernel each ran and its
-D defines, and the mismatches.

``--short-input`` is this script's own negative control: MVN1 over the last axis (FLOAT32, packed, scale and bias:
every input element read) with an input buffer one element shorter than dmlpy is told, which Oclgrind must report
as an invalid read in ``mean_variance_normalization``.

    python oclgrind_normalize_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control] [--short-input]
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
from tests.device.normalization.cases import (
    BN_STATISTICS,
    MVN_FORMS,
    NormalizeCase,
    bn_case,
    lp_case,
    mvn_case,
    past_bound,
)
from tests.helpers.object_model import compile_and_initialize, dispatch
from tests.helpers.oclgrind_driver import VariantLog, main, sampled_share
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = {"FLOAT32": T.FLOAT32, "FLOAT16": T.FLOAT16}
PARAMETERS = ("scale+bias", "scale", "bias", "none")
"""Which of ScaleTensor and BiasTensor an MVN variant gives (the absent ones bound, never read)."""
ACTIVATIONS = ("plain", "relu")
LAYOUTS = ("packed", "strided")
OFFSET = 16
"""A strided variant binds every tensor at this byte offset."""
LP_FORMS = ("LP1 axis0", "LP1 axis3", "LP2 axis0", "LP2 axis3")
STRIDED_GAPS = {
    "MVN": {"input_tensor": 1, "scale_tensor": 2, "bias_tensor": 3, "output_tensor": 2},
    "LP": {"input_tensor": 3, "output_tensor": 1},
    "BN": {"input_tensor": 2, **{f"{name}_tensor": 1 for name in BN_STATISTICS}, "output_tensor": 3},
}
"""How a strided variant pads each slot's rows, by operator (a packed one pads none)."""


def every_variant() -> list[str]:
    """Every label, in the order the sweep runs them: ``MVN-form parameters type activation layout``, ``LPp axisN
    type layout`` and ``BN type activation layout`` (an MVN form's spaces written '_')."""
    mvn = [
        f"{form.replace(' ', '_')} {given} {t} {act} {layout}"
        for form in MVN_FORMS
        for given in PARAMETERS
        for t in TYPES
        for act in ACTIVATIONS
        for layout in LAYOUTS
    ]
    lp = [f"{form} {t} {layout}" for form in LP_FORMS for t in TYPES for layout in LAYOUTS]
    bn = [f"BN {t} {act} {layout}" for t in TYPES for act in ACTIVATIONS for layout in LAYOUTS]
    return [*mvn, *lp, *bn]


def sampled_variants() -> list[str]:
    """One variant per MVN form (the parameters, type, activation and layout taking turns so that each appears), two
    of LP_NORMALIZATION (P 1 and 2, both axes, both types, both layouts) and two of BATCH_NORMALIZATION: the default
    run's cheap share."""
    types = list(TYPES)
    mvn = [
        f"{form.replace(' ', '_')} {PARAMETERS[k % 4]} {types[k % 2]} {ACTIVATIONS[k // 2 % 2]} {LAYOUTS[k // 3 % 2]}"
        for k, form in enumerate(MVN_FORMS)
    ]
    lp = ["LP1 axis0 FLOAT16 strided", "LP2 axis3 FLOAT32 packed"]
    return [*mvn, *lp, "BN FLOAT16 relu strided", "BN FLOAT32 plain packed"]


def case_of(label: str) -> tuple[NormalizeCase, dict[str, int]]:
    """The label's case and its tensors' byte offsets."""
    words = label.split()
    strided = words[-1] == "strided"
    operator = words[0][:2] if words[0][:2] in ("BN", "LP") else "MVN"
    gaps = STRIDED_GAPS[operator] if strided else {}
    if operator == "BN":
        case = bn_case(TYPES[words[1]], words[2] == "relu", gaps)
    elif operator == "LP":
        case = lp_case(int(words[0][2]), int(words[1].removeprefix("axis")), TYPES[words[2]], gaps)
    else:
        form, given, type_name, act = words[:4]
        scale, bias = given in ("scale+bias", "scale"), given in ("scale+bias", "bias")
        case = mvn_case(form.replace("_", " "), TYPES[type_name], scale, bias, act == "relu", gaps)
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
    """The negative control: MVN1 reading an input buffer one element shorter than its binding claims (a dmlpy
    Buffer told the full size, so the binding checks pass and only Oclgrind can see the read)."""
    case, _ = case_of("MVN1_last_axis scale+bias FLOAT32 plain packed")
    compiled = compile_and_initialize(device, case.desc)
    flags = cl.mem_flags
    bindings = []
    for slot in case.desc.input_fields():
        total = getattr(case.desc, slot).desc.total_tensor_size_in_bytes
        host = case.inputs[slot].reshape(-1)
        host = host[:-1].copy() if slot == "input_tensor" else host.copy()
        memory = cl.Buffer(device.context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=host)
        bindings.append(dml.BufferBinding(Buffer(device, memory, total), 0, total))
    out_total = case.desc.output_tensor.desc.total_tensor_size_in_bytes
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
        for label in (sampled_share(sampled_variants()) if args.sample else every_variant())
    }
    return {**log.summary(), "kernels": kernels, "launch_profile": device.launch_profile.name}


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[
                ("--sample", "one variant per operator form (the default test's share), not every one"),
                ("--short-input", "the normalize.cl negative control: an input buffer one element short"),
            ],
        )
    )
