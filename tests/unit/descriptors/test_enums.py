"""Enums and constants against directml.h (values transcribed from directml-spec.md §1), and how they parse."""

from __future__ import annotations

import enum

import pydantic
import pytest

import dmlpy as dml

# Expected values, transcribed by hand from directml-spec.md §1 (DirectX-Headers DirectML.h). Never computed from
# the enums under test.
EXPECTED: dict[str, dict[str, int]] = {
    "TensorDataType": {
        "UNKNOWN": 0,
        "FLOAT32": 1,
        "FLOAT16": 2,
        "UINT32": 3,
        "UINT16": 4,
        "UINT8": 5,
        "INT32": 6,
        "INT16": 7,
        "INT8": 8,
        "FLOAT64": 9,
        "UINT64": 10,
        "INT64": 11,
        "UINT4": 12,
        "INT4": 13,
    },
    "TensorType": {"INVALID": 0, "BUFFER": 1},
    "TensorFlags": {"NONE": 0, "OWNED_BY_DML": 0x1},
    "RoundingMode": {"HALVES_TO_NEAREST_EVEN": 0, "TOWARD_ZERO": 1, "TOWARD_INFINITY": 2},
    "FeatureLevel": {
        "FL_1_0": 0x1000,
        "FL_2_0": 0x2000,
        "FL_2_1": 0x2100,
        "FL_3_0": 0x3000,
        "FL_3_1": 0x3100,
        "FL_4_0": 0x4000,
        "FL_4_1": 0x4100,
        "FL_5_0": 0x5000,
        "FL_5_1": 0x5100,
        "FL_5_2": 0x5200,
        "FL_6_0": 0x6000,
        "FL_6_1": 0x6100,
        "FL_6_2": 0x6200,
        "FL_6_3": 0x6300,
        "FL_6_4": 0x6400,
    },
    "ExecutionFlags": {
        "NONE": 0,
        "ALLOW_HALF_PRECISION_COMPUTATION": 0x1,
        "DISABLE_META_COMMANDS": 0x2,
        "DESCRIPTORS_VOLATILE": 0x4,
    },
    "BindingType": {"NONE": 0, "BUFFER": 1, "BUFFER_ARRAY": 2},
    "CreateDeviceFlags": {"NONE": 0, "DEBUG": 0x1},
    "Feature": {"TENSOR_DATA_TYPE_SUPPORT": 0, "FEATURE_LEVELS": 1},
    "QuantizationType": {"NONE": 0, "SCALE": 1, "SCALE_ZERO_POINT": 2},
}

# OperatorType is implicit in the header; dmlpy carries only the operators it knows. These must be right.
EXPECTED_OPERATOR_TYPES = {
    "ELEMENT_WISE_IDENTITY": 1,
    "ELEMENT_WISE_QUANTIZE_LINEAR": 33,
    "ELEMENT_WISE_DEQUANTIZE_LINEAR": 34,
    "ELEMENT_WISE_ROUND": 99,
    "QUANTIZE": 173,
    "DEQUANTIZE": 174,
}

# The C spelling of one member of each enum: (enum, C name, member name, value).
C_SPELLINGS = [
    ("TensorDataType", "DML_TENSOR_DATA_TYPE_FLOAT16", "FLOAT16", 2),
    ("TensorDataType", "DML_TENSOR_DATA_TYPE_INT4", "INT4", 13),
    ("TensorType", "DML_TENSOR_TYPE_BUFFER", "BUFFER", 1),
    ("TensorFlags", "DML_TENSOR_FLAG_OWNED_BY_DML", "OWNED_BY_DML", 1),
    ("RoundingMode", "DML_ROUNDING_MODE_TOWARD_ZERO", "TOWARD_ZERO", 1),
    ("RoundingMode", "DML_ROUNDING_MODE_TOWARD_INFINITY", "TOWARD_INFINITY", 2),
    ("FeatureLevel", "DML_FEATURE_LEVEL_2_1", "FL_2_1", 0x2100),
    ("FeatureLevel", "DML_FEATURE_LEVEL_6_4", "FL_6_4", 0x6400),
    ("OperatorType", "DML_OPERATOR_ELEMENT_WISE_ROUND", "ELEMENT_WISE_ROUND", 99),
    ("OperatorType", "DML_OPERATOR_QUANTIZE", "QUANTIZE", 173),
    ("ExecutionFlags", "DML_EXECUTION_FLAG_DISABLE_META_COMMANDS", "DISABLE_META_COMMANDS", 2),
    ("BindingType", "DML_BINDING_TYPE_BUFFER_ARRAY", "BUFFER_ARRAY", 2),
    ("CreateDeviceFlags", "DML_CREATE_DEVICE_FLAG_DEBUG", "DEBUG", 1),
    ("Feature", "DML_FEATURE_FEATURE_LEVELS", "FEATURE_LEVELS", 1),
    ("QuantizationType", "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT", "SCALE_ZERO_POINT", 2),
]


