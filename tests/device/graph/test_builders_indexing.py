"""The indexing builder functions (DirectMLX's dml::Gather, GatherElements, GatherND, ScatterElements, ScatterND,
OneHot and ReverseSubsequences; ``nonzero_coordinates``): one compiled graph of all eight against NumPy, bit for
bit (elements only move), outputs shaped by the operators' rules (ONE_HOT's depth and NONZERO_COORDINATES' row
length the caller's), and the refusals naming the argument or field."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml

T = dml.TensorDataType
SHAPE = (1, 2, 3, 4)


@pytest.mark.one_profile
def test_a_graph_of_every_indexing_builder_matches_numpy(device: Any) -> None:
    x = np.random.default_rng(9).standard_normal(SHAPE).astype(np.float32)
    x[0, 1, 2, 1:3] = [0.0, -0.0]  # zeros for NONZERO_COORDINATES (-0.0 is zero too)
    taken = np.array([-1, 2], np.int32).reshape(1, 1, 1, 2)  # -1 from the end, as ONNX's Gather
    along = np.array([[3, 0], [1, 2], [0, 1]] * 2, np.int64).reshape(1, 2, 3, 2)  # distinct within each row
    tuples = np.array([[1, 2], [0, 0]], np.uint32).reshape(1, 1, 2, 2)  # (C, H) pairs of x's last 3 dimensions
    updates = np.arange(12, dtype=np.float32).reshape(1, 2, 3, 2) + 100
    rows = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 4) - 50
    hot = np.array([1, -1, 7], np.int32).reshape(1, 1, 3, 1)  # -1 the last position; 7 out of range: all off
    off_on = np.array([0.5, 9.0], np.float32).reshape(1, 1, 1, 2)
    lengths = np.array([0, 1, 4, 2, 3, 4], np.uint32).reshape(1, 2, 3, 1)

    g = dml.Graph(device)
    gx, g_taken, g_along, g_tuples, g_updates, g_rows, g_hot, g_off_on, g_lengths = (
        g.input(a.shape, a.dtype) for a in (x, taken, along, tuples, updates, rows, hot, off_on, lengths)
    )
    outputs = [
        dml.graph.gather(gx, g_taken, 3, 1),
        dml.graph.gather_elements(gx, g_along, 3),
        dml.graph.gather_nd(gx, g_tuples, 3, 2, 0),
        dml.graph.scatter_elements(gx, g_along, g_updates, 3),
        dml.graph.scatter_nd(gx, g_tuples, g_rows, 3, 2),
        dml.graph.one_hot(g_hot, g_off_on, 5, 3),
        dml.graph.reverse_subsequences(gx, g_lengths, 3),
        *dml.graph.nonzero_coordinates(gx),
    ]
    assert [o.sizes for o in outputs] == [
        (1, 2, 3, 2), (1, 2, 3, 2), (1, 1, 2, 4), SHAPE, SHAPE, (1, 1, 3, 5), SHAPE, (1, 1, 1, 1), (1, 1, 24, 4),
    ]  # fmt: skip
    got = [np.asarray(a) for a in g.compile(outputs)(x, taken, along, tuples, updates, rows, hot, off_on, lengths)]

    x3 = x.reshape(2, 3, 4)
    scattered = x.copy()
    np.put_along_axis(scattered, along, updates, axis=3)
    placed = x3.copy()
    placed[tuples[0, 0, :, 0], tuples[0, 0, :, 1]] = rows.reshape(2, 4)
    reversed_ = x.copy()
    for c in range(2):
        for h in range(3):
            n = lengths[0, c, h, 0]
            reversed_[0, c, h, :n] = x[0, c, h, :n][::-1]
    depth = np.arange(5)
    one_hot = np.where(depth == np.where(hot < 0, hot + 5, hot), off_on[..., 1], off_on[..., 0])
    expected = [
        np.take(x, taken.reshape(-1), axis=3),
        np.take_along_axis(x, along, axis=3),
        x3[tuples[0, 0, :, 0], tuples[0, 0, :, 1]].reshape(1, 1, 2, 4),
        scattered,
        placed.reshape(SHAPE),
        one_hot.astype(np.float32),
        reversed_,
    ]
    for k, (result, reference) in enumerate(zip(got, expected, strict=False)):
        assert result.dtype == reference.dtype, k
        np.testing.assert_array_equal(result.view(np.uint32), reference.view(np.uint32), err_msg=str(k))
    coordinates = np.argwhere(x != 0)
    assert got[7].dtype == np.uint32 and int(got[7].item()) == len(coordinates) == 22
    np.testing.assert_array_equal(got[8].reshape(24, 4)[: len(coordinates)], coordinates)


def test_the_indexing_builders_refuse_bad_arguments_naming_them() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(SHAPE, T.FLOAT32)
    indices = g.input((1, 1, 1, 2), T.INT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.gather: indices is "):
        dml.graph.gather(x, np.zeros((1, 1, 1, 2), np.int32), 3, 1)  # type: ignore[arg-type]
    with pytest.raises(dml.DmlError, match=r"GATHER\.Axis"):
        dml.graph.gather(x, indices, 4, 1)
    with pytest.raises(dml.DmlError, match=r"GATHER_ELEMENTS\.IndicesTensor\.DataType"):
        dml.graph.gather_elements(x, g.input(SHAPE, T.FLOAT32), 3)
    with pytest.raises(dml.DmlError, match=r"GATHER_ND1\.BatchDimensionCount"):
        dml.graph.gather_nd(x, indices, 3, 2, 3)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.scatter_elements: updates is "):
        dml.graph.scatter_elements(x, indices, None, 3)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.one_hot: output_length is 0; "):
        dml.graph.one_hot(indices, g.input((1, 1, 1, 2), T.FLOAT32), 0, 3)
    with pytest.raises(dml.DmlError, match=r"REVERSE_SUBSEQUENCES\.SequenceLengthsTensor"):
        dml.graph.reverse_subsequences(x, g.input((1, 2, 3, 4), T.UINT32), 3)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.nonzero_coordinates: coordinate_length is 0"):
        dml.graph.nonzero_coordinates(x, 0)
    # N from x's effective rank (3: {1, 2, 3, 4} less its leading 1) to its DimensionCount.
    assert dml.graph.nonzero_coordinates(x, 3)[1].sizes == (1, 1, 24, 3)
    with pytest.raises(dml.InvalidArgumentError, match=r"NONZERO_COORDINATES\.OutputCoordinatesTensor\.Sizes"):
        dml.graph.nonzero_coordinates(x, 2)
