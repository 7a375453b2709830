"""ONNX's Attention through dmlpy's ONNX backend (dmlpy/onnx/attention.py) against onnx.reference and onnxruntime,
within twice the operator's bound evaluated on the inputs (tests/helpers/onnx_attention.py): grouped heads of 3-D
inputs with a boolean mask and is_causal, 4-D inputs with a float mask and a scale; and the refusals, each naming
the attribute or input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import DmlBackend, NodeRefused  # noqa: E402
from tests.helpers.onnx_attention import attention_node_bound  # noqa: E402

OPSET = 23


def _model(shapes: dict[str, tuple[tuple[int, ...], int]], output: tuple[int, ...], **attributes: Any) -> Any:
    names = list(shapes)
    inputs = [helper.make_tensor_value_info(name, kind, shape) for name, (shape, kind) in shapes.items()]
    node = helper.make_node(
        "Attention", [*names[:3], *(["attn_mask"] if "attn_mask" in shapes else [])], ["Y"], **attributes
    )
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, output)
    graph = helper.make_graph([node], "attention", inputs, [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def _check_against_references(model: Any, feeds: dict[str, Any]) -> None:
    ort = pytest.importorskip("onnxruntime")
    got = DmlBackend.prepare(model).run(list(feeds.values()))[0]
    allowed = 2 * attention_node_bound(model, list(feeds.values()))  # each reference within the bound too
    reference = ReferenceEvaluator(model).run(None, feeds)[0]
    runtime = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    for name, expected in (("onnx.reference", reference), ("onnxruntime", runtime)):
        error = np.abs(got.astype(np.float64) - expected)
        assert got.shape == expected.shape and np.all(error <= allowed), (name, float(error.max()))


def test_grouped_3d_with_a_boolean_mask_and_is_causal() -> None:
    rng = np.random.default_rng(5)
    b, s, nq, nkv, h = 2, 4, 4, 2, 8
    shapes = {
        "Q": ((b, s, nq * h), TensorProto.FLOAT),
        "K": ((b, s, nkv * h), TensorProto.FLOAT),
        "V": ((b, s, nkv * h), TensorProto.FLOAT),
        "attn_mask": ((s, s), TensorProto.BOOL),
    }
    model = _model(shapes, (b, s, nq * h), q_num_heads=nq, kv_num_heads=nkv, is_causal=1)
    feeds = {name: rng.standard_normal(shape).astype(np.float32) for name, (shape, _) in list(shapes.items())[:3]}
    feeds["attn_mask"] = rng.integers(0, 2, (s, s)).astype(bool) | np.eye(s, dtype=bool)  # the diagonal attends
    _check_against_references(model, feeds)


def test_4d_with_a_float_mask_and_a_scale() -> None:
    rng = np.random.default_rng(6)
    b, nq, s, length, h, hv = 1, 3, 2, 5, 4, 6
    shapes = {
        "Q": ((b, nq, s, h), TensorProto.FLOAT),
        "K": ((b, nq, length, h), TensorProto.FLOAT),
        "V": ((b, nq, length, hv), TensorProto.FLOAT),
        "attn_mask": ((nq, s, length), TensorProto.FLOAT),
    }
    model = _model(shapes, (b, nq, s, hv), scale=0.3)
    feeds = {name: rng.standard_normal(shape).astype(np.float32) for name, (shape, _) in shapes.items()}
    _check_against_references(model, feeds)


@pytest.mark.parametrize(
    ("attributes", "word"),
    [({"softcap": 2.0}, "softcap is 2.0"), ({"qk_matmul_output_mode": 1}, "qk_matmul_output_mode is 1")],
)
def test_refusals_name_the_attribute(attributes: dict[str, Any], word: str) -> None:
    shapes = {name: ((1, 2, 3, 4), TensorProto.FLOAT) for name in ("Q", "K", "V")}
    with pytest.raises(NodeRefused, match=word):
        DmlBackend.prepare(_model(shapes, (1, 2, 3, 4), **attributes))
