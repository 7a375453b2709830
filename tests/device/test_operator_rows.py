"""Every operator of the test table (tests/helpers/operators.py) on a device, against its one reference:

- values: each case of the row on its value set (every float16 and bfloat16 pattern, float32 and float64 edges
  and random values, every 8- and 16-bit integer), bit for bit (a NaN keeps its sign and payload, the quiet bit
  aside);
- layouts: every layout class of helpers.layouts (packed, padded, broadcast, transposed with the tiled paths,
  offsets, rank 1 to 8, and in place for the operators whose SUPPORTS_IN_PLACE is True), the scale and zero
  point broadcast along axis 1, and no byte of the output buffer outside the tensor written (a sampled row, one
  of a family that lowers alike, one layout per case unless --run-slow);
- alone against graphs: the operator as a one-node graph, and between two Identity nodes (at FLOAT16 with
  ScaleBias(1, -0), which fuses where a FLOAT16 copy does not), equals the operator alone bit for bit (a NaN
  through a FLOAT16 neighbour as a NaN; DirectML operators only, as a DML_GRAPH holds no extension); the chain
  is one fused kernel except where the operator itself keeps a kernel of its own (an operator on encodings only at
  its types, a FLOAT64 tensor).

Each test runs under both launch profiles (the ``device`` fixture); a sampled row's values, layout and graphs under
one per case, taking turns (``sampled_profile``), both with --run-slow, as each profile is a program to compile for
each case. A row's ``slow_cases`` run with --run-slow only. Per-operator suites (tests/device/round,
quantize, identity, extensions) keep the sweeps that are specific to one operator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import dmlpy as dml
from dmlpy.kernels import LAUNCH_PROFILE_NAMES
from tests.helpers.layouts import LAYOUTS
from tests.helpers.object_model import run_graph, run_operator
from tests.helpers.operators import ROWS, descriptor, sampled_layout, sampled_profile
from tests.helpers.row_model import Case, OperatorRow
from tests.helpers.row_runs import (
    assert_equals_alone,
    assert_fused_equals_alone,
    assert_same,
    fills,
    keeps_its_own_kernel,
    layout_strides,
    run_fused_chain,
)

Array = npt.NDArray[Any]
CASES = [
    pytest.param(row, case, id=f"{row.name}-{case.id}", marks=pytest.mark.slow if case.id in row.slow_cases else ())
    for row in ROWS
    for case in row.cases
]
_EXPECTED: dict[tuple[str, str, bytes], Array] = {}


def expected(row: OperatorRow, case: Case, inputs: Mapping[str, Array]) -> Array:
    """The reference's output for ``inputs`` in their shape; kept per input bytes (and, for a row that reduces
    groups, shape), so the second launch profile (and a layout that reads the same elements) does not recompute
    an exact but slow oracle."""
    flat = b"".join(np.ascontiguousarray(array).tobytes() for array in inputs.values())
    shape = inputs[row.first].shape if row.reduction is not None else ()
    key = (row.name, case.id, shape, flat)
    if key not in _EXPECTED:
        _EXPECTED[key] = row.reference_in_shape(inputs, case)
    return _EXPECTED[key].reshape(inputs[row.first].shape)


def skip_without_fp64(device: Any, case: Case) -> None:
    if any(d == np.float64 for d in case.dtypes.values()) and "cl_khr_fp64" not in device.cl_device.extensions:
        pytest.skip(f"{device.name} has no cl_khr_fp64")


def device_for(row: OperatorRow, request: pytest.FixtureRequest) -> Any:
    """The ``device`` fixture's device, or for an extension row ``ext_device`` (tests/device/conftest.py)."""
    return request.getfixturevalue("ext_device" if row.desc.is_extension() else "device")


def run_on_this_profile(request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case) -> None:
    """A sampled row's values and graphs run under one launch profile per case, taking turns (sampled_profile);
    the other with --run-slow, as the slow mark says."""
    if request.config.getoption("--run-slow"):
        return
    if device.launch_profile.name not in sampled_profile(row, case, LAUNCH_PROFILE_NAMES):
        pytest.skip("long sweep: run with --run-slow")


