"""MULTIHEAD_ATTENTION(1) cases shared by the device tests and the Oclgrind variants: a descriptor in one source form,
its inputs by slot, the float64 outputs of DirectML's formula and the bound each output element must meet.

The formula (MicrosoftDocs/windows-ai-docs ns-directml-dml_multihead_attention_operator_desc.md), per batch b and
query head h, with key-value head h // (QueryHeadCount / KeyValueHeadCount):

    q = Query + Bias[query part], k = [PastKey; Key + Bias[key part]], v = [PastValue; Value + Bias[value part]]
    x = Scale * q k^T + RelativePositionBias, plus MaskFilterValue where MaskTensor masks the key
    Output = softmax(x over the keys) v;  OutputPresentKey = k, OutputPresentValue = v

The bound (docs/operators/multihead_attention.md, "Accuracy"): u the float32 unit roundoff (2^-24), u_t the
tensors' (2^-11 for FLOAT16, whose temporaries are FLOAT16, else u), gamma_n = n u / (1 - n u). A score is gemm.cl's
chain of H products and Scale's and C's roundings, over operands each rounded once by the bias add, and stored in the
tensors' type: e = (gamma_(H+2) + 3 u_t) M + u |x|, M = |Scale| sum |q||k| + |RelativePositionBias| (u |x|: the mask's
addition). Scores within e_j of their exact values move probability p_j by at most p_j (e_j + sum_k p_k e_k) to
first order (1.01 times that covers the second order at these e); softmax.cl's arithmetic adds 8 u p, their store
u_t p. The output is gemm.cl's chain of T products over them: |o - o*| <= 1.01 sum_j p_j (e_j + sum_k p_k e_k)
|v_j| + sum_j p_j |v_j| (8 u + 2 u_t + gamma_T) + u_t |o*| (the value's bias rounding and the output's store).
The present outputs are the key and value copied (exact) or plus their bias, one float addition rounded to the
type: within (u_t + u) |k| (the float sum of two halves, then rounded to half)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides

T = dml.TensorDataType
U32 = 2.0**-24
UNIT = {T.FLOAT32: U32, T.FLOAT16: 2.0**-11}
MASKS = ("BOOLEAN", "KEY_SEQUENCE_LENGTH", "KEY_SEQUENCE_END_START", "KEY_QUERY_SEQUENCE_LENGTH_START_END")
FORMS = ("separate", "stacked_query_key_value", "stacked_query_key", "stacked_key_value")
Array = npt.NDArray[Any]


class Case(NamedTuple):
    desc: Any
    inputs: dict[str, Array]
    expected: dict[str, Array]
    allowed: dict[str, Array]


def gamma(n: int) -> float:
    return n * U32 / (1 - n * U32)


def attention_bound(q: Array, k: Array, v: Array, scale: float, added: Array, data_type: Any) -> tuple[Array, Array]:
    """The exact output [b, heads, s, hv] and the bound on each element (the module's), from float64 arrays per query
    head: ``q`` [b, heads, s, h], ``k`` and ``v`` [b, heads, t, *] (each key-value head repeated for its query heads),
    ``added`` [b, heads, s, t], the scores' terms after Scale (RelativePositionBias, the masks; -inf allowed: such a
    key's probability is exactly 0, and a row of them all gives 0, as attention.cl does)."""
    u, ut = U32, UNIT[data_type]
    scores = np.einsum("bnid,bnjd->bnij", q, k) * np.float64(scale) + added
    finite = np.isfinite(scores)
    magnitude = np.abs(np.float64(scale)) * np.einsum("bnid,bnjd->bnij", np.abs(q), np.abs(k))
    magnitude = magnitude + np.where(finite, np.abs(added), 0.0)
    top = scores.max(axis=-1, keepdims=True)
    exponents = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
    totals = exponents.sum(axis=-1, keepdims=True)
    p = exponents / np.where(totals == 0, 1.0, totals)
    out = np.einsum("bnij,bnjd->bnid", p, v)
    error = np.where(finite, (gamma(q.shape[-1] + 2) + 3 * ut) * magnitude + u * np.abs(np.where(finite, scores, 0)), 0)
    mean_error = (p * error).sum(axis=-1, keepdims=True)
    weighted = np.einsum("bnij,bnjd->bnid", p, np.abs(v))
    allowed = 1.01 * np.einsum("bnij,bnjd->bnid", p * (error + mean_error), np.abs(v))
    allowed += weighted * (8 * u + 2 * ut + gamma(k.shape[2])) + ut * np.abs(out)
    return out, allowed


def _values(dtype: Any, sizes: tuple[int, ...], rng: np.random.Generator) -> Array:
    return rng.standard_normal(sizes).astype(dtype)


def _tensor(data_type: Any, sizes: tuple[int, ...], gap: int) -> dml.TensorDesc:
    strides = padded_strides(sizes, gap) if gap else None
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides))


