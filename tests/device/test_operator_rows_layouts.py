"""Every operator of the test table (tests/helpers/operators.py) in every layout class of helpers.layouts (packed,
padded, broadcast, transposed with the tiled paths, offsets, rank 1 to 8, and in place for the operators whose
SUPPORTS_IN_PLACE is True), the scale and zero point broadcast along axis 1, against its one reference, and no byte
of the output buffer outside the tensor written.

What a default run takes (tests/helpers/row_params.py; --run-slow takes every case in every layout on every device
under both launch profiles): every layout for the rows that are not sampled, IDENTITY first (the element-wise
template's walk at every type); of ROUND and the extension Round, whose modes are compiled into one walk per storage
class, every layout for one case per input type and one layout for each other case (``every_layout_cases``;
tests/device/round checks every mode's values in its own layouts); a sampled row, one of a family that lowers alike,
one layout per case, taking turns; none of a row's ``slow_cases``. Each (case, layout) runs on one (device, launch
profile) pair, the pairs taking turns along the layouts and the cases, so that each layout class runs on every
pair (the values test runs every case on every device).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.layouts import LAYOUTS
from tests.helpers.object_model import run_operator
from tests.helpers.operators import descriptor
from tests.helpers.row_model import Case, OperatorRow
from tests.helpers.row_params import LAYOUT_CASES, params
from tests.helpers.row_runs import (
    assert_same,
    device_for,
    expected,
    fills,
    layout_strides,
    skip_without_fp64,
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    metafunc.parametrize(("row", "case", "layout_name"), params(LAYOUT_CASES, metafunc.config.getoption("--run-slow")))


def test_layouts_match_the_reference(
    request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case, layout_name: str, tally: Any
) -> None:
    """Every layout class (helpers.layouts.LAYOUTS; in place where the operator allows it), the whole output
    buffer checked: the tensor's elements hold the reference's results, every other byte is unchanged."""
    skip_without_fp64(device, case)
    layout = LAYOUTS[layout_name]
    desc = descriptor(row, layout["sizes"], case.dtypes, layout_strides(row, case, layout), **case.options)
    offsets = {row.first: layout.get("input_offset", 0), row.output: layout.get("output_offset", 0)}
    in_place = bool(layout.get("in_place"))
    run = run_operator(device_for(row, request), desc, fills(row, case), offsets=offsets, in_place=in_place)
    assert run.changed_outside == [], f"bytes outside the output tensor changed: {run.changed_outside[:8]}"
    assert_same(row, run.got, expected(row, case, run.inputs), run.inputs[row.first], case)
    tally["operator-table layout elements compared"] += run.got.size
