"""DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC's tensor support at every feature level, and its own rules.

The expected table is data typed in here from Microsoft's page (docs/operators/element_wise_identity.md names it),
as the page prints it, highest level first: it is not computed from the operator's SUPPORT, which is under test.
"""

from __future__ import annotations

import pytest

import dmlpy as dml

T = dml.TensorDataType
FL = dml.FeatureLevel

# learn.microsoft.com, DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, "Tensor support" (InputTensor and OutputTensor rows
# are identical at every level).
DOCUMENTED = [
    ("DML_FEATURE_LEVEL_4_1", (1, 8),
     "FLOAT64, FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8"),
    ("DML_FEATURE_LEVEL_3_0", (1, 8), "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8"),
    ("DML_FEATURE_LEVEL_2_1", (4, 5), "FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8"),
    ("DML_FEATURE_LEVEL_1_0", (4, 5), "FLOAT32, FLOAT16"),
]  # fmt: skip
ALL_LEVELS = list(FL)
ALL_TYPES = list(T)


def documented_row(level: dml.FeatureLevel) -> tuple[tuple[int, int], set[str]]:
    """The page's table in force at ``level``: the highest "X and above" at or below it."""
    for name, dims, types in DOCUMENTED:
        if dml.FeatureLevel.parse(name) <= level:
            return dims, {t.strip() for t in types.split(",")}
    raise AssertionError(f"no documented row at {level}")


def identity(data_type: dml.TensorDataType, sizes: tuple[int, ...] = (2, 3, 4, 5), **extra: object) -> object:
    td = dml.BufferTensorDesc(data_type=data_type, sizes=sizes)
    return dml.ElementWiseIdentityOperatorDesc(input_tensor=td, output_tensor=td, **extra)


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
@pytest.mark.parametrize("data_type", ALL_TYPES, ids=lambda t: t.name)
def test_data_types_at_every_level(level: dml.FeatureLevel, data_type: dml.TensorDataType) -> None:
    _, types = documented_row(level)
    desc = identity(data_type)  # 4-D: a dimension count every level allows
    if data_type.name in types:
        dml.validate(desc, level)
    else:
        with pytest.raises(dml.InvalidArgumentError, match=r"ELEMENT_WISE_IDENTITY\.InputTensor\.DataType"):
            dml.validate(desc, level)


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
@pytest.mark.parametrize("rank", range(1, 9), ids=lambda r: f"rank{r}")
def test_dimension_counts_at_every_level(level: dml.FeatureLevel, rank: int) -> None:
    (low, high), _ = documented_row(level)
    desc = identity(T.FLOAT16, (2, 1, 3, 1, 2, 1, 2, 1)[:rank])
    if low <= rank <= high:
        dml.validate(desc, level)
    else:
        with pytest.raises(dml.InvalidArgumentError, match=rf"InputTensor\.DimensionCount is {rank}; {level.c_name}"):
            dml.validate(desc, level)


def test_every_level_accepts_the_operator_itself() -> None:
    # Introduced at DML_FEATURE_LEVEL_1_0, the lowest level there is: no level raises UnsupportedError.
    assert min(ALL_LEVELS) == FL.FL_1_0
    for level in ALL_LEVELS:
        dml.validate(identity(T.FLOAT32), level)
    assert dml.ElementWiseIdentityOperatorDesc.SUPPORT.introduced == FL.FL_1_0


def test_refusals_name_the_level_that_allows() -> None:
    with pytest.raises(dml.InvalidArgumentError, match="INT8 from DML_FEATURE_LEVEL_2_1"):
        dml.validate(identity(T.INT8), FL.FL_2_0)
    with pytest.raises(dml.InvalidArgumentError, match="FLOAT64 from DML_FEATURE_LEVEL_4_1"):
        dml.validate(identity(T.FLOAT64), FL.FL_4_0)
    with pytest.raises(dml.InvalidArgumentError, match=r"allows 4 to 5 \(1 to 8 from DML_FEATURE_LEVEL_3_0\)"):
        dml.validate(identity(T.FLOAT32, (6,)), FL.FL_2_1)


def test_level_spellings() -> None:
    for spelling in ("1_0", "1.0", "DML_FEATURE_LEVEL_1_0", 0x1000):
        dml.validate(identity(T.FLOAT16, (1, 2, 3, 4, 5)), spelling)


# ------------------------------------------------------------------------------------------------ operator rules


