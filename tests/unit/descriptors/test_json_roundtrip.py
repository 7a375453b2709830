"""Hypothesis properties: valid descriptors survive JSON both ways; junk fails only with the documented errors."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlpy as dml

T = dml.TensorDataType
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------------------------ strategies


def _packed(sizes: tuple[int, ...]) -> tuple[int, ...]:
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    return tuple(strides)


@st.composite
def output_strides(draw: st.DrawFn, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
    """None, or a non-overlapping layout: dimensions nested in a random order, each padded by a random amount."""
    if draw(st.booleans()):
        return None
    order = draw(st.permutations(range(len(sizes))))  # innermost first
    strides = [0] * len(sizes)
    reach = 1
    for dim in order:
        strides[dim] = reach + draw(st.integers(0, 3))
        reach = strides[dim] * sizes[dim]
    return tuple(strides)


@st.composite
def input_strides(draw: st.DrawFn, sizes: tuple[int, ...]) -> tuple[int, ...] | None:
    """None, packed, padded, or anything with broadcast (0) strides: inputs may overlap freely."""
    kind = draw(st.sampled_from(["none", "packed", "random"]))
    if kind == "none":
        return None
    if kind == "packed":
        return _packed(sizes)
    return tuple(draw(st.lists(st.integers(0, 40), min_size=len(sizes), max_size=len(sizes))))


@st.composite
def valid_round(draw: st.DrawFn) -> dml.ElementWiseRoundOperatorDesc:
    data_type = draw(st.sampled_from([T.FLOAT32, T.FLOAT16]))
    rank = draw(st.integers(1, 8))
    sizes = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    alignment = draw(st.sampled_from([0, 4, 16, 256]))
    tensors = []
    for strides in (draw(input_strides(sizes)), draw(output_strides(sizes))):
        plain = dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)
        extra = 4 * draw(st.integers(0, 3))  # a larger TotalTensorSizeInBytes is allowed if it stays DWORD-sized
        tensors.append(
            dml.BufferTensorDesc(
                data_type=data_type,
                sizes=sizes,
                strides=strides,
                total_tensor_size_in_bytes=plain.total_tensor_size_in_bytes + extra,
                guaranteed_base_offset_alignment=alignment,
                flags=draw(st.sampled_from([dml.TensorFlags.NONE, dml.TensorFlags.OWNED_BY_DML]))
                if not tensors
                else dml.TensorFlags.NONE,
            )
        )
    return dml.ElementWiseRoundOperatorDesc(
        input_tensor=tensors[0], output_tensor=tensors[1], rounding_mode=draw(st.sampled_from(list(dml.RoundingMode)))
    )


# ----------------------------------------------------------------------------------------------- round trips


def _round_trip(model: pydantic.BaseModel) -> None:
    cls = type(model)
    for text in (model.model_dump_json(by_alias=True), model.model_dump_json()):
        back = cls.model_validate_json(text)
        assert back == model
        assert hash(back) == hash(model)
    for data in (model.model_dump(by_alias=True), model.model_dump(), model.model_dump(mode="json", by_alias=True)):
        assert cls.model_validate(data) == model


@FAST
@given(valid_round())
def test_valid_round_descriptor_round_trips(op: dml.ElementWiseRoundOperatorDesc) -> None:
    _round_trip(op)
    _round_trip(op.input_tensor)
    _round_trip(op.output_tensor.desc)


@FAST
@given(valid_round())
def test_valid_operator_desc_round_trips(op: dml.ElementWiseRoundOperatorDesc) -> None:
    wrapped = dml.OperatorDesc.model_validate(op)
    _round_trip(wrapped)
    dumped = json.loads(wrapped.model_dump_json(by_alias=True))
    assert dumped["Type"] == 99
    assert set(dumped["Desc"]) == {"InputTensor", "OutputTensor", "RoundingMode"}


@FAST
@given(valid_round())
def test_generated_valid_descriptors_validate(op: dml.ElementWiseRoundOperatorDesc) -> None:
    # The strategy only builds descriptors that break no rule (non-overlapping outputs, totals >= DMLCalc, ...).
    assert dml.validate(op, dml.FeatureLevel.FL_3_0) is None
    assert dml.validate(dml.OperatorDesc.model_validate(op), "6_4") is None


# ------------------------------------------------------------------------------------------------------- junk

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)

KEYS = [
    "Type",
    "Desc",
    "type",
    "desc",
    "DataType",
    "Flags",
    "DimensionCount",
    "Sizes",
    "Strides",
    "TotalTensorSizeInBytes",
    "GuaranteedBaseOffsetAlignment",
    "data_type",
    "sizes",
    "strides",
    "InputTensor",
    "OutputTensor",
    "RoundingMode",
    "input_tensor",
    "Bogus",
    "",
]

leaf_values = st.one_of(
    json_like,
    st.sampled_from(["FLOAT32", "DML_TENSOR_DATA_TYPE_FLOAT16", "ELEMENT_WISE_ROUND", "OWNED_BY_DML|NONE", "99"]),
    st.integers(-(2**70), 2**70),
    st.lists(st.integers(-5, 2**33), max_size=10),
)
keyed_dicts = st.recursive(
    st.dictionaries(st.sampled_from(KEYS), leaf_values, max_size=6),
    lambda children: st.dictionaries(st.sampled_from(KEYS), children | leaf_values, max_size=6),
    max_leaves=10,
)
# Any Python object, except signalling-NaN Decimals: hashing one raises decimal.InvalidOperation inside the standard
# library's Enum lookup, which pydantic lets through for every IntEnum field (a plain pydantic model does the same);
# not a dmlpy matter.
python_objects = st.from_type(object).filter(lambda x: "sNaN" not in repr(x))
junk = st.one_of(json_like, keyed_dicts, python_objects)

MODELS = [dml.BufferTensorDesc, dml.TensorDesc, dml.ElementWiseRoundOperatorDesc, dml.OperatorDesc]
ALLOWED = (pydantic.ValidationError, dml.DmlError)


def _only_documented_errors(call: Any) -> None:
    with contextlib.suppress(ALLOWED):
        call()


@FUZZ
@given(junk)
def test_junk_to_model_validate_raises_only_documented_errors(data: object) -> None:
    for cls in MODELS:
        _only_documented_errors(lambda cls=cls: cls.model_validate(data))


@FUZZ
@given(st.one_of(json_like, keyed_dicts))
def test_junk_json_to_model_validate_json_raises_only_documented_errors(data: object) -> None:
    text = json.dumps(data)
    for cls in MODELS:
        _only_documented_errors(lambda cls=cls: cls.model_validate_json(text))


@FUZZ
@given(st.text(max_size=60) | st.binary(max_size=60))
def test_random_strings_to_model_validate_json_raise_only_validation_error(text: str | bytes) -> None:
    for cls in MODELS:
        _only_documented_errors(lambda cls=cls: cls.model_validate_json(text))


VALID_OP_JSON = dml.OperatorDesc.model_validate(
    dml.ElementWiseRoundOperatorDesc(
        InputTensor={"DataType": 1, "Sizes": [1, 2, 3, 4]}, OutputTensor={"DataType": 1, "Sizes": [1, 2, 3, 4]}
    )
).model_dump(by_alias=True, mode="json")


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [prefix] + [p for key, value in node.items() for p in _paths(value, (*prefix, key))]
    return [prefix]


@FUZZ
@given(st.sampled_from(_paths(VALID_OP_JSON)[1:]), leaf_values | keyed_dicts)
def test_one_field_replaced_by_junk_raises_only_documented_errors(path: tuple[str, ...], value: object) -> None:
    data = json.loads(json.dumps(VALID_OP_JSON))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    _only_documented_errors(lambda: dml.OperatorDesc.model_validate(data))
    _only_documented_errors(lambda: dml.OperatorDesc.model_validate_json(json.dumps(data)))
    _only_documented_errors(lambda: dml.ElementWiseRoundOperatorDesc.model_validate(data["Desc"]))


@FUZZ
@given(junk)
def test_enum_parse_raises_only_value_error(value: object) -> None:
    for cls in (dml.TensorDataType, dml.TensorFlags, dml.RoundingMode, dml.FeatureLevel, dml.OperatorType):
        try:
            member = cls.parse(value)  # type: ignore[arg-type]
        except ValueError:
            continue
        assert isinstance(member, cls)


@pytest.mark.parametrize("cls", MODELS, ids=[c.__name__ for c in MODELS])
def test_empty_and_truncated_json_raise_validation_error(cls: type[pydantic.BaseModel]) -> None:
    for text in ("", "{", "null", "[]", '{"Type": }', json.dumps(VALID_OP_JSON)[:-1]):
        with pytest.raises(dml.InvalidArgumentError):
            cls.model_validate_json(text)