def _members(enum_name: str) -> list[tuple[str, str, int]]:
    return [(enum_name, name, value) for name, value in EXPECTED[enum_name].items()]


ALL_MEMBERS = [row for enum_name in EXPECTED for row in _members(enum_name)]


@pytest.mark.parametrize(("enum_name", "name", "value"), ALL_MEMBERS, ids=[f"{e}.{n}" for e, n, _ in ALL_MEMBERS])
def test_member_value_matches_directml_h(enum_name: str, name: str, value: int) -> None:
    member = getattr(dml, enum_name)[name]
    assert int(member) == value


@pytest.mark.parametrize("enum_name", list(EXPECTED))
def test_enum_has_exactly_the_header_members(enum_name: str) -> None:
    cls = getattr(dml, enum_name)
    assert {m.name: int(m) for m in cls.__members__.values()} == EXPECTED[enum_name]


def test_feature_levels_are_all_fifteen_in_order() -> None:
    levels = list(dml.FeatureLevel)
    assert len(levels) == 15
    assert [int(level) for level in levels] == sorted(EXPECTED["FeatureLevel"].values())
    assert dml.FeatureLevel.FL_2_1 < dml.FeatureLevel.FL_3_0 < dml.FeatureLevel.FL_6_4


@pytest.mark.parametrize(("name", "value"), list(EXPECTED_OPERATOR_TYPES.items()), ids=list(EXPECTED_OPERATOR_TYPES))
def test_operator_type_values(name: str, value: int) -> None:
    assert int(dml.OperatorType[name]) == value


def test_enums_are_int_subclasses() -> None:
    assert issubclass(dml.TensorDataType, enum.IntEnum)
    assert issubclass(dml.TensorFlags, enum.IntFlag)
    assert issubclass(dml.ExecutionFlags, enum.IntFlag)
    assert issubclass(dml.CreateDeviceFlags, enum.IntFlag)
    assert dml.RoundingMode.TOWARD_ZERO == 1


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DML_TENSOR_DIMENSION_COUNT_MAX", 5),
        ("DML_TENSOR_DIMENSION_COUNT_MAX1", 8),
        ("DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT", 16),
        ("DML_TEMPORARY_BUFFER_ALIGNMENT", 256),
        ("DML_PERSISTENT_BUFFER_ALIGNMENT", 256),
    ],
)
def test_constants(name: str, value: int) -> None:
    assert getattr(dml, name) == value


# ---------------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(("enum_name", "c_name", "name", "value"), C_SPELLINGS, ids=[c for _, c, _, _ in C_SPELLINGS])
@pytest.mark.parametrize("how", ["call", "parse"])
def test_every_spelling_parses_to_the_member(enum_name: str, c_name: str, name: str, value: int, how: str) -> None:
    cls = getattr(dml, enum_name)
    expected = cls[name]
    convert = cls if how == "call" else cls.parse
    spellings = [c_name, name, value, str(value), hex(value), c_name.lower(), name.lower(), f"  {c_name} ", expected]
    for spelling in spellings:
        got = convert(spelling)
        assert got is expected, spelling
        assert int(got) == value


@pytest.mark.parametrize(("enum_name", "c_name", "name", "value"), C_SPELLINGS, ids=[c for _, c, _, _ in C_SPELLINGS])
def test_c_name_and_str_give_the_header_spelling(enum_name: str, c_name: str, name: str, value: int) -> None:
    member = getattr(dml, enum_name)[name]
    assert member.c_name == c_name
    assert str(member) == c_name


def test_rounding_mode_design_example() -> None:
    # DESIGN.md: "DML_ROUNDING_MODE_TOWARD_ZERO" == "TOWARD_ZERO" == 1 == dml.RoundingMode.TOWARD_ZERO
    mode = dml.RoundingMode
    assert mode("DML_ROUNDING_MODE_TOWARD_ZERO") is mode("TOWARD_ZERO") is mode(1) is mode.TOWARD_ZERO