@pytest.mark.parametrize(
    ("output", "field"),
    [
        ({"data_type": T.FLOAT16, "sizes": (2, 3, 4, 5)}, "DataType"),
        ({"data_type": T.FLOAT32, "sizes": (2, 3, 4, 6)}, "Sizes"),
        ({"data_type": T.FLOAT32, "sizes": (2, 3, 4, 5, 1)}, "DimensionCount"),
    ],
    ids=["data_type", "sizes", "dimension_count"],
)
def test_output_must_match_input(output: dict[str, object], field: str) -> None:
    desc = dml.ElementWiseIdentityOperatorDesc(
        input_tensor=dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=(2, 3, 4, 5)),
        output_tensor=dml.BufferTensorDesc(**output),  # type: ignore[arg-type]
    )
    with pytest.raises(dml.InvalidArgumentError, match=rf"OutputTensor\.{field} is .*must equal InputTensor\.{field}"):
        dml.validate(desc, FL.FL_6_4)


def test_strides_may_differ() -> None:
    desc = dml.ElementWiseIdentityOperatorDesc(
        input_tensor=dml.BufferTensorDesc(data_type=T.UINT16, sizes=(2, 3, 4, 5), strides=(0, 1, 3, 12)),
        output_tensor=dml.BufferTensorDesc(data_type=T.UINT16, sizes=(2, 3, 4, 5), strides=(1, 2, 6, 24)),
    )
    dml.validate(desc, FL.FL_2_1)


SCALE_BIAS = {"Scale": 2.0, "Bias": -1.0}


@pytest.mark.parametrize("data_type", [T.FLOAT64, T.INT64, T.UINT64], ids=lambda t: t.name)
def test_scale_bias_refused_for_64_bit_types(data_type: dml.TensorDataType) -> None:
    dml.validate(identity(data_type), FL.FL_4_1)  # the copy is fine
    desc = identity(data_type, scale_bias=SCALE_BIAS)
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.validate(desc, FL.FL_6_4)
    message = str(error.value)
    assert message.startswith("ELEMENT_WISE_IDENTITY.ScaleBias")
    assert data_type.c_name in message and "null" in message
    # Below 4_1 the support table speaks first: the type itself is not allowed yet.
    with pytest.raises(dml.InvalidArgumentError, match=r"InputTensor\.DataType .* from DML_FEATURE_LEVEL_4_1"):
        dml.validate(desc, FL.FL_4_0)


@pytest.mark.parametrize(
    "data_type",
    [T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8],
    ids=lambda t: t.name,
)
def test_scale_bias_accepted_for_8_to_32_bit_types(data_type: dml.TensorDataType) -> None:
    dml.validate(identity(data_type, scale_bias=SCALE_BIAS), FL.FL_2_1 if data_type.name[0] != "F" else FL.FL_1_0)


def test_device_create_operator_applies_the_same_rules() -> None:
    device = dml.create_device(max_feature_level=FL.FL_2_1)
    device.create_operator(identity(T.UINT8, (1, 2, 3, 4, 5)))
    with pytest.raises(dml.InvalidArgumentError, match="DML_FEATURE_LEVEL_3_0"):
        device.create_operator(identity(T.UINT8, (6,)))


def test_class_declarations() -> None:
    cls = dml.ElementWiseIdentityOperatorDesc
    assert dml.OPERATORS[dml.OperatorType.ELEMENT_WISE_IDENTITY] is cls
    assert cls.OPERATOR_TYPE is dml.OperatorType.ELEMENT_WISE_IDENTITY and cls.OPERATOR_TYPE.value == 1
    assert (cls.INPUTS, cls.OUTPUTS, cls.SUPPORTS_IN_PLACE) == (("input_tensor",), ("output_tensor",), True)
    assert not cls.is_extension()
    assert identity(T.FLOAT32).scale_bias is None  # ScaleBias defaults to null


def test_describe() -> None:
    assert identity(T.INT16).describe() == "ELEMENT_WISE_IDENTITY (INT16)"
    described = identity(T.FLOAT16, scale_bias={"Scale": 0.5, "Bias": 3}).describe()
    assert described == "ELEMENT_WISE_IDENTITY (FLOAT16, Scale 0.5, Bias 3.0)"


def test_explain_lines() -> None:
    (copy,) = identity(T.FLOAT16).explain_lines()
    assert "relayout copy" in copy and "16 bits" in copy
    lines = identity(T.FLOAT32, scale_bias={"Scale": 1.5, "Bias": -2}).explain_lines()
    assert "x * Scale + Bias in float" in lines[0] and "0x1.8p+0f" in lines[0] and "-0x1p+1f" in lines[0]
    assert "no fma" in lines[0]
    assert "own" in lines[1]
