"""Memory safety of opencl/recurrent.cl: RNN, LSTM and GRU (LinearBeforeReset both ways), every direction, both data
types, packed and strided at byte offsets, sequence lengths shorter than the sequence (0 too), under Oclgrind with no
report and every result within cases.BOUND of the reference, each buffer exactly as large as its binding
(oclgrind_recurrent_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes (tests/helpers/oclgrind_passes.py): memory and uninitialised (the outputs left unwritten). By default four
variants (one of each cell) under the memory pass with the "cpu" launch profile and the uninitialised pass with
"gpu"; ``--run-slow`` runs all 48 under all four combinations. Negative controls: the driver's broken kernel, and an
LSTM reading an InputTensor buffer one element shorter than its binding. Without Oclgrind the tests skip, except under
CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_recurrent_variants import CELLS, every_variant, sampled_variants

CELL_VALUES = {"RNN": "0", "LSTM": "1", "GRU": "2", "GRU-LBR": "2"}


def test_the_sample_takes_every_cell_direction_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(CELLS) * 3 * 2 * 2
    assert set(sample) <= set(every)
    for position, wanted in enumerate((set(CELLS), {"FORWARD", "BACKWARD", "BIDIRECTIONAL"},
                                       {"FLOAT32", "FLOAT16"}, {"packed", "strided"})):  # fmt: skip
        assert {label.split()[position] for label in sample} == wanted


def runs_its_kernel(label: str, kernels: dict[str, str]) -> bool:
    return kernels == {"kernel": "recurrent_step", "CELL": CELL_VALUES[label.split()[0]]}


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_recurrent_variants.py",
    "recurrent",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "recurrent_step"
)
