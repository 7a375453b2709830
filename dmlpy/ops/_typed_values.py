"""A descriptor's scalar field as a tensor of a given DataType holds it: a C FLOAT field (PADDING's PaddingValue,
DIAGONAL_MATRIX's Value) converted by dmlpy's one rule, and any value or DML_SCALAR_UNION as the bits of the
type's encoding, which a kernel stores unchanged."""

from __future__ import annotations

import numpy as np

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.ops.scalar_union import ScalarUnion, member_for


def float_field_value(value: float, data_type: AnyDataType) -> float | int:
    """A FLOAT field's ``value`` in a tensor of ``data_type``: the float itself for a float type (rounded to
    nearest even where the type is narrower), an integer's truncated toward zero and saturated at the type's
    range (the pages' "10.6 to 10"), NaN giving 0, as CAST's float-to-integer conversion does."""
    numpy_type = DATA_TYPES[data_type].numpy
    if numpy_type.kind == "f":
        return value
    limits = np.iinfo(numpy_type.type)  # type: ignore[type-var]  # an integer type here
    return 0 if value != value else int(min(max(np.trunc(value), limits.min), limits.max))


def value_bits(value: float | int, data_type: AnyDataType) -> int:
    """``value`` (in ``data_type``'s range, or a float to round to it) as the unsigned integer of its encoding;
    a float beyond a narrower float type's range rounds to infinity."""
    numpy_type = DATA_TYPES[data_type].numpy
    with np.errstate(over="ignore"):
        return int(np.array(value, numpy_type).view(f"u{numpy_type.itemsize}"))


def union_bits(union: ScalarUnion, data_type: TensorDataType, where: str, type_field: str) -> int:
    """The encoding of ``union`` read as ``data_type`` (its ``type_field``), bit for bit: Bytes' first bytes as
    they lie (little-endian), or the type's member (a FLOAT16's bits in UInt16; a Float32 as C stores a double in
    a FLOAT), so that -0 and every NaN payload Bytes can spell arrive unchanged. InvalidArgumentError naming
    ``where`` as ``ScalarUnion.read_as`` gives it."""
    union.read_as(data_type, where, type_field)
    width = DATA_TYPES[data_type].numpy.itemsize
    if union.bytes is not None:
        raw = np.array(union.bytes[:width], np.uint8)
        return int.from_bytes(raw.tobytes(), "little")
    member = member_for(data_type)
    member_type = TensorDataType.UINT16 if data_type == TensorDataType.FLOAT16 else data_type
    return value_bits(getattr(union, member), member_type)
