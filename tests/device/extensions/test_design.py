"""The extensions never pass for DirectML: DirectML feature levels refuse every extension descriptor, a plain
device refuses them, DirectML's own Round refuses the extension data type, extension enum values never equal
DirectML ones, and the names resolve as documented. Plus the extension's own rules (FLOAT64 needs cl_khr_fp64)
and JSON round trips."""

from __future__ import annotations

import inspect
import json

import ml_dtypes
import numpy as np
import pytest

import dmlpy as dml
import dmlpy.enums
from dmlpy.extensions import (
    EXTENSION_BASE,
    ExtElementWiseQuantizeLinearOperatorDesc,
    ExtElementWiseRoundOperatorDesc,
    ExtOperatorType,
    ExtRoundingMode,
    ExtTensorDataType,
)
from dmlpy.modes import resolve_mode
from dmlpy.ops._base import DeviceCapabilities
from tests.helpers.dtypes import DATA_TYPE, INTEGER_DTYPES
from tests.helpers.ext_cases import FLOAT_DTYPES
from tests.helpers.modes import NGRAPH_MODES as MODES
from tests.helpers.operators import unary_descriptor

LEVELS = list(dml.FeatureLevel)
LEVEL_IDS = [level.name for level in LEVELS]
EXT_ENUMS = (ExtTensorDataType, ExtRoundingMode, ExtOperatorType)
DIRECTML_ENUMS = tuple(
    cls
    for _, cls in inspect.getmembers(dmlpy.enums, inspect.isclass)
    if issubclass(cls, dmlpy.enums.DmlEnum | dmlpy.enums.DmlFlag)
    and cls not in (dmlpy.enums.DmlEnum, dmlpy.enums.DmlFlag, *EXT_ENUMS)
)


def bf16_tensor(sizes=(1, 2, 3, 4)) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=ExtTensorDataType.BFLOAT16, sizes=sizes)


def ext_round(dtype=np.float32, mode="NEAREST_UPWARD", sizes=(2, 3)) -> ExtElementWiseRoundOperatorDesc:
    return unary_descriptor(ExtElementWiseRoundOperatorDesc, sizes, dtype, rounding_mode=ExtRoundingMode[mode])  # type: ignore[return-value]


def ext_quantize(mode="ROUND_UP") -> ExtElementWiseQuantizeLinearOperatorDesc:
    def tensor(data_type):
        return dml.BufferTensorDesc(data_type=data_type, sizes=(1, 2, 3, 4))

    return ExtElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor(dml.TensorDataType.FLOAT32),
        scale_tensor=tensor(dml.TensorDataType.FLOAT32),
        zero_point_tensor=tensor(dml.TensorDataType.UINT8),
        output_tensor=tensor(dml.TensorDataType.UINT8),
        rounding_mode=mode,
    )


EXT_DESCS = {
    "round_float32": lambda: ext_round(np.float32),
    "round_bfloat16": lambda: ext_round(ml_dtypes.bfloat16, "DOWN"),
    "round_float64": lambda: ext_round(np.float64, "TOWARD_INFINITY"),
    "round_int8": lambda: ext_round(np.int8, "UP"),
    "round_shared_mode": lambda: ext_round(np.float32, "NEAREST_TOWARD_EVEN"),  # DirectML has this mode too
    "quantize_linear": ext_quantize,
}


# ------------------------------------------------------------------------------------------------ DirectML refuses


@pytest.mark.parametrize("level", LEVELS, ids=LEVEL_IDS)
@pytest.mark.parametrize("name", list(EXT_DESCS))
def test_validate_refuses_extensions_at_every_directml_level(name, level):
    desc = EXT_DESCS[name]()
    for level_arg in (level, level.value, level.c_name):  # the level as member, number and C name
        with pytest.raises(dml.UnsupportedError) as error:
            dml.validate(desc, level_arg)
        message = str(error.value)
        assert "dmlpy extension" in message and "not DirectML" in message, message
        assert "DMLPY_EXT_OPERATOR_" in message, message
        assert level.c_name in message, message


@pytest.mark.parametrize("name", list(EXT_DESCS))
def test_plain_device_refuses_extensions(name):
    plain = dml.create_device()
    assert not plain.extensions
    with pytest.raises(dml.UnsupportedError, match="extensions=True") as error:
        plain.create_operator(EXT_DESCS[name]())
    assert "not DirectML" in str(error.value)