@pytest.mark.parametrize(("row", "case"), CASES)
def test_values_match_the_reference(
    request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case, tally: Any
) -> None:
    run_on_this_profile(request, device, row, case)
    skip_without_fp64(device, case)
    desc = descriptor(row, row.value_sizes(case), case.dtypes, **case.options)
    run = run_operator(device_for(row, request), desc, fills(row, case))
    assert run.changed_outside == []
    assert_same(row, run.got, expected(row, case, run.inputs), run.inputs[row.first], case)
    tally["operator-table values compared"] += run.got.size


def layout_cases(row: OperatorRow, case: Case) -> list[Any]:
    """The case in each layout it runs in (in place where the operator allows it); those a sampled row leaves
    to --run-slow marked slow."""
    names = [name for name, layout in LAYOUTS.items() if row.runs_layout(name, layout)]
    default = [] if case.id in row.slow_cases else sampled_layout(row, case, names)
    return [
        pytest.param(row, case, name, id=f"{row.name}-{case.id}-{name}", marks=() if name in default else SLOW)
        for name in names
    ]


SLOW = pytest.mark.slow
LAYOUT_CASES = [param for row in ROWS for case in row.cases for param in layout_cases(row, case)]


@pytest.mark.parametrize(("row", "case", "layout_name"), LAYOUT_CASES)
def test_layouts_match_the_reference(
    request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case, layout_name: str, tally: Any
) -> None:
    """Every layout class (helpers.layouts.LAYOUTS; in place where the operator allows it), the whole output
    buffer checked: the tensor's elements hold the reference's results, every other byte is unchanged."""
    run_on_this_profile(request, device, row, case)
    skip_without_fp64(device, case)
    layout = LAYOUTS[layout_name]
    desc = descriptor(row, layout["sizes"], case.dtypes, layout_strides(row, case, layout), **case.options)
    offsets = {row.first: layout.get("input_offset", 0), row.output: layout.get("output_offset", 0)}
    in_place = bool(layout.get("in_place"))
    run = run_operator(device_for(row, request), desc, fills(row, case), offsets=offsets, in_place=in_place)
    assert run.changed_outside == [], f"bytes outside the output tensor changed: {run.changed_outside[:8]}"
    assert_same(row, run.got, expected(row, case, run.inputs), run.inputs[row.first], case)
    tally["operator-table layout elements compared"] += run.got.size


GRAPH_CASES = [param for param in CASES if not param.values[0].desc.is_extension()]  # type: ignore[union-attr]


@pytest.mark.parametrize(("row", "case"), GRAPH_CASES)
def test_one_node_and_fused_graphs_equal_the_operator_alone(
    request: pytest.FixtureRequest, device: Any, row: OperatorRow, case: Case
) -> None:
    run_on_this_profile(request, device, row, case)
    desc = descriptor(row, row.value_sizes(case), case.dtypes, **case.options)
    alone = run_operator(device, desc, fills(row, case))
    arrays = [alone.inputs[name] for name in desc.INPUTS if name in alone.inputs]

    one = dml.Graph(device)
    operands = [None if getattr(desc, n) is None else one.input(getattr(desc, n).desc) for n in desc.INPUTS]
    (single,), compiled = run_graph(device, one.desc_for([one.add_operator(desc, operands)]), arrays)
    assert compiled.kernel_count == 1
    assert_equals_alone(row, single, alone.got, "the one-node graph differs from the operator alone", nan_as_nan=False)

    fused, compiled = run_fused_chain(device, desc, arrays, copies=row.nan == "bits")
    if not keeps_its_own_kernel(row, case):
        assert compiled.kernel_count == 1, "neighbour -> operator -> neighbour did not fuse into one kernel"
    assert_fused_equals_alone(row, fused, alone.got, case)
