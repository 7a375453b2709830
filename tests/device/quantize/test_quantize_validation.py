"""dml.validate for ELEMENT_WISE_QUANTIZE_LINEAR and ELEMENT_WISE_DEQUANTIZE_LINEAR against every feature level.

The expected tables below are written out by hand from directml-spec.md §4 (the DirectML operator pages and the
feature-level history), independently of dmlpy's support tables. A row holds from its level up to the next
row's level, so every one of the 15 levels is checked against the row in force there.
"""

from __future__ import annotations

from typing import Any

import pytest

import dmlpy as dml
from dmlpy.extensions import ExtElementWiseQuantizeLinearOperatorDesc

T = dml.TensorDataType
FL = dml.FeatureLevel
FIELDS = ("InputTensor", "ScaleTensor", "ZeroPointTensor", "OutputTensor")
INTEGERS = frozenset({T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32})


def _row(dims: tuple[int, int], input_: set[T], scale: set[T], zero_point: set[T], output: set[T], optional: bool):
    return {
        "dims": dims,
        "types": dict(zip(FIELDS, map(frozenset, (input_, scale, zero_point, output)), strict=True)),
        "zero_point_optional": optional,
    }


# directml-spec.md §4, "ELEMENT_WISE_QUANTIZE_LINEAR" table.
QUANTIZE_ROWS = {
    FL.FL_1_0: _row((4, 4), {T.FLOAT32}, {T.FLOAT32}, {T.UINT8}, {T.UINT8}, False),
    FL.FL_2_1: _row((4, 4), {T.FLOAT32, T.INT32}, {T.FLOAT32}, {T.INT8, T.UINT8}, {T.INT8, T.UINT8}, False),
    FL.FL_3_0: _row((1, 8), {T.FLOAT32, T.INT32}, {T.FLOAT32}, {T.INT8, T.UINT8}, {T.INT8, T.UINT8}, False),
    FL.FL_6_0: _row(
        (1, 8), {T.FLOAT32, T.FLOAT16, T.INT32}, {T.FLOAT32, T.FLOAT16}, {T.INT8, T.UINT8}, {T.INT8, T.UINT8}, False
    ),
    FL.FL_6_2: _row(
        (1, 8), {T.FLOAT32, T.FLOAT16, T.INT32}, {T.FLOAT32, T.FLOAT16}, {T.INT8, T.UINT8}, {T.INT8, T.UINT8}, True
    ),
}
# directml-spec.md §4, "DEQUANTIZE_LINEAR" list.
DEQUANTIZE_ROWS = {
    FL.FL_1_0: _row((4, 4), {T.UINT8}, {T.FLOAT32}, {T.UINT8}, {T.FLOAT32}, False),
    FL.FL_2_1: _row((4, 4), INTEGERS, {T.FLOAT32}, INTEGERS, {T.FLOAT32}, False),
    FL.FL_3_0: _row((1, 8), INTEGERS, {T.FLOAT32}, INTEGERS, {T.FLOAT32}, False),
    FL.FL_6_0: _row((1, 8), INTEGERS, {T.FLOAT32, T.FLOAT16}, INTEGERS, {T.FLOAT32, T.FLOAT16}, False),
    FL.FL_6_2: _row((1, 8), INTEGERS, {T.FLOAT32, T.FLOAT16}, INTEGERS, {T.FLOAT32, T.FLOAT16}, True),
}
OPS = {
    "quantize": (dml.ElementWiseQuantizeLinearOperatorDesc, QUANTIZE_ROWS, "ELEMENT_WISE_QUANTIZE_LINEAR"),
    "dequantize": (dml.ElementWiseDequantizeLinearOperatorDesc, DEQUANTIZE_ROWS, "ELEMENT_WISE_DEQUANTIZE_LINEAR"),
}
LEVELS = list(FL)
SIZES = {1: (3,), 2: (2, 3), 3: (2, 1, 3), 4: (1, 2, 3, 4), 5: (2, 1, 2, 1, 3), 6: (1, 2, 1, 2, 1, 3)}
SIZES.update({7: (2, 1, 1, 2, 1, 1, 3), 8: (1, 2, 1, 1, 2, 1, 1, 3), 9: (1, 1, 2, 1, 1, 1, 1, 1, 3)})


def lid(level: FL) -> str:
    return level.c_name.removeprefix("DML_FEATURE_LEVEL_")


def row_in_force(rows: dict[FL, Any], level: FL) -> dict[str, Any]:
    return rows[max(row for row in rows if row <= level)]


