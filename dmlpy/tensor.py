"""DML_BUFFER_TENSOR_DESC and DML_TENSOR_DESC, DMLCalcBufferTensorSize, and the buffer-tensor rules.

Construction checks only what makes the struct inconsistent with itself (DimensionCount against Sizes,
one stride per dimension). The DirectML rules (directml-spec.md §3) are checked by :func:`check_buffer_tensor`
when an operator is validated, so each message can name the operator and field, as CreateOperator would.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated, Any, Self

from pydantic import Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from dmlpy.drawing import Picture, tensor_picture
from dmlpy.dtypes import AnyDataType, element_size, element_size_in_bits
from dmlpy.enums import DML_MAX_ELEMENT_COUNT, ExtTensorDataType, TensorDataType, TensorFlags, TensorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import DmlModel, UInt32, UInt64
from dmlpy.problems import Expect

Size = Annotated[UInt32, Expect("a whole number, at least 1")]
"""One of Sizes: a C UINT; DirectML refuses 0 when an operator is validated (a struct may hold it)."""


def calc_buffer_tensor_size(
    data_type: AnyDataType | int | str, sizes: Sequence[int], strides: Sequence[int] | None = None
) -> int:
    """DMLCalcBufferTensorSize in exact integers: the bytes a tensor spans, rounded up to a multiple of 4.

    Packed: product of sizes times the element size. Strided: (sum of (size - 1) * stride, plus 1) elements.
    4-bit types count in bits, the element span's bits rounded up to whole bytes (Microsoft's helper has no 4-bit
    case; Chromium's WebNN DirectML backend sizes them so: docs/quantization.md). The C helpers sum in 32 bits and
    can overflow (microsoft/DirectML PR #296, #734); Python integers cannot.
    """
    if any(value < 0 for value in (*sizes, *(strides or ()))):
        raise InvalidArgumentError(f"Sizes {tuple(sizes)} and Strides {strides} are UINTs; none may be negative")
    bits = element_size_in_bits(_parse_data_type(data_type))
    if bits == 0 or any(size == 0 for size in sizes):
        return 0
    if strides is None:
        element_span = math.prod(sizes)
    else:
        if len(strides) != len(sizes):
            raise InvalidArgumentError(
                f"Strides has {len(strides)} entries but Sizes has {len(sizes)}; one stride per dimension"
            )
        element_span = sum((size - 1) * stride for size, stride in zip(sizes, strides, strict=True)) + 1
    return whole_dwords((element_span * bits + 7) // 8)


def whole_dwords(size_in_bytes: int) -> int:
    """``size_in_bytes`` rounded up to a multiple of 4: DirectML sizes tensors and binds buffer ranges in whole
    DWORDs (DMLCalcBufferTensorSize)."""
    return (size_in_bytes + 3) & ~3


def _parse_data_type(value: AnyDataType | int | str) -> AnyDataType:
    try:
        return TensorDataType.parse(value)
    except ValueError:
        return ExtTensorDataType.parse(value)


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides in elements, what a null Strides means."""
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    return tuple(strides)


class BufferTensorDesc(DmlModel):
    """DML_BUFFER_TENSOR_DESC: a tensor's data type, sizes, optional strides and the bytes it spans."""

    C_STRUCT = "DML_BUFFER_TENSOR_DESC"

    data_type: TensorDataType | ExtTensorDataType = Field(alias="DataType")
    """DataType (DML_TENSOR_DATA_TYPE); an ExtTensorDataType is a dmlpy extension no DirectML level accepts."""
    flags: TensorFlags = Field(default=TensorFlags.NONE, alias="Flags")
    """Flags (DML_TENSOR_FLAGS); OWNED_BY_DML is for inputs only."""
    # Left out, these two are filled in by _derive_counts, so after construction they are always ints.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: derived from Sizes when left out, checked against it when given."""
    sizes: tuple[Size, ...] = Field(alias="Sizes")
    """Sizes: elements per dimension, outermost first."""
    strides: tuple[UInt32, ...] | None = Field(default=None, alias="Strides")
    """Strides: elements between neighbours per dimension; null means packed row-major, 0 broadcasts."""
    total_tensor_size_in_bytes: UInt64 = Field(default=None, alias="TotalTensorSizeInBytes")  # type: ignore[assignment]
    """TotalTensorSizeInBytes: defaults to DMLCalcBufferTensorSize(DataType, Sizes, Strides)."""
    guaranteed_base_offset_alignment: UInt32 = Field(default=0, alias="GuaranteedBaseOffsetAlignment")
    """GuaranteedBaseOffsetAlignment: 0, or a power of two that every binding offset is a multiple of."""

    @model_validator(mode="before")
    @classmethod
    def _none_means_derived(cls, data: Any) -> Any:
        # DimensionCount and TotalTensorSizeInBytes given as None (JSON null) mean "derive it", like leaving
        # them out.
        if isinstance(data, dict):
            derived = {"dimension_count", "DimensionCount", "total_tensor_size_in_bytes", "TotalTensorSizeInBytes"}
            return {key: value for key, value in data.items() if not (key in derived and value is None)}
        return data

    @model_validator(mode="after")
    def _derive_counts(self) -> Self:
        if self.dimension_count is None:
            object.__setattr__(self, "dimension_count", len(self.sizes))
        elif self.dimension_count != len(self.sizes):
            raise ValueError(
                f"DimensionCount is {self.dimension_count} but Sizes {self.sizes} has {len(self.sizes)} "
                "entries; DimensionCount may be left out, dmlpy derives it from Sizes"
            )
        if self.strides is not None and len(self.strides) != len(self.sizes):
            raise ValueError(
                f"Strides {self.strides} has {len(self.strides)} entries; DML_BUFFER_TENSOR_DESC needs one "
                f"per dimension (DimensionCount {len(self.sizes)}), or null for packed"
            )
        if self.total_tensor_size_in_bytes is None:
            computed = calc_buffer_tensor_size(self.data_type, self.sizes, self.strides)
            if computed > 2**64 - 1:
                raise ValueError(f"the tensor spans {computed} bytes, more than a UINT64 can hold")
            object.__setattr__(self, "total_tensor_size_in_bytes", computed)
        return self

    def picture(self, caption: str | None = None, problem: str | None = None) -> Picture:
        """The tensor's elements beside the buffer's slots (dmlpy.drawing), titled ``caption`` (the struct's name
        by default); ``problem``, a refusal's message, is drawn under it, and elements past
        TotalTensorSizeInBytes are red."""
        return tensor_picture(
            data_type=self.data_type.name,
            element_bits=element_size_in_bits(self.data_type),
            sizes=self.sizes,
            strides=self.effective_strides,
            given_strides=self.strides,
            total_bytes=self.total_tensor_size_in_bytes,
            caption=caption or self.struct_name(),
            problem=problem,
        )

    def _repr_svg_(self) -> str:
        return self.picture().svg

    def describe(self) -> str:
        return f"{self.struct_name()} ({self.data_type.name}, Sizes {list(self.sizes)})"

    @property
    def element_count(self) -> int:
        """The number of elements, product of Sizes."""
        return math.prod(self.sizes)

    @property
    def effective_strides(self) -> tuple[int, ...]:
        """Strides, or the packed strides a null Strides stands for."""
        return self.strides if self.strides is not None else packed_strides(self.sizes)


class TensorDesc(DmlModel):
    """DML_TENSOR_DESC: a tagged pointer to the tensor's description; BUFFER is the only real kind. Operators
    also take the DML_BUFFER_TENSOR_DESC alone."""

    type: TensorType = Field(default=TensorType.BUFFER, alias="Type")
    """Type (DML_TENSOR_TYPE)."""
    desc: BufferTensorDesc = Field(alias="Desc")
    """Desc: the DML_BUFFER_TENSOR_DESC."""

    C_STRUCT = "DML_TENSOR_DESC"
    WRAPS = "desc"  # messages name the buffer tensor's fields as the tensor's: InputTensor.Sizes

    def picture(self, caption: str | None = None, problem: str | None = None) -> Picture:
        """The buffer tensor's picture (BufferTensorDesc.picture)."""
        return self.desc.picture(caption, problem)

    def _repr_svg_(self) -> str:
        return self.desc.picture().svg

    def describe(self) -> str:
        return self.desc.describe()

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        # The schema takes what _accept_bare_buffer_desc takes: the wrapper, or the buffer tensor alone.
        wrapped = handler.resolve_ref_schema(handler(core_schema))
        bare = handler(BufferTensorDesc.__pydantic_core_schema__)
        return {"title": "TensorDesc", "description": cls.__doc__ or "", "anyOf": [wrapped, bare]}

    @model_validator(mode="before")
    @classmethod
    def _accept_bare_buffer_desc(cls, data: Any) -> Any:
        # Operators take either form: a BufferTensorDesc, or its fields without the Type/Desc wrapper.
        if isinstance(data, BufferTensorDesc):
            return {"type": TensorType.BUFFER, "desc": data}
        if isinstance(data, dict) and not {"type", "Type", "desc", "Desc"} & data.keys():
            return {"type": TensorType.BUFFER, "desc": data}
        return data


def overlapping_dimension(
    sizes: Sequence[int], strides: Sequence[int], *, element_width: int = 1, unit: str = "elements"
) -> str | None:
    """Why two elements would share memory, or None when every element has its own address.

    Strides count ``unit``s and an element is ``element_width`` of them wide (elements and 1 for DirectML;
    bytes and the item size for a NumPy array, whose strides may be negative: only their size matters). Sorted
    by stride, each dimension must step past everything the smaller strides reach. This is exact for the
    layouts DirectML describes (packed, padded, permuted) and refuses only exotic interleavings.
    """
    reach = 0
    for dim in sorted((d for d, size in enumerate(sizes) if size > 1), key=lambda d: abs(strides[d])):
        step = abs(strides[dim])
        if step < reach + element_width:
            if step == 0:
                return f"dimension {dim} has size {sizes[dim]} and stride 0, so all its elements share one address"
            return (
                f"dimension {dim} (size {sizes[dim]}, stride {strides[dim]}) steps inside the span of "
                f"{reach + element_width} {unit} that the smaller strides already reach"
            )
        reach += (sizes[dim] - 1) * step
    return None


def check_buffer_tensor(tensor: TensorDesc, where: str, *, is_output: bool) -> None:
    """Raise InvalidArgumentError for the first DirectML buffer-tensor rule ``tensor`` breaks.

    ``where`` names the tensor in messages, e.g. ``ELEMENT_WISE_ROUND.InputTensor``. Rules that depend on the
    feature level (dimension counts, data types) live in the operator's support table.
    """
    if tensor.type != TensorType.BUFFER:
        raise InvalidArgumentError(
            f"{where}.Type is {tensor.type}; every tensor must be DML_TENSOR_TYPE_BUFFER, "
            "the only kind DirectML defines"
        )
    desc = tensor.desc
    if desc.data_type == TensorDataType.UNKNOWN:
        raise InvalidArgumentError(f"{where}.DataType is DML_TENSOR_DATA_TYPE_UNKNOWN, which is never valid")
    if not 1 <= desc.dimension_count <= 8:
        raise InvalidArgumentError(
            f"{where}.DimensionCount is {desc.dimension_count}; a buffer tensor has 1 to 8 dimensions"
        )
    for dim, size in enumerate(desc.sizes):
        if size == 0:
            raise InvalidArgumentError(
                f"{where}.Sizes[{dim}] is 0 (Sizes {desc.sizes}); it must be a whole number, at least 1: "
                "DirectML has no empty tensors"
            )
    if desc.element_count > DML_MAX_ELEMENT_COUNT:
        raise InvalidArgumentError(
            f"{where} has {desc.element_count} elements (Sizes {desc.sizes}); DirectML allows at most "
            f"{DML_MAX_ELEMENT_COUNT} (2^32-1) elements per tensor"
        )
    required = calc_buffer_tensor_size(desc.data_type, desc.sizes, desc.strides)
    if desc.total_tensor_size_in_bytes < required:
        raise InvalidArgumentError(
            f"{where}.TotalTensorSizeInBytes is {desc.total_tensor_size_in_bytes}; it must be at least "
            f"DMLCalcBufferTensorSize = {required} for {desc.data_type} Sizes {desc.sizes} "
            f"Strides {desc.strides}"
        )
    if desc.total_tensor_size_in_bytes % 4:
        raise InvalidArgumentError(
            f"{where}.TotalTensorSizeInBytes is {desc.total_tensor_size_in_bytes}; it must be a multiple "
            "of 4 (DirectML binds buffer ranges in whole DWORDs)"
        )
    alignment = desc.guaranteed_base_offset_alignment
    itemsize = element_size(desc.data_type)
    if alignment and (alignment & (alignment - 1) or alignment < itemsize):
        raise InvalidArgumentError(
            f"{where}.GuaranteedBaseOffsetAlignment is {alignment}; it must be 0 (no guarantee) or a power "
            f"of two at least the element size ({itemsize} bytes for {desc.data_type})"
        )
    if is_output and TensorFlags.OWNED_BY_DML in desc.flags:
        raise InvalidArgumentError(
            f"{where}.Flags is {desc.flags}; DML_TENSOR_FLAG_OWNED_BY_DML is for inputs only "
            "(DirectML copies such inputs into its persistent resource at initialization)"
        )
    if is_output:
        reason = overlapping_dimension(desc.sizes, desc.effective_strides)
        if reason is not None:
            raise InvalidArgumentError(
                f"{where}.Strides {desc.strides} make two output elements share memory: {reason}; "
                "an output must give every element its own address (0 strides broadcast inputs only)"
            )