@pytest.mark.parametrize(
    "spelling",
    ["2_1", "FL_2_1", "DML_FEATURE_LEVEL_2_1", "2.1", 0x2100, 8448, "0x2100", "8448", "dml_feature_level_2_1"],
)
def test_feature_level_spellings(spelling: object) -> None:
    assert dml.FeatureLevel(spelling) is dml.FeatureLevel.FL_2_1


@pytest.mark.parametrize(
    ("cls_name", "text", "value"),
    [
        ("TensorFlags", "OWNED_BY_DML|NONE", 1),
        ("TensorFlags", "DML_TENSOR_FLAG_NONE|DML_TENSOR_FLAG_OWNED_BY_DML", 1),
        ("TensorFlags", "NONE", 0),
        ("ExecutionFlags", "ALLOW_HALF_PRECISION_COMPUTATION|DESCRIPTORS_VOLATILE", 0x1 | 0x4),
        ("ExecutionFlags", "DML_EXECUTION_FLAG_DISABLE_META_COMMANDS | DML_EXECUTION_FLAG_DESCRIPTORS_VOLATILE", 0x6),
        (
            "ExecutionFlags",
            "ALLOW_HALF_PRECISION_COMPUTATION|DISABLE_META_COMMANDS|DESCRIPTORS_VOLATILE",
            0x7,
        ),
        ("ExecutionFlags", "1|2", 0x3),
        ("CreateDeviceFlags", "DML_CREATE_DEVICE_FLAG_DEBUG", 0x1),
    ],
)
def test_flag_combinations(cls_name: str, text: str, value: int) -> None:
    cls = getattr(dml, cls_name)
    assert cls(text) == value
    assert cls.parse(text) == value


def test_flag_combination_c_name_round_trips() -> None:
    flags = dml.ExecutionFlags(0x3)
    assert (
        flags.c_name == "DML_EXECUTION_FLAG_ALLOW_HALF_PRECISION_COMPUTATION|DML_EXECUTION_FLAG_DISABLE_META_COMMANDS"
    )
    assert dml.ExecutionFlags(flags.c_name) == 0x3
    assert dml.TensorFlags.NONE.c_name == "DML_TENSOR_FLAG_NONE"
    assert dml.ExecutionFlags(0).c_name == "DML_EXECUTION_FLAG_NONE"


@pytest.mark.parametrize(
    ("cls_name", "bad"),
    [
        ("TensorDataType", "FLOAT128"),
        ("TensorDataType", "DML_TENSOR_DATA_TYPE_"),
        ("TensorDataType", ""),
        ("TensorDataType", 14),
        ("TensorDataType", -1),
        ("TensorDataType", "DML_ROUNDING_MODE_TOWARD_ZERO"),
        ("RoundingMode", "TOWARD_NEGATIVE_INFINITY"),
        ("RoundingMode", 3),
        ("RoundingMode", "3"),
        ("FeatureLevel", "9_9"),
        ("FeatureLevel", 0x2500),
        ("FeatureLevel", "DML_FEATURE_LEVEL_7_0"),
        ("OperatorType", "ELEMENT_WISE_FLOOR_DIVIDE_BY_ZERO"),
        ("TensorType", "TEXTURE"),
        ("TensorFlags", "OWNED_BY_APP"),
        ("TensorFlags", "OWNED_BY_DML|BOGUS"),
        ("TensorFlags", "OWNED_BY_DML|"),
        ("ExecutionFlags", "FAST"),
        ("BindingType", "TEXTURE"),
        ("Feature", "TENSOR"),
        ("QuantizationType", "ASYMMETRIC"),
    ],
    ids=lambda v: str(v),
)
def test_bad_name_raises_value_error(cls_name: str, bad: object) -> None:
    cls = getattr(dml, cls_name)
    with pytest.raises(ValueError):
        cls(bad)
    with pytest.raises(ValueError):
        cls.parse(bad)


