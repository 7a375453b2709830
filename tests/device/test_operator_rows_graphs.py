"""Every DirectML operator of the test table (tests/helpers/operators.py; a DML_GRAPH holds no extension) alone
against graphs: the operator as a one-node graph, and between two Identity nodes (at FLOAT16 with ScaleBias(1, -0),
which fuses where a FLOAT16 copy does not), equals the operator alone bit for bit (a NaN through a FLOAT16 neighbour
as a NaN); the chain is one fused kernel except where the operator itself keeps a kernel of its own (an operator on
encodings only at its types, a FLOAT64 tensor).

A default run takes each case on one (device, launch profile) pair, a row's cases taking turns so that with CI's
two devices each operator runs fused on both and, where it has two default cases, under both profiles (a row
with one default case: on every device under one profile); every pair with --run-slow; a row's ``slow_cases``
with --run-slow only (tests/helpers/row_params.py). The values test runs every case alone on every device.
"""

from __future__ import annotations

from typing import Any

import pytest

import dmlpy as dml
from tests.helpers.object_model import run_graph, run_operator
from tests.helpers.operators import descriptor
from tests.helpers.row_model import Case, OperatorRow
from tests.helpers.row_params import GRAPH_CASES, params
from tests.helpers.row_runs import (
    assert_equals_alone,
    assert_fused_equals_alone,
    fills,
    keeps_its_own_kernel,
    run_fused_chain,
)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    metafunc.parametrize(("row", "case"), params(GRAPH_CASES, metafunc.config.getoption("--run-slow")))


def test_one_node_and_fused_graphs_equal_the_operator_alone(device: Any, row: OperatorRow, case: Case) -> None:
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