def test_plain_device_refuses_even_with_every_feature_level_cap():
    for level in (dml.FeatureLevel.FL_2_1, dml.FeatureLevel.FL_6_4):
        with pytest.raises(dml.UnsupportedError, match="extension"):
            dml.create_device(max_feature_level=level).create_operator(ext_round())


@pytest.mark.parametrize("level", LEVELS, ids=LEVEL_IDS)
def test_directml_round_refuses_bfloat16_at_every_level(level):
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=bf16_tensor(), output_tensor=bf16_tensor())
    with pytest.raises(dml.DmlError) as error:
        dml.validate(desc, level)
    if level >= dml.FeatureLevel.FL_2_1:  # below 2.1 Round itself does not exist
        assert isinstance(error.value, dml.InvalidArgumentError)
        assert "DataType" in str(error.value) and "BFLOAT16" in str(error.value)
    else:
        assert isinstance(error.value, dml.UnsupportedError)


def test_directml_round_refuses_bfloat16_on_an_extension_device(ext_device):
    # extensions=True does not loosen DirectML's own rules.
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=bf16_tensor(), output_tensor=bf16_tensor())
    with pytest.raises(dml.InvalidArgumentError, match="BFLOAT16"):
        ext_device.create_operator(desc)


@pytest.mark.parametrize("dtype", [np.dtype(np.float64), *INTEGER_DTYPES], ids=lambda d: d.name)
def test_directml_round_refuses_the_extension_only_types_on_an_extension_device(ext_device, dtype):
    td = dml.BufferTensorDesc(data_type=DATA_TYPE[dtype], sizes=(1, 2, 3, 4))
    with pytest.raises(dml.InvalidArgumentError, match="DataType"):
        ext_device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td))


@pytest.mark.parametrize("mode", list(ExtRoundingMode), ids=[m.name for m in ExtRoundingMode])
def test_directml_round_refuses_extension_modes(mode):
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(1, 2, 3, 4))
    for spelling in (mode, mode.value, mode.c_name, mode.ngraph_name):
        with pytest.raises(dml.InvalidArgumentError):
            dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=spelling)


def test_operator_desc_wrapper_refuses_extension_types():
    # DML_OPERATOR_DESC.Type is a DirectML operator type; an extension type is not one.
    with pytest.raises(dml.InvalidArgumentError):
        dml.OperatorDesc(type=ExtOperatorType.ELEMENT_WISE_ROUND, desc=ext_round())


# ------------------------------------------------------------------------------------------------ enum values


@pytest.mark.parametrize("ext_enum", EXT_ENUMS, ids=[e.__name__ for e in EXT_ENUMS])
def test_extension_values_and_spellings(ext_enum):
    assert len(DIRECTML_ENUMS) >= 8, DIRECTML_ENUMS
    directml_values = {int(member.value) for cls in DIRECTML_ENUMS for member in cls}
    for member in ext_enum:
        assert member.value >= EXTENSION_BASE == 0x8000_0000
        assert member.value not in directml_values, member
        assert member.c_name.startswith("DMLPY_EXT_"), member.c_name
        assert ext_enum.parse(member.c_name) is member
        assert ext_enum.parse(member.value) is member
    for cls in DIRECTML_ENUMS:
        for member in cls:
            if isinstance(member, dmlpy.enums.DmlEnum):
                with pytest.raises(ValueError):
                    ext_enum.parse(int(member.value))


def test_directml_enums_do_not_parse_extension_values():
    for cls, ext_enum in (
        (dml.TensorDataType, ExtTensorDataType),
        (dml.RoundingMode, ExtRoundingMode),
        (dml.OperatorType, ExtOperatorType),
    ):
        for member in ext_enum:
            for spelling in (member.value, member.c_name):
                with pytest.raises(ValueError):
                    cls.parse(spelling)


def test_nine_modes_in_ngraph_order():
    assert [m.name for m in ExtRoundingMode] == list(MODES)
    assert [m.ngraph_name for m in ExtRoundingMode] == ["ROUND_" + m for m in MODES]
    assert len({m.value for m in ExtRoundingMode}) == 9


