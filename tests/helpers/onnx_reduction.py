"""ONNX's reduction node tests (issue 44: ReduceSum, ..., ArgMax, ArgMin) that give the axes as a graph input: dmlpy
takes the axes from an initializer (REDUCE's Axes is a descriptor field, fixed when the graph is built), so the
runner (tests/device/graph/test_onnx_backend.py) checks they are refused saying so, and
tests/device/graph/test_onnx_reduction.py runs each again with its axes as an initializer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def axes_given_as_inputs(cases: Mapping[str, Any]) -> dict[str, str]:
    """The reduction node tests (names without ``test_``) whose axes are a graph input -> the word their refusal
    holds: "initializer", or "FLOAT64" for ReduceLogSumExp's expansions of DOUBLE data, whose first node (Exp) no
    DirectML table takes FLOAT64 for."""
    refused: dict[str, str] = {}
    for name, case in cases.items():
        form = name.removeprefix("test_")
        if form.startswith("reduce_") and any(value.name == "axes" for value in case.model.graph.input):
            expanded_double = form.startswith("reduce_log_sum_exp") and form.endswith("_expanded")
            refused[form] = "FLOAT64" if expanded_double else "initializer"
    return refused
