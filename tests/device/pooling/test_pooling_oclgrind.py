"""Memory safety of opencl/pooling.cl: every FUNCTION it compiles (AVERAGE with IncludePadding 0 and 1, LP with P 1, 2
and 3, MAX without and with UINT64 indices, MAX_UNPOOLING's scatter after its fill,
QUANTIZED_LINEAR_AVERAGE_POOLING), the element types of each table among FLOAT32, FLOAT16, INT8, UINT16 and INT64, a
4-D window cut by asymmetric padding, a dilated 5-D one and a global one, packed and strided at byte offsets, run
under Oclgrind with no report and every result right by tests/device/pooling/cases.py's references, each buffer
exactly as large as its binding (oclgrind_pooling_variants.py, in a subprocess whose only OpenCL platform is
Oclgrind).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory and uninitialised (the
outputs left unwritten). By default one variant per function under the memory pass with the "cpu" launch profile
and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative
controls: the driver's broken kernel, and pooling.cl reading an input buffer one element shorter than its binding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_pooling_variants import FUNCTIONS, LAYOUTS, WINDOWS, every_variant, sampled_variants


def runs_its_function(label: str, defines: dict[str, str]) -> bool:
    """pooling.cl's FUNCTION (3: MAX_UNPOOLING's scatter), with OutputIndicesTensor where the label asks."""
    name = label.split()[0]
    functions = {
        "AVERAGE": "0",
        "AVERAGE_PADDED": "0",
        "LP1": "2",
        "LP2": "2",
        "LP3": "2",
        "UNPOOL": "3",
        "QUANTIZED": "4",
    }
    indices = defines.get("HAS_INDICES", "0") == ("1" if name == "MAX_INDICES" else "0")
    return defines["FUNCTION"] == functions.get(name, "1") and (name in ("UNPOOL", "QUANTIZED") or indices)


def takes_every_shape(summary: dict[str, Any]) -> None:
    """Every function and both kernels of pooling.cl."""
    kernels = {"pooling", "max_unpooling", "quantized_average_pooling"}
    assert {defines["kernel"] for defines in summary["kernels"].values()} == kernels
    assert {defines["FUNCTION"] for defines in summary["kernels"].values()} == {"0", "1", "2", "3", "4"}


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_pooling_variants.py",
    "pooling",
    every_variant,
    sampled_variants,
    runs_its_function,
)


def test_the_sweep_covers_every_function_window_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) and set(sample) <= set(every)
    assert [label.split()[0] for label in sample] == list(FUNCTIONS)
    assert {label.split()[2] for label in every} == set(WINDOWS)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


test_a_variant_of_each_function_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test(takes_every_shape)
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_pooling = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "pooling"
)