# ------------------------------------------------------------------------------------------------ name resolution


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("TOWARD_INFINITY", dml.RoundingMode.TOWARD_INFINITY),  # DirectML's: nearest, ties away from zero
        ("DML_ROUNDING_MODE_TOWARD_INFINITY", dml.RoundingMode.TOWARD_INFINITY),
        (2, dml.RoundingMode.TOWARD_INFINITY),
        ("ROUND_TOWARD_INFINITY", ExtRoundingMode.TOWARD_INFINITY),  # nGraph's: directed, away from zero
        ("DMLPY_EXT_ROUNDING_MODE_TOWARD_INFINITY", ExtRoundingMode.TOWARD_INFINITY),
        ("TOWARD_ZERO", dml.RoundingMode.TOWARD_ZERO),
        ("ROUND_TOWARD_ZERO", ExtRoundingMode.TOWARD_ZERO),
        ("HALVES_TO_NEAREST_EVEN", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
        ("half_to_even", dml.RoundingMode.HALVES_TO_NEAREST_EVEN),
        ("half_away_from_zero", dml.RoundingMode.TOWARD_INFINITY),
        ("toward_zero", dml.RoundingMode.TOWARD_ZERO),
        ("ROUND_NEAREST_TOWARD_INFINITY", ExtRoundingMode.NEAREST_TOWARD_INFINITY),
        ("ROUND_NEAREST_TOWARD_ZERO", ExtRoundingMode.NEAREST_TOWARD_ZERO),
        ("ROUND_NEAREST_UPWARD", ExtRoundingMode.NEAREST_UPWARD),
        ("ROUND_NEAREST_DOWNWARD", ExtRoundingMode.NEAREST_DOWNWARD),
        ("ROUND_NEAREST_TOWARD_EVEN", ExtRoundingMode.NEAREST_TOWARD_EVEN),
        ("ROUND_UP", ExtRoundingMode.UP),
        ("ROUND_DOWN", ExtRoundingMode.DOWN),
        (ExtRoundingMode.DOWN, ExtRoundingMode.DOWN),
        (int(ExtRoundingMode.NEAREST_UPWARD), ExtRoundingMode.NEAREST_UPWARD),
    ],
    ids=str,
)
def test_resolve_mode(name, expected):
    assert resolve_mode(name) is expected


@pytest.mark.parametrize("name", ["ceil", "ROUND_SIDEWAYS", "", 3, 0x8000_0009, -1])
def test_resolve_mode_refuses_unknown_names(name):
    with pytest.raises(dml.InvalidArgumentError) as error:
        resolve_mode(name)
    assert "ROUND_NEAREST_UPWARD" in str(error.value) and "half_to_even" in str(error.value)


def test_descriptor_mode_accepts_ngraph_and_extension_spellings():
    for mode in ExtRoundingMode:
        for spelling in (mode, mode.value, mode.c_name, mode.ngraph_name, mode.name):
            desc = ExtElementWiseRoundOperatorDesc(
                input_tensor=bf16_tensor(), output_tensor=bf16_tensor(), rounding_mode=spelling
            )
            assert desc.rounding_mode is mode
    # The extension descriptor's short "TOWARD_INFINITY" is its own (directed) mode: the field is typed
    # ExtRoundingMode, and DirectML's number 2 is no extension value.
    with pytest.raises(dml.InvalidArgumentError):
        ExtElementWiseRoundOperatorDesc(input_tensor=bf16_tensor(), output_tensor=bf16_tensor(), rounding_mode=2)


def test_default_mode_is_nearest_even():
    assert (
        ExtElementWiseRoundOperatorDesc(input_tensor=bf16_tensor(), output_tensor=bf16_tensor()).rounding_mode
        is ExtRoundingMode.NEAREST_TOWARD_EVEN
    )


# ------------------------------------------------------------------------------------------------ extension rules


def test_float64_needs_cl_khr_fp64():
    desc = ext_round(np.float64)
    with pytest.raises(dml.UnsupportedError, match="cl_khr_fp64"):
        desc.check_extension_rules(DeviceCapabilities(fp64=False))
    desc.check_extension_rules(DeviceCapabilities(fp64=True))


@pytest.mark.parametrize("dtype", [*FLOAT_DTYPES, *INTEGER_DTYPES], ids=lambda d: d.name)
def test_supported_types_need_no_fp64_except_float64(dtype):
    desc = ext_round(dtype)
    desc.check_extension_rules(DeviceCapabilities(fp64=True))
    if dtype != np.float64:
        desc.check_extension_rules(DeviceCapabilities(fp64=False))


