"""DML_SCALAR_UNION, the typed scalar of CLIP1's and CLIP_GRAD1's bounds: one value, read as the type the operator
names (their MinMaxDataType), from the union's member of that type or from its bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import Field

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import DmlModel

T = TensorDataType

_MEMBERS: dict[TensorDataType, str] = {
    T.INT8: "int8",
    T.UINT8: "uint8",
    T.INT16: "int16",
    T.UINT16: "uint16",
    T.FLOAT16: "uint16",  # a half's bits: the union has no 16-bit float member
    T.INT32: "int32",
    T.UINT32: "uint32",
    T.INT64: "int64",
    T.UINT64: "uint64",
    T.FLOAT32: "float32",
    T.FLOAT64: "float64",
}
"""The DML_SCALAR_UNION member that holds a value of each data type. The union has no 16-bit float member: a
FLOAT16 value lies in its first two bytes, as Microsoft's own callers write it (onnxruntime's DirectML provider,
DmlOperatorElementwiseClip11, copies a half bound's bytes into Bytes; tensorflow-directml-plugin's
dml::ScalarUnion does the same), which is its UInt16 member holding the half's bits."""


def member_for(data_type: TensorDataType) -> str:
    """The union member a value of ``data_type`` is read from (a FLOAT16 one: UInt16, the half's bits)."""
    return _MEMBERS[data_type]


def _as_read(raw: np.ndarray[Any, Any], data_type: TensorDataType) -> float | int:
    """The first element of ``raw`` (bytes of the union, or its member) as ``data_type`` reads it."""
    numpy_type = DATA_TYPES[data_type].numpy
    value = raw.view(np.uint8)[: numpy_type.itemsize].view(numpy_type)[0]
    return float(value) if numpy_type.kind == "f" else int(value)


class ScalarUnion(DmlModel):
    """DML_SCALAR_UNION: one scalar, read as the type the operator names (CLIP1's MinMaxDataType). Give the one
    member of that type (``Int32`` for INT32, ``Float32`` for FLOAT32, ``UInt16`` holding a half's bits for FLOAT16),
    or ``Bytes`` (8 bytes, the value's little-endian bytes first): ``ScalarUnion.of(value, data_type)`` builds it."""

    bytes: tuple[int, int, int, int, int, int, int, int] | None = Field(default=None, alias="Bytes")
    """Bytes (BYTE[8])."""
    int8: int | None = Field(default=None, alias="Int8")
    """Int8 (INT8)."""
    uint8: int | None = Field(default=None, alias="UInt8")
    """UInt8 (UINT8)."""
    int16: int | None = Field(default=None, alias="Int16")
    """Int16 (INT16)."""
    uint16: int | None = Field(default=None, alias="UInt16")
    """UInt16 (UINT16)."""
    int32: int | None = Field(default=None, alias="Int32")
    """Int32 (INT32)."""
    uint32: int | None = Field(default=None, alias="UInt32")
    """UInt32 (UINT32)."""
    int64: int | None = Field(default=None, alias="Int64")
    """Int64 (INT64)."""
    uint64: int | None = Field(default=None, alias="UInt64")
    """UInt64 (UINT64)."""
    float32: float | None = Field(default=None, alias="Float32")
    """Float32 (FLOAT)."""
    float64: float | None = Field(default=None, alias="Float64")
    """Float64 (DOUBLE)."""

    @classmethod
    def of(cls, value: Any, data_type: TensorDataType) -> ScalarUnion:
        """``value`` in the member of ``data_type`` (a FLOAT16 value rounded to half, its bits in UInt16); a bool is
        refused, though an integer member would take it for 0 or 1."""
        if isinstance(value, bool):
            raise InvalidArgumentError(f"the {data_type.name} bound is {value!r}, a bool; give a number of that type")
        if data_type == T.FLOAT16:
            return cls(uint16=int(np.array([value], np.float16).view(np.uint16)[0]))
        return cls(**{member_for(data_type): value})

    def __str__(self) -> str:
        return ", ".join(f"{name} {getattr(self, self.model_fields_by_alias(name))}" for name in self.given()) or "{}"

    @classmethod
    def model_fields_by_alias(cls, alias: str) -> str:
        return next(name for name, info in cls.model_fields.items() if info.alias == alias)

    def given(self) -> list[str]:
        """The members set (C names)."""
        return [self.c_field(name) for name in type(self).model_fields if getattr(self, name) is not None]

    @classmethod
    def c_field(cls, name: str) -> str:
        return cls.model_fields[name].alias or name

    def read_as(self, data_type: TensorDataType, where: str, type_field: str = "MinMaxDataType") -> float | int:
        """The value as ``data_type`` (the operator's ``type_field``) reads it: the member of that type, or Bytes;
        InvalidArgumentError naming ``where`` when another member is given, or the value is outside the type's
        range."""
        member = member_for(data_type)
        c_member = self.c_field(member)
        given = self.given()
        if given == ["Bytes"]:
            assert self.bytes is not None
            if any(not 0 <= byte <= 255 for byte in self.bytes):
                raise InvalidArgumentError(f"{where}.Bytes is {list(self.bytes)}; each BYTE holds 0 to 255")
            return _as_read(np.array(self.bytes, np.uint8), data_type)
        if given != [c_member]:
            shown = ", ".join(given) if given else "no member"
            half = " as a half's bits" if data_type == T.FLOAT16 else ""
            raise InvalidArgumentError(
                f"{where} gives {shown}; {type_field} {data_type.name} reads the union's {c_member}{half} (or "
                f"Bytes): give {c_member} only (ScalarUnion.of(value, {data_type.name}) writes it)"
            )
        value: float | int = getattr(self, member)
        member_type = DATA_TYPES[T.UINT16 if data_type == T.FLOAT16 else data_type].numpy
        if member_type.kind in "iu":
            info = np.iinfo(np.dtype(member_type.str))
            if not info.min <= value <= info.max:
                raise InvalidArgumentError(
                    f"{where}.{c_member} is {value}; a {c_member} holds {info.min} to {info.max}"
                )
            return _as_read(np.array([value], member_type), data_type)
        return value


def typed_bounds(
    operator: str, min_max_data_type: TensorDataType, output: tuple[str, AnyDataType], bounds: tuple[Any, Any]
) -> list[float | int]:
    """CLIP1's and CLIP_GRAD1's Min and Max as MinMaxDataType reads them, after their rule that MinMaxDataType is the
    output's DataType (``output``: its C name and type): InvalidArgumentError naming the field otherwise."""
    name, data_type = output
    if min_max_data_type != data_type:
        raise InvalidArgumentError(
            f"{operator}.MinMaxDataType is {min_max_data_type.name}; it must be {name}.DataType ({data_type.name}), "
            "the type Min and Max are read as"
        )
    low, high = bounds
    return [low.read_as(min_max_data_type, f"{operator}.Min"), high.read_as(min_max_data_type, f"{operator}.Max")]
