"""ONNX's node tests of Attention (dmlpy.onnx.attention: MULTIHEAD_ATTENTION, MULTIHEAD_ATTENTION1 where heads are
grouped): the ones that run as shipped, the word the refusal of each other one holds, and the runner's tolerance,
twice the operator's stated bound (tests/device/attention/cases.py, ``attention_bound``) evaluated on the case's own
inputs, largest over the output: ONNX's expected outputs are NumPy's results of the same formula in the inputs' type,
within that bound of the exact value, so the two lie within twice it of each other."""

from __future__ import annotations

from typing import Any

import numpy as np

import dmlpy as dml
from tests.device.attention.cases import attention_bound

_SHAPES = ("4d", "3d")
ATTENTION_RUNS = (
    *(
        f"attention_{shape}{form}"
        for shape in _SHAPES
        for form in (
            "",
            "_gqa",
            "_diff_heads_sizes",
            "_scaled",
            "_gqa_scaled",
            "_diff_heads_sizes_scaled",
            "_causal",
            "_gqa_causal",
            "_diff_heads_sizes_causal",
            "_attn_mask",
            "_gqa_attn_mask",
            "_diff_heads_sizes_attn_mask",
            "_with_past_and_present",
            "_gqa_with_past_and_present",
            "_diff_heads_with_past_and_present",
        )
    ),
    *(
        f"attention_4d{form}"
        for form in (
            "_fp16",
            "_attn_mask_3d",
            "_attn_mask_3d_causal",
            "_attn_mask_4d",
            "_attn_mask_4d_causal",
            "_attn_mask_bool",
            "_attn_mask_bool_4d",
            "_gqa_with_past_and_present_fp16",
            "_diff_heads_with_past_and_present_mask3d",
            "_diff_heads_with_past_and_present_mask4d",
            "_causal_fp16",
            "_causal_with_past_and_present",
        )
    ),
    "attention_3d_transpose_verification",
    "attention_causal_boolmask_nan_robustness",
    "attention_23_boolmask_fullymasked_row_nan_robustness",
    "attention_local_window_default",
)
"""Attention's node tests that run: 3-D and 4-D inputs, grouped heads, other value head sizes, scale, is_causal,
float and boolean masks of 2 to 4 dimensions, past and present, FLOAT16, a fully masked row (output 0)."""

ATTENTION_REFUSALS = {
    "bf16": "BFLOAT16",
    "window": "window_size",
    "softcap": "softcap",
    "qk_matmul": "qk_matmul_output",
    "nonpad": "nonpad_kv_seqlen",
    "padded_kv": "nonpad_kv_seqlen",
}
"""What each refused node test's name holds -> the word its refusal holds, first match winning: the graph input's
type is refused before the node, and the node's window before its softcap and its softcap before qk_matmul_output,
in the order dmlpy.onnx.attention checks them."""


def attention_refusals(forms: Any) -> dict[str, str]:
    """The refused Attention node tests among ``forms`` (names without ``test_``) -> their word."""
    refused = {}
    for form in forms:
        if not form.startswith("attention_") or form in ATTENTION_RUNS or "expanded" in form:
            continue
        word = next((word for part, word in ATTENTION_REFUSALS.items() if part in form), None)
        refused[form] = word if word is not None else f"unclassified {form}"
    return refused


def _heads(array: Any, heads: int) -> Any:
    """A 3-D [b, length, heads * size] value as [b, heads, length, size]; a 4-D one as it is."""
    if array.ndim == 4:
        return array
    b, length, hidden = array.shape
    return array.reshape(b, length, heads, hidden // heads).transpose(0, 2, 1, 3)


def attention_tolerance(name: str, model: Any, inputs: list[Any]) -> dict[str, float] | None:
    """The runner's tolerance of one of ``ATTENTION_RUNS``: atol twice the bound, largest over the output (rtol 0);
    None for the other node tests."""
    if name.removeprefix("test_") not in ATTENTION_RUNS:
        return None
    return {"rtol": 0.0, "atol": 2 * attention_node_bound(model, inputs)}


def attention_node_bound(model: Any, inputs: list[Any]) -> float:
    """The operator's bound on the output of a one-node Attention model for its graph ``inputs``, largest over it."""
    (node,) = model.graph.node
    given = {a.name: a for a in node.attribute}
    named = {value.name: array for value, array in zip(model.graph.input, inputs, strict=True)}
    q, k, v = (named[node.input[i]] for i in range(3))
    data_type = dml.TensorDataType.FLOAT16 if q.dtype == np.float16 else dml.TensorDataType.FLOAT32
    nq = given["q_num_heads"].i if "q_num_heads" in given else q.shape[1]
    nkv = given["kv_num_heads"].i if "kv_num_heads" in given else k.shape[1]
    q4, k4, v4 = _heads(q.astype(np.float64), nq), _heads(k.astype(np.float64), nkv), _heads(v.astype(np.float64), nkv)
    past = len(node.input) > 4 and node.input[4]
    if past:
        k4 = np.concatenate([named[node.input[4]].astype(np.float64), k4], axis=2)
        v4 = np.concatenate([named[node.input[5]].astype(np.float64), v4], axis=2)
    sequence, total = q4.shape[2], k4.shape[2]
    added = np.zeros((q4.shape[0], nq, sequence, total))
    mask = named.get(node.input[3]) if len(node.input) > 3 and node.input[3] else None
    if mask is not None:
        added = added + (np.where(mask, 0.0, -np.inf) if mask.dtype == np.bool_ else mask.astype(np.float64))
    if "is_causal" in given and given["is_causal"].i:
        later = np.arange(total)[None, :] > np.arange(sequence)[:, None] + (total - k.shape[-2])
        added = added + np.where(later, -np.inf, 0.0)
    scale = given["scale"].f if "scale" in given else 1 / np.sqrt(q4.shape[3])
    group = nq // nkv
    k_rep, v_rep = np.repeat(k4, group, axis=1), np.repeat(v4, group, axis=1)
    _, allowed = attention_bound(q4, k_rep, v_rep, float(np.float32(scale)), added, data_type)
    return float(np.max(allowed))