@pytest.mark.parametrize(
    ("cls_name", "bad"),
    [("TensorFlags", 2), ("TensorFlags", -1), ("ExecutionFlags", 8), ("CreateDeviceFlags", 2)],
    ids=["TensorFlags-2", "TensorFlags-minus1", "ExecutionFlags-8", "CreateDeviceFlags-2"],
)
def test_flags_with_undefined_bits_are_refused(cls_name: str, bad: int) -> None:
    # DML_TENSOR_FLAGS defines only bit 0; -1 must not silently turn into OWNED_BY_DML, 2 must not become a
    # member whose c_name is the empty string.
    with pytest.raises(ValueError):
        getattr(dml, cls_name)(bad)


# ------------------------------------------------------------------------------------------- inside pydantic


@pytest.mark.parametrize(
    "spelling",
    ["DML_TENSOR_DATA_TYPE_FLOAT16", "FLOAT16", "float16", 2, "2", "0x2", dml.TensorDataType.FLOAT16],
    ids=str,
)
def test_data_type_field_accepts_every_spelling_python_mode(spelling: object) -> None:
    desc = dml.BufferTensorDesc(DataType=spelling, Sizes=[2])
    assert desc.data_type is dml.TensorDataType.FLOAT16


@pytest.mark.parametrize("spelling", ['"DML_TENSOR_DATA_TYPE_FLOAT16"', '"FLOAT16"', "2", '"2"'])
def test_data_type_field_accepts_every_spelling_json_mode(spelling: str) -> None:
    desc = dml.BufferTensorDesc.model_validate_json(f'{{"DataType": {spelling}, "Sizes": [2]}}')
    assert desc.data_type is dml.TensorDataType.FLOAT16


@pytest.mark.parametrize(
    "spelling", ["DML_TENSOR_FLAG_OWNED_BY_DML", "OWNED_BY_DML", "OWNED_BY_DML|NONE", 1, "1"], ids=str
)
def test_flags_field_accepts_names_and_combinations(spelling: object) -> None:
    desc = dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[2], Flags=spelling)
    assert desc.flags == dml.TensorFlags.OWNED_BY_DML
    json_value = spelling if isinstance(spelling, int) else f'"{spelling}"'
    from_json = dml.BufferTensorDesc.model_validate_json(f'{{"DataType": 1, "Sizes": [2], "Flags": {json_value}}}')
    assert from_json.flags == dml.TensorFlags.OWNED_BY_DML


@pytest.mark.parametrize(
    "spelling", ["DML_ROUNDING_MODE_TOWARD_INFINITY", "TOWARD_INFINITY", 2, "2", dml.RoundingMode.TOWARD_INFINITY]
)
def test_rounding_mode_field_accepts_every_spelling(spelling: object) -> None:
    td = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
    desc = dml.ElementWiseRoundOperatorDesc(InputTensor=td, OutputTensor=td, RoundingMode=spelling)
    assert desc.rounding_mode is dml.RoundingMode.TOWARD_INFINITY


@pytest.mark.parametrize(
    ("field", "bad"),
    [("DataType", "FLOAT128"), ("DataType", 14), ("Flags", "OWNED_BY_APP"), ("Flags", "OWNED_BY_DML|BOGUS")],
)
def test_bad_name_in_model_raises_invalid_argument_error(field: str, bad: object) -> None:
    fields: dict[str, object] = {"DataType": "FLOAT32", "Sizes": [2], field: bad}
    with pytest.raises(dml.InvalidArgumentError, match=f"^DML_BUFFER_TENSOR_DESC.{field} is ") as info:
        dml.BufferTensorDesc(**fields)
    cause = info.value.__cause__
    assert isinstance(cause, pydantic.ValidationError) and cause.errors()[0]["loc"][0] == field
    with pytest.raises(dml.InvalidArgumentError, match=f"^DML_BUFFER_TENSOR_DESC.{field} is "):
        dml.BufferTensorDesc.model_validate_json(pydantic.TypeAdapter(dict).dump_json(fields))


@pytest.mark.parametrize("bad", ["HALVES_AWAY", 3, "DML_ROUNDING_MODE_CEIL"])
def test_bad_rounding_mode_in_model_raises_invalid_argument_error(bad: object) -> None:
    td = {"DataType": "FLOAT32", "Sizes": [1, 2, 3, 4]}
    with pytest.raises(dml.InvalidArgumentError, match=r"^ELEMENT_WISE_ROUND\.RoundingMode is .* TOWARD_INFINITY"):
        dml.ElementWiseRoundOperatorDesc(InputTensor=td, OutputTensor=td, RoundingMode=bad)