def _mask(
    kind: str, batch: int, heads: int, sequence: int, total: int, rng: np.random.Generator
) -> tuple[Array, Array]:
    """MaskTensor of ``kind`` and which scores it masks ([batch, heads, sequence, total] booleans)."""
    keys = np.arange(total)
    if kind == "BOOLEAN":
        mask = rng.integers(0, 2, (batch, heads, sequence, total)).astype(np.int32)
        mask[..., rng.integers(0, total)] = 1  # no row wholly masked: its scores would all move by MaskFilterValue
        return mask, mask == 0
    if kind == "KEY_SEQUENCE_END_START":
        starts = rng.integers(0, total, batch)
        ends = np.array([rng.integers(start + 1, total + 1) for start in starts])
        masked = (keys >= ends[:, None]) | (keys < starts[:, None])
        return np.stack([ends, starts]).astype(np.int32), np.broadcast_to(
            masked[:, None, None, :], (batch, heads, sequence, total)
        )
    lengths = rng.integers(1, total + 1, batch)
    masked = np.broadcast_to((keys >= lengths[:, None])[:, None, None, :], (batch, heads, sequence, total))
    if kind == "KEY_SEQUENCE_LENGTH":
        return lengths.astype(np.int32)[None, :], masked
    starts = np.concatenate([[0], np.cumsum(rng.integers(1, sequence + 1, batch))])  # a packed list's offsets
    packed = np.concatenate([lengths, starts, starts]).astype(np.int32)  # [batch * 3 + 2]
    return packed, masked


