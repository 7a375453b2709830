"""MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 as descriptors, without OpenCL. The pages have no worked example:
the examples are the pages' shapes in each source form (separate, stacked query and key, stacked key and value,
stacked query, key and value) and onnxruntime's uses (MultiHeadAttention with a past, GroupQueryAttention's 4 query
heads sharing 2); each documented rule broken is refused naming the field and the rule; the "exactly one source"
rule agrees with check_support.py's answer for every presence pattern of the six sources; the output rule agrees
with the attention computed by NumPy's einsum on random arrays (onnxruntime's com.microsoft MultiHeadAttention has
no onnx.reference); JSON, the schema and the command line take them; each plans its launches
(PastSequenceLengthsTensor refused)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run
from tests.helpers.directml_tables import load_checker
from tests.helpers.schema import schema_validator
from tests.helpers.structured import SAMPLES, tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16, I32 = T.FLOAT32, T.FLOAT16, T.INT32
TABLES = Path(__file__).resolve().parents[2] / "data" / "directml-operators"
MHA, MHA1 = dml.MultiheadAttentionOperatorDesc, dml.MultiheadAttention1OperatorDesc
SOURCES = (
    "QueryTensor",
    "KeyTensor",
    "ValueTensor",
    "StackedQueryKeyTensor",
    "StackedKeyValueTensor",
    "StackedQueryKeyValueTensor",
)


def attention(data_type: T = F32, heads: int = 2, **given: Any) -> dml.MultiheadAttentionOperatorDesc:
    """Batch 2, sequence 3, key and value sequence 4, HeadCount ``heads`` of size 4, value heads of size 5: the
    separate form, with ``given`` fields (sizes tuples become tensors of ``data_type``, INT32 for MaskTensor)."""
    fields: dict[str, Any] = {
        "QueryTensor": (2, 3, heads * 4),
        "KeyTensor": (2, 4, heads * 4),
        "ValueTensor": (2, 4, heads * 5),
        "OutputTensor": (2, 3, heads * 5),
        "Scale": 0.5,
        "MaskFilterValue": -10000.0,
        "HeadCount": heads,
        "MaskType": "NONE",
        **given,
    }
    return MHA.model_validate(_tensors(fields, data_type))


def _tensors(fields: dict[str, Any], data_type: T) -> dict[str, Any]:
    typed = {"MaskTensor": I32}
    return {
        name: tensor(typed.get(name, data_type), value) if isinstance(value, tuple) else value
        for name, value in fields.items()
    }


def grouped(**given: Any) -> dml.MultiheadAttention1OperatorDesc:
    """MULTIHEAD_ATTENTION1 as onnxruntime's GroupQueryAttention binds it: 4 query heads sharing 2 key and value
    heads of size 4, batch 2, sequence 1 after a past of 5, PastSequenceLengthsTensor [batchSize]."""
    fields: dict[str, Any] = {
        "QueryTensor": (2, 1, 16),
        "KeyTensor": (2, 1, 8),
        "ValueTensor": (2, 1, 8),
        "PastKeyTensor": (2, 2, 5, 4),
        "PastValueTensor": (2, 2, 5, 4),
        "PastSequenceLengthsTensor": (2,),
        "OutputTensor": (2, 1, 16),
        "OutputPresentKeyTensor": (2, 2, 6, 4),
        "OutputPresentValueTensor": (2, 2, 6, 4),
        "Scale": 0.5,
        "MaskFilterValue": -10000.0,
        "QueryHeadCount": 4,
        "KeyValueHeadCount": 2,
        "MaskType": "NONE",
        **given,
    }
    return MHA1.model_validate(_tensors(fields, F32))


NO_QKV = {"QueryTensor": None, "KeyTensor": None, "ValueTensor": None}
EXAMPLES = {
    "separate, bias, mask, relative position bias, past and present (onnxruntime's MultiHeadAttention)": (
        attention(
            BiasTensor=(8 + 8 + 10,),
            MaskTensor=(1, 2),
            MaskType="KEY_SEQUENCE_LENGTH",
            RelativePositionBiasTensor=(2, 2, 3, 6 + 4),
            PastKeyTensor=(2, 2, 6, 4),
            PastValueTensor=(2, 2, 6, 5),
            OutputPresentKeyTensor=(2, 2, 10, 4),
            OutputPresentValueTensor=(2, 2, 10, 5),
        ),
        FL.FL_6_1,
    ),
    "stacked query, key and value, FLOAT16, 5-D output, boolean mask": (
        attention(
            F16,
            **NO_QKV,
            StackedQueryKeyValueTensor=(2, 3, 2, 3, 4),
            OutputTensor=(1, 1, 2, 3, 8),
            MaskTensor=(2, 2, 3, 3),
            MaskType="DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN",
        ),
        FL.FL_6_1,
    ),
    "stacked query and key, separate value, 4-D value": (
        attention(
            QueryTensor=None,
            KeyTensor=None,
            StackedQueryKeyTensor=(2, 3, 2, 2, 4),
            ValueTensor=(1, 2, 3, 10),
            MaskTensor=(2, 2),
            MaskType=2,
        ),
        FL.FL_6_1,
    ),
    "separate query, stacked key and value, packed mask": (
        attention(
            KeyTensor=None,
            ValueTensor=None,
            StackedKeyValueTensor=(2, 4, 2, 2, 4),
            OutputTensor=(2, 3, 8),
            MaskTensor=(2 * 3 + 2,),
            MaskType="KEY_QUERY_SEQUENCE_LENGTH_START_END",
        ),
        FL.FL_6_1,
    ),
    "MULTIHEAD_ATTENTION1: grouped-query attention (onnxruntime's GroupQueryAttention)": (grouped(), FL.FL_6_3),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_their_level(name: str) -> None:
    desc, level = EXAMPLES[name]
    dml.validate(desc, level)
    below = [lower for lower in FL if lower < level]
    with pytest.raises(dml.UnsupportedError, match=f"needs {level.c_name} or higher"):
        dml.validate(desc, below[-1])


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4) -> None:
    with pytest.raises(dml.InvalidArgumentError) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def test_exactly_one_source_per_role() -> None:
    refused(
        attention(QueryTensor=None),
        "MULTIHEAD_ATTENTION.QueryTensor is null, as are the other tensors that can give the query (QueryTensor, "
        "StackedQueryKeyTensor, StackedQueryKeyValueTensor); exactly one of them must be given (the page: exactly one",
    )
    refused(
        attention(StackedQueryKeyTensor=(2, 3, 2, 2, 4)),
        "MULTIHEAD_ATTENTION.StackedQueryKeyTensor is given with QueryTensor: both give the query",
        "if StackedQueryKey is provided, both the Query and Key tensors must be null",
    )
    refused(attention(**NO_QKV, StackedQueryKeyTensor=(2, 3, 2, 2, 4)), "ValueTensor is null", "give the value")


def test_output_sizes_are_the_rule_with_its_formula() -> None:
    refused(
        attention(OutputTensor=(2, 3, 8)),
        "MULTIHEAD_ATTENTION.OutputTensor.Sizes is [2, 3, 8]; it must be [2, 3, 10]: [batchSize, sequenceLength, "
        "HeadCount * valueHeadSize] = [2, 3, 2 * 5] (batchSize 2 and sequenceLength 3 from QueryTensor, headSize 4, "
        "valueHeadSize 5 from ValueTensor",
    )
    refused(
        attention(OutputPresentKeyTensor=(2, 2, 3, 4)),
        "OutputPresentKeyTensor.Sizes is [2, 2, 3, 4]; it must be [2, 2, 4, 4]: [batchSize, HeadCount, "
        "keyValueSequenceLength, headSize] = [2, 2, 4, 4]",
    )
    refused(
        attention(PastKeyTensor=(2, 2, 6, 4), PastValueTensor=(2, 2, 6, 5), OutputPresentValueTensor=(2, 2, 4, 5)),
        "OutputPresentValueTensor.Sizes is [2, 2, 4, 5]; it must be [2, 2, 10, 5]: [batchSize, HeadCount, "
        "pastSequenceLength + keyValueSequenceLength, valueHeadSize]",
    )
    refused(attention(OutputTensor=(3, 2, 3, 10)), "OutputTensor.Sizes is [3, 2, 3, 10]; it must be [1, 2, 3, 10]")
    refused(
        attention(F16, OutputTensor=tensor(F32, (2, 3, 10))), "OutputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT32"
    )


@pytest.mark.parametrize(
    ("desc", "fragments"),
    [
        (attention(heads=0, QueryTensor=(2, 3, 4), KeyTensor=(2, 4, 4), ValueTensor=(2, 4, 5), OutputTensor=(2, 3, 5)),
         ("MULTIHEAD_ATTENTION.HeadCount is 0; it must be at least 1",)),
        (attention(QueryTensor=(2, 3, 7)),
         ("QueryTensor.Sizes[2] is 7; it must be a multiple of HeadCount (2): hiddenSize = headCount * headSize",)),
        (attention(QueryTensor=(2, 2, 3, 8)),
         ("QueryTensor.Sizes[0] is 2; it must be 1: QueryTensor is [batchSize, sequenceLength, hiddenSize], with "
          "more dimensions only as leading 1s",)),
        (attention(KeyTensor=(2, 4, 6)), ("KeyTensor.Sizes[2] is 6; it must equal HeadCount * headSize (4) (8)",)),
        (attention(KeyTensor=(1, 4, 8)), ("KeyTensor.Sizes[0] is 1; it must equal batchSize, the query's (2)",)),
        (attention(ValueTensor=(2, 5, 10)),
         ("ValueTensor.Sizes[1] is 5; it must equal keyValueSequenceLength, the key's (4)",)),
        (attention(ValueTensor=(2, 4, 9)), ("ValueTensor.Sizes[2] is 9; it must be a multiple of HeadCount (2)",)),
        (attention(**NO_QKV, StackedQueryKeyValueTensor=(2, 3, 2, 2, 4)),
         ("StackedQueryKeyValueTensor.Sizes[3] is 2; it must be 3: [batchSize, length, headCount, 3, headSize]",)),
        (attention(**NO_QKV, StackedQueryKeyValueTensor=(2, 3, 4, 3, 4)),
         ("StackedQueryKeyValueTensor.Sizes[2] is 4; it must equal HeadCount, the query's heads (2)",)),
        (attention(KeyTensor=None, ValueTensor=None, StackedKeyValueTensor=(2, 4, 2, 2, 5)),
         ("StackedKeyValueTensor.Sizes[4] is 5; it must equal headSize, the query's (4)",)),
        (attention(BiasTensor=(1, 24)),
         ("BiasTensor.Sizes ends [24]; it must be [26]: [hiddenSize + hiddenSize + valueHiddenSize]",)),
        (attention(MaskTensor=(1, 2)),
         ("MaskTensor is given while MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE",)),
        (attention(MaskTensor=(2, 1), MaskType="KEY_SEQUENCE_LENGTH"),
         ("MaskTensor.Sizes ends [2, 1]; it must be [1, 2]: [1, batchSize] under MaskType KEY_SEQUENCE_LENGTH",)),
        (attention(MaskTensor=(1, 2), MaskType="KEY_SEQUENCE_END_START"),
         ("MaskTensor.Sizes ends [1, 2]; it must be [2, 2]: [2, batchSize]",)),
        (attention(MaskTensor=(6,), MaskType="KEY_QUERY_SEQUENCE_LENGTH_START_END"),
         ("MaskTensor.Sizes ends [6]; it must be [8]: [batchSize * 3 + 2]",)),
        (attention(MaskTensor=(2, 1, 3, 4), MaskType="BOOLEAN"),
         ("MaskTensor.Sizes ends [2, 1, 3, 4]; it must be [2, 2, 3, 4]: the scores' Sizes, [batchSize, headCount, "
          "sequenceLength, totalSequenceLength] under MaskType BOOLEAN",)),
        (attention(MaskTensor=tensor(T.UINT32, (1, 2)), MaskType="KEY_SEQUENCE_LENGTH"),
         ("MaskTensor.DataType is DML_TENSOR_DATA_TYPE_UINT32; DML_FEATURE_LEVEL_6_4 allows "
          "DML_TENSOR_DATA_TYPE_INT32",)),
        (attention(RelativePositionBiasTensor=(2, 2, 3, 3)),
         ("RelativePositionBiasTensor.Sizes ends [2, 2, 3, 3]; it must be [2, 2, 3, 4]",)),
        (attention(PastKeyTensor=(2, 2, 6, 4)),
         ("PastValueTensor is null while PastKeyTensor is given: give both or neither",)),
        (attention(PastKeyTensor=(2, 2, 6, 4), PastValueTensor=(2, 2, 5, 5)),
         ("PastValueTensor.Sizes[2] is 5; it must equal pastSequenceLength, PastKeyTensor's (6)",)),
        (attention(PastKeyTensor=(2, 1, 6, 4), PastValueTensor=(2, 2, 6, 5)),
         ("PastKeyTensor.Sizes[1] is 1; it must equal HeadCount (2)",)),
        (attention(PastKeyTensor=(2, 2, 6, 4), PastValueTensor=(2, 2, 6, 4)),
         ("PastValueTensor.Sizes[3] is 4; it must equal valueHeadSize (5)",)),
        (attention(BiasTensor=tensor(F16, (26,))),
         ("BiasTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16; it must equal QueryTensor.DataType",
          "must have the same DataType")),
        (attention(**NO_QKV, StackedQueryKeyValueTensor=(2, 3, 2, 3)),
         ("StackedQueryKeyValueTensor.DimensionCount is 4; DML_FEATURE_LEVEL_6_4 allows exactly 5",)),
    ],
    ids=["head count", "query hidden", "leading 1s", "key hidden", "key batch", "value length", "value hidden",
         "stack of 3", "stacked heads", "stacked head size", "bias", "mask without type", "key lengths mask",
         "end-start mask", "packed mask", "boolean mask", "mask type", "relative position bias", "past pair",
         "past lengths", "past heads", "past value head size", "type group", "stacked dimensions"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(desc: OperatorDescBase, fragments: tuple[str, ...]) -> None:
    refused(desc, *fragments)


def test_grouped_query_attention_rules() -> None:
    refused(
        grouped(QueryHeadCount=3, QueryTensor=(2, 1, 12), OutputTensor=(2, 1, 12)),
        "MULTIHEAD_ATTENTION1.QueryHeadCount is 3; it must be a multiple of KeyValueHeadCount (2): each key and "
        "value head serves QueryHeadCount / KeyValueHeadCount query heads (grouped-query attention)",
    )
    refused(grouped(KeyValueHeadCount=0), "MULTIHEAD_ATTENTION1.KeyValueHeadCount is 0; it must be at least 1")
    refused(grouped(KeyTensor=(2, 1, 16)), "KeyTensor.Sizes[2] is 16; it must equal KeyValueHeadCount * headSize (4)")
    refused(grouped(PastSequenceLengthsTensor=(1, 3)), "PastSequenceLengthsTensor.Sizes ends [3]; it must be [2]")
    refused(grouped(PastSequenceLengthsTensor=tensor(I32, (2,))), "PastSequenceLengthsTensor.DataType is")
    stacked = {
        "QueryTensor": None,
        "KeyTensor": None,
        "ValueTensor": None,
        "StackedQueryKeyValueTensor": (2, 1, 4, 3, 4),
    }
    refused(
        grouped(**stacked, PastKeyTensor=None, PastValueTensor=None, OutputPresentKeyTensor=None),
        "StackedQueryKeyValueTensor.Sizes[2] is 4; it must equal KeyValueHeadCount, the key's heads (2)",
    )
    (output, key, value) = grouped().expected_outputs()
    assert output.sizes == (2, 1, 16) and key.sizes == value.sizes == (2, 2, 6, 4) and output.data_type == F32


@pytest.mark.parametrize("operator", ["MULTIHEAD_ATTENTION", "MULTIHEAD_ATTENTION1"])
def test_every_presence_pattern_of_the_sources_agrees_with_check_support(operator: str) -> None:
    """check_support.py's own enumeration leaves at most one nullable tensor out of 13 or 14, so it never reaches a
    descriptor with one source per role: here each of the 64 patterns of the six sources (the other optional tensors
    null, dims 3 to 5, around the operator's level) gets the documented answer."""
    _, spec = load_checker(TABLES)
    build = SAMPLES[operator]
    names = [f["name"] for f in spec.tensor_fields(operator)]
    levels = ("6_0", "6_1", "6_2", "6_3", "6_4")
    accepted = 0
    for present in itertools.product((False, True), repeat=len(SOURCES)):
        types = dict.fromkeys(names)
        types |= {name: "FLOAT32" for name, given in zip(SOURCES, present, strict=True) if given}
        types["OutputTensor"] = "FLOAT32"
        for dims in (3, 4, 5):
            desc = build({n: None if t is None else T[t] for n, t in types.items()}, dims)
            assert desc is not None
            for level in levels:
                want = spec.expected(operator, level, types, dims)
                try:
                    dml.validate(desc, FL.parse(level))
                    got = True
                except dml.DmlError:
                    got = False
                assert got == want, (operator, level, dims, [n for n, t in types.items() if t])
                accepted += got
    assert accepted > 0


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, groups: int) -> np.ndarray:
    """Heads-first q [b, hq, s, d], k [b, hkv, t, d], v [b, hkv, t, dv]: each key and value head serving ``groups``
    query heads; the result [b, s, hq * dv]."""
    k, v = np.repeat(k, groups, axis=1), np.repeat(v, groups, axis=1)
    weights = _softmax(np.einsum("bhsd,bhtd->bhst", q, k) * 0.5)
    out = np.einsum("bhst,bhtv->bhsv", weights, v)
    return out.transpose(0, 2, 1, 3).reshape(out.shape[0], out.shape[2], -1)


