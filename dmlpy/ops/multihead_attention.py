"""DML_MULTIHEAD_ATTENTION_OPERATOR_DESC (DML_FEATURE_LEVEL_6_1) and DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC
(DML_FEATURE_LEVEL_6_3), from Microsoft's pages (MicrosoftDocs/windows-ai-docs
docs/directml/api/ns-directml-dml_multihead_attention(1)_operator_desc.md; docs/operators/multihead_attention.md):

    [Add Bias to query/key/value] -> GEMM(Query, Transposed(Key)) * Scale -> [Add RelativePositionBias]
        -> [Add Mask] -> Softmax -> GEMM(SoftmaxResult, Value)

Exactly one query, one key and one value source, stacked or not; every tensor but MaskTensor (INT32) of one DataType,
FLOAT32 or FLOAT16; each Sizes from the sources' (``dmlpy/ops/_attention.py``). MULTIHEAD_ATTENTION1 adds
PastSequenceLengthsTensor and splits HeadCount into QueryHeadCount and KeyValueHeadCount (grouped-query attention);
its page leaves the three "TBD". Both run as a plan (``dmlpy/kernels/attention.py``: the query, key and value
read through strides, gemm.cl's GEMM for the scores and for the output, ``opencl/attention.cl``'s masked softmax
between them); MULTIHEAD_ATTENTION1 without PastSequenceLengthsTensor ("TBD": refused when compiled).
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.enums import FeatureLevel, MultiheadAttentionMaskType, OperatorType, TensorDataType
from dmlpy.kernels.launch import CPU_PROFILE, LaunchProfile
from dmlpy.kernels.plan import OperatorPlan
from dmlpy.model import UInt32
from dmlpy.ops._attention import AttentionDesc
from dmlpy.ops._attention_plan import plan_of
from dmlpy.ops._types import FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_QKV = ((3, 5), FLOATS)
_STACKED = ((5, 5), FLOATS)
_FOUR_OR_FIVE = ((4, 5), FLOATS)
_TABLE = {
    "QueryTensor": _QKV,
    "KeyTensor": _QKV,
    "ValueTensor": _QKV,
    "StackedQueryKeyTensor": _STACKED,
    "StackedKeyValueTensor": _STACKED,
    "StackedQueryKeyValueTensor": _STACKED,
    "BiasTensor": ((1, 5), FLOATS),
    "MaskTensor": ((1, 5), frozenset({TensorDataType.INT32})),
    "RelativePositionBiasTensor": _FOUR_OR_FIVE,
    "PastKeyTensor": _FOUR_OR_FIVE,
    "PastValueTensor": _FOUR_OR_FIVE,
    "OutputTensor": _QKV,
    "OutputPresentKeyTensor": _FOUR_OR_FIVE,
    "OutputPresentValueTensor": _FOUR_OR_FIVE,
}
_OPTIONAL = frozenset(_TABLE) - {"OutputTensor"}
# The page's table gives PastSequenceLengthsTensor FLOAT32 and FLOAT16, and its constraint puts it in the float
# group; onnxruntime binds an INT32 tensor there. dmlpy follows the page (docs/operators/multihead_attention.md).
_TABLE1 = {**_TABLE, "PastSequenceLengthsTensor": ((1, 5), FLOATS)}


class _AttentionFields(AttentionDesc):
    """The tensors both operators have, in directml.h's order."""

    query_tensor: TensorDesc | None = Field(default=None, alias="QueryTensor")
    """QueryTensor: [batchSize, sequenceLength, hiddenSize], hiddenSize = headCount * headSize (4 or 5 dimensions
    with leading 1s); null where a stacked tensor gives the query."""
    key_tensor: TensorDesc | None = Field(default=None, alias="KeyTensor")
    """KeyTensor: [batchSize, keyValueSequenceLength, hiddenSize]; null where a stacked tensor gives the key."""
    value_tensor: TensorDesc | None = Field(default=None, alias="ValueTensor")
    """ValueTensor: [batchSize, keyValueSequenceLength, valueHiddenSize], valueHiddenSize = headCount *
    valueHeadSize; null where a stacked tensor gives the value."""
    stacked_query_key_tensor: TensorDesc | None = Field(default=None, alias="StackedQueryKeyTensor")
    """StackedQueryKeyTensor: [batchSize, sequenceLength, headCount, 2, headSize], the query then the key."""
    stacked_key_value_tensor: TensorDesc | None = Field(default=None, alias="StackedKeyValueTensor")
    """StackedKeyValueTensor: [batchSize, keyValueSequenceLength, headCount, 2, headSize], the key then the value."""
    stacked_query_key_value_tensor: TensorDesc | None = Field(default=None, alias="StackedQueryKeyValueTensor")
    """StackedQueryKeyValueTensor: [batchSize, sequenceLength, headCount, 3, headSize]."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: [hiddenSize + hiddenSize + valueHiddenSize], added to the query, key and value before the first
    GEMM (2 to 5 dimensions with leading 1s), or null."""
    mask_tensor: TensorDesc | None = Field(default=None, alias="MaskTensor")
    """MaskTensor (INT32): which scores MaskFilterValue masks, read as MaskType says, or null."""
    relative_position_bias_tensor: TensorDesc | None = Field(default=None, alias="RelativePositionBiasTensor")
    """RelativePositionBiasTensor: added to the scores, [batchSize, headCount, sequenceLength,
    totalSequenceLength], or null."""
    past_key_tensor: TensorDesc | None = Field(default=None, alias="PastKeyTensor")
    """PastKeyTensor: [batchSize, headCount, pastSequenceLength, headSize], put before the key, or null."""
    past_value_tensor: TensorDesc | None = Field(default=None, alias="PastValueTensor")
    """PastValueTensor: [batchSize, headCount, pastSequenceLength, valueHeadSize], put before the value, or null."""


