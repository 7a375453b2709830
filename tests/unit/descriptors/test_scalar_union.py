"""The sign operators' and the clamps' descriptors without a device (docs/operators/element_wise_clip.md,
element_wise_signs.md): CLIP1's DML_SCALAR_UNION bounds through dmlpy's JSON reader, in each member and as Bytes;
the refusals with their messages (MinMaxDataType, the union's members, ranges; ScaleBias on 64-bit types; the
feature levels of NEGATE and SIGN); `dmlpy validate` and `dmlpy explain` on a CLIP1 file."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from tests.helpers.cli import Run
from tests.helpers.dtypes import DATA_TYPE

T, L, S = dml.TensorDataType, dml.FeatureLevel, dml.ScalarUnion
INTEGERS = (T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32, T.INT64, T.UINT64)
NUMPY = {data_type: dtype for dtype, data_type in DATA_TYPE.items()}


def tensor(data_type: T, sizes: tuple[int, ...] = (2, 3)) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes)


def clip1(data_type: T, low: S, high: S, *, min_max: T | None = None, **options: Any) -> Any:
    return dml.ElementWiseClip1OperatorDesc(
        input_tensor=tensor(data_type),
        output_tensor=tensor(data_type),
        min_max_data_type=min_max or data_type,
        min=low,
        max=high,
        **options,
    )


def through_json(desc: Any) -> Any:
    """``desc`` dumped in C field names inside its DML_OPERATOR_DESC and read back as `dmlpy validate` reads it."""
    dumped = dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump(mode="json", by_alias=True)
    read = parse_descriptor(json.loads(json.dumps(dumped)))
    return read.desc if isinstance(read, dml.OperatorDesc) else read


def edges(data_type: T) -> tuple[int, int]:
    info = np.iinfo(NUMPY[data_type])
    return int(info.min), int(info.max)


@pytest.mark.parametrize("data_type", INTEGERS, ids=lambda t: t.name)
def test_each_member_round_trips_at_the_types_edges(data_type: T) -> None:
    low, high = edges(data_type)
    desc = clip1(data_type, S.of(low, data_type), S.of(high, data_type))
    back = through_json(desc)
    assert type(back) is dml.ElementWiseClip1OperatorDesc and back == desc
    dml.validate(back, L.FL_5_0)
    assert back.bounds() == [low, high]  # exact: INT64 and UINT64 beyond 2^53, which no double holds


def test_float_members_round_trip_with_their_special_values() -> None:
    desc = clip1(T.FLOAT32, S.of(-0.0, T.FLOAT32), S.of(float("inf"), T.FLOAT32))
    back = through_json(desc)
    assert back == desc and back.min.float32 == 0.0 and np.signbit(back.min.float32)
    assert back.bounds() == [0.0, float("inf")]
    # FLOAT16: the union has no 16-bit float member; the half's bits lie in its first two bytes, UInt16
    desc = clip1(T.FLOAT16, S.of(-0.0, T.FLOAT16), S.of(float("inf"), T.FLOAT16))
    back = through_json(desc)
    assert back == desc and (back.min.uint16, back.max.uint16) == (0x8000, 0x7C00)
    assert back.bounds() == [0.0, float("inf")] and np.signbit(back.bounds()[0])
    nan = through_json(clip1(T.FLOAT32, S(float32=float("nan")), S(float32=1.5)))
    assert np.isnan(nan.bounds()[0])


@pytest.mark.parametrize(
    ("data_type", "value"),
    [
        (T.INT8, -2),
        (T.UINT8, 200),
        (T.INT16, -32768),
        (T.UINT16, 65535),
        (T.INT32, -5),
        (T.UINT32, 4_000_000_000),
        (T.INT64, -(2**63)),
        (T.UINT64, 2**64 - 1),
        (T.FLOAT32, -1.5),
        (T.FLOAT16, 0.25),
    ],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_bytes_are_read_as_each_type(data_type: T, value: float) -> None:
    """Bytes holds the value's little-endian bytes first (FLOAT16's two bytes a half, as Microsoft's callers write
    it); the JSON file's Bytes array reads back as the same value."""
    numpy_type = NUMPY[data_type]
    raw = np.array([value], numpy_type).tobytes().ljust(8, b"\xa5")  # the rest of the 8 bytes is not read
    document = {
        "Type": "DML_OPERATOR_ELEMENT_WISE_CLIP1",
        "Desc": {
            "InputTensor": {"DataType": data_type.name, "Sizes": [4]},
            "OutputTensor": {"DataType": data_type.name, "Sizes": [4]},
            "MinMaxDataType": data_type.name,
            "Min": {"Bytes": list(raw)},
            "Max": S.of(value, data_type).model_dump(by_alias=True, exclude_none=True),
        },
    }
    read = parse_descriptor(document)
    desc = read.desc if isinstance(read, dml.OperatorDesc) else read
    dml.validate(desc, L.FL_5_0)
    assert desc.bounds() == [value, value]


def test_min_max_data_type_must_be_the_outputs() -> None:
    desc = clip1(T.INT32, S.of(1, T.INT16), S.of(2, T.INT16), min_max=T.INT16)
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.validate(desc, L.FL_5_0)
    assert str(caught.value) == (
        "ELEMENT_WISE_CLIP1.MinMaxDataType is INT16; it must be OutputTensor.DataType (INT32), the type Min and Max "
        "are read as"
    )


