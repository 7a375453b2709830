"""The Pydantic models: frozen, hashable, strict about fields, C names as aliases, derived fields, dispatch."""

from __future__ import annotations

from typing import Any, ClassVar

import pydantic
import pytest

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.factory import round_op, tensor

T = dml.TensorDataType

C_FIELDS: dict[type[pydantic.BaseModel], dict[str, str]] = {
    dml.BufferTensorDesc: {
        "data_type": "DataType",
        "flags": "Flags",
        "dimension_count": "DimensionCount",
        "sizes": "Sizes",
        "strides": "Strides",
        "total_tensor_size_in_bytes": "TotalTensorSizeInBytes",
        "guaranteed_base_offset_alignment": "GuaranteedBaseOffsetAlignment",
    },
    dml.TensorDesc: {"type": "Type", "desc": "Desc"},
    dml.ElementWiseRoundOperatorDesc: {
        "input_tensor": "InputTensor",
        "output_tensor": "OutputTensor",
        "rounding_mode": "RoundingMode",
    },
    dml.OperatorDesc: {"type": "Type", "desc": "Desc"},
}
MODEL_IDS = [cls.__name__ for cls in C_FIELDS]


def _instances() -> dict[type[pydantic.BaseModel], pydantic.BaseModel]:
    rd = round_op()
    return {
        dml.BufferTensorDesc: tensor(),
        dml.TensorDesc: dml.TensorDesc(desc=tensor()),
        dml.ElementWiseRoundOperatorDesc: rd,
        dml.OperatorDesc: dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_ROUND, desc=rd),
    }


# ------------------------------------------------------------------------------------------------ field names


@pytest.mark.parametrize("cls", list(C_FIELDS), ids=MODEL_IDS)
def test_fields_are_snake_case_with_c_aliases_in_declaration_order(cls: type[pydantic.BaseModel]) -> None:
    assert {name: info.alias for name, info in cls.model_fields.items()} == C_FIELDS[cls]
    assert list(cls.model_fields) == list(C_FIELDS[cls])  # the C struct's member order


@pytest.mark.parametrize("cls", list(C_FIELDS), ids=MODEL_IDS)
def test_field_docstrings_name_the_c_member(cls: type[pydantic.BaseModel]) -> None:
    for name, c_name in C_FIELDS[cls].items():
        description = cls.model_fields[name].description
        assert description, f"{cls.__name__}.{name} has no description"
        assert description.startswith(c_name), description


@pytest.mark.parametrize("cls", list(C_FIELDS), ids=MODEL_IDS)
def test_model_dump_by_alias_gives_c_names(cls: type[pydantic.BaseModel]) -> None:
    instance = _instances()[cls]
    assert list(instance.model_dump(by_alias=True)) == list(C_FIELDS[cls].values())
    assert list(instance.model_dump()) == list(C_FIELDS[cls])


def test_nested_dump_by_alias_uses_c_names_all_the_way_down() -> None:
    dumped = _instances()[dml.OperatorDesc].model_dump(by_alias=True)
    assert dumped["Type"] == 99
    inner = dumped["Desc"]["InputTensor"]
    assert inner["Type"] == 1
    assert inner["Desc"] == {
        "DataType": T.FLOAT32,
        "Flags": dml.TensorFlags.NONE,
        "DimensionCount": 4,
        "Sizes": (1, 2, 3, 4),
        "Strides": None,
        "TotalTensorSizeInBytes": 96,  # 24 * 4
        "GuaranteedBaseOffsetAlignment": 0,
    }


def test_c_aliases_and_snake_case_are_both_accepted_and_equal() -> None:
    by_c = dml.BufferTensorDesc(
        DataType="FLOAT16", Flags="NONE", Sizes=[2, 3], Strides=[4, 1], GuaranteedBaseOffsetAlignment=16
    )
    by_snake = dml.BufferTensorDesc(
        data_type=T.FLOAT16,
        flags=dml.TensorFlags.NONE,
        sizes=(2, 3),
        strides=(4, 1),
        guaranteed_base_offset_alignment=16,
    )
    mixed = dml.BufferTensorDesc(DataType=2, sizes=(2, 3), Strides=(4, 1), guaranteed_base_offset_alignment=16)
    assert by_c == by_snake == mixed
    assert by_c.total_tensor_size_in_bytes == 16  # last = 4 + 2 = 6; 7 halves = 14 B -> 16


def test_round_desc_accepts_c_names() -> None:
    td = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
    by_c = dml.ElementWiseRoundOperatorDesc(InputTensor=td, OutputTensor=td, RoundingMode="TOWARD_ZERO")
    assert by_c == round_op(rounding_mode=dml.RoundingMode.TOWARD_ZERO)


