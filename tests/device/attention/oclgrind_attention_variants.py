"""Run MULTIHEAD_ATTENTION(1)'s plan (dmlpy/kernels/attention.py: the template's bias add, Identity's copy, gemm.cl's
two products and opencl/attention.cl's masked softmax) on Oclgrind's simulated device: every source form, FLOAT32 and
FLOAT16, each MaskType (``plain``: no mask; ``end_start``: a bias, KEY_SEQUENCE_END_START, a past and the present
outputs; ``boolean``: BOOLEAN and a relative position bias; ``grouped``: 4 query heads on 2, a bias,
KEY_SEQUENCE_LENGTH, a past and the present outputs; ``packed``: KEY_QUERY_SEQUENCE_LENGTH_START_END), packed and
strided (rows padded, bound at byte offsets), through the object model (tests/helpers/structured_runs.py) with each
buffer exactly as large as its binding. Results are compared with tests/device/attention/cases.py's float64 formula
within its bound. Under the uninitialised pass (OCLGRIND_UNINITIALIZED=1) the outputs are left unwritten.

Started by test_attention_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). Prints one line ``OCLGRIND_SUMMARY {json}``.

No short-buffer control of its own: tests/helpers/oclgrind_sweep.py's ``dispatch_short`` binds no temporary
resource, which every attention plan needs (the driver's broken kernel is the negative control). Under the
uninitialised pass the buffers are made without create_buffer's zero fill (``run_all``).

    python oclgrind_attention_variants.py [--launch-profile cpu|gpu] [--sample] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for tests.helpers
from dmlpy.ops._attention import AttentionDesc
from tests.device.attention.cases import FORMS, T, attention_case
from tests.device.normalization.cases import past_bound
from tests.helpers.oclgrind_driver import main
from tests.helpers.oclgrind_sweep import Sweep, Variant, run_sweep, without_zero_fill

FEATURES: dict[str, dict[str, Any]] = {
    "plain": {},
    "end_start": {"bias": True, "mask": "KEY_SEQUENCE_END_START", "past": 2, "present": True},
    "boolean": {"mask": "BOOLEAN", "relative_position_bias": True},
    "grouped": {"heads": (4, 2), "bias": True, "mask": "KEY_SEQUENCE_LENGTH", "past": 2, "present": True},
    "packed": {"mask": "KEY_QUERY_SEQUENCE_LENGTH_START_END"},
}
MASK_TYPES = {"plain": "0", "end_start": "2", "boolean": "4", "grouped": "1", "packed": "3"}
"""attention.cl's MASK_TYPE for each feature set."""
SEPARATE_ONLY = ("grouped", "packed")
"""Grouped heads need the separate form (a stacked tensor gives its roles one head count)."""
LAYOUTS = ("packed", "strided")
TYPES = (T.FLOAT32, T.FLOAT16)
SLOTS = (*AttentionDesc.INPUTS, *AttentionDesc.OUTPUTS)
GAPS = {slot: 1 + k % 3 for k, slot in enumerate(SLOTS)}
OFFSETS = {slot: 16 * (1 + k % 4) for k, slot in enumerate(SLOTS)}
SIZES = {"batch": 2, "sequence": 2, "kv_sequence": 3, "head_size": 3, "value_head_size": 4}
"""Small: Oclgrind simulates each work-item's every instruction."""


def features_of(form: str) -> list[str]:
    return [name for name in FEATURES if form == "separate" or name not in SEPARATE_ONLY]


def every_variant() -> list[str]:
    return [
        f"{form} {data_type.name} {feature} {layout}"
        for form in FORMS
        for data_type in TYPES
        for feature in features_of(form)
        for layout in LAYOUTS
    ]


def sampled_variants() -> list[str]:
    """Each feature set once, the form, type and layout taking turns."""
    return [
        "separate FLOAT32 grouped strided",
        "separate FLOAT16 packed packed",
        "stacked_query_key_value FLOAT32 end_start strided",
        "stacked_query_key FLOAT16 boolean packed",
        "stacked_key_value FLOAT32 plain packed",
    ]


def variant_of(label: str) -> Variant:
    form, type_name, feature, layout = label.split()
    strided = layout == "strided"
    case = attention_case(T[type_name], form, **SIZES, **FEATURES[feature], gaps=GAPS if strided else None)

    def problem(got: dict[str, Any]) -> str | None:
        for slot, expected in case.expected.items():
            wrong = past_bound(got[slot], expected, case.allowed[slot])
            if wrong.size:
                return f"{slot} past the bound at elements {wrong[:8].tolist()}"
        return None

    bound = [*case.inputs, *case.expected]
    offsets = {slot: OFFSETS[slot] for slot in bound} if strided else {}
    return Variant(case.desc, case.inputs, problem, offsets)


def record(device: Any, desc: Any) -> dict[str, str]:
    """The softmax step's kernel and its -D defines (its MASK_TYPE)."""
    import dmlpy as dml

    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    (step,) = [step for step in compiled.plan.steps if step.lowered.kernel.source_name == "attention.cl"]
    return {"kernel": step.lowered.kernel.kernel_name, **dict(step.lowered.kernel.defines)}


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    """The sweep; under the uninitialised pass on buffers without create_buffer's zero fill, each kept to the end
    (``without_zero_fill``): the plan's temporaries and the present outputs are written by one step and read by the
    next."""
    if os.environ.get("OCLGRIND_UNINITIALIZED") == "1":
        without_zero_fill(device, keep=True)
    return run_sweep(device, Sweep(every_variant, sampled_variants, variant_of, record), args.sample)


if __name__ == "__main__":
    sys.exit(main(run_all, flags=[("--sample", "each feature set once (the default test's share), not every variant")]))
