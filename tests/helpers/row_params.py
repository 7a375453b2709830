"""Which (row, case[, layout]) the operator table's device tests take (tests/device/test_operator_rows_values.py,
test_operator_rows_layouts.py and test_operator_rows_graphs.py): each file's ``pytest_generate_tests`` asks for
``params(every, run_slow)``, so that a default run does not even create the long sweeps' items (tens of thousands
of layout cases, each a skipped test to run and report otherwise).

A default run takes a row's cases but its ``slow_cases``, in the layouts ``default_layouts`` picks (every one for
IDENTITY). Each program a case builds is a compile per device and launch profile, so a default run takes turns:
a sampled row's values under one launch profile per case on every device (the ``one_profile`` mark), and each
layout case and each graph case on one (device, profile) pair (the ``one_run`` mark: consecutive turns on two
compilers where two are under test, and every pair within four turns; tests/conftest.py applies both marks).
--run-slow takes every case in every layout on every device under both profiles."""

from __future__ import annotations

from typing import Any

import pytest

from dmlpy.kernels import LAUNCH_PROFILE_NAMES
from tests.helpers.layouts import LAYOUTS
from tests.helpers.operators import ROWS, default_layouts, sampled_turn
from tests.helpers.row_model import Case, OperatorRow

SLOW = pytest.mark.slow


def _marks(row: OperatorRow, case: Case, slow: bool, turn: int | None = None) -> list[pytest.MarkDecorator]:
    """``slow`` (or a row's slow case) marked slow; with a ``turn`` (layouts, graphs), the one (device, profile)
    pair a default run gives it; without (values), a sampled row's case's one profile (its ``sampled_turn``)."""
    marks = [SLOW] if slow or case.id in row.slow_cases else []
    if turn is not None:
        marks.append(pytest.mark.one_run(turn))
    elif row.sampled:
        profiles = LAUNCH_PROFILE_NAMES
        marks.append(pytest.mark.one_profile(profiles[sampled_turn(row, case) % len(profiles)]))
    return marks


def _layout_params(row: OperatorRow, case: Case) -> list[Any]:
    """The case in each layout it runs in (in place where the operator allows it); those a default run leaves to
    --run-slow marked slow. A default run takes each on one (device, profile) pair, taking turns along the layouts
    and from one case to the next (a sampled case's one layout: along the sampled cases), so that every layout
    class runs on every pair (each layout's programs are compiled once per profile and device; the values test
    runs every case on every device)."""
    names = [name for name, layout in LAYOUTS.items() if row.runs_layout(name, layout)]
    default = [] if case.id in row.slow_cases else default_layouts(row, case, names)
    return [
        pytest.param(
            row,
            case,
            name,
            id=f"{row.name}-{case.id}-{name}",
            marks=_marks(
                row, case, name not in default, sampled_turn(row, case) if row.sampled else row.cases.index(case) + k
            ),
        )
        for k, name in enumerate(names)
    ]


CASES = [
    pytest.param(row, case, id=f"{row.name}-{case.id}", marks=_marks(row, case, False))
    for row in ROWS
    for case in row.cases
]
LAYOUT_CASES = [param for row in ROWS for case in row.cases for param in _layout_params(row, case)]


def _graph_turn(row: OperatorRow, case: Case) -> int | None:
    """The turn of ``case``'s graphs: along the sampled cases for a sampled row, else along the row's cases; None
    (every device, one profile) where a default run takes only one case of the row, so that every operator runs
    fused on every device."""
    if sum(c.id not in row.slow_cases for c in row.cases) < 2:
        return None
    return sampled_turn(row, case) if row.sampled else row.cases.index(case)


GRAPH_CASES = [
    pytest.param(row, case, id=f"{row.name}-{case.id}", marks=_marks(row, case, False, _graph_turn(row, case)))
    for row in ROWS
    if not row.desc.is_extension()
    for case in row.cases
]
"""A DML_GRAPH holds DirectML operators only. A default run takes each case's graphs on one (device, profile)
pair, taking turns from one case to the next, two cases of a row on two devices (the values test runs every case
alone on every device)."""


def params(every: list[Any], run_slow: bool) -> list[Any]:
    """``every`` (CASES, LAYOUT_CASES or GRAPH_CASES) with --run-slow; without, those not marked slow."""
    return every if run_slow else [param for param in every if not any(mark.name == "slow" for mark in param.marks)]