def test_extension_device_runs_float64_only_with_fp64(ext_device):
    desc = ext_round(np.float64)
    if "cl_khr_fp64" in ext_device.cl_device.extensions:
        ext_device.create_operator(desc)
    else:
        with pytest.raises(dml.UnsupportedError, match="cl_khr_fp64"):
            ext_device.create_operator(desc)


@pytest.mark.parametrize(
    "data_type", [dml.TensorDataType.UINT4, dml.TensorDataType.INT4, dml.TensorDataType.UNKNOWN], ids=str
)
def test_other_types_refused(data_type):
    td = dml.BufferTensorDesc(data_type=data_type, sizes=(2, 4))
    with pytest.raises(dml.InvalidArgumentError):
        ExtElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td).check_extension_rules(
            DeviceCapabilities(fp64=True)
        )


@pytest.mark.parametrize(
    ("output", "field"),
    [
        (dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT16, sizes=(2, 3)), "DataType"),
        (dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(3, 2)), "Sizes"),
        (dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(1, 2, 3)), "DimensionCount"),
    ],
    ids=["data_type", "sizes", "dimension_count"],
)
def test_output_must_match_input(output, field):
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(2, 3))
    desc = ExtElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=output)
    with pytest.raises(dml.InvalidArgumentError, match=field):
        desc.check_extension_rules(DeviceCapabilities(fp64=True))


def test_broadcast_output_refused():
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(2, 3))
    out = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(2, 3), strides=(0, 1))
    with pytest.raises(dml.InvalidArgumentError, match="OutputTensor"):
        ExtElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=out).check_extension_rules(
            DeviceCapabilities(fp64=True)
        )


# ------------------------------------------------------------------------------------------------ JSON


@pytest.mark.parametrize("name", list(EXT_DESCS))
@pytest.mark.parametrize("by_alias", [True, False], ids=["c_names", "snake_case"])
def test_json_round_trip(name, by_alias):
    desc = EXT_DESCS[name]()
    cls = type(desc)
    text = desc.model_dump_json(by_alias=by_alias)
    again = cls.model_validate_json(text)
    assert again == desc
    assert again.model_dump_json(by_alias=by_alias) == text
    data = json.loads(text)
    mode_key = "RoundingMode" if by_alias else "rounding_mode"
    assert data[mode_key] >= EXTENSION_BASE
    # C spellings in JSON parse too.
    data[mode_key] = desc.rounding_mode.c_name
    assert cls.model_validate(data) == desc


def test_json_bfloat16_data_type_by_name():
    text = json.dumps(
        {
            "InputTensor": {
                "Type": "BUFFER",
                "Desc": {"DataType": "DMLPY_EXT_TENSOR_DATA_TYPE_BFLOAT16", "Sizes": [4]},
            },
            "OutputTensor": {"Type": "BUFFER", "Desc": {"DataType": "BFLOAT16", "Sizes": [4]}},
            "RoundingMode": "ROUND_NEAREST_DOWNWARD",
        }
    )
    desc = ExtElementWiseRoundOperatorDesc.model_validate_json(text)
    assert desc.input_tensor.desc.data_type is ExtTensorDataType.BFLOAT16
    assert desc.output_tensor.desc.data_type is ExtTensorDataType.BFLOAT16
    assert desc.input_tensor.desc.total_tensor_size_in_bytes == 8  # 16-bit elements
    assert desc.rounding_mode is ExtRoundingMode.NEAREST_DOWNWARD


def test_quantize_extension_errors_name_the_extension() -> None:
    from dmlpy.extensions import ExtElementWiseQuantizeLinearOperatorDesc

    def tensor(data_type: str, strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
        return dml.BufferTensorDesc(data_type=data_type, sizes=(4,), strides=strides)

    desc = ExtElementWiseQuantizeLinearOperatorDesc(
        input_tensor=tensor("UINT8"), scale_tensor=tensor("FLOAT32", (0,)), output_tensor=tensor("UINT8")
    )
    with pytest.raises(dml.InvalidArgumentError) as error:
        desc.check_extension_rules(DeviceCapabilities(fp64=True))
    assert str(error.value).startswith("DMLPY_EXT_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR keeps DirectML")
