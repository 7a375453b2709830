"""A compiled graph called on NumPy masked arrays (``compiled(x, s)``, dmlpy/runtime/graph_calls.py), as the
one-liners take them: the graph runs on the data (under the mask too) and every output is a masked array whose
element is masked where an input element it reads is masked (element for element, through a 0-stride broadcast,
and over a blocked quantization tensor's block); a masked element that reaches an axis-reducing node, or a masked
array beside a pyopencl one, is refused before anything runs. Values against an independent NumPy reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyopencl.array as cl_array
import pytest

import dmlpy as dml
from tests.device.graph.test_graph_calls import fake_quantization, reference, values

T = dml.TensorDataType


def test_an_element_wise_graph_masks_what_a_masked_input_reaches(device: Any) -> None:
    g, q, y = fake_quantization(device)
    compiled = g.compile([q, y])
    data = values(np.random.default_rng(40))
    mask = np.zeros(data.shape, bool)
    mask[0, 0, 1, 2] = mask[0, 0, 3, 0] = True
    got_q, got_y = compiled(np.ma.MaskedArray(data, mask=mask), np.float32(0.5))
    want_q, want_y = reference(data, 0.5)  # the data under the mask runs too, as in the one-liners
    for got, want in ((got_q, want_q), (got_y, want_y)):
        assert isinstance(got, np.ma.MaskedArray)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), mask)
        np.testing.assert_array_equal(np.ma.getdata(got), want)
    # A masked scale of one value (broadcast by 0 Strides) is read by every element: all of them are masked.
    _, got_y = compiled(data, np.ma.MaskedArray(np.float32(0.5), mask=True))
    assert np.ma.getmaskarray(got_y).all()
    np.testing.assert_array_equal(np.ma.getdata(got_y), want_y)
    # A masked array without masked elements gives masked arrays with none masked.
    _, got_y = compiled(np.ma.MaskedArray(data), np.float32(0.5))
    assert isinstance(got_y, np.ma.MaskedArray) and not np.ma.getmaskarray(got_y).any()


def test_a_blocked_scale_masks_its_block(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 8)))
    s = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 2)))  # a scale per block of 4 columns
    compiled = g.compile([dml.graph.quantize(x, s, np.zeros((2, 2), np.int8))])
    data = np.linspace(-40, 40, 16, dtype=np.float32).reshape(2, 8)
    scale = np.array([[0.5, 1.0], [2.0, 4.0]], np.float32)
    got = compiled(data, np.ma.MaskedArray(scale, mask=[[False, True], [False, False]]))
    want_mask = np.zeros((2, 8), bool)
    want_mask[0, 4:] = True
    np.testing.assert_array_equal(np.ma.getmaskarray(got), want_mask)
    repeated = np.repeat(scale, 4, axis=1)
    np.testing.assert_array_equal(np.ma.getdata(got), np.clip(np.rint(data / repeated), -128, 127).astype(np.int8))


def test_masks_that_no_output_could_hold_are_refused(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 4)))
    b = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 4)))
    compiled = g.compile([dml.graph.activation_softmax1(x, axes=(1,)), dml.graph.round(b)])
    data = np.arange(8, dtype=np.float32).reshape(2, 4)
    masked = np.ma.MaskedArray(data, mask=np.eye(2, 4, dtype=bool))
    with pytest.raises(
        dml.InvalidArgumentError,
        match=r"^compiled graph of 2 operator nodes: argument 0 is a masked array whose masked elements reach "
        r"Nodes\[0\] \(ACTIVATION_SOFTMAX1\), which is not element-wise: each output element reads a whole group "
        r"along axes \(1\)",
    ):
        compiled(masked, data)
    # A masked argument that reaches only element-wise nodes is carried.
    softmax, rounded = compiled(data, masked)
    assert not np.ma.getmaskarray(softmax).any()
    np.testing.assert_array_equal(np.ma.getmaskarray(rounded), np.eye(2, 4, dtype=bool))
    with pytest.raises(dml.InvalidArgumentError, match="argument 1 is a masked array beside a pyopencl array"):
        compiled(cl_array.to_device(device.queue, data), masked)


def test_a_mask_through_a_transposed_read_is_refused(device: Any) -> None:
    """A mask has the Sizes a value was written with; a node reading the value transposed would need it moved."""
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 3)))
    y = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(3, 2)))
    compiled = g.compile([dml.graph.transpose(dml.graph.round(x), [1, 0]) + y])
    data = np.arange(6, dtype=np.float32)
    with pytest.raises(
        dml.InvalidArgumentError,
        match=r"argument 0 is a masked array whose masked elements reach Nodes\[1\] \(ELEMENT_WISE_ADD\), which "
        r"reads Nodes\[0\] \(ELEMENT_WISE_ROUND\)'s output through other Sizes or Strides",
    ):
        compiled(np.ma.MaskedArray(data.reshape(2, 3), mask=np.eye(2, 3, dtype=bool)), data.reshape(3, 2))
    summed = compiled(data.reshape(2, 3), np.ma.MaskedArray(data.reshape(3, 2), mask=np.eye(3, 2, dtype=bool)))
    np.testing.assert_array_equal(np.ma.getdata(summed), data.reshape(2, 3).T + data.reshape(3, 2))
    np.testing.assert_array_equal(np.ma.getmaskarray(summed), np.eye(3, 2, dtype=bool))


def test_a_batch_normalization_carries_the_mask_of_what_it_reads(device: Any) -> None:
    """BATCH_NORMALIZATION is pointwise (an output element reads x at its own coordinates and its channel's
    statistics): a masked x element masks its output element, a masked channel statistic the whole channel."""
    rng = np.random.default_rng(41)
    x = rng.standard_normal((1, 3, 2, 2)).astype(np.float32)
    mean, scale, bias = (rng.standard_normal((1, 3, 1, 1)).astype(np.float32) for _ in range(3))
    variance = np.abs(rng.standard_normal((1, 3, 1, 1))).astype(np.float32) + np.float32(0.5)
    g = dml.Graph(device)
    gx, gm, gv, gs, gb = (g.input(a.shape, T.FLOAT32) for a in (x, mean, variance, scale, bias))
    compiled = g.compile([dml.graph.round(dml.graph.batch_normalization(gx, gm, gv, gs, gb, True, 1e-3))])
    want = compiled(x, mean, variance, scale, bias)
    x_mask = np.zeros(x.shape, bool)
    x_mask[0, 1, 0, 1] = True
    got = compiled(np.ma.MaskedArray(x, mask=x_mask), mean, variance, scale, bias)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), x_mask)
    np.testing.assert_array_equal(np.ma.getdata(got), want)
    scale_mask = np.zeros(scale.shape, bool)
    scale_mask[0, 2] = True
    got = compiled(x, mean, variance, np.ma.MaskedArray(scale, mask=scale_mask), bias)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.broadcast_to(scale_mask, x.shape))
    np.testing.assert_array_equal(np.ma.getdata(got), want)
