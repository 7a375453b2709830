"""Which (row, case[, layout]) the operator table's device tests take (tests/device/test_operator_rows_values.py,
test_operator_rows_layouts.py and test_operator_rows_graphs.py): each file's ``pytest_generate_tests`` asks for
``params(every, run_slow)``, so that a default run does not even create the long sweeps' items (tens of thousands
of layout cases, each a skipped test to run and report otherwise).

A default run takes a row's cases but its ``slow_cases``, in the layouts ``default_layouts`` picks (every one for
IDENTITY). Each program a case builds is a compile per device and launch profile, so a default run takes turns:
a sampled row's values under one launch profile per case on every device (the ``one_profile`` mark), and each
layout case and each graph case on one (device, profile) pair (the ``one_run`` mark over
tests/helpers/devices.py's ``run_turns``: with the two devices of CI, consecutive turns on two compilers and every
pair within four turns; tests/conftest.py applies both marks; tests/unit/test_default_run_turns.py checks what
they still cover).
--run-slow takes every case in every layout on every device under both profiles."""

from __future__ import annotations

from typing import Any

import pytest

from dmlpy.kernels import LAUNCH_PROFILE_NAMES
from tests.helpers.layouts import LAYOUTS
from tests.helpers.operators import ROWS, default_layouts, sampled_turn
from tests.helpers.row_model import Case, OperatorRow

SLOW = pytest.mark.slow


def _marks(
    row: OperatorRow, case: Case, slow: bool, *, turn: int | None = None, profile: str | None = None
) -> list[pytest.MarkDecorator]:
    """``slow`` (or a row's slow case) marked slow; then what a default run gives the item: the one (device,
    profile) pair of ``turn`` (``one_run``), or the one launch profile ``profile`` on every device
    (``one_profile``), or, with neither, every pair."""
    marks = [SLOW] if slow or case.id in row.slow_cases else []
    if turn is not None:
        marks.append(pytest.mark.one_run(turn))
    if profile is not None:
        marks.append(pytest.mark.one_profile(profile))
    return marks


def _profile_of(turn: int) -> str:
    return LAUNCH_PROFILE_NAMES[turn % len(LAUNCH_PROFILE_NAMES)]


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
                row,
                case,
                name not in default,
                turn=sampled_turn(row, case) if row.sampled else row.cases.index(case) + k,
            ),
        )
        for k, name in enumerate(names)
    ]


CASES = [
    pytest.param(
        row,
        case,
        id=f"{row.name}-{case.id}",
        marks=_marks(row, case, False, profile=_profile_of(sampled_turn(row, case)) if row.sampled else None),
    )
    for row in ROWS
    for case in row.cases
]
"""The values test: every case on every device, a sampled row's under one profile per case, taking turns."""
LAYOUT_CASES = [param for row in ROWS for case in row.cases for param in _layout_params(row, case)]

GRAPH_ROWS = [row for row in ROWS if not row.desc.is_extension()]
"""A DML_GRAPH holds DirectML operators only."""


def _graph_marks(row: OperatorRow, case: Case) -> list[pytest.MarkDecorator]:
    """A default run takes the k-th of the r-th row's default cases on turn 2r + 3k: with the two devices of CI,
    its first two cases on two devices under two profiles ((first, cpu) and (second, gpu), or (first, gpu) and
    (second, cpu)) and its first four on every pair, so that each operator runs fused on both compilers in both
    shapes; one profile on every device for a row with one default case."""
    defaults = [c.id for c in row.cases if c.id not in row.slow_cases]
    place = GRAPH_ROWS.index(row)
    if case.id not in defaults:
        return _marks(row, case, False)
    if len(defaults) == 1:
        return _marks(row, case, False, profile=_profile_of(place))
    return _marks(row, case, False, turn=2 * place + 3 * defaults.index(case.id))


GRAPH_CASES = [
    pytest.param(row, case, id=f"{row.name}-{case.id}", marks=_graph_marks(row, case))
    for row in GRAPH_ROWS
    for case in row.cases
]


def params(every: list[Any], run_slow: bool) -> list[Any]:
    """``every`` (CASES, LAYOUT_CASES or GRAPH_CASES) with --run-slow; without, those not marked slow."""
    return every if run_slow else [param for param in every if not any(mark.name == "slow" for mark in param.marks)]