# ----------------------------------------------------------------------------------- frozen, hashable, strict


@pytest.mark.parametrize("cls", list(C_FIELDS), ids=MODEL_IDS)
def test_frozen(cls: type[pydantic.BaseModel]) -> None:
    instance = _instances()[cls]
    first_field = next(iter(C_FIELDS[cls]))
    before = getattr(instance, first_field)
    with pytest.raises(dml.InvalidArgumentError, match="frozen") as error:
        setattr(instance, first_field, before)
    assert getattr(instance, first_field) is before
    assert isinstance(error.value.__cause__, pydantic.ValidationError)  # pydantic's words stay reachable


def test_assigning_a_field_says_which_why_and_how_to_get_a_changed_one() -> None:
    desc = round_op(rounding_mode=dml.RoundingMode.TOWARD_ZERO)
    with pytest.raises(dml.InvalidArgumentError) as error:
        desc.rounding_mode = dml.RoundingMode.TOWARD_INFINITY  # type: ignore[misc]
    assert str(error.value) == (
        "ELEMENT_WISE_ROUND.RoundingMode cannot be assigned: descriptors are immutable (frozen, so that they hash "
        "and can key caches); build a new one, ElementWiseRoundOperatorDesc(..., rounding_mode=...), or copy this "
        "one with desc.model_copy(update={'rounding_mode': ...}), which pydantic does not validate"
    )
    with pytest.raises(dml.InvalidArgumentError, match=r"^ELEMENT_WISE_ROUND\.RoundingMode cannot be deleted: "):
        del desc.rounding_mode
    with pytest.raises(dml.InvalidArgumentError) as error:
        desc.mode = 1  # type: ignore[attr-defined]
    assert str(error.value) == (
        "ELEMENT_WISE_ROUND.mode cannot be assigned: ElementWiseRoundOperatorDesc has no such field (its fields: "
        "input_tensor, output_tensor, rounding_mode)"
    )
    assert desc.rounding_mode is dml.RoundingMode.TOWARD_ZERO
    changed = desc.model_copy(update={"rounding_mode": dml.RoundingMode.TOWARD_INFINITY})
    assert changed == round_op(rounding_mode=dml.RoundingMode.TOWARD_INFINITY)


def test_frozen_sizes_are_tuples() -> None:
    desc = dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[1, 2], Strides=[2, 1])
    assert desc.sizes == (1, 2)
    assert isinstance(desc.sizes, tuple)
    assert isinstance(desc.strides, tuple)


@pytest.mark.parametrize("cls", list(C_FIELDS), ids=MODEL_IDS)
def test_hashable_and_equal_by_value(cls: type[pydantic.BaseModel]) -> None:
    one, other = _instances()[cls], _instances()[cls]
    assert one is not other
    assert one == other
    assert hash(one) == hash(other)
    assert len({one, other}) == 1


def test_different_values_are_not_equal() -> None:
    assert tensor() != tensor(data_type=T.FLOAT16)
    assert tensor() != tensor(strides=(24, 12, 4, 1))  # same layout, different struct (Strides non-null)
    assert round_op() != round_op(rounding_mode=dml.RoundingMode.TOWARD_ZERO)
    cache = {round_op(): "a", round_op(rounding_mode=2): "b"}
    assert cache[round_op()] == "a"
    assert len(cache) == 2


@pytest.mark.parametrize(
    ("cls", "good"),
    [
        (dml.BufferTensorDesc, {"DataType": 1, "Sizes": [1]}),
        (dml.TensorDesc, {"Type": 1, "Desc": {"DataType": 1, "Sizes": [1]}}),
        (
            dml.ElementWiseRoundOperatorDesc,
            {"InputTensor": {"DataType": 1, "Sizes": [1]}, "OutputTensor": {"DataType": 1, "Sizes": [1]}},
        ),
    ],
    ids=MODEL_IDS[:3],
)
@pytest.mark.parametrize("bad_key", ["Bogus", "sizes_", "Stride", "roundingMode"])
def test_unknown_fields_rejected(cls: type[pydantic.BaseModel], good: dict[str, Any], bad_key: str) -> None:
    cls.model_validate(good)
    with pytest.raises(dml.InvalidArgumentError, match=f"\\.{bad_key} is not a field here"):
        cls.model_validate({**good, bad_key: 1})


def test_operator_desc_rejects_unknown_fields() -> None:
    good = {"Type": 99, "Desc": round_op()}
    dml.OperatorDesc.model_validate(good)
    with pytest.raises(dml.InvalidArgumentError, match=r"^DML_OPERATOR_DESC\.Bogus is not a field here"):
        dml.OperatorDesc.model_validate({**good, "Bogus": 1})