@pytest.mark.parametrize(
    ("low", "message"),
    [
        (
            S(float32=1.0),
            "ELEMENT_WISE_CLIP1.Min gives Float32; MinMaxDataType INT32 reads the union's Int32 (or Bytes): give "
            "Int32 only (ScalarUnion.of(value, INT32) writes it)",
        ),
        (
            S(int32=1, bytes=(1, 0, 0, 0, 0, 0, 0, 0)),
            "ELEMENT_WISE_CLIP1.Min gives Bytes, Int32; MinMaxDataType INT32 reads the union's Int32 (or Bytes): "
            "give Int32 only (ScalarUnion.of(value, INT32) writes it)",
        ),
        (
            S(),
            "ELEMENT_WISE_CLIP1.Min gives no member; MinMaxDataType INT32 reads the union's Int32 (or Bytes): give "
            "Int32 only (ScalarUnion.of(value, INT32) writes it)",
        ),
    ],
    ids=["another member", "two members", "no member"],
)
def test_the_union_gives_exactly_min_max_data_types_member(low: S, message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.validate(clip1(T.INT32, low, S.of(2, T.INT32)), L.FL_5_0)
    assert str(caught.value) == message


def test_a_value_its_member_cannot_hold_is_refused() -> None:
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.validate(clip1(T.INT8, S(int8=300), S.of(2, T.INT8)), L.FL_5_0)
    assert str(caught.value) == "ELEMENT_WISE_CLIP1.Min.Int8 is 300; a Int8 holds -128 to 127"
    with pytest.raises(dml.InvalidArgumentError, match=r"ELEMENT_WISE_CLIP1.Max.UInt64 is -1; a UInt64 holds 0 to"):
        dml.validate(clip1(T.UINT64, S.of(0, T.UINT64), S(uint64=-1)), L.FL_5_0)


@pytest.mark.parametrize(
    "make",
    [
        lambda sb: dml.ElementWiseAbsOperatorDesc(input_tensor=tensor(T.INT64), output_tensor=tensor(T.INT64), **sb),
        lambda sb: dml.ElementWiseClipOperatorDesc(
            input_tensor=tensor(T.INT64), output_tensor=tensor(T.INT64), min=-1.0, max=1.0, **sb
        ),
    ],
    ids=["ABS", "CLIP"],
)
def test_scale_bias_is_refused_on_int64(make: Callable[[dict[str, Any]], Any]) -> None:
    dml.validate(make({}), L.FL_5_0)
    desc = make({"scale_bias": dml.ScaleBias(scale=2.0, bias=0.0)})
    name = desc.OPERATOR_TYPE.name
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.validate(desc, L.FL_5_0)
    assert str(caught.value) == (
        f"{name}.ScaleBias is given with an InputTensor of DML_TENSOR_DATA_TYPE_INT64; DirectML applies ScaleBias to "
        "FLOAT32, FLOAT16 and the 8- to 32-bit integers only, never to FLOAT64, INT64 or UINT64. Set ScaleBias to null"
    )


@pytest.mark.parametrize(
    ("desc", "level", "below"),
    [(dml.ElementWiseNegateOperatorDesc, L.FL_5_0, L.FL_4_1), (dml.ElementWiseSignOperatorDesc, L.FL_2_0, L.FL_1_0)],
    ids=["NEGATE", "SIGN"],
)
def test_negate_and_sign_are_refused_below_their_level(desc: type[Any], level: L, below: L) -> None:
    sizes = (1, 1, 2, 3)  # 4-D: SIGN's first table has 4 dimensions only
    operator = desc(input_tensor=tensor(T.FLOAT32, sizes), output_tensor=tensor(T.FLOAT32, sizes))
    dml.validate(operator, level)
    with pytest.raises(dml.UnsupportedError) as caught:
        dml.validate(operator, below)
    assert str(caught.value) == (
        f"{desc.OPERATOR_TYPE.name} needs {level.c_name} or higher; it was validated against {below.c_name}"
    )


CLIP1_FILE = {
    "Type": "DML_OPERATOR_ELEMENT_WISE_CLIP1",
    "Desc": {
        "InputTensor": {"DataType": "INT64", "Sizes": [1, 4]},
        "OutputTensor": {"DataType": "INT64", "Sizes": [1, 4]},
        "MinMaxDataType": "INT64",
        "Min": {"Int64": -(2**63)},
        "Max": {"Bytes": [1, 0, 0, 0, 0, 0, 32, 0]},
    },
}
"""CLIP1 at INT64 from the type's MIN to 2^53 + 1, the second bound as Bytes."""


def test_validate_and_explain_read_a_clip1_file(run: Run, write_json: Callable[..., Path]) -> None:
    path = str(write_json(CLIP1_FILE))
    validated = run("validate", path)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.startswith("valid at DML_FEATURE_LEVEL_6_4")
    assert '"MinMaxDataType": "DML_TENSOR_DATA_TYPE_INT64"' in validated.stdout
    assert f'"Int64": {-(2**63)}' in validated.stdout and '"Bytes": [1, 0, 0, 0, 0, 0, 32, 0]' in validated.stdout
    assert "valid from DML_FEATURE_LEVEL_5_0" in validated.stdout
    explained = run("explain", path)
    assert explained.returncode == 0, explained.stdout + explained.stderr
    # MIN written -(MAX) - 1, as C has no negative literals; the Bytes read as 2^53 + 1, exactly
    assert f"clip1_long(in0, ((long)(-{2**63 - 1}L - 1)), ((long){2**53 + 1}L))" in explained.stdout


def test_validate_names_the_union_member_in_a_file(run: Run, write_json: Callable[..., Path]) -> None:
    document = json.loads(json.dumps(CLIP1_FILE))
    document["Desc"]["Min"] = {"Float32": -1.0}
    result = run("validate", str(write_json(document)))
    assert result.returncode == 1
    assert (
        "ELEMENT_WISE_CLIP1.Min gives Float32; MinMaxDataType INT64 reads the union's Int64 (or Bytes): give Int64 "
        "only" in result.stdout + result.stderr
    )