@pytest.mark.parametrize("seed", range(8))
def test_output_rule_agrees_with_attention_computed_by_einsum(seed: int) -> None:
    """Random batch, lengths, heads and head sizes, a past or not: the Sizes the rule gives are those of the
    attention NumPy computes from random arrays of the page's shapes, and of the keys and values it concatenates
    (separate sources for MULTIHEAD_ATTENTION1, stacked query, key and value for MULTIHEAD_ATTENTION)."""
    rng = np.random.default_rng(seed)
    b, s, t, past, kv, groups, d, dv = (int(x) for x in rng.integers(1, 5, 8))
    past *= int(rng.integers(0, 2))
    stacked = seed % 2 == 0
    if stacked:
        groups, t, dv = 1, s, d
    hq = kv * groups
    if stacked:
        qkv = rng.standard_normal((b, s, kv, 3, d))
        q, k, v = (qkv[:, :, :, i].transpose(0, 2, 1, 3) for i in range(3))
        inputs = {"stacked_query_key_value_tensor": tensor(F32, qkv.shape)}
    else:
        query, key, value = (rng.standard_normal(shape) for shape in ((b, s, hq * d), (b, t, kv * d), (b, t, kv * dv)))
        q = query.reshape(b, s, hq, d).transpose(0, 2, 1, 3)
        k = key.reshape(b, t, kv, d).transpose(0, 2, 1, 3)
        v = value.reshape(b, t, kv, dv).transpose(0, 2, 1, 3)
        inputs = {name: tensor(F32, x.shape) for name, x in (("query_tensor", query), ("key_tensor", key),
                                                                ("value_tensor", value))}  # fmt: skip
    if past:
        past_k, past_v = rng.standard_normal((b, kv, past, d)), rng.standard_normal((b, kv, past, dv))
        k, v = np.concatenate([past_k, k], axis=2), np.concatenate([past_v, v], axis=2)
        inputs |= {"past_key_tensor": tensor(F32, past_k.shape), "past_value_tensor": tensor(F32, past_v.shape)}
    out = _attend(q, k, v, groups)
    if stacked:
        fields: dict[str, Any] = {"head_count": kv, "mask_type": dml.MultiheadAttentionMaskType.NONE}
        desc_class: type[OperatorDescBase] = MHA
    else:
        fields = {"query_head_count": hq, "key_value_head_count": kv, "mask_type": 0}
        desc_class = MHA1
    shapes = desc_class.output_shapes({name: inputs.get(name) for name in desc_class.INPUTS}, fields)
    assert [shape.sizes for shape in shapes] == [out.shape, k.shape, v.shape]
    assert all(shape.data_type == F32 for shape in shapes)
    sizes = {desc_class.model_fields[name].alias: x.sizes for name, x in inputs.items()}
    outputs = dict(zip(("OutputTensor", "OutputPresentKeyTensor", "OutputPresentValueTensor"),
                       (out.shape, k.shape, v.shape), strict=True))  # fmt: skip
    c_fields = {desc_class.model_fields[name].alias: value for name, value in fields.items()}
    desc = desc_class.model_validate(
        {**_tensors({**sizes, **outputs}, F32), **c_fields, "Scale": 0.5, "MaskFilterValue": -1e4}
    )
    dml.validate(desc, FL.FL_6_4)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc, _ = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    schema_validator().validate(dumped)


