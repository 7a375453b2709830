"""Memory safety, table-driven: every row of the operator test table (tests/helpers/operators.py), DirectML and
extension operators alike, each of its cases (a sampled row's one, taking turns, every case with --run-slow) in
small layouts (packed, padded, broadcast, transposed, in place
where SUPPORTS_IN_PLACE) and for a DirectML operator as a fused chain against the operator alone, runs under
Oclgrind with no report and every result equal to the row's reference (oclgrind_operator_rows.py, in a
subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes, as the per-operator suites run theirs (by default the memory pass under the "cpu" launch profile and
the uninitialised one under "gpu", each taking half of the sampled rows in turn; all four with --run-slow:
tests/helpers/oclgrind_passes.py):

* memory: kernels built as dmlpy builds them; every global access checked against its buffer (each buffer
  exactly as large as its binding), data races and API calls checked too.
* uninitialised: ``OCLGRIND_UNINITIALIZED=1`` as well, built with ``-cl-opt-disable`` (Oclgrind 21.10's plugin
  aborts on LLVM's ``freeze``); output buffers are left unwritten. The chains that keep several kernels run in
  the memory pass only (the script's UNINITIALIZED_PLUGIN says why).

``--run-slow`` adds the same passes over every layout class of helpers.layouts but the large one (ranks 1 to 8,
the tiled transposes, offsets), every case of every row, in eight pieces a pass. A negative control proves the
reports are seen. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, OCLGRIND_PASSES, default_share, run_reportless
from tests.helpers.operators import ROWS

from .oclgrind_operator_rows import cases_of, every_planned

SCRIPT = Path(__file__).resolve().parent / "oclgrind_operator_rows.py"
PROFILES = pytest.mark.parametrize("profile", ["cpu", "gpu"])
PASSES = pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
"""The every-layout sweep's (--run-slow) and the negative control's parametrizations."""


EVERY_LAYOUT_SHARES = 8
"""The every-layout sweep in pieces of every 8th case, each a subprocess of a few minutes under Oclgrind (the
whole sweep, about 15,000 runs a pass, outlasts any one subprocess's timeout)."""


def run_rows(
    run_oclgrind_script: Any,
    tmp_path: Path,
    profile: str,
    uninitialized: bool,
    every_layout: bool,
    share: tuple[int, int] | None,
) -> dict[str, Any]:
    flags = (("--every-layout",) if every_layout else ()) + (("--share", f"{share[0]}/{share[1]}") if share else ())
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=1200)
    assert summary["wrong"] == 0, summary["failures"]
    assert sorted(summary["ran"] + summary["skipped"]) == sorted(every_planned(every_layout, share))
    in_share = {row.name for row in ROWS if cases_of(row, every_layout, share)}
    assert {label.split()[0] for label in summary["ran"]} == in_share
    chains = [label for label in summary["ran"] if label.endswith(" fused_chain")]
    directml_cases = sum(len(cases_of(row, every_layout, share)) for row in ROWS if not row.desc.is_extension())
    if uninitialized:
        assert all(label.endswith(" fused_chain") for label in summary["skipped"]), summary["skipped"]
    else:
        assert summary["skipped"] == [] and len(chains) == directml_cases, summary["skipped"]
    return summary


def test_the_default_passes_share_the_sampled_rows_between_them() -> None:
    n = len(DEFAULT_PASSES)
    for row in ROWS:
        taken = [cases_of(row, False, (k, n)) for k in range(n)]
        if row.sampled:
            assert sum(len(cases) for cases in taken) == 1, row.name
        else:
            assert all(cases == row.cases_run(False) for cases in taken), row.name
    assert all(any(cases_of(row, False, (k, n)) for row in ROWS if row.sampled) for k in range(n))


@OCLGRIND_PASSES
def test_every_row_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    index = default_share(profile, uninitialized)
    share = None if index is None else (index, len(DEFAULT_PASSES))
    summary = run_rows(run_oclgrind_script, tmp_path, profile, uninitialized, False, share)
    tally["oclgrind operator-table runs"] += summary["variants"]


@pytest.mark.slow
@PROFILES
@PASSES
@pytest.mark.parametrize("piece", range(EVERY_LAYOUT_SHARES))
def test_every_row_in_every_layout_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, piece: int, tally: Any
) -> None:
    summary = run_rows(run_oclgrind_script, tmp_path, profile, uninitialized, True, (piece, EVERY_LAYOUT_SHARES))
    tally["oclgrind operator-table runs (every layout)"] += summary["variants"]


@PASSES
def test_negative_control_is_reported(
    assert_negative_control_reported: Any, tmp_path: Path, uninitialized: bool
) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=uninitialized)