class _AttentionOutputs(AttentionDesc):
    """The outputs and the fields both operators have after their head counts' place."""

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: [batchSize, sequenceLength, valueHiddenSize]."""
    output_present_key_tensor: TensorDesc | None = Field(default=None, alias="OutputPresentKeyTensor")
    """OutputPresentKeyTensor: the key with its past, [batchSize, headCount, totalSequenceLength, headSize], or
    null."""
    output_present_value_tensor: TensorDesc | None = Field(default=None, alias="OutputPresentValueTensor")
    """OutputPresentValueTensor: the value with its past, [batchSize, headCount, totalSequenceLength,
    valueHeadSize], or null."""
    scale: float = Field(alias="Scale")
    """Scale (FLOAT): multiplies the query-key product before the softmax, usually 1/sqrt(headSize)."""
    mask_filter_value: float = Field(alias="MaskFilterValue")
    """MaskFilterValue (FLOAT): added to the masked scores, a large negative number (usually -10000)."""

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """The attention's launches (dmlpy/kernels/attention.py), every tensor read through its strides."""
        return plan_of(self, profile)


class MultiheadAttentionOperatorDesc(_AttentionOutputs, _AttentionFields):
    """DML_MULTIHEAD_ATTENTION_OPERATOR_DESC: softmax(Query x Key^T * Scale, plus RelativePositionBias and the
    mask where given) x Value per head, HeadCount heads."""

    OPERATOR_TYPE = OperatorType.MULTIHEAD_ATTENTION
    BUILDER_NAME = "multihead_attention"  # dmlpy/graph/attention.py: MULTIHEAD_ATTENTION1 where heads are grouped
    ONNX_OPS = ("Attention",)  # dmlpy/onnx/attention.py
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, _OPTIONAL, ((L.FL_6_1, _TABLE),))
    SAME_DATA_TYPE = (tuple(name for name in (*AttentionDesc.INPUTS, *AttentionDesc.OUTPUTS) if name != "mask_tensor"),)
    QUERY_HEADS = KV_HEADS = "head_count"

    head_count: UInt32 = Field(alias="HeadCount")
    """HeadCount (UINT): the number of attention heads, at least 1."""
    mask_type: MultiheadAttentionMaskType = Field(alias="MaskType")
    """MaskType: how MaskTensor is read (NONE without one)."""


class _Attention1Fields(_AttentionFields):
    """MULTIHEAD_ATTENTION1's inputs: MULTIHEAD_ATTENTION's, then PastSequenceLengthsTensor."""

    past_sequence_lengths_tensor: TensorDesc | None = Field(default=None, alias="PastSequenceLengthsTensor")
    """PastSequenceLengthsTensor ("TBD" on the page): one past length per batch, [batchSize] (onnxruntime's
    GroupQueryAttention binds it so), or null."""


class MultiheadAttention1OperatorDesc(_AttentionOutputs, _Attention1Fields):
    """DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC: MULTIHEAD_ATTENTION with PastSequenceLengthsTensor and
    QueryHeadCount query heads sharing KeyValueHeadCount key and value heads (grouped-query attention)."""

    OPERATOR_TYPE = OperatorType.MULTIHEAD_ATTENTION1
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, _OPTIONAL | {"PastSequenceLengthsTensor"}, ((L.FL_6_3, _TABLE1),))
    INPUTS = (*AttentionDesc.INPUTS, "past_sequence_lengths_tensor")
    SAME_DATA_TYPE = (tuple(name for name in (*INPUTS, *AttentionDesc.OUTPUTS) if name != "mask_tensor"),)
    QUERY_HEADS, KV_HEADS = "query_head_count", "key_value_head_count"

    query_head_count: UInt32 = Field(alias="QueryHeadCount")
    """QueryHeadCount (UINT; "TBD" on the page): the query's heads, a multiple of KeyValueHeadCount."""
    key_value_head_count: UInt32 = Field(alias="KeyValueHeadCount")
    """KeyValueHeadCount (UINT; "TBD" on the page): the key's and the value's heads, at least 1."""
    mask_type: MultiheadAttentionMaskType = Field(alias="MaskType")
    """MaskType: how MaskTensor is read (NONE without one)."""


ATTENTION_OPERATORS = (MultiheadAttentionOperatorDesc, MultiheadAttention1OperatorDesc)