def consistent_combos(op: str, level: FL) -> list[dict[str, T]]:
    """Every type assignment the row allows that also keeps the cross-tensor type rules."""
    types = row_in_force(OPS[op][1], level)["types"]
    combos = []
    for source in sorted(types["InputTensor"]):
        if op == "quantize":
            scales = {T.FLOAT32} if source == T.INT32 else {source}
            for scale in sorted(scales & types["ScaleTensor"]):
                for out in sorted(types["OutputTensor"]):
                    combos.append(dict(zip(FIELDS, (source, scale, out, out), strict=True)))
        else:
            for scale in sorted(types["ScaleTensor"]):
                combos.append(dict(zip(FIELDS, (source, scale, source, scale), strict=True)))
    return combos


def tensor(data_type: T, sizes: tuple[int, ...] = SIZES[4], strides: tuple[int, ...] | None = None):
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def make(
    op: str,
    types: dict[str, T],
    *,
    sizes: dict[str, tuple[int, ...]] | None = None,
    null_zero_point=False,
    strides: dict[str, tuple[int, ...]] | None = None,
    dims: int = 4,
):
    sizes = sizes or {}
    strides = strides or {}
    tensors = {field: tensor(types[field], sizes.get(field, SIZES[dims]), strides.get(field)) for field in FIELDS}
    if null_zero_point:
        tensors["ZeroPointTensor"] = None
    return OPS[op][0](**tensors)


def first_combo(op: str, level: FL) -> dict[str, T]:
    return consistent_combos(op, level)[0]


# ---------------------------------------------------------------------------------------------------------------
# Valid descriptors: every consistent type combination of every row, at every level.

VALID_CASES = [
    pytest.param(op, level, combo, id=f"{op}-FL{lid(level)}-valid-" + "-".join(combo[f].name for f in FIELDS))
    for op in OPS
    for level in LEVELS
    for combo in consistent_combos(op, level)
]


@pytest.mark.parametrize(("op", "level", "combo"), VALID_CASES)
def test_valid_type_combination(op, level, combo):
    assert dml.validate(make(op, combo), level) is None


# ---------------------------------------------------------------------------------------------------------------
# Each disallowed data type, one tensor at a time.


def _type_cases():
    for op, (_, rows, _) in OPS.items():
        for level in LEVELS:
            allowed = row_in_force(rows, level)["types"]
            for field in FIELDS:
                for data_type in T:
                    if data_type not in allowed[field]:
                        yield pytest.param(
                            op, level, field, data_type, id=f"{op}-FL{lid(level)}-{field}-{data_type.name}-refused"
                        )


@pytest.mark.parametrize(("op", "level", "field", "data_type"), list(_type_cases()))
def test_disallowed_data_type(op, level, field, data_type):
    types = dict(first_combo(op, level))
    types[field] = data_type
    with pytest.raises(dml.InvalidArgumentError, match=rf"{OPS[op][2]}\.{field}\.DataType"):
        dml.validate(make(op, types), level)


def _allowed_type_cases():
    for op, (_, rows, _) in OPS.items():
        for level in LEVELS:
            allowed = row_in_force(rows, level)["types"]
            for field in FIELDS:
                for data_type in sorted(allowed[field]):
                    yield pytest.param(op, level, field, data_type, id=f"{op}-FL{lid(level)}-{field}-{data_type.name}")


@pytest.mark.parametrize(("op", "level", "field", "data_type"), list(_allowed_type_cases()))
def test_every_allowed_type_has_a_valid_descriptor(op, level, field, data_type):
    combos = [combo for combo in consistent_combos(op, level) if combo[field] == data_type]
    assert combos, "the spec table offers this type but no consistent combination uses it"
    dml.validate(make(op, combos[0]), level)


# ---------------------------------------------------------------------------------------------------------------
# Dimension counts.

DIM_CASES = [
    pytest.param(
        op,
        level,
        dims,
        id=f"{op}-FL{lid(level)}-dims{dims}-"
        + (
            "valid"
            if row_in_force(OPS[op][1], level)["dims"][0] <= dims <= row_in_force(OPS[op][1], level)["dims"][1]
            else "refused"
        ),
    )
    for op in OPS
    for level in LEVELS
    for dims in range(1, 10)
]


@pytest.mark.parametrize(("op", "level", "dims"), DIM_CASES)
def test_dimension_count(op, level, dims):
    low, high = row_in_force(OPS[op][1], level)["dims"]
    desc = make(op, first_combo(op, level), dims=dims)
    if low <= dims <= high:
        dml.validate(desc, level)
    else:
        with pytest.raises(dml.InvalidArgumentError, match=rf"InputTensor\.DimensionCount is {dims}"):
            dml.validate(desc, level)


# ---------------------------------------------------------------------------------------------------------------
# ZeroPointTensor null: optional from DML_FEATURE_LEVEL_6_2 only.


