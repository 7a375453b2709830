"""The builder function of the attention family, ``dml.graph.multihead_attention``, which DirectMLX does not offer:
its arguments are the descriptors' input fields in C order (each None by default, as the fields are optional), then
the scalar fields. It makes DML_OPERATOR_MULTIHEAD_ATTENTION (HeadCount) where the key and value have the query's
heads, and DML_OPERATOR_MULTIHEAD_ATTENTION1 (QueryHeadCount, KeyValueHeadCount; FL 6_3) where fewer key-value heads
serve them (grouped-query attention). Every output is packed with the Sizes and DataType the family's rule gives
(dmlpy/ops/_attention.py)."""

from __future__ import annotations

import math
from typing import Any

from dmlpy.enums import MultiheadAttentionMaskType
from dmlpy.graph.arguments import enum_argument, optional_operand
from dmlpy.graph.builder import Expression
from dmlpy.graph.operator_node import add_node
from dmlpy.graph.values import c_float
from dmlpy.ops import MultiheadAttention1OperatorDesc, MultiheadAttentionOperatorDesc
from dmlpy.ops._attention import AttentionDesc
from dmlpy.tensor import BufferTensorDesc

_SOURCES = (
    "query",
    "key",
    "value",
    "stacked_query_key",
    "stacked_key_value",
    "stacked_query_key_value",
    "bias",
    "mask",
    "relative_position_bias",
    "past_key",
    "past_value",
)


def multihead_attention(
    query: Expression | None = None,
    key: Expression | None = None,
    value: Expression | None = None,
    stacked_query_key: Expression | None = None,
    stacked_key_value: Expression | None = None,
    stacked_query_key_value: Expression | None = None,
    bias: Expression | None = None,
    mask: Expression | None = None,
    relative_position_bias: Expression | None = None,
    past_key: Expression | None = None,
    past_value: Expression | None = None,
    *,
    head_count: int,
    key_value_head_count: int | None = None,
    scale: float | None = None,
    mask_filter_value: float = -10000.0,
    mask_type: MultiheadAttentionMaskType | str | int = MultiheadAttentionMaskType.NONE,
    present: bool = False,
) -> Expression | list[Expression]:
    """``softmax(scale * q k^T + relative_position_bias, masked) v`` per head: DML_OPERATOR_MULTIHEAD_ATTENTION with
    ``head_count`` heads, or MULTIHEAD_ATTENTION1 where ``key_value_head_count`` (None: ``head_count``) is fewer
    (each key-value head serving head_count / key_value_head_count query heads). Exactly one of ``query``,
    ``stacked_query_key``, ``stacked_query_key_value`` gives the query (and likewise the key and value);
    ``mask`` (INT32) is read as ``mask_type`` says; ``scale`` None is 1 / sqrt(headSize), the pages' usual value;
    ``past_key`` and ``past_value`` go before the key and value. Returns the output, or with ``present`` the list
    [output, present key, present value] (the keys and values with their past)."""
    where = "dml.graph.multihead_attention"
    given = dict(
        zip(
            _SOURCES,
            (
                query,
                key,
                value,
                stacked_query_key,
                stacked_key_value,
                stacked_query_key_value,
                bias,
                mask,
                relative_position_bias,
                past_key,
                past_value,
            ),
            strict=True,
        )
    )
    inputs = {f"{name}_tensor": optional_operand(expr, where, name) for name, expr in given.items()}
    kv_heads = head_count if key_value_head_count is None else key_value_head_count
    grouped = kv_heads != head_count
    desc_class: type[AttentionDesc] = MultiheadAttention1OperatorDesc if grouped else MultiheadAttentionOperatorDesc
    fields: dict[str, Any] = {
        "mask_filter_value": c_float(mask_filter_value, where, "mask_filter_value", "MaskFilterValue"),
        "mask_type": enum_argument(MultiheadAttentionMaskType, mask_type, where, "mask_type"),
    }
    if grouped:
        fields |= {"query_head_count": head_count, "key_value_head_count": kv_heads}
        inputs["past_sequence_lengths_tensor"] = None
    else:
        fields["head_count"] = head_count
    descs = {name: None if expr is None else expr.desc for name, expr in inputs.items()}
    sizes = desc_class.attention_sizes(descs, fields)
    fields["scale"] = 1.0 / math.sqrt(sizes.head_size) if scale is None else c_float(scale, where, "scale", "Scale")
    shapes = desc_class.output_shapes(descs, fields)
    names = desc_class.OUTPUTS if present else desc_class.OUTPUTS[:1]
    outputs = {
        name: BufferTensorDesc(data_type=shape.data_type, sizes=shape.sizes)
        for name, shape in zip(names, shapes, strict=False)
    }
    made = add_node(desc_class, inputs, outputs, fields)
    return made if present else made[0]
