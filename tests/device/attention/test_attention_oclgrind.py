"""Memory safety of MULTIHEAD_ATTENTION(1)'s plan (the bias add, the past copy, gemm.cl's two products and
opencl/attention.cl's masked softmax): every source form, FLOAT32 and FLOAT16, every MaskType, a bias, a relative
position bias, a past with the present outputs, grouped heads, packed and strided at byte offsets, run under Oclgrind
with no report and every result within tests/device/attention/cases.py's bound, each buffer exactly as large as its
binding (oclgrind_attention_variants.py, in a subprocess whose only OpenCL platform is Oclgrind).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory and uninitialised (the
outputs left unwritten). By default each feature set once under the memory pass with the "cpu" launch profile and the
uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations. The negative control
is the driver's broken kernel (a short-buffer control waits for dispatch_short to bind a temporary resource).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_attention_variants import FEATURES, LAYOUTS, MASK_TYPES, every_variant, sampled_variants


def runs_its_mask(label: str, defines: dict[str, str]) -> bool:
    """attention.cl's masked softmax with the label's MASK_TYPE."""
    return defines["kernel"] == "masked_softmax" and defines["MASK_TYPE"] == MASK_TYPES[label.split()[2]]


def takes_every_mask(summary: dict[str, Any]) -> None:
    assert {defines["MASK_TYPE"] for defines in summary["kernels"].values()} == set(MASK_TYPES.values())
    assert {defines["DML_FLOAT16"] for defines in summary["kernels"].values()} == {"0", "1"}


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_attention_variants.py",
    "attention",
    every_variant,
    sampled_variants,
    runs_its_mask,
)


def test_the_sweep_covers_every_feature_form_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) and set(sample) <= set(every)
    assert sorted(label.split()[2] for label in sample) == sorted(FEATURES)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


test_each_feature_set_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test(takes_every_mask)
test_negative_control_is_reported = SUITE.negative_control_test()