@pytest.mark.parametrize("level", LEVELS, ids=[f"FL{lid(level)}" for level in LEVELS])
@pytest.mark.parametrize("op", list(OPS))
def test_null_zero_point(op, level):
    desc = make(op, first_combo(op, level), null_zero_point=True)
    if level >= FL.FL_6_2:
        assert dml.validate(desc, level) is None
    else:
        with pytest.raises(dml.InvalidArgumentError, match=r"ZeroPointTensor is null") as error:
            dml.validate(desc, level)
        assert "optional from DML_FEATURE_LEVEL_6_2" in str(error.value)
        assert level.c_name in str(error.value)


# ---------------------------------------------------------------------------------------------------------------
# Cross-tensor type rules.


def _at_levels(minimum: FL):
    return [level for level in LEVELS if level >= minimum]


CROSS_TYPE_CASES = []
for _level in _at_levels(FL.FL_2_1):
    for _zp, _out in ((T.INT8, T.UINT8), (T.UINT8, T.INT8)):
        CROSS_TYPE_CASES.append(
            pytest.param(
                "quantize",
                _level,
                {"InputTensor": T.FLOAT32, "ScaleTensor": T.FLOAT32, "ZeroPointTensor": _zp, "OutputTensor": _out},
                ("ZeroPointTensor", "OutputTensor"),
                id=f"quantize-FL{lid(_level)}-zero_point_{_zp.name}_vs_output_{_out.name}",
            )
        )
    for _in, _zp in (
        (T.INT8, T.UINT8),
        (T.UINT8, T.INT8),
        (T.INT32, T.UINT32),
        (T.UINT16, T.INT16),
        (T.INT8, T.INT16),
        (T.UINT32, T.UINT8),
    ):
        CROSS_TYPE_CASES.append(
            pytest.param(
                "dequantize",
                _level,
                {"InputTensor": _in, "ScaleTensor": T.FLOAT32, "ZeroPointTensor": _zp, "OutputTensor": T.FLOAT32},
                ("ZeroPointTensor", "InputTensor"),
                id=f"dequantize-FL{lid(_level)}-input_{_in.name}_vs_zero_point_{_zp.name}",
            )
        )
for _level in _at_levels(FL.FL_6_0):
    for _in, _scale in ((T.INT32, T.FLOAT16), (T.FLOAT32, T.FLOAT16), (T.FLOAT16, T.FLOAT32)):
        CROSS_TYPE_CASES.append(
            pytest.param(
                "quantize",
                _level,
                {"InputTensor": _in, "ScaleTensor": _scale, "ZeroPointTensor": T.UINT8, "OutputTensor": T.UINT8},
                ("ScaleTensor",),
                id=f"quantize-FL{lid(_level)}-input_{_in.name}_with_scale_{_scale.name}",
            )
        )
    for _scale, _out in ((T.FLOAT32, T.FLOAT16), (T.FLOAT16, T.FLOAT32)):
        CROSS_TYPE_CASES.append(
            pytest.param(
                "dequantize",
                _level,
                {"InputTensor": T.UINT8, "ScaleTensor": _scale, "ZeroPointTensor": T.UINT8, "OutputTensor": _out},
                ("OutputTensor", "ScaleTensor"),
                id=f"dequantize-FL{lid(_level)}-scale_{_scale.name}_vs_output_{_out.name}",
            )
        )


@pytest.mark.parametrize(("op", "level", "types", "named"), CROSS_TYPE_CASES)
def test_cross_tensor_type_rule(op, level, types, named):
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.validate(make(op, types), level)
    message = str(error.value)
    assert "DataType" in message
    for field in named:
        assert field in message, message


# ---------------------------------------------------------------------------------------------------------------
# Shared sizes among the four tensors; per-axis parameters through 0-strides.

SIZE_CASES = []
for _op in OPS:
    for _field in ("ScaleTensor", "ZeroPointTensor", "OutputTensor"):
        for _level in (FL.FL_1_0, FL.FL_2_1, FL.FL_3_0, FL.FL_6_0, FL.FL_6_2, FL.FL_6_4):
            SIZE_CASES.append(
                pytest.param(
                    _op, _level, _field, (1, 2, 3, 5), "Sizes", id=f"{_op}-FL{lid(_level)}-{_field}-sizes_differ"
                )
            )
            SIZE_CASES.append(
                pytest.param(
                    _op, _level, _field, (2, 1, 3, 4), "Sizes", id=f"{_op}-FL{lid(_level)}-{_field}-sizes_permuted"
                )
            )
        for _level in (FL.FL_3_0, FL.FL_6_2):
            SIZE_CASES.append(
                pytest.param(
                    _op,
                    _level,
                    _field,
                    (2, 3, 4),
                    "DimensionCount",
                    id=f"{_op}-FL{lid(_level)}-{_field}-dimension_count_differs",
                )
            )


