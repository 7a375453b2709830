"""dml.graph's pooling functions (DirectMLX's dml::AveragePooling and dml::MaxPooling, lp_pooling, max_unpooling):
the operator each builds, its output Sizes from the window rule, and their values in one compiled graph against
cases.py's reference: max_pooling's values and indices, unpooled again."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.pooling.cases import AVERAGE, LP, MAX, T, Window, pooling_case, values

SIZES = (1, 2, 6, 5)


def test_the_functions_build_the_newest_forms_with_directmlx_defaults() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_2)
    x = g.input(SIZES, T.FLOAT32)
    (values_only,) = dml.graph.max_pooling(x, [2, 2])
    pooled, indices = dml.graph.max_pooling(x, [2, 2], [2, 2], output_indices=True, dtype="UINT64")
    average = dml.graph.average_pooling(x, None, [3, 3], [1, 1], [1, 1], include_padding=True)
    nodes = g.desc_for([values_only, pooled, average]).nodes
    ops = {type(node.desc.op) for node in nodes}
    assert ops == {dml.MaxPooling2OperatorDesc, dml.AveragePooling1OperatorDesc}
    assert values_only.sizes == (1, 2, 5, 4) and pooled.sizes == (1, 2, 3, 2) and average.sizes == SIZES
    assert indices.desc.data_type == T.UINT64
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.average_pooling: window_sizes is 3"):
        dml.graph.average_pooling(x, None, 3)  # type: ignore[arg-type]


def test_a_graph_of_the_functions(device: Any) -> None:
    x = values(T.FLOAT32, SIZES, 11) + np.arange(30, dtype=np.float32).reshape(6, 5)  # no ties
    g = dml.Graph(device)
    gx = g.input(SIZES, T.FLOAT32)
    window = Window((2, 2), (2, 2), (0, 0), (0, 1), (1, 1))
    pooled, indices = dml.graph.max_pooling(gx, [2, 2], [2, 2], [0, 0], [0, 1], output_indices=True)
    unpooled = dml.graph.max_unpooling(pooled, indices, SIZES)
    average = dml.graph.average_pooling(gx, [2, 2], [2, 2], [0, 0], [0, 1], include_padding=False)
    lp = dml.graph.lp_pooling(gx, [2, 2], [2, 2], [0, 0], [0, 1], p=2)
    got = [np.asarray(a) for a in g.compile([pooled, indices, unpooled, average, lp])(x)]
    maximum = pooling_case(MAX[2], T.FLOAT32, SIZES, window, x=x, index_type=T.UINT32)
    np.testing.assert_array_equal(got[0], maximum.expected["output_tensor"])
    np.testing.assert_array_equal(got[1], maximum.expected["output_indices_tensor"])
    expected_unpooled = np.zeros(SIZES, np.float32)
    expected_unpooled.flat[got[1].ravel()] = got[0].ravel()
    np.testing.assert_array_equal(got[2], expected_unpooled)
    for result, case in (
        (got[3], pooling_case(AVERAGE[1], T.FLOAT32, SIZES, window, x=x, include_padding=False)),
        (got[4], pooling_case(LP[1], T.FLOAT32, SIZES, window, x=x, p=2)),
    ):
        assert np.all(np.abs(result - case.expected["output_tensor"]) <= case.allowed["output_tensor"])
