"""Groups anchored by a reduction or a normalization (dmlpy/graph/anchored.py): element-wise nodes before a REDUCE,
ARGMAX or MEAN_VARIANCE_NORMALIZATION computed on each element as it is loaded, and those after it applied to each
result before it is stored, in the anchor's one kernel. Every graph fused is bit for bit the graph one node at a
time (``fuse=False``), and within the operators' stated bounds of NumPy in float64 (docs/operators/reduction.md,
normalization.md), with the kernels counted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.object_model import run_graph as run

T = dml.TensorDataType
U = 2.0**-24
RNG = np.random.default_rng(44)


def _both(device: Any, desc: dml.GraphDesc, arrays: list[Any], kernels: int) -> list[Any]:
    """The outputs fused, in ``kernels`` kernels, checked bit for bit against every node alone."""
    fused, compiled = run(device, desc, arrays)
    alone, separate = run(device, desc, arrays, fuse=False)
    assert compiled.kernel_count == kernels < separate.kernel_count
    for got, wanted in zip(fused, alone, strict=True):
        assert got.tobytes() == wanted.tobytes()
    return fused


def _sum_bound(terms: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """reduce.cl's compensated sum's bound, 2u|S| + 2nu^2 sum|t|, over ``axis``, of float64 ``terms``."""
    n = terms.shape[axis]
    return 2 * U * np.abs(terms.sum(axis, keepdims=True)) + 2 * n * U * U * np.abs(terms).sum(axis, keepdims=True)


# (input shape, axis, transposed): the axis innermost (reduce.cl's LANES_WALK), outer (BANDS_WALK), and the input
# read through a transpose's strides (the walk one element at a time)
LAYOUTS = {"inner": ((6, 40), 1, False), "outer": ((40, 24), 0, False), "transposed": ((9, 13), 1, True)}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_root_of_a_sum_of_squares_is_one_kernel(device: Any, layout: str) -> None:
    """sqrt(REDUCE SUM(x * y) + 1): the product computed as each element is read, the root before the store."""
    shape, axis, transposed = LAYOUTS[layout]
    g = dml.Graph(device)
    x, y = g.input(shape, np.float32), g.input(shape, np.float32)
    if transposed:
        x, y = dml.graph.transpose(x, [1, 0]), dml.graph.transpose(y, [1, 0])
    root = dml.graph.sqrt(dml.graph.reduce(x * y, "SUM", [axis]) + 1.0)
    a, b = RNG.uniform(0.5, 2, shape).astype(np.float32), RNG.uniform(0.5, 2, shape).astype(np.float32)
    (got,) = _both(device, g.desc_for([root]), [a, b], kernels=1)
    a64, b64 = (a.T, b.T) if transposed else (a, b)
    terms = (a64 * b64).astype(np.float64)  # each product is one float32 rounding, as the node stores it
    total = terms.sum(axis, keepdims=True)
    exact = np.sqrt(total + 1)
    bound = _sum_bound(terms, axis) / (2 * exact) + 2 * U * exact  # the sum's, through + 1 and the root
    assert np.all(np.abs(got - exact) <= bound)


@pytest.mark.one_profile
@pytest.mark.parametrize("function", ["AVERAGE", "MAX", "L2"])
def test_float16_edges_round_where_the_nodes_store(device: Any, function: str) -> None:
    """FLOAT16 x * x, REDUCE, + 1: each edge rounded to half where the nodes one by one store it."""
    g = dml.Graph(device)
    x = g.input((5, 64), np.float16)
    out = dml.graph.reduce(x * x, function, [1]) + np.float16(1)
    a = RNG.uniform(-3, 3, (5, 64)).astype(np.float16)
    (got,) = _both(device, g.desc_for([out]), [a], kernels=1)
    square = (a * a).astype(np.float64)  # half products, as the node stores them
    reduced = {"AVERAGE": square.mean(1), "MAX": square.max(1), "L2": np.sqrt((square**2).sum(1))}[function]
    exact = reduced.astype(np.float16).astype(np.float64) + 1  # the reduction's half result, then + 1
    assert np.all(np.abs(got.ravel().astype(np.float64) - exact) <= 2.0**-10 * np.abs(exact))


def test_a_cast_before_and_after_an_argmax_and_a_sum(device: Any) -> None:
    """REDUCE SUM of INT8 cast to FLOAT32, and ARGMAX's UINT32 index cast to FLOAT32: exact."""
    g = dml.Graph(device)
    x = g.input((7, 33), np.int8)
    total = dml.graph.reduce(dml.graph.cast(x, "FLOAT32"), "SUM", [1])
    index = dml.graph.cast(dml.graph.reduce(x, "ARGMAX", [1]), "FLOAT32")
    a = RNG.integers(-128, 128, (7, 33), dtype=np.int8)
    got_total, got_index = _both(device, g.desc_for([total, index]), [a], kernels=2)
    np.testing.assert_array_equal(got_total, a.astype(np.float32).sum(1, keepdims=True))
    np.testing.assert_array_equal(got_index, a.argmax(1).astype(np.float32).reshape(7, 1))


