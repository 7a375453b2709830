"""ELEMENT_WISE_ADD1 with each fusible activation on the edges (docs/operators/element_wise_add1.md): at FLOAT32 and
FLOAT16, every pair of a float format's edge values (ext_cases.edge_values: ±0, subnormals, the largest finite,
±infinity, NaNs) as A and B, one graph per type holding an ADD1 node per activation (and one without) and, beside
each, ADD then the activation as two nodes. The ADD1 nodes read the graph's inputs only, so they fuse; each result
equals the two-node chain's bit for bit (a NaN as a NaN: IEEE 754 fixes no payload of a sum) and the row's
reference (tests/helpers/rows_add1.py): exactly for a piecewise activation, within its own ULPs for an exponential
one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.dtypes import DATA_TYPE
from tests.helpers.ext_cases import edge_values
from tests.helpers.ext_oracle import describe, format_of, mismatches
from tests.helpers.row_model import F16, F32, Array
from tests.helpers.rows_add1 import FUSIBLE_ROWS, PARAMETERS, ROW_ADD1, activation_of, add1_case, add1_reference, fused
from tests.helpers.ulps import within_ulps

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

ACTIVATIONS = [None, *(fused(desc, **PARAMETERS.get(desc, {})) for desc in FUSIBLE_ROWS)]
EXACT_ACTIVATIONS = [f for f in ACTIVATIONS if f is None or activation_of(f).FLOAT32_ULPS == 0]
"""The piecewise ones: a chain of them has an exact reference (a bounded activation's errors would compound)."""


def _node_by_node(a: Any, b: Any, fused_activation: dml.FusedActivation | None) -> Any:
    """ADD, then the activation as a node of its own, with the fused activation's fields."""
    total = dml.graph.add(a, b)
    if fused_activation is None:
        return total
    activation = activation_of(fused_activation)
    assert activation.BUILDER_NAME is not None
    fields = {name: value for name, value in fused_activation.desc.items() if value is not None}
    keywords = {n: fields[f.alias] for n, f in activation.model_fields.items() if f.alias in fields}
    return getattr(dml.graph, activation.BUILDER_NAME)(total, **keywords)


def _same(got: Array, want: Array, a: Array, where: str, bound: int = 0) -> None:
    """Bit for bit (a NaN as a NaN), or within ``bound`` ULPs of ``want``, the exact float64 value."""
    wrong = within_ulps(got, want, bound) if bound else mismatches(got, want, nan="any")
    assert wrong.size == 0, f"{where}\n" + describe(wrong, a, got, want.astype(got.dtype))


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_add1_equals_add_then_the_activation(device: Any, dtype: np.dtype[Any]) -> None:
    edges = edge_values(format_of(dtype))
    a, b = (v.reshape(-1) for v in np.meshgrid(edges, edges, indexing="ij"))
    g = dml.Graph(device)
    desc = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=a.shape)
    ai, bi = g.input(desc), g.input(desc)
    fused_nodes = [dml.graph.add1(ai, bi, fused_activation=f) for f in ACTIVATIONS]
    chains = [_node_by_node(ai, bi, f) for f in ACTIVATIONS]
    results = list(g.compile([*fused_nodes, *chains])(a, b))
    count = len(ACTIVATIONS)
    for f, got, chain in zip(ACTIVATIONS, results[:count], results[count:], strict=True):
        where = f"ADD1 with {f}"
        _same(got, chain, a, f"{where} differs from ADD then the activation")
        bound = ROW_ADD1.ulps(dtype, add1_case(dtype, f))
        _same(got, add1_reference(a, b, f), a, f"{where} differs from the reference", bound)


@pytest.mark.parametrize("dtype", [F32, F16], ids=str)
def test_a_chain_of_add1_nodes_is_one_kernel(device: Any, dtype: np.dtype[Any]) -> None:
    """y = add1(y, b, activation) for each exact activation in turn: one fused kernel, each sum and activation as
    the reference computes them one after the other."""
    edges = edge_values(format_of(dtype))
    a, b = (v.reshape(-1) for v in np.meshgrid(edges, edges, indexing="ij"))
    g = dml.Graph(device)
    desc = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=a.shape)
    y, bi = g.input(desc), g.input(desc)
    want = a
    for f in EXACT_ACTIVATIONS:
        y = dml.graph.add1(y, bi, fused_activation=f)
        want = add1_reference(want, b, f)
    compiled = g.compile([y])
    assert compiled.kernel_count == 1
    got = compiled(a, b)  # one output: the array itself
    _same(got, want, a, "the chain of ADD1 nodes differs from the reference")
