"""Memory safety of the movement operators: every operator of cases.CASES (SLICE1 backwards), PADDING1 in every
padding mode, each element width (8, 16, 32, 64 bits), packed and strided at byte offsets, runs under Oclgrind with
no report and every result bit for bit right, each buffer exactly as large as its binding
(oclgrind_movement_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``), and bigger cases of the row kernels, whose work-items end mid-row. Every kernel they lower
to is covered: opencl/movement.cl (SLICE1, PADDING, PADDING1, TILE), the element-wise template's Identity copy with
a binding shift (SLICE, SPLIT, JOIN's strided case, and under the "gpu" profile JOIN and the depth/space ones), and
under the "cpu" profile opencl/block_copy.cl (the depth/space ones) and opencl/join_rows.cl (JOIN's packed case).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, output buffers left unwritten). By default one variant per operator class (every width and
both layouts among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu"
(seconds each); ``--run-slow`` runs every variant under all four combinations. Two negative controls prove the
reports are seen: the driver's broken kernel, and movement.cl reading an input buffer one element shorter than its
binding (the memory pass). Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_movement_variants import LAYOUTS, WIDTHS, every_variant, sampled_variants

MOVEMENT_CL = ("SLICE1", "PADDING", "PADDING1", "TILE")
"""The operators whose cases run opencl/movement.cl (a backwards window, padding, tiling)."""
ROW_KERNELS = {
    "SPACE_TO_DEPTH": "block_copy",
    "DEPTH_TO_SPACE": "block_copy",
    "SPACE_TO_DEPTH1": "block_copy",
    "DEPTH_TO_SPACE1": "block_copy",
    "DEPTH_TO_SPACE-ROWS": "block_copy",
    "SPACE_TO_DEPTH1-ROWS": "block_copy",
    "JOIN-ROWS": "join_rows",
    "JOIN": "join_rows",
}
"""The operators whose cases run a row kernel under the "cpu" profile (JOIN's packed case only: its strided one pads
a part's rows), the element-wise template's copy under "gpu"; the others run the template's Identity copy, once per
part for JOIN and SPLIT."""


def runs_its_kernel(label: str, kernels: list[str]) -> bool:
    operator, layout = label.split()[0], label.split()[-1]
    if operator.removesuffix("-ROWS") in MOVEMENT_CL:
        return set(kernels) == {"movement"}
    rows = ROW_KERNELS.get(operator)
    if operator == "JOIN" and layout == "strided":
        rows = None
    return bool(kernels) and set(kernels) in ({"elementwise"}, {rows})


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_movement_variants.py",
    "movement",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)


def test_the_sample_takes_every_width_and_layout_and_every_operator_class() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant())
    assert {label.rsplit(" ", 2)[0] for label in sample} == {label.rsplit(" ", 2)[0] for label in every_variant()}
    assert {int(label.split()[-2]) for label in sample} == set(WIDTHS)
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert len(every_variant()) == len(set(every_variant())) == 20 * len(WIDTHS) * len(LAYOUTS)


test_a_variant_of_each_operator_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_movement = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 8", "movement"
)
