"""MULTIHEAD_ATTENTION(1)'s tensors as the views its plan reads (dmlpy/kernels/attention.py): each bound tensor seen
as (batch, head, position, element) through its own strides, so a head split, a stacked role or a transpose is a
stride and an element shift, never a copy."""

from __future__ import annotations

from dmlpy.enums import MultiheadAttentionMaskType, TensorDataType
from dmlpy.errors import UnsupportedError
from dmlpy.kernels.attention import AttentionShape, AttentionTensors, MaskViews, View, attention_plan
from dmlpy.kernels.launch import LaunchProfile
from dmlpy.kernels.plan import OperatorPlan, PlanRef
from dmlpy.ops._attention import KEY_SOURCES, QUERY_SOURCES, STACKED, VALUE_SOURCES, AttentionDesc
from dmlpy.ops._typed_values import value_bits

Mask = MultiheadAttentionMaskType


def _strides(desc: AttentionDesc, field: str, count: int) -> tuple[int, ...]:
    """The last ``count`` strides of tensor ``field`` (its leading dimensions are 1s, never stepped)."""
    tensor = getattr(desc, field)
    return tuple(tensor.desc.effective_strides[-count:])


def _ref(desc: AttentionDesc, field: str, shift: int = 0) -> PlanRef:
    if field in desc.output_fields():
        return PlanRef("output", desc.output_fields().index(field), shift)
    return PlanRef("input", desc.input_fields().index(field), shift)


def _four(desc: AttentionDesc, field: str) -> View | None:
    """A tensor already (batch, head, position, element) (the past, the present, RelativePositionBias)."""
    if getattr(desc, field) is None:
        return None
    b, h, p, e = _strides(desc, field, 4)
    return View(_ref(desc, field), (b, h, p, e))


def _role(desc: AttentionDesc, role: str, field: str, size: int) -> View:
    """The view of ``role`` (query, key, value) from ``field``: [batch, length, heads * size] steps a head by size
    elements of the last axis; a stacked [batch, length, heads, k, size] gives the role at its place along the
    fourth axis."""
    if field in STACKED:
        b, length, heads, stack, element = _strides(desc, field, 5)
        return View(_ref(desc, field, STACKED[field][1].index(role) * stack), (b, heads, length, element))
    b, length, element = _strides(desc, field, 3)
    return View(_ref(desc, field), (b, size * element, length, element))


def _mask(desc: AttentionDesc) -> MaskViews | None:
    """MaskTensor as attention.cl reads it under MaskType (its Sizes checked by the shape rule)."""
    if desc.operands()["mask_tensor"] is None:
        return None
    mask_type = Mask(desc.field_values()["mask_type"])
    if mask_type == Mask.BOOLEAN:
        b, h, i, j = _strides(desc, "mask_tensor", 4)
        return MaskViews(mask_type.value, View(_ref(desc, "mask_tensor"), (b, h, i, j)))
    if mask_type == Mask.KEY_SEQUENCE_END_START:
        row, batch = _strides(desc, "mask_tensor", 2)
        ends = View(_ref(desc, "mask_tensor"), (batch, 0, 0, 0))
        return MaskViews(mask_type.value, ends, ends.shifted(row))
    (batch,) = _strides(desc, "mask_tensor", 1)  # the lengths: [1, batchSize], or the packed list's first entries
    return MaskViews(mask_type.value, View(_ref(desc, "mask_tensor"), (batch, 0, 0, 0)))


def plan_of(desc: AttentionDesc, profile: LaunchProfile) -> OperatorPlan:
    """The launches of ``desc`` (dmlpy/kernels/attention.py's plan), its tensors as views."""
    inputs, fields = desc.operands(), desc.field_values()
    if inputs.get("past_sequence_lengths_tensor") is not None:
        raise UnsupportedError(
            f"{desc.describe()}: PastSequenceLengthsTensor is given; dmlpy runs MULTIHEAD_ATTENTION1 without it "
            "only: its page leaves it 'TBD' (and types it FLOAT32 or FLOAT16), so how lengths would mask or place "
            "the past keys is not DirectML's documented behaviour. Leave it null, and express the past's valid "
            "lengths with MaskTensor (KEY_SEQUENCE_LENGTH) instead"
        )
    s = desc.attention_sizes(inputs, fields)
    shape = AttentionShape(
        s.batch, s.sequence, s.kv_sequence, s.past or 0, s.head_size, s.value_head_size, s.query_heads, s.kv_heads
    )
    query, key, value = (
        desc.source(inputs, role, names)
        for role, names in (("query", QUERY_SOURCES), ("key", KEY_SOURCES), ("value", VALUE_SOURCES))
    )
    bias = None if inputs["bias_tensor"] is None else (_ref(desc, "bias_tensor"), _strides(desc, "bias_tensor", 1)[0])
    output = _role(desc, "output", "output_tensor", s.value_head_size)
    tensors = AttentionTensors(
        query=_role(desc, "query", query, s.head_size),
        key=_role(desc, "key", key, s.head_size),
        value=_role(desc, "value", value, s.value_head_size),
        bias=bias,
        relative_position_bias=_four(desc, "relative_position_bias_tensor"),
        mask=_mask(desc),
        past_key=_four(desc, "past_key_tensor"),
        past_value=_four(desc, "past_value_tensor"),
        output=output,
        present_key=_four(desc, "output_present_key_tensor"),
        present_value=_four(desc, "output_present_value_tensor"),
    )
    scale, filter_value = (value_bits(fields[name], TensorDataType.FLOAT32) for name in ("scale", "mask_filter_value"))
    return attention_plan(shape, s.data_type, tensors, scale, filter_value, profile)