def test_operator_desc_rejects_unknown_fields_inside_desc() -> None:
    td = {"DataType": 1, "Sizes": [1]}
    with pytest.raises(dml.InvalidArgumentError, match=r"^ELEMENT_WISE_ROUND\.Bogus is not a field here"):
        dml.OperatorDesc.model_validate({"Type": 99, "Desc": {"InputTensor": td, "OutputTensor": td, "Bogus": 1}})


# -------------------------------------------------------------------------------------------- derived fields


def test_dimension_count_is_derived_from_sizes() -> None:
    assert tensor(sizes=(5,)).dimension_count == 1
    assert tensor(sizes=(1, 1, 1, 1, 1, 1, 1, 2)).dimension_count == 8
    assert tensor().dimension_count == 4


def test_dimension_count_is_accepted_when_it_matches() -> None:
    assert tensor(dimension_count=4) == tensor()
    assert dml.BufferTensorDesc(DataType=1, DimensionCount=2, Sizes=[2, 3]).dimension_count == 2


@pytest.mark.parametrize("given", [3, 5, 0])
def test_dimension_count_mismatch_rejected(given: int) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=f"DimensionCount is {given}"):
        tensor(dimension_count=given)


def test_total_size_defaults_to_calc_and_can_be_larger() -> None:
    assert tensor().total_tensor_size_in_bytes == 96  # 24 * 4
    assert tensor(data_type=T.FLOAT16).total_tensor_size_in_bytes == 48  # 24 * 2
    assert tensor(strides=(48, 24, 8, 2)).total_tensor_size_in_bytes == 188  # last 24+16+6=46 -> 47*4
    assert tensor(total_tensor_size_in_bytes=4096).total_tensor_size_in_bytes == 4096


def test_total_size_none_means_calc() -> None:
    # DESIGN.md §2 spells the constructor with total_tensor_size_in_bytes=None meaning "compute it".
    assert tensor(total_tensor_size_in_bytes=None) == tensor()


@pytest.mark.parametrize(
    "strides",
    [(1,), (12, 4, 1), (24, 12, 4, 1, 1)],
    ids=["1-of-4", "3-of-4", "5-of-4"],
)
def test_strides_count_mismatch_rejected_at_construction(strides: tuple[int, ...]) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=f"has {len(strides)} entries"):
        tensor(strides=strides)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("sizes", (1, 2, 3, -4)),
        ("sizes", (1, 2, 3, 2**32)),
        ("strides", (24, 12, 4, -1)),
        ("strides", (2**32, 12, 4, 1)),
        ("total_tensor_size_in_bytes", -4),
        ("total_tensor_size_in_bytes", 2**64),
        ("guaranteed_base_offset_alignment", -16),
        ("guaranteed_base_offset_alignment", 2**32),
        ("sizes", "1234"),
        ("data_type", 1.5),
    ],
    ids=lambda v: str(v),
)
def test_c_integer_ranges_enforced_at_construction(field: str, value: object) -> None:
    # UINT fields hold 0..2^32-1, UINT64 0..2^64-1.
    c_name = dml.BufferTensorDesc.model_fields[field].alias
    with pytest.raises(dml.InvalidArgumentError, match=f"^DML_BUFFER_TENSOR_DESC.{c_name}"):
        tensor(**{field: value})


def test_c_integer_range_edges_accepted() -> None:
    assert tensor(sizes=(1, 1, 1, 2**32 - 1)).sizes[-1] == 4294967295
    assert tensor(total_tensor_size_in_bytes=2**64 - 4).total_tensor_size_in_bytes == 18446744073709551612
    assert tensor(guaranteed_base_offset_alignment=2**31).guaranteed_base_offset_alignment == 2147483648


def test_element_count_and_effective_strides() -> None:
    desc = tensor()
    assert desc.element_count == 24  # 1*2*3*4
    assert desc.effective_strides == (24, 12, 4, 1)  # packed row-major
    assert tensor(strides=(0, 1, 0, 0)).effective_strides == (0, 1, 0, 0)


# ------------------------------------------------------------------------------------------------ TensorDesc


