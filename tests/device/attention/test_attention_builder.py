"""``dml.graph.multihead_attention`` (dmlpy/graph/attention.py): MULTIHEAD_ATTENTION where the heads are equal,
MULTIHEAD_ATTENTION1 where they are grouped, its outputs packed by the family's rule, run against the float64 formula
(tests/device/attention/cases.py) within its bound; Scale defaults to 1 / sqrt(headSize); a rule broken is the
descriptor's refusal."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.attention.cases import attention_case
from tests.device.normalization.cases import past_bound

T = dml.TensorDataType


def _check(got: Any, expected: Any, allowed: Any) -> None:
    wrong = past_bound(np.asarray(got), expected, allowed)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()}"


def test_grouped_heads_with_past_and_present(device: Any) -> None:
    case = attention_case(T.FLOAT32, heads=(4, 2), bias=True, mask="BOOLEAN", past=2, present=True)
    names = ("query", "key", "value", "bias", "mask", "past_key", "past_value")
    arrays = [case.inputs[f"{name}_tensor"] for name in names]
    g = dml.Graph(device)
    given = {
        name: g.input(array.shape, T.INT32 if name == "mask" else T.FLOAT32)
        for name, array in zip(names, arrays, strict=True)
    }
    outputs = dml.graph.multihead_attention(
        **given, head_count=4, key_value_head_count=2, scale=0.7, mask_type="BOOLEAN", present=True
    )
    (node,) = g.desc_for(outputs).nodes
    assert type(node.desc.op) is dml.MultiheadAttention1OperatorDesc
    got = g.compile(outputs)(*arrays)
    slots = ("output_tensor", "output_present_key_tensor", "output_present_value_tensor")
    for slot, result in zip(slots, got, strict=True):
        _check(result, case.expected[slot], case.allowed[slot])


def test_equal_heads_make_multihead_attention_with_the_default_scale(device: Any) -> None:
    """headSize 4: Scale 1 / sqrt(4) = 0.5; the case's own Scale is 0.7, so the query is scaled by 0.7 / 0.5 on the
    host (1.4 rounds: the reference reads the rounded query)."""
    case = attention_case(T.FLOAT32, "stacked_query_key_value", first_form=True)
    stacked = case.inputs["stacked_query_key_value_tensor"]
    g = dml.Graph(device)
    x = g.input(stacked.shape, T.FLOAT32)
    out = dml.graph.multihead_attention(stacked_query_key_value=x, head_count=2)
    (node,) = g.desc_for([out]).nodes
    op = node.desc.op
    assert type(op) is dml.MultiheadAttentionOperatorDesc and op.scale == 0.5 and op.head_count == 2
    scaled = stacked.copy()
    scaled[:, :, :, 0] = (stacked[:, :, :, 0] * np.float32(1.4)).astype(np.float32)
    # the same attention as the case's: q * 1.4 * 0.5 = q * 0.7 up to the rounding of q * 1.4 (one u per query)
    expected = case.expected["output_tensor"]
    _check(g.compile([out])(scaled), expected, case.allowed["output_tensor"] * 4)


def test_a_broken_rule_is_the_descriptors_refusal(device: Any) -> None:
    g = dml.Graph(device)
    q = g.input((2, 3, 8), T.FLOAT32)
    with pytest.raises(dml.InvalidArgumentError, match=r"MULTIHEAD_ATTENTION\.KeyTensor is null"):
        dml.graph.multihead_attention(q, head_count=2)