def attention_case(
    data_type: Any,
    form: str = "separate",
    *,
    batch: int = 2,
    sequence: int = 3,
    kv_sequence: int = 5,
    heads: tuple[int, int] = (2, 2),
    head_size: int = 4,
    value_head_size: int = 6,
    bias: bool = False,
    mask: str | None = None,
    relative_position_bias: bool = False,
    past: int = 0,
    present: bool = False,
    first_form: bool = False,
    gaps: Mapping[str, int] | None = None,
    seed: int = 0,
) -> Case:
    """One attention: ``heads`` (query, key-value), MULTIHEAD_ATTENTION (``first_form``, equal heads) or
    MULTIHEAD_ATTENTION1; ``form`` which sources give the roles (stacked forms need the sizes they stack alike);
    ``gaps`` unused elements after each innermost row of the named slots."""
    rng = np.random.default_rng(seed)
    dtype = np.float16 if data_type == T.FLOAT16 else np.float32
    gaps = gaps or {}
    nq, nkv = heads
    if form == "stacked_query_key_value" or form == "stacked_query_key":
        kv_sequence = sequence
    if form != "separate":
        value_head_size = head_size if form != "stacked_query_key" else value_head_size
        assert nq == nkv, "a stacked tensor gives its roles one head count"
    b, s, length, h, hv, total = batch, sequence, kv_sequence, head_size, value_head_size, past + kv_sequence
    q = _values(dtype, (b, s, nq, h), rng)
    k = _values(dtype, (b, length, nkv, h), rng)
    v = _values(dtype, (b, length, nkv, hv), rng)
    fields: dict[str, Any] = {}
    inputs: dict[str, Array] = {}

    def put(slot: str, field: str, array: Array) -> None:
        fields[field] = _tensor(T.INT32 if field == "MaskTensor" else data_type, array.shape, gaps.get(slot, 0))
        inputs[slot] = array

    if form == "stacked_query_key_value":
        put("stacked_query_key_value_tensor", "StackedQueryKeyValueTensor", np.stack([q, k, v], axis=3))
    elif form == "stacked_query_key":
        put("stacked_query_key_tensor", "StackedQueryKeyTensor", np.stack([q, k], axis=3))
        put("value_tensor", "ValueTensor", v.reshape(b, length, nkv * hv))
    else:
        put("query_tensor", "QueryTensor", q.reshape(b, s, nq * h))
        if form == "stacked_key_value":
            put("stacked_key_value_tensor", "StackedKeyValueTensor", np.stack([k, v], axis=3))
        else:
            put("key_tensor", "KeyTensor", k.reshape(b, length, nkv * h))
            put("value_tensor", "ValueTensor", v.reshape(b, length, nkv * hv))
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    if bias:
        terms = _values(dtype, (nq * h + nkv * h + nkv * hv,), rng)
        put("bias_tensor", "BiasTensor", terms)
        t64 = terms.astype(np.float64)
        q64 = q64 + t64[: nq * h].reshape(nq, h)
        k64 = k64 + t64[nq * h : (nq + nkv) * h].reshape(nkv, h)
        v64 = v64 + t64[(nq + nkv) * h :].reshape(nkv, hv)
    k_all, v_all = (x.transpose(0, 2, 1, 3) for x in (k64, v64))  # [b, nkv, length, size]
    if past:
        past_k, past_v = _values(dtype, (b, nkv, past, h), rng), _values(dtype, (b, nkv, past, hv), rng)
        put("past_key_tensor", "PastKeyTensor", past_k)
        put("past_value_tensor", "PastValueTensor", past_v)
        k_all = np.concatenate([past_k.astype(np.float64), k_all], axis=2)
        v_all = np.concatenate([past_v.astype(np.float64), v_all], axis=2)
    scale, filter_value = np.float32(0.7), np.float32(-10000.0)
    group = nq // nkv
    k_rep, v_rep = np.repeat(k_all, group, axis=1), np.repeat(v_all, group, axis=1)  # head h reads h // group
    added = np.zeros((b, nq, s, total))
    if relative_position_bias:
        rpb = _values(dtype, (b, nq, s, total), rng)
        put("relative_position_bias_tensor", "RelativePositionBiasTensor", rpb)
        added = added + rpb
    if mask is not None:
        mask_tensor, masked = _mask(mask, b, nq, s, total, rng)
        put("mask_tensor", "MaskTensor", mask_tensor)
        fields["MaskType"] = mask
        added = added + np.where(masked, np.float64(filter_value), 0.0)
    heads_out, heads_allowed = attention_bound(q64.transpose(0, 2, 1, 3), k_rep, v_rep, scale, added, data_type)
    out, allowed = (x.transpose(0, 2, 1, 3).reshape(b, s, nq * hv) for x in (heads_out, heads_allowed))
    u, ut = U32, UNIT[data_type]
    expected, bounds = {"output_tensor": out}, {"output_tensor": allowed}
    outputs: dict[str, Any] = {"OutputTensor": _tensor(data_type, out.shape, gaps.get("output_tensor", 0))}
    if present:
        for slot, field, whole in (
            ("output_present_key_tensor", "OutputPresentKeyTensor", k_all),
            ("output_present_value_tensor", "OutputPresentValueTensor", v_all),
        ):
            outputs[field] = _tensor(data_type, whole.shape, gaps.get(slot, 0))
            expected[slot], bounds[slot] = whole, (ut + u) * np.abs(whole) if bias else np.zeros(whole.shape)
    heads_fields = {"HeadCount": nq} if first_form else {"QueryHeadCount": nq, "KeyValueHeadCount": nkv}
    desc_class = dml.MultiheadAttentionOperatorDesc if first_form else dml.MultiheadAttention1OperatorDesc
    desc = desc_class.model_validate(
        {"MaskType": "NONE", **fields, **outputs, "Scale": float(scale), "MaskFilterValue": float(filter_value)}
        | heads_fields
    )
    return Case(desc, inputs, expected, bounds)
