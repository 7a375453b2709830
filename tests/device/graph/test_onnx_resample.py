"""ONNX's Resize and Upsample through dmlpy.onnx (dmlpy/onnx/resample.py): every node test of theirs that is not
cubic or of a keep_aspect_ratio_policy, run with its scales, sizes and roi as initializers (DirectML's descriptor
fields), against its expected output: nearest exactly, linear and antialiased linear within RESAMPLE's LINEAR bound
(tests/helpers/onnx_compute.resample_bound); a roi reaching outside the input refused saying why."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import numpy_helper  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_compute import compute_refusal, resample_bound  # noqa: E402


@functools.cache
def _node_cases() -> dict[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return {case.name: case for case in load_model_tests(kind="node")}


GIVEN_AS_INPUTS = sorted(
    name.removeprefix("test_")
    for name in _node_cases()
    if name.startswith(("test_resize", "test_upsample"))
    and compute_refusal(name.removeprefix("test_")) == "initializer"
)
OUTSIDE = ("resize_tf_crop_and_resize_extrapolation_value",)
"""Its roi reaches past the input (ONNX writes extrapolation_value there; DirectML clamps to the edge)."""


@pytest.mark.parametrize("name", GIVEN_AS_INPUTS)
def test_node_tests_with_their_scales_and_sizes_as_initializers_run_within_the_bound(device: Any, name: str) -> None:
    case = _node_cases()[f"test_{name}"]
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    (inputs, (want,)), *_ = case.data_sets
    for value, array in zip(model.graph.input[1:], inputs[1:], strict=True):
        model.graph.initializer.append(numpy_helper.from_array(np.asarray(array), value.name))
    del model.graph.input[1:]
    x = inputs[0]
    if name in OUTSIDE:
        with pytest.raises(NodeRefused, match="reaches outside the input, where ONNX writes extrapolation_value"):
            DmlBackend.prepare(model, dml_device=device).run([x])
        return
    (got,) = DmlBackend.prepare(model, dml_device=device).run([x])
    assert got.dtype == want.dtype and got.shape == want.shape
    (node,) = model.graph.node
    linear = any(a.name == "mode" and a.s == b"linear" for a in node.attribute)
    antialiased = any(a.name == "antialias" and a.i for a in node.attribute)
    scales = [o / n for o, n in zip(want.shape, x.shape, strict=True)]
    atol = 2 * resample_bound(x, scales, antialiased) if linear else 0.0
    np.testing.assert_allclose(got, want, rtol=0, atol=atol)