def test_an_integer_sum_keeps_its_output_and_feeds_its_epilogue(device: Any) -> None:
    """INT32 SUM of x + y, modulo 2^32, stored as a graph output and read by its epilogue (x 3)."""
    g = dml.Graph(device)
    x, y = g.input((4, 3, 10), np.int32), g.input((4, 3, 10), np.int32)
    total = dml.graph.reduce(x + y, "SUM", [0, 2])
    tripled = total * np.int32(3)
    a = RNG.integers(-(2**31), 2**31, (4, 3, 10), dtype=np.int64).astype(np.int32)
    b = RNG.integers(-(2**31), 2**31, (4, 3, 10), dtype=np.int64).astype(np.int32)
    got_total, got_tripled = _both(device, g.desc_for([total, tripled]), [a, b], kernels=1)
    wanted = (a + b).sum((0, 2), keepdims=True, dtype=np.int32)  # NumPy wraps int32 as ELEMENT_WISE_ADD does
    np.testing.assert_array_equal(got_total, wanted)
    np.testing.assert_array_equal(got_tripled, wanted * np.int32(3))


def test_a_layer_norm_of_a_residual_sum_then_an_activation(device: Any) -> None:
    """MEAN_VARIANCE_NORMALIZATION1 of x + r with a scale and a bias, then a ReLU and x 2: one kernel."""
    g = dml.Graph(device)
    x, r = g.input((3, 5, 48), np.float32), g.input((3, 5, 48), np.float32)
    scale = RNG.uniform(0.5, 2, (1, 1, 48)).astype(np.float32)
    bias = RNG.uniform(-1, 1, (1, 1, 48)).astype(np.float32)
    s_in, b_in = g.input((1, 1, 48), np.float32), g.input((1, 1, 48), np.float32)
    normed = dml.graph.mean_variance_normalization(x + r, s_in, b_in, [2], True, 1e-5)
    out = dml.graph.activation_relu(normed) * np.float32(2)
    a, b = RNG.standard_normal((3, 5, 48)).astype(np.float32), RNG.standard_normal((3, 5, 48)).astype(np.float32)
    (got,) = _both(device, g.desc_for([out]), [a, b, scale, bias], kernels=1)
    s = (a + b).astype(np.float64)
    center = s.mean(2, keepdims=True)
    sigma = np.sqrt(s.var(2, keepdims=True) + 1e-5)
    exact = scale * (s - center) / sigma + bias
    bound = 8 * U * (np.abs(scale) * (np.abs(s) + np.abs(center)) / sigma + np.abs(bias)) + 4 * U * np.abs(exact)
    assert np.all(np.abs(got - 2 * np.maximum(exact, 0)) <= 2 * bound)


def test_rms_norm_takes_its_square_and_root_into_the_mean(device: Any) -> None:
    """x / sqrt(mean(x * x) + eps): the square, the mean, + eps and the root in one kernel; the division, of x's
    Sizes, in the next."""
    g = dml.Graph(device)
    x = g.input((4, 64), np.float32)
    rms = dml.graph.sqrt(dml.graph.reduce(x * x, "AVERAGE", [1]) + np.float32(1e-6))
    out = x / dml.graph.reinterpret(rms, (4, 64), (1, 0))  # each row's root, repeated along it
    a = RNG.standard_normal((4, 64)).astype(np.float32)
    (got,) = _both(device, g.desc_for([out]), [a], kernels=2)
    square = (a * a).astype(np.float64)
    exact = a / np.sqrt(square.mean(1, keepdims=True) + 1e-6)
    assert np.all(np.abs(got - exact) <= 8 * U * np.abs(exact))