def test_enums_take_every_spelling() -> None:
    mask = dml.MultiheadAttentionMaskType
    spellings = ("DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN", "BOOLEAN", 4)
    assert {mask(s) for s in spellings} == {mask.BOOLEAN}
    assert [m.value for m in mask] == [0, 1, 2, 3, 4]
    assert dml.OperatorType("DML_OPERATOR_MULTIHEAD_ATTENTION").value == 164
    assert dml.OperatorType.MULTIHEAD_ATTENTION1.value == 172


def test_fields_are_in_the_headers_order() -> None:
    aliases = [field.alias for field in MHA1.model_fields.values()]
    assert aliases[11:13] == ["PastSequenceLengthsTensor", "OutputTensor"]
    assert aliases[-3:] == ["QueryHeadCount", "KeyValueHeadCount", "MaskType"]
    assert [field.alias for field in MHA.model_fields.values()][-4:] == [
        "Scale",
        "MaskFilterValue",
        "HeadCount",
        "MaskType",
    ]


@pytest.mark.parametrize("name", list(EXAMPLES)[:-1])
def test_each_example_plans_gemm_softmax_gemm(name: str) -> None:
    """The plan's launches end with the scores' GEMM, attention.cl's masked softmax and the output's GEMM."""
    steps = EXAMPLES[name][0].plan().steps
    sources = [(step.lowered.kernel.source_name, step.lowered.kernel.kernel_name) for step in steps]
    assert sources[-3:] == [("gemm.cl", "contraction"), ("attention.cl", "masked_softmax"), ("gemm.cl", "contraction")]


def test_grouped_query_plans_a_launch_per_group_member() -> None:
    """4 query heads on 2 key-value heads: each product is 2 launches (query heads r, r + 2)."""
    steps = grouped(PastSequenceLengthsTensor=None).plan().steps
    kernels = [step.lowered.kernel.source_name for step in steps]
    assert kernels.count("gemm.cl") == 4 and kernels.count("attention.cl") == 1


def test_past_sequence_lengths_is_refused_when_compiled() -> None:
    with pytest.raises(dml.UnsupportedError, match=r"MULTIHEAD_ATTENTION1.*PastSequenceLengthsTensor is given"):
        grouped().plan()


def test_dmlpy_validate_and_explain(run: Run, write_json: Any) -> None:
    desc = EXAMPLES["stacked query and key, separate value, 4-D value"][0]
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"MaskType": "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START"' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_6_1" in result.stdout
    bad = write_json(
        json.loads(dml.OperatorDesc.model_validate(attention(QueryTensor=None)).model_dump_json()), "b.json"
    )
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "MULTIHEAD_ATTENTION.QueryTensor is null" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0, explained.stderr
    assert "3 kernels" in explained.stdout and "masked_softmax in opencl/attention.cl" in explained.stdout
