"""Memory safety of depthwise.cl's row blocks (the float depth-wise CONVOLUTION's "cpu" fast path): 3 x 3 and 5 x 5
filters at row strides 1 and 2, a 3 x 5 filter over rows narrower than a block, both modes, packed and strided at
byte offsets, under Oclgrind with no report and every result within cases.py's bound, each buffer exactly as large
as its binding (oclgrind_depthwise_variants.py, in a subprocess whose only OpenCL platform is Oclgrind).

Two passes (tests/helpers/oclgrind_passes.py): by default four variants under the memory pass with the "cpu" launch
profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations.
Negative control: the driver's broken kernel. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_depthwise_variants import LAYOUTS, MODES, SHAPES, every_variant, sampled_variants


def test_the_sample_takes_every_filter_size_mode_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(MODES) * len(SHAPES) * len(LAYOUTS)
    assert set(sample) <= set(every)
    assert {label.split()[0] for label in sample} == set(MODES)
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert {label.split()[1][:3] for label in sample} == {"3x3", "5x5", "3x5"}


def runs_its_kernels(label: str, recorded: dict[str, Any]) -> bool:
    """The one depth-wise launch; under "cpu" the row blocks (DEPTHWISE_KW the filter's row length), under "gpu"
    the general kernel (no DEPTHWISE_KW)."""
    row_length = SHAPES[label.split()[1]].kernel[-1]
    fast = str(row_length) if recorded["profile"] == "cpu" else None
    return recorded["kernels"] == ["depthwise"] and recorded["DEPTHWISE_KW"] == fast


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_depthwise_variants.py",
    "depthwise row blocks",
    every_variant,
    sampled_variants,
    runs_its_kernels,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
