"""Memory safety of opencl/reduce.cl: every FUNCTION it compiles (REDUCE's twelve, ARGMIN and ARGMAX with
LAST_INDEX), each element type of the function's table among FLOAT32, FLOAT16, INT8, INT32 and INT64, KEPT_RANK 0
and above, REDUCED_RANK 1 and 2 (axes apart), each of its walks (the floats' lanes with a tail, bands with a short
one; a split reduction's two launches, of few long groups and of tall columns), packed and strided at a byte
offset, runs under Oclgrind with no report and every result right by tests/device/reduction/cases.py's references,
each buffer exactly as large as its binding
(oclgrind_reduce_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the output buffer left unwritten). By default one variant per function (every type, axis set
and layout among them) and three vector walks more (SAMPLED_WALKS) under the memory pass with the "cpu" launch
profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations. Two
negative controls prove the reports are seen: the driver's broken kernel, and reduce.cl reading an input buffer one
element shorter than its binding. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dmlpy.kernels.reduction import BAND
from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_reduce_variants import (
    AXES,
    FUNCTIONS,
    LAYOUTS,
    SAMPLED_WALKS,
    SPLIT,
    WIDTHS,
    every_variant,
    sampled_variants,
)


def runs_its_function(label: str, defines: dict[str, str]) -> bool:
    """reduce.cl, with LAST_INDEX for the operators' DECREASING; the float functions' ``chunks`` and ``rows`` in two
    launches."""
    last = "1" if label.split()[0].endswith("_LAST") else "0"
    split = (
        label.split()[2] in ("chunks", "rows") and label.split()[1].startswith("FLOAT") and "LOG_SUM_EXP" not in label
    )
    return defines["kernel"] == (SPLIT if split else "reduce") and defines["LAST_INDEX"] == last


def takes_every_rank(summary: dict[str, Any]) -> None:
    """Every rank, and each of reduce.cl's walks (SCALAR_WALK 0, LANES_WALK 1, BANDS_WALK 2 of BAND groups, ROWS_WALK
    3, a split's partial launch) and the split; LOG_SUM_EXP on LANES_WALK too."""
    kernels = summary["kernels"]
    ranks = {(defines["KEPT_RANK"], defines["REDUCED_RANK"]) for defines in kernels.values()}
    assert {kept == "0" for kept, _ in ranks} == {True, False} and {reduced for _, reduced in ranks} == {"1", "2"}
    assert {defines["WALK"] for defines in kernels.values()} == {"0", "1", "2", "3"}
    assert {defines["BAND"] for defines in kernels.values() if defines["WALK"] == "2"} == {f"{BAND}u"}
    assert SPLIT in {defines["kernel"] for defines in kernels.values()}
    assert kernels["LOG_SUM_EXP FLOAT32 lanes packed"]["WALK"] == "1"


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_reduce_variants.py",
    "reduce",
    every_variant,
    sampled_variants,
    runs_its_function,
)


def test_the_sweep_covers_every_function_width_and_rank() -> None:
    """Every function, each swept type, KEPT_RANK 0 and above and REDUCED_RANK 1 and 2 (as the labels' axis sets
    lower them: test_reduce.py runs the same layouts), and a sample with one variant per function that still takes
    every type, axis set and layout, then the vector walks it would leave out."""
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == 54 * len(AXES) * len(LAYOUTS)
    assert {label.split()[0] for label in every} == set(FUNCTIONS) and len(FUNCTIONS) == 14
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == [
        *FUNCTIONS,
        "LOG_SUM_EXP",
        "MAX",
        "L2",
    ]
    assert sample[len(FUNCTIONS) :] == list(SAMPLED_WALKS)
    assert {label.split()[1] for label in sample} == {data_type.name for data_type in WIDTHS}
    assert {label.split()[2] for label in sample} == set(AXES)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


test_a_variant_of_each_function_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test(takes_every_rank)
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_reduce = SUITE.short_buffer_test(
    "--short-input",
    "Invalid read of size 4",
    "reduce",  # FLOAT32 over every axis: one of LANES_WALK's eight loads (reduce.cl's LOAD8)
)