def test_tensor_desc_type_defaults_to_buffer() -> None:
    wrapped = dml.TensorDesc(desc=tensor())
    assert wrapped.type is dml.TensorType.BUFFER
    assert wrapped.desc == tensor()


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(lambda: tensor(), id="bare-BufferTensorDesc"),
        pytest.param(lambda: {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}, id="bare-dict-c-names"),
        pytest.param(lambda: {"data_type": 1, "sizes": (1, 2, 3, 4)}, id="bare-dict-snake"),
        pytest.param(lambda: {"Type": "BUFFER", "Desc": tensor()}, id="wrapped-dict"),
        pytest.param(lambda: dml.TensorDesc(type=dml.TensorType.BUFFER, desc=tensor()), id="TensorDesc"),
    ],
)
def test_tensor_desc_accepts_every_form(given: Any) -> None:
    expected = dml.TensorDesc(type=dml.TensorType.BUFFER, desc=tensor())
    assert dml.TensorDesc.model_validate(given()) == expected
    # Operators take every form for their tensor fields too.
    assert round_op(given(), tensor()).input_tensor == expected


def test_tensor_desc_keeps_an_explicit_invalid_type() -> None:
    # The construction keeps what the C struct says; validation refuses it later (test_validation_round).
    assert dml.TensorDesc(type="INVALID", desc=tensor()).type is dml.TensorType.INVALID


# ---------------------------------------------------------------------------------------------- OperatorDesc


class _NotRound(OperatorDescBase):
    """A stand-in descriptor of another operator, to check that OperatorDesc refuses a mismatched Desc."""

    OPERATOR_TYPE: ClassVar[dml.OperatorType] = dml.OperatorType.QUANTIZE


@pytest.mark.parametrize(
    "type_spelling",
    [dml.OperatorType.ELEMENT_WISE_ROUND, 99, "99", "ELEMENT_WISE_ROUND", "DML_OPERATOR_ELEMENT_WISE_ROUND"],
    ids=str,
)
def test_operator_desc_picks_desc_class_by_type(type_spelling: object) -> None:
    td = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
    op = dml.OperatorDesc(Type=type_spelling, Desc={"InputTensor": td, "OutputTensor": td, "RoundingMode": 1})
    assert op.type is dml.OperatorType.ELEMENT_WISE_ROUND
    assert type(op.desc) is dml.ElementWiseRoundOperatorDesc
    assert op.desc == round_op(rounding_mode=dml.RoundingMode.TOWARD_ZERO)


def test_operator_desc_from_bare_descriptor() -> None:
    op = dml.OperatorDesc.model_validate(round_op())
    assert op == dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_ROUND, desc=round_op())


def test_operator_desc_rejects_a_desc_of_another_operator_class() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="must be a ElementWiseRoundOperatorDesc"):
        dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_ROUND, desc=_NotRound())


def test_operator_desc_rejects_a_type_dmlpy_does_not_implement() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="DML_OPERATOR_INVALID is not implemented"):
        dml.OperatorDesc(type=dml.OperatorType.INVALID, desc=round_op())


@pytest.mark.parametrize(
    ("desc", "problem"),
    [
        pytest.param(lambda: tensor(), "^DML_OPERATOR_DESC.Desc is DML_BUFFER_TENSOR_DESC ", id="BufferTensorDesc"),
        # A dict is read as the operator's fields: a tensor's are not among them.
        pytest.param(
            lambda: {"DataType": 1, "Sizes": [1]}, "ELEMENT_WISE_ROUND.DataType is not a field here", id="tensor-dict"
        ),
        pytest.param(lambda: "round", '^DML_OPERATOR_DESC.Desc is "round"; ', id="string"),
        pytest.param(lambda: None, "^DML_OPERATOR_DESC.Desc is null; ", id="None"),
    ],
)
def test_operator_desc_rejects_a_desc_that_is_not_a_round_desc(desc: Any, problem: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=problem):
        dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_ROUND, desc=desc())


@pytest.mark.parametrize("bad_type", ["ROUNDING", 999, None, [99]], ids=str)  # 999: no DML_OPERATOR_TYPE
def test_operator_desc_rejects_a_bad_type(bad_type: object) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=r"^DML_OPERATOR_DESC\.Type is "):
        dml.OperatorDesc.model_validate({"Type": bad_type, "Desc": round_op()})


def test_round_class_declares_its_operator() -> None:
    cls = dml.ElementWiseRoundOperatorDesc
    assert cls.OPERATOR_TYPE is dml.OperatorType.ELEMENT_WISE_ROUND
    assert cls.INPUTS == ("input_tensor",)
    assert cls.OUTPUTS == ("output_tensor",)
    assert cls.SUPPORTS_IN_PLACE is True
    assert dml.OPERATORS[dml.OperatorType.ELEMENT_WISE_ROUND] is cls
    assert cls.c_field("input_tensor") == "InputTensor"
    assert round_op().rounding_mode is dml.RoundingMode.HALVES_TO_NEAREST_EVEN  # the default
