"""The builder functions of TOP_K1 (``top_k``: values and indices), the cumulative operators (DirectMLX's
dml::CumulativeSummation and CumulativeProduct, from the table) and the generators (DirectMLX's
dml::FillValueConstant and FillValueSequence, ``diagonal_matrix``): compiled graphs against NumPy, exact (small
integers as floats: every sum and product exact), nodes without inputs among them, and the refusals naming the
argument or field."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml

T = dml.TensorDataType
SHAPE = (1, 2, 3, 5)


@pytest.mark.one_profile
def test_top_k_and_the_cumulative_builders_match_numpy(device: Any) -> None:
    x = np.random.default_rng(4).integers(-3, 4, SHAPE).astype(np.float32)  # ties: listed by ascending index
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    largest, where_largest = dml.graph.top_k(gx, 3, 2)  # DECREASING by default, UINT32 indices
    smallest, where_smallest = dml.graph.top_k(gx, 3, 3, "INCREASING", "UINT64")
    suffix = dml.graph.cumulative_summation(gx, 3, "DECREASING", True)
    product = dml.graph.cumulative_product(gx, 2, dml.AxisDirection.INCREASING, False)
    outputs = [largest, where_largest, smallest, where_smallest, suffix, product]
    assert [(o.sizes, o.data_type) for o in outputs] == [
        ((1, 2, 3, 2), T.FLOAT32), ((1, 2, 3, 2), T.UINT32), ((1, 2, 3, 3), T.FLOAT32), ((1, 2, 3, 3), T.UINT64),
        (SHAPE, T.FLOAT32), (SHAPE, T.FLOAT32),
    ]  # fmt: skip
    got = [np.asarray(a) for a in g.compile(outputs)(x)]
    down, up = np.argsort(-x, axis=3, kind="stable")[..., :2], np.argsort(x, axis=3, kind="stable")[..., :3]
    exclusive_suffix = np.flip(np.cumsum(np.flip(x, 3), axis=3), 3) - x
    expected = [
        np.take_along_axis(x, down, 3), down.astype(np.uint32), np.take_along_axis(x, up, 3), up.astype(np.uint64),
        exclusive_suffix, np.cumprod(x, axis=2),
    ]  # fmt: skip
    for k, (result, reference) in enumerate(zip(got, expected, strict=True)):
        assert result.dtype == reference.dtype, k
        np.testing.assert_array_equal(result, reference, err_msg=str(k))


@pytest.mark.one_profile
def test_the_generator_builders_with_and_without_inputs_match_numpy(device: Any) -> None:
    x = np.random.default_rng(8).standard_normal((2, 3, 4)).astype(np.float32)
    g = dml.Graph(device)
    gx = g.input(x.shape, T.FLOAT32)
    banded = dml.graph.diagonal_matrix(gx, -0.0, 0, 2)  # x - y in [0, 2): -0.0, else x
    constant = dml.graph.fill_value_constant(g, (2, 3), "INT64", -(2**40))
    ramp = dml.graph.fill_value_sequence(g, (2, 3, 4), T.FLOAT32, 0.5, 0.25)
    eye = dml.graph.diagonal_matrix(g, 3, 1, -1, sizes=(3, 4), dtype="UINT8")  # begin above end: outside [-1, 1)
    mixed = gx * ramp + banded  # generators feeding element-wise nodes
    got = [np.asarray(a) for a in g.compile([banded, constant, eye, mixed])(x)]

    across = np.arange(4)[None, :] - np.arange(3)[:, None]
    on_band = (across >= 0) & (across < 2)
    banded_ref = np.where(on_band, np.float32(-0.0), x)
    np.testing.assert_array_equal(got[0].view(np.uint32), banded_ref.view(np.uint32))
    np.testing.assert_array_equal(got[1], np.full((2, 3), -(2**40), np.int64))
    np.testing.assert_array_equal(got[2], np.where((across < -1) | (across >= 1), 3, 0).astype(np.uint8))
    ramp_ref = (0.5 + 0.25 * np.arange(24)).astype(np.float32).reshape(2, 3, 4)  # exact in float32
    np.testing.assert_array_equal(got[3], x * ramp_ref + banded_ref)


def test_the_builders_refuse_bad_arguments_naming_them() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(SHAPE, T.FLOAT32)
    with pytest.raises(dml.DmlError, match=r"TOP_K1\.K"):
        dml.graph.top_k(x, 3, 6)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.top_k: axis_direction: 'SIDEWAYS' is not"):
        dml.graph.top_k(x, 3, 2, "SIDEWAYS")
    with pytest.raises(dml.InvalidArgumentError, match=r"TOP_K1\.OutputIndexTensor\.DataType is .*FLOAT32"):
        dml.graph.top_k(x, 3, 2, dtype=T.FLOAT32)
    with pytest.raises(dml.DmlError, match=r"CUMULATIVE_SUMMATION\.AxisDirection is \"SIDEWAYS\""):
        dml.graph.cumulative_summation(x, 3, "SIDEWAYS", False)  # type: ignore[arg-type]
    with pytest.raises(dml.DmlError, match=r"CUMULATIVE_PRODUCT\.Axis"):
        dml.graph.cumulative_product(x, 4, "INCREASING", False)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.fill_value_constant: graph is "):
        dml.graph.fill_value_constant(x, (2, 3), T.INT32, 1)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.fill_value_constant: value is 300; "):
        dml.graph.fill_value_constant(g, (2, 3), T.UINT8, 300)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.fill_value_sequence: value_delta is 0\.5; "):
        dml.graph.fill_value_sequence(g, (2, 3), T.INT32, 0, 0.5)
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.fill_value_sequence: sizes is 6; "):
        dml.graph.fill_value_sequence(g, 6, T.INT32, 0, 1)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.diagonal_matrix: sizes is \(3, 4\); "):
        dml.graph.diagonal_matrix(x, 1.0, 0, 1, sizes=(3, 4))
    with pytest.raises(dml.DmlError, match=r"DIAGONAL_MATRIX1\.OutputTensor"):
        dml.graph.diagonal_matrix(g, 1.0, 0, 1, sizes=(5,), dtype=T.FLOAT32)  # a matrix has 2 to 4 dimensions
