"""Views in graphs (dmlpy/graph/views.py, dmlpy/graph/reinterpretation.py): a SLICE window or a plain
Identity copy that its readers read through strides costs no kernel; an edge read through other Sizes or
Strides (dml.graph.reinterpret, transpose) reads the producer's buffer that way. Every result against NumPy, and
against the same graph with every node its own kernel (fuse=False), bit for bit."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.enums import TensorDataType as T
from tests.helpers.object_model import run_graph as run

RNG = np.random.default_rng(44)


def _both(device: Any, desc: dml.GraphDesc, arrays: list[np.ndarray[Any, Any]]) -> tuple[list[Any], Any]:
    """The outputs fused, checked bit for bit against every node alone, and the fused compiled graph."""
    fused, compiled = run(device, desc, arrays)
    alone, _ = run(device, desc, arrays, fuse=False)
    for got, wanted in zip(fused, alone, strict=True):
        assert got.tobytes() == wanted.tobytes()
    return fused, compiled


def _elided(compiled: Any) -> set[int]:
    """The operator nodes no kernel of the compiled graph runs."""
    launched = {node for step in compiled.plan.steps for node in step.nodes}
    return set(range(len(compiled.graph.nodes))) - launched


def test_a_slice_read_by_an_element_wise_node_costs_no_kernel(device: Any) -> None:
    g = dml.Graph(device)
    x, y = g.input((5, 7), np.float32), g.input((2, 3), np.float32)
    z = dml.graph.slice(x, [1, 2], [3, 5], [2, 2]) * y
    a, b = RNG.standard_normal((5, 7), np.float32), RNG.standard_normal((2, 3), np.float32)
    (got,), compiled = _both(device, g.desc_for([z]), [a, b])
    assert compiled.kernel_count == 1 and _elided(compiled) == {0}
    assert got.tobytes() == (a[1:4:2, 2:7:2] * b).tobytes()


def test_a_slice_of_a_slice_composes_and_feeds_a_reduction(device: Any) -> None:
    """Two windows, one read: the reduction (not element-wise) reads x through the composed strides."""
    g = dml.Graph(device)
    x = g.input((6, 8, 4), np.float32)
    inner = dml.graph.slice(x, [1, 0, 1], [5, 8, 3], [1, 3, 1])  # (5, 3, 3)
    outer = dml.graph.slice(inner, [2, 1, 0], [3, 2, 3], [2, 1, 2])  # (2, 2, 2)
    total = dml.graph.reduce(outer, "SUM", [2])
    a = RNG.integers(-8, 8, (6, 8, 4)).astype(np.float32)  # small integers: every sum exact
    (got,), compiled = _both(device, g.desc_for([total]), [a])
    assert compiled.kernel_count == 1 and _elided(compiled) == {0, 1}
    np.testing.assert_array_equal(got, a[1:6, 0:8:3, 1:4][2:5:2, 1:3, 0:3:2].sum(axis=2, keepdims=True))


def test_a_join_of_windows_reads_each_window_in_place(device: Any) -> None:
    """YOLOv5's Focus: four strided windows of one image joined along the channels, JOIN reading each window
    through the input's strides (its entries re-described), no copy per window."""
    g = dml.Graph(device)
    x = g.input((1, 3, 6, 8), np.float16)
    parts = [dml.graph.slice(x, [0, 0, r, c], [1, 3, 5, 7], [1, 1, 2, 2]) for r, c in ((0, 0), (1, 0), (0, 1), (1, 1))]
    z = dml.graph.join(parts, 1)
    a = RNG.standard_normal((1, 3, 6, 8)).astype(np.float16)
    (got,), compiled = _both(device, g.desc_for([z]), [a])
    assert _elided(compiled) == {0, 1, 2, 3}
    wanted = np.concatenate([a[..., ::2, ::2], a[..., 1::2, ::2], a[..., ::2, 1::2], a[..., 1::2, 1::2]], axis=1)
    assert got.tobytes() == wanted.tobytes()