@pytest.mark.parametrize(("op", "level", "field", "sizes", "attribute"), SIZE_CASES)
def test_sizes_must_match(op, level, field, sizes, attribute):
    with pytest.raises(dml.InvalidArgumentError) as error:
        dml.validate(make(op, first_combo(op, level), sizes={field: sizes}), level)
    message = str(error.value)
    assert f"{field}.{attribute}" in message and "InputTensor" in message, message


@pytest.mark.parametrize("level", [FL.FL_1_0, FL.FL_2_1, FL.FL_3_0, FL.FL_6_0, FL.FL_6_2], ids=lid)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize(
    "strides",
    [(0, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 0, 0, 0)],
    ids=["per_tensor", "per_axis1", "per_axis2", "per_axis3", "per_axis0"],
)
def test_broadcast_scale_and_zero_point_are_valid(op, level, strides):
    desc = make(op, first_combo(op, level), strides={"ScaleTensor": strides, "ZeroPointTensor": strides})
    assert dml.validate(desc, level) is None


@pytest.mark.parametrize("op", list(OPS))
def test_broadcast_output_refused(op):
    desc = make(op, first_combo(op, FL.FL_6_2), strides={"OutputTensor": (0, 1, 0, 0)})
    with pytest.raises(dml.InvalidArgumentError, match=r"OutputTensor\.Strides"):
        dml.validate(desc, FL.FL_6_2)


# ---------------------------------------------------------------------------------------------------------------
# The extension class is never DirectML.


@pytest.mark.parametrize("level", LEVELS, ids=[f"FL{lid(level)}" for level in LEVELS])
def test_extension_refused_by_validate(level):
    desc = ExtElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor(T.FLOAT32),
        scale_tensor=tensor(T.FLOAT32),
        zero_point_tensor=tensor(T.UINT8),
        output_tensor=tensor(T.UINT8),
        rounding_mode="ROUND_UP",
    )
    with pytest.raises(dml.UnsupportedError, match="extension"):
        dml.validate(desc, level)


def test_extension_refused_by_plain_device_and_accepted_with_extensions():
    desc = ExtElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor(T.FLOAT32),
        scale_tensor=tensor(T.FLOAT32),
        output_tensor=tensor(T.UINT8),
        rounding_mode="ROUND_DOWN",
    )
    with pytest.raises(dml.UnsupportedError, match="extensions=True"):
        dml.create_device().create_operator(desc)
    dml.create_device(extensions=True).create_operator(desc)


# ---------------------------------------------------------------------------------------------------------------
# Odds and ends: operator numbers, C-name spelling, the DML_OPERATOR_DESC wrapper, device-level validation.


def test_operator_type_values():
    assert dml.OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR == 33
    assert dml.OperatorType.ELEMENT_WISE_DEQUANTIZE_LINEAR == 34


def test_c_names_and_operator_desc_wrapper():
    td = dml.TensorDesc(type=dml.TensorType.BUFFER, desc=dml.BufferTensorDesc(DataType="FLOAT32", Sizes=[1, 2, 3, 4]))
    zp = dml.BufferTensorDesc(DataType="UINT8", Sizes=[1, 2, 3, 4], Strides=[0, 0, 0, 0])
    out = dml.BufferTensorDesc(DataType="UINT8", Sizes=[1, 2, 3, 4])
    inner = dml.ElementWiseQuantizeLinearOperatorDesc(
        InputTensor=td, ScaleTensor=td, ZeroPointTensor=zp, OutputTensor=out
    )
    wrapped = dml.OperatorDesc(type=dml.OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR, desc=inner)
    assert dml.validate(wrapped, "DML_FEATURE_LEVEL_1_0") is None
    refused = dml.OperatorDesc(
        type=dml.OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR,
        desc=dml.ElementWiseQuantizeLinearOperatorDesc(InputTensor=td, ScaleTensor=td, OutputTensor=out),
    )
    with pytest.raises(dml.InvalidArgumentError, match="optional from DML_FEATURE_LEVEL_6_2"):
        dml.validate(refused, "DML_FEATURE_LEVEL_1_0")


@pytest.mark.parametrize("op", list(OPS))
def test_device_create_operator_uses_its_level(op):
    old = dml.create_device(max_feature_level=FL.FL_6_1)
    with pytest.raises(dml.InvalidArgumentError, match="optional from DML_FEATURE_LEVEL_6_2"):
        old.create_operator(make(op, first_combo(op, FL.FL_6_1), null_zero_point=True))
    new = dml.create_device(max_feature_level=FL.FL_6_2)
    new.create_operator(make(op, first_combo(op, FL.FL_6_2), null_zero_point=True))
