"""dml.graph.resample, upsample_2d and value_scale_2d (DirectMLX's dml::Resample, Upsample2D and ValueScale2D):
the nodes they add, their outputs' Sizes, DirectMLX's defaults (Scales output / input, pixel centres) and their
results against the NumPy reference of cases.py; arguments that are not what they must be refused naming them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.resample.cases import T, check_linear, resample_reference, values


def test_resample_defaults_to_directmlx_scales_and_pixel_centres(device: Any) -> None:
    x = values(T.FLOAT32, (1, 2, 3, 4), 1)
    g = dml.Graph(device)
    y = dml.graph.resample(g.input(x.shape, T.FLOAT32), (1, 2, 6, 2), "LINEAR")
    assert y.sizes == (1, 2, 6, 2)
    exact, bound = resample_reference(x, (1, 2, 6, 2), (1, 1, 2, 0.5), (0.5,) * 4, (-0.5,) * 4, linear=True)
    check_linear(np.asarray(g.compile([y])(x)), exact, bound, T.FLOAT32)


def test_resample_takes_every_field(device: Any) -> None:
    x = values(T.UINT8, (5, 3), 2)
    g = dml.Graph(device)
    fields = {"scales": (1.5, 2.0), "input_pixel_offsets": (0.0, 0.5), "output_pixel_offsets": (0.0, -0.5)}
    y = dml.graph.resample(g.input(x.shape, T.UINT8), (7, 6), "NEAREST_NEIGHBOR", "INCREASING", **fields)
    exact, _ = resample_reference(x, (7, 6), (1.5, 2.0), (0.0, 0.5), (0.0, -0.5), linear=False, rounding="up")
    assert np.array_equal(np.asarray(g.compile([y])(x)), exact)


def test_upsample_2d_and_value_scale_2d(device: Any) -> None:
    x = values(T.FLOAT32, (1, 3, 2, 3), 3)
    g = dml.Graph(device)
    up = dml.graph.upsample_2d(g.input(x.shape, T.FLOAT32), (2, 3), "NEAREST_NEIGHBOR")
    assert up.sizes == (1, 3, 6, 6)
    y = dml.graph.value_scale_2d(up, 0.5, (1.0, 2.0, 3.0))
    expected = np.repeat(np.repeat(x, 3, axis=2), 2, axis=3) * np.float32(0.5)
    expected = expected + np.array([1, 2, 3], dtype=np.float32).reshape(1, 3, 1, 1)
    assert np.array_equal(np.asarray(g.compile([y])(x)), expected)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda x: dml.graph.resample(x, (2, 2), "LINEAR"), "output_sizes"),
        (lambda x: dml.graph.resample(x, (1, 2, 2), "LINEAR", scales=(1.0,)), "scales"),
        (lambda x: dml.graph.resample(x, (1, 2, 2), "CUBIC"), "InterpolationMode"),
        (lambda x: dml.graph.upsample_2d(x, 2, "LINEAR"), "scale_size"),
        (lambda x: dml.graph.value_scale_2d(x, 1.0, 2.0), "bias"),
    ],
)
def test_arguments_refused_naming_them(call: Any, words: str) -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    with pytest.raises(dml.InvalidArgumentError, match=words):
        call(g.input((1, 2, 2), T.FLOAT32))