def test_a_slice_that_is_a_graph_output_runs(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input((4, 4), np.int32)
    window = dml.graph.slice(x, [1, 1], [2, 3], [1, 1])
    twice = window + window
    a = RNG.integers(-100, 100, (4, 4)).astype(np.int32)
    (sliced, doubled), compiled = _both(device, g.desc_for([window, twice]), [a])
    assert compiled.kernel_count == 2 and not _elided(compiled)
    np.testing.assert_array_equal(sliced, a[1:3, 1:4])
    np.testing.assert_array_equal(doubled, 2 * a[1:3, 1:4])


def test_a_reversed_slice_runs_its_own_kernel(device: Any) -> None:
    """A negative step is movement.cl's, no strided view: it stays a kernel."""
    g = dml.Graph(device)
    x = g.input((3, 5), np.float32)
    z = dml.graph.abs(dml.graph.slice(x, [0, 0], [3, 5], [1, -1]))
    a = RNG.standard_normal((3, 5), np.float32)
    (got,), compiled = _both(device, g.desc_for([z]), [a])
    assert compiled.kernel_count == 2
    np.testing.assert_array_equal(got, np.abs(a[:, ::-1]))


@pytest.mark.parametrize("data_type", [np.float32, np.float16, np.uint8])
def test_a_transposed_computed_value_is_read_through_strides(device: Any, data_type: Any) -> None:
    """ONNX's Transpose as onnxruntime lowers it: Identity reading its input through permuted strides. Read by
    an element-wise node, the Identity costs no kernel; the value it reads is stored (another work-item's)."""
    g = dml.Graph(device)
    x, y = g.input((3, 4, 5), data_type), g.input((5, 3, 4), data_type)
    doubled = x + x
    z = dml.graph.identity(dml.graph.transpose(doubled, [2, 0, 1])) + y
    a = RNG.integers(0, 50, (3, 4, 5)).astype(data_type)
    b = RNG.integers(0, 50, (5, 3, 4)).astype(data_type)
    (got,), compiled = _both(device, g.desc_for([z]), [a, b])
    assert compiled.kernel_count == 2 and _elided(compiled) == {1}
    assert got.tobytes() == ((a + a).transpose(2, 0, 1) + b).astype(data_type).tobytes()


def test_a_transposed_graph_output_is_written_by_its_identity(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input((2, 3), np.float16)
    t = dml.graph.transpose(dml.graph.negate(x), [1, 0])
    with pytest.raises(dml.DmlError, match=r"outputs\[0\] is .* read another way .* dml.graph.identity"):
        g.desc_for([t])
    a = np.array([[1, np.nan, -0.0], [np.inf, 65504, 2**-24]], np.float16)
    (got,), compiled = _both(device, g.desc_for([dml.graph.identity(t)]), [a])
    assert compiled.kernel_count == 2
    assert got.tobytes() == (-a).T.copy().tobytes()


def test_a_reshaped_value_keeps_its_bytes(device: Any) -> None:
    """A reshape is other Sizes over the same packed bytes: the reader keeps its own kernel, reading them."""
    g = dml.Graph(device)
    x = g.input((2, 6), np.float32)
    squared = x * x
    z = dml.graph.reduce(dml.graph.reinterpret(squared, [3, 4]), "MAX", [1])
    a = RNG.standard_normal((2, 6), np.float32)
    (got,), _ = _both(device, g.desc_for([z]), [a])
    np.testing.assert_array_equal(got, (a * a).reshape(3, 4).max(axis=1, keepdims=True))


def test_a_broadcast_view_of_a_computed_value(device: Any) -> None:
    """0 Strides over a computed row: onnxruntime's Expand, Identity reading a broadcast."""
    g = dml.Graph(device)
    row, grid = g.input((1, 4), np.int16), g.input((3, 4), np.int16)
    negated = -row
    z = dml.graph.identity(dml.graph.reinterpret(negated, [3, 4], [0, 1])) + grid
    a = RNG.integers(-99, 99, (1, 4)).astype(np.int16)
    b = RNG.integers(-99, 99, (3, 4)).astype(np.int16)
    (got,), compiled = _both(device, g.desc_for([z]), [a, b])
    assert _elided(compiled) == {1}
    np.testing.assert_array_equal(got, -a + b)


def test_a_reinterpretation_must_stay_in_the_buffer() -> None:
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = dml.graph.negate(g.input((2, 3), np.float32))
    with pytest.raises(dml.DmlError, match=r"Strides None over x .* spans 48 bytes; x.s buffer holds 24"):
        dml.graph.reinterpret(x, [4, 3])
    with pytest.raises(dml.DmlError, match=r"permutation is \[0, 0\]; it must hold each of 0 to 1 once"):
        dml.graph.transpose(x, [0, 0])
    assert dml.graph.reinterpret(x, [3, 2]).desc.data_type == T.FLOAT32
