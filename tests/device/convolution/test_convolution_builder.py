"""The convolutions' builder functions (dmlpy/graph/convolution.py, DirectMLX's dml::Convolution, convolution_integer,
quantized_linear_convolution): DirectMLX's defaults, the output's Sizes from the window rule, output_sizes checked
against it, refusals naming the argument, and a compiled graph of convolutions between element-wise nodes against
cases.py's NumPy reference (floats within its bound, the integer ones exactly)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.convolution.cases import RELU, Shape, integer_case, past_bound, reference
from tests.device.matrix.cases import gamma, values

T = dml.TensorDataType


def test_directmlx_defaults_and_the_window_rule() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)  # no device: the builder checks before anything compiles
    x, w = g.input((1, 4, 7, 6), T.FLOAT32), g.input((6, 2, 3, 3), T.FLOAT32)
    plain = dml.graph.convolution(x, g.input((6, 4, 3, 3), T.FLOAT32))
    (node,) = g.desc_for([plain], drop_unread_inputs=True).nodes
    op = node.desc.op
    assert isinstance(op, dml.ConvolutionOperatorDesc) and op.bias_tensor is None
    modes = (dml.ConvolutionMode.CROSS_CORRELATION, dml.ConvolutionDirection.FORWARD)
    assert (op.mode, op.direction, op.group_count, op.fused_activation) == (*modes, 1, None)
    assert (op.strides, op.dilations, op.start_padding, op.end_padding, op.output_padding) == (
        (1, 1), (1, 1), (0, 0), (0, 0), (0, 0),
    )  # fmt: skip
    assert plain.sizes == (1, 6, 5, 4)
    grouped = dml.graph.convolution(x, w, strides=[2, 1], start_padding=[1, 1], end_padding=[1, 0], group_count=2)
    assert grouped.sizes == (1, 6, 4, 5)
    w_back = g.input((4, 3, 3, 3), T.FLOAT32)  # {InputChannelCount, OutputChannelCount / GroupCount, ..}
    transposed = dml.graph.convolution(
        x, w_back, direction="BACKWARD", strides=[2, 2], output_padding=[1, 0], group_count=2
    )
    assert transposed.sizes == (1, 6, 16, 13)  # (7 - 1) * 2 + 3 + 1, (6 - 1) * 2 + 3: OutputChannelCount 3 * 2
    given = dml.graph.convolution(x, w, group_count=2, output_sizes=[1, 6, 5, 4])
    assert given.sizes == (1, 6, 5, 4)
    with pytest.raises(dml.InvalidArgumentError, match="OutputTensor"):
        dml.graph.convolution(x, w, group_count=2, output_sizes=[1, 6, 5, 5])
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.convolution: mode"):
        dml.graph.convolution(x, w, mode="SIDEWAYS")
    with pytest.raises(dml.InvalidArgumentError, match=r"^dml\.graph\.convolution: strides"):
        dml.graph.convolution(x, w, strides=2)  # type: ignore[arg-type]
    with pytest.raises(dml.InvalidArgumentError, match=r"dml\.graph\.convolution_integer.*filter"):
        dml.graph.convolution_integer(g.input((1, 4, 5), T.UINT8), None, np.zeros((2, 4, 3)))


def test_a_graph_of_convolutions_between_element_wise_nodes(device: Any) -> None:
    """relu(convolution(|x|, w, bias)) then its transposed convolution, plus 1: against the float64 reference, each
    convolution within cases.py's bound (gamma(K + 1) times the magnitudes), the second's carried through."""
    x, w, b = values(T.FLOAT32, (2, 4, 6, 5), 1), values(T.FLOAT32, (6, 2, 3, 3), 2), values(T.FLOAT32, (1, 6, 1, 1), 3)
    back = values(T.FLOAT32, (6, 2, 2, 2), 4)
    g = dml.Graph(device)
    gx, gw, gb, gback = (g.input(a.shape, T.FLOAT32) for a in (x, w, b, back))
    first = dml.graph.convolution(dml.graph.abs(gx), gw, gb, strides=[1, 2], start_padding=[1, 1], end_padding=[1, 1],
                                  group_count=2, fused_activation=RELU)  # fmt: skip
    second = dml.graph.convolution(first, gback, None, "CROSS_CORRELATION", "BACKWARD", strides=[2, 2])
    out = dml.graph.add(second, 1.0)
    got = np.asarray(g.compile([out])(x, w, b, back))
    ax, w64, back64 = np.abs(x.astype(np.float64)), w.astype(np.float64), back.astype(np.float64)
    shape1 = Shape(x.shape, (3, 3), 6, strides=(1, 2), start=(1, 1), end=(1, 1), groups=2)
    exact1 = np.maximum(reference(shape1, ax, w64) + b, 0)
    bound1 = gamma(2 * 9 + 1) * (reference(shape1, ax, np.abs(w64)) + np.abs(b))
    shape2 = Shape(exact1.shape, (2, 2), 2, strides=(2, 2), backward=True)
    exact = reference(shape2, exact1, back64) + 1
    # The first's error carried through the second (|w| times it), then the second's own and the add's rounding.
    carried = reference(shape2, bound1, np.abs(back64))
    own = gamma(6 * 4 + 1) * reference(shape2, exact1 + bound1, np.abs(back64))
    allowed = carried + own + gamma(1) * (np.abs(exact) + carried + own)
    assert got.shape == exact.shape == (2, 2, 12, 6)
    assert not past_bound(got, exact, allowed).size


def test_the_integer_convolutions_in_a_graph(device: Any) -> None:
    """convolution_integer and quantized_linear_convolution against cases.py's exact reference (the same inputs as
    integer_case's operator tests), the quantized one with the output zero point's type."""
    shape = Shape((1, 4, 5, 6), (3, 3), 4, strides=(1, 2), start=(1, 1), end=(2, 0), groups=2)
    summed = integer_case("CONVOLUTION_INTEGER", T.UINT8, T.INT8, shape)
    quantized = integer_case("QUANTIZED_LINEAR_CONVOLUTION", T.UINT8, T.INT8, shape, output_type=T.INT8)
    g = dml.Graph(device)
    order = (
        "input_tensor", "input_scale_tensor", "input_zero_point_tensor", "filter_tensor", "filter_scale_tensor",
        "filter_zero_point_tensor", "bias_tensor", "output_scale_tensor", "output_zero_point_tensor",
    )  # fmt: skip
    arrays = quantized.inputs
    assert all(np.array_equal(summed.inputs[k], arrays[k]) for k in summed.inputs)
    inputs = {k: g.input(arrays[k].shape, getattr(quantized.desc, k).desc.data_type) for k in order}
    window = {"strides": [1, 2], "start_padding": [1, 1], "end_padding": [2, 0], "group_count": 2}
    got_sum = dml.graph.convolution_integer(
        inputs["input_tensor"], inputs["input_zero_point_tensor"], inputs["filter_tensor"],
        inputs["filter_zero_point_tensor"], **window,
    )  # fmt: skip
    got_q = dml.graph.quantized_linear_convolution(*(inputs[k] for k in order), **window)
    assert (got_sum.data_type, got_q.data_type) == (T.INT32, T.INT8)
    results = g.compile([got_sum, got_q])(*(arrays[k] for k in order))
    assert np.array_equal(np.asarray(results[0]), summed.expected)
    assert np.array_equal(np.asarray(results[1]), quantized.expected)
