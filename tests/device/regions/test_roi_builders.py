"""dml.graph.roi_pooling and dml.graph.roi_align: the nodes they add run as the descriptors do (cases.py's references),
their defaults are ROI_ALIGN's pixel centres with ONNX's adaptive sampling, and a wrong argument is refused naming
the function, the argument and the rule."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.regions.cases import ALIGN_BOUND, Align, T, align_reference, image, pooling_reference, regions


def test_roi_align_defaults_and_fields(device: Any) -> None:
    x = image(T.FLOAT32, (2, 3, 6, 7), 1)
    rois = regions(5, 6, 7, 1).astype(np.float32)
    batches = np.array([0, 1, 1, 0, 1], np.uint64)
    g = dml.Graph(device)
    gx, grois, gbatches = g.input(x.shape, T.FLOAT32), g.input(rois.shape, T.FLOAT32), g.input((5,), T.UINT64)
    default = dml.graph.roi_align(gx, grois, gbatches, output_height=3, output_width=2)
    chosen = dml.graph.roi_align(
        gx, grois, gbatches, "MAX", "NEAREST_NEIGHBOR", 0.5, 2.0, 0.0, 0.0, 1.5, 2, 3, True, output_height=2,
        output_width=4,
    )  # fmt: skip
    assert default.desc.sizes == (5, 3, 3, 2) and chosen.desc.sizes == (5, 3, 2, 4)
    got_default, got_chosen = (np.asarray(y) for y in g.compile([default, chosen])(x, rois, batches))
    fields = Align(
        reduction="MAX", interpolation="NEAREST_NEIGHBOR", scale_x=0.5, scale_y=2.0, input_offset=0.0,
        output_offset=0.0, outside=1.5, minimum=2, maximum=3, corners=True,
    )  # fmt: skip
    for got, align, hw in ((got_default, Align(), (3, 2)), (got_chosen, fields, (2, 4))):
        expected = align_reference(x, rois, batches.tolist(), hw, align)
        assert np.all(np.abs(got - expected) <= ALIGN_BOUND * 4), align


def test_roi_pooling_takes_height_width_or_a_size_2d(device: Any) -> None:
    x = image(T.FLOAT16, (1, 2, 5, 6), 2)
    corners = regions(3, 5, 6, 2)
    rois = np.concatenate([np.zeros((3, 1)), corners], 1).astype(np.float16).reshape(1, 1, 3, 5)
    g = dml.Graph(device)
    gx, grois = g.input(x.shape, T.FLOAT16), g.input(rois.shape, T.FLOAT16)
    by_pair = dml.graph.roi_pooling(gx, grois, 1.0, (2, 3))
    by_size = dml.graph.roi_pooling(gx, grois, 1.0, dml.Size2D(Width=3, Height=2))
    first, second = (np.asarray(y) for y in g.compile([by_pair, by_size])(x, rois))
    expected = pooling_reference(x, rois.reshape(3, 5), (2, 3), 1.0)
    np.testing.assert_array_equal(first, expected)
    np.testing.assert_array_equal(second, expected)


def test_wrong_arguments_are_refused_naming_them(device: Any) -> None:
    g = dml.Graph(device)
    gx, grois, gbatches = g.input((1, 1, 4, 4), T.FLOAT32), g.input((2, 4), T.FLOAT32), g.input((2,), T.UINT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.roi_align.*output_width.*at least 1"):
        dml.graph.roi_align(gx, grois, gbatches, output_width=0)
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.roi_align: reduction_function"):
        dml.graph.roi_align(gx, grois, gbatches, reduction_function="MEDIAN")
    with pytest.raises(dml.InvalidArgumentError, match=r"ReductionFunction is DML_REDUCE_FUNCTION_SUM"):
        dml.graph.roi_align(gx, grois, gbatches, reduction_function="SUM")
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.roi_pooling.*pooled_size.*\(height, width\)"):
        dml.graph.roi_pooling(gx, g.input((1, 1, 2, 5), T.FLOAT32), 1.0, "2x2")