def test_a_value_read_elsewhere_stays_out_of_the_prologue(device: Any) -> None:
    """x * x is a graph output too: the reduction reads it stored, and only its epilogue joins it."""
    g = dml.Graph(device)
    x = g.input((6, 16), np.float32)
    square = x * x
    total = dml.graph.reduce(square, "SUM", [1]) * np.float32(0.5)
    a = RNG.integers(-8, 8, (6, 16)).astype(np.float32)  # every sum exact
    got_square, got_total = _both(device, g.desc_for([square, total]), [a], kernels=2)
    np.testing.assert_array_equal(got_square, a * a)
    np.testing.assert_array_equal(got_total, (a * a).sum(1, keepdims=True) * 0.5)


def test_the_fused_kernel_is_the_anchors_own(device: Any) -> None:
    """The group's one kernel is reduce.cl's, FUSED, the operators' statements in its prelude."""
    g = dml.Graph(device)
    x = g.input((2, 16), np.float32)
    out = dml.graph.reduce(dml.graph.abs(x), "MAX", [1]) + np.float32(1)
    compiled = device.compile_graph(g.desc_for([out]))
    (step,) = compiled.plan.steps
    spec = step.lowered.kernel
    assert spec.source_name == "reduce.cl" and ("FUSED", "1") in spec.defines
    assert "ELEMENT_WISE_ABS" in spec.prelude and "ELEMENT_WISE_ADD" in spec.prelude


def test_a_prologue_reading_a_per_row_scale_walks_one_element_at_a_time(device: Any) -> None:
    """REDUCE MAX(x * s), s one value a row (a constant read with 0-strides along the reduced axis): the vector
    walk needs every tensor the prologue reads to step by 1, so the group walks one element at a time, still one
    kernel, still the nodes' bits."""
    g = dml.Graph(device)
    x = g.input((6, 40), np.float32)
    scale = RNG.uniform(-2, 2, (6, 1)).astype(np.float32)
    out = dml.graph.reduce(x * scale, "MAX", [1])
    a = RNG.standard_normal((6, 40)).astype(np.float32)
    (got,) = _both(device, g.desc_for([out]), [a], kernels=1)
    np.testing.assert_array_equal(got, (a * scale).max(1, keepdims=True))  # MAX of the rounded products: exact
    (step,) = device.compile_graph(g.desc_for([out])).plan.steps
    assert ("WALK", "0") in step.lowered.kernel.defines


@pytest.mark.parametrize("p", [1, 2])
def test_an_lp_normalization_of_a_difference_then_a_scale(device: Any, p: int) -> None:
    """LP_NORMALIZATION (P 1 and 2) of x - y along axis 1, then x 0.5: one kernel; within 4u|exact| of the float64
    x / max(norm, Epsilon) on the float32 differences, then the exact halving."""
    g = dml.Graph(device)
    x, y = g.input((3, 33, 4), np.float32), g.input((3, 33, 4), np.float32)
    out = dml.graph.lp_normalization(x - y, 1, 1e-6, p) * np.float32(0.5)
    a, b = RNG.standard_normal((3, 33, 4)).astype(np.float32), RNG.standard_normal((3, 33, 4)).astype(np.float32)
    (got,) = _both(device, g.desc_for([out]), [a, b], kernels=1)
    d = (a - b).astype(np.float64)
    norm = np.abs(d).sum(1, keepdims=True) if p == 1 else np.sqrt((d * d).sum(1, keepdims=True))
    exact = d / np.maximum(norm, 1e-6) * 0.5
    assert np.all(np.abs(got - exact) <= 4 * U * np.abs(exact))


def test_a_mean_variance_normalization_without_scale_or_bias_takes_its_epilogue(device: Any) -> None:
    """MEAN_VARIANCE_NORMALIZATION1 without ScaleTensor and BiasTensor, its input a graph input, then a tanh."""
    g = dml.Graph(device)
    x = g.input((2, 4, 20), np.float32)
    out = dml.graph.tanh(dml.graph.mean_variance_normalization(x, None, None, [1, 2], True, 1e-5))
    a = RNG.standard_normal((2, 4, 20)).astype(np.float32)
    (got,) = _both(device, g.desc_for([out]), [a], kernels=1)
    s = a.astype(np.float64)
    exact = np.tanh((s - s.mean((1, 2), keepdims=True)) / np.sqrt(s.var((1, 2), keepdims=True) + 1e-5))
    assert np.all(
        np.abs(got - exact) <= 1e-6
    )  # the normalization's 8u(|x| + |center|)/sigma, through tanh's slope <= 1
