"""The builder as easy as DirectMLX, run: ``dml.Graph()`` on the default device, ``g.input(sizes, dtype)``, and
Python's operators on expressions (the table's dml.graph.add, subtract, multiply, divide and negate, fused into one
kernel), against NumPy's float32 arithmetic step for step. tests/unit/graph/test_builder_conveniences.py checks
the nodes they build without a device."""

from __future__ import annotations

import numpy as np

import dmlpy as dml


def test_a_graph_on_the_default_device_from_python_s_operators() -> None:
    g = dml.Graph()
    assert g.device is dml.default_device()
    x = g.input((1, 1, 2, 3), np.float32)
    y = g.input((1, 1, 2, 3), "FLOAT32")
    compiled = g.compile([x * 2 + y, -(2 - x) / 4])
    assert compiled.kernel_count == 1
    a = np.array([[[[1.5, -2.0, 0.25], [3.0, -0.5, 7.0]]]], np.float32)
    b = np.array([[[[0.5, 4.0, -1.0], [2.0, 8.0, -3.5]]]], np.float32)
    got_sum, got_quotient = compiled(a, b)
    f = np.float32
    np.testing.assert_array_equal(got_sum, a * f(2) + b)
    np.testing.assert_array_equal(got_quotient, -(f(2) - a) / f(4))
