"""The movement operators' builder functions (DirectMLX's dml::Slice, Join, Split, Padding, Tile, SpaceToDepth and
DepthToSpace as ``dml.graph.*``): outputs inferred from each operator's shape rule, SPLIT's parts as separate
expressions, and one compiled graph computing what NumPy computes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml


@pytest.mark.one_profile
def test_a_graph_of_every_movement_builder_matches_numpy(device: Any) -> None:
    x = np.random.default_rng(0).standard_normal((1, 4, 4, 6)).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(x.shape, dml.TensorDataType.FLOAT32)
    backwards = dml.graph.slice(gx, (0, 0, 0, 0), (1, 4, 4, 6), (1, 1, -1, 2))
    first, rest = dml.graph.split(gx, 1, (1, 3))
    joined = dml.graph.join([first + first, rest], 1)
    padded = dml.graph.padding(joined, "REFLECTION", 0, (0, 0, 1, 1), (0, 0, 2, 0))
    tiled = dml.graph.tile(backwards, (2, 1, 1, 1))
    spread = dml.graph.depth_to_space(gx, 2, "COLUMN_ROW_DEPTH")
    back = dml.graph.space_to_depth(spread, 2, "COLUMN_ROW_DEPTH")
    constant = dml.graph.padding(gx, "CONSTANT", -1.5, (0, 1, 0, 0), (0, 0, 0, 1))
    assert (backwards.sizes, first.sizes, rest.sizes, tiled.sizes, spread.sizes) == (
        (1, 4, 4, 3), (1, 1, 4, 6), (1, 3, 4, 6), (2, 4, 4, 3), (1, 1, 8, 12),
    )  # fmt: skip
    got = g.compile([tiled, padded, back, constant])(x)
    joined_reference = np.concatenate([x[:, :1] * 2, x[:, 1:]], axis=1)
    expected = [
        np.tile(x[:, :, ::-1, ::2], (2, 1, 1, 1)),
        np.pad(joined_reference, ((0, 0), (0, 0), (1, 2), (1, 0)), "reflect"),
        x,
        np.pad(x, ((0, 0), (1, 0), (0, 0), (0, 1)), constant_values=-1.5),
    ]
    for result, reference in zip(got, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(result), reference)


def test_a_split_part_is_an_output_of_its_own() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input((6, 2), dml.TensorDataType.INT32)
    parts = dml.graph.split(x, 0, (1, 2, 3))
    desc = g.desc_for([parts[2], parts[0]])
    assert [edge.desc.from_node_output_index for edge in desc.output_edges] == [2, 0]
    assert [part.sizes for part in parts] == [(1, 2), (2, 2), (3, 2)]


def test_the_builders_refuse_what_the_operators_refuse() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input((2, 3), dml.TensorDataType.INT8)
    with pytest.raises(dml.InvalidArgumentError, match="padding_value"):
        dml.graph.padding(x, "CONSTANT", 300, (0, 1), (0, 1))
    with pytest.raises(dml.InvalidArgumentError, match="InputWindowStrides\\[1\\] is 0"):
        dml.graph.slice(x, (0, 0), (2, 3), (1, 0))
    with pytest.raises(dml.InvalidArgumentError, match="inputs"):
        dml.graph.join([], 0)
