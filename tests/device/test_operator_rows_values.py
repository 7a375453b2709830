"""Every operator of the test table (tests/helpers/operators.py) on a device, against its one reference: each case
of the row on its value set (every float16 and bfloat16 pattern, float32 and float64 edges and random values, every
8- and 16-bit integer), bit for bit (a NaN keeps its sign and payload, the quiet bit aside).

The table's layouts and graphs are test_operator_rows_layouts.py and test_operator_rows_graphs.py (three files, so
that pytest-xdist's two workers share them). Each test runs under both launch profiles (the ``device`` fixture); a
sampled row's cases under one each, taking turns (``sampled_turn``), both with --run-slow, as each profile is a
program to compile for each case. A row's ``slow_cases`` run with --run-slow only (tests/helpers/row_params.py:
a default run does not create their items). Per-operator suites (tests/device/round, quantize, identity,
extensions) keep the sweeps that are specific to one operator.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.object_model import run_operator
from tests.helpers.operators import descriptor
from tests.helpers.row_model import Case, OperatorRow
from tests.helpers.row_params import CASES, params
from tests.helpers.row_runs import assert_same, device_for, expected, fills, skip_without_fp64


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    metafunc.parametrize(("row", "case"), params(CASES, metafunc.config.getoption("--run-slow")))


def test_values_match_the_reference(
    request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case, tally: Any
) -> None:
    skip_without_fp64(device, case)
    desc = descriptor(row, row.value_sizes(case), case.dtypes, **case.options)
    run = run_operator(device_for(row, request), desc, fills(row, case))
    assert run.changed_outside == []
    assert_same(row, run.got, expected(row, case, run.inputs), run.inputs[row.first], case)
    tally["operator-table values compared"] += run.got.size
