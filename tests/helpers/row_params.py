"""Which (row, case[, layout]) the operator table's device tests take (tests/device/test_operator_rows_values.py,
test_operator_rows_layouts.py and test_operator_rows_graphs.py): each file's ``pytest_generate_tests`` asks for
``params(every, run_slow)``, so that a default run does not even create the long sweeps' items (tens of thousands
of layout cases, each a skipped test to run and report otherwise).

A default run takes a row's cases but its ``slow_cases``, in the layouts ``default_layouts`` picks (every one for
IDENTITY), a sampled row's cases under the one launch profile ``sampled_profile`` gives each, and each layout case
under one profile, taking turns (the ``one_profile`` mark, which tests/conftest.py applies); --run-slow takes every
case in every layout under both profiles."""

from __future__ import annotations

from typing import Any

import pytest

from dmlpy.kernels import LAUNCH_PROFILE_NAMES
from tests.helpers.layouts import LAYOUTS
from tests.helpers.operators import ROWS, default_layouts, sampled_profile
from tests.helpers.row_model import Case, OperatorRow

SLOW = pytest.mark.slow


def profile_turn(k: int) -> str:
    """The launch profile of the k-th item of a list whose items take one profile each, taking turns."""
    return LAUNCH_PROFILE_NAMES[k % len(LAUNCH_PROFILE_NAMES)]


def _marks(row: OperatorRow, case: Case, slow: bool, profile: str | None = None) -> list[pytest.MarkDecorator]:
    """``slow`` (or a row's slow case) marked slow; the one launch profile a default run gives it: a sampled row's
    turn (``sampled_profile``), else ``profile`` where given."""
    marks = [SLOW] if slow or case.id in row.slow_cases else []
    if row.sampled:
        (profile,) = sampled_profile(row, case, LAUNCH_PROFILE_NAMES)
    if profile is not None:
        marks.append(pytest.mark.one_profile(profile))
    return marks


def _layout_params(row: OperatorRow, case: Case) -> list[Any]:
    """The case in each layout it runs in (in place where the operator allows it); those a default run leaves to
    --run-slow marked slow. A default run takes each under one launch profile, the two taking turns along the
    layouts and from one case to the next, so that every layout class runs under both (the programs of a layout
    are compiled once per profile and device; the values test runs every case under both)."""
    names = [name for name, layout in LAYOUTS.items() if row.runs_layout(name, layout)]
    default = [] if case.id in row.slow_cases else default_layouts(row, case, names)
    turn = row.cases.index(case)
    return [
        pytest.param(
            row,
            case,
            name,
            id=f"{row.name}-{case.id}-{name}",
            marks=_marks(row, case, name not in default, profile_turn(turn + k)),
        )
        for k, name in enumerate(names)
    ]


CASES = [
    pytest.param(row, case, id=f"{row.name}-{case.id}", marks=_marks(row, case, False))
    for row in ROWS
    for case in row.cases
]
LAYOUT_CASES = [param for row in ROWS for case in row.cases for param in _layout_params(row, case)]
GRAPH_CASES = [
    pytest.param(
        row,
        case,
        id=f"{row.name}-{case.id}",
        marks=_marks(row, case, False, profile_turn(k)),
    )
    for row in ROWS
    if not row.desc.is_extension()
    for k, case in enumerate(row.cases)
]
"""A DML_GRAPH holds DirectML operators only. A default run takes each case's graphs under one launch profile, the
two taking turns from one case to the next (the values test runs every case alone under both)."""


def params(every: list[Any], run_slow: bool) -> list[Any]:
    """``every`` (CASES, LAYOUT_CASES or GRAPH_CASES) with --run-slow; without, those not marked slow."""
    return every if run_slow else [param for param in every if not any(mark.name == "slow" for mark in param.marks)]
