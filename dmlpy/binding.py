"""DirectML's binding rules (IDMLBindingTable::BindInputs/BindOutputs, DML_BUFFER_BINDING), as pure checks.

They run at bind and dispatch time, before anything is enqueued, so a broken binding never writes a byte.
Where DirectML would remove the device (a wrong binding count, a partial alias) dmlpy raises instead.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol

from pydantic import Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from dmlpy.drawing import DrawnRange, Picture, bindings_picture
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, DML_TEMPORARY_BUFFER_ALIGNMENT
from dmlpy.errors import InvalidArgumentError
from dmlpy.model import DmlModel, UInt64
from dmlpy.problems import DescriptorProblems, Expect
from dmlpy.tensor import BufferTensorDesc


class BindableBuffer(Protocol):
    """What the rules need of a buffer: its size in bytes (identity tells two buffers apart)."""

    @property
    def size(self) -> int: ...


def _bindable(value: Any) -> Any:
    # Anything with a whole size in bytes: a dmlpy Buffer (the runtime, above this layer, checks it is one of
    # the device's). A released Buffer raises InvalidArgumentError from .size, which is told as this field's.
    size = getattr(value, "size", None)
    if not isinstance(size, int) or isinstance(size, bool):
        raise PydanticCustomError("expected_kind", "not a buffer")
    return value


_UNSET: Any = object()


class BufferBinding(DmlModel):
    """DML_BUFFER_BINDING: a byte range of a buffer. ``SizeInBytes`` None (dmlpy's convenience, which the C
    struct does not have) means to the end of the buffer.

    ``BufferBinding(buffer, offset=0, size_in_bytes=None)``, by position or by name, C names included
    (``BufferBinding(Buffer=buffer, Offset=16, SizeInBytes=32)``); bad values raise InvalidArgumentError naming
    Buffer, Offset or SizeInBytes."""

    C_STRUCT = "DML_BUFFER_BINDING"

    buffer: Annotated[
        BindableBuffer,
        PlainValidator(_bindable),
        WithJsonSchema({"description": "a dmlpy Buffer (not representable in JSON)"}),
        Expect("a dmlpy Buffer (device.create_buffer or device.upload) that was not released"),
    ] = Field(alias="Buffer")
    """Buffer: the buffer (ID3D12Resource in DirectML)."""
    offset: UInt64 = Field(default=0, alias="Offset")
    """Offset: where the range starts, in bytes from the start of the buffer."""
    size_in_bytes: UInt64 | None = Field(default=None, alias="SizeInBytes")
    """SizeInBytes: the range's length in bytes; None means to the end of the buffer."""

    def __init__(
        self,
        buffer: BindableBuffer = _UNSET,
        offset: int = _UNSET,
        size_in_bytes: int | None = _UNSET,
        /,
        **data: Any,
    ) -> None:
        for name, value in (("buffer", buffer), ("offset", offset), ("size_in_bytes", size_in_bytes)):
            if value is _UNSET:
                continue
            alias = type(self).model_fields[name].alias or name
            if name in data or alias in data:
                raise DescriptorProblems([f"{self.struct_name()}.{alias} is given twice, by position and by name"])
            data[name] = value
        super().__init__(**data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]  # see DmlModel.__init__

    @property
    def size(self) -> int:
        return self.buffer.size - self.offset if self.size_in_bytes is None else self.size_in_bytes

    @property
    def end(self) -> int:
        return self.offset + self.size

    def describe(self) -> str:
        return f"bytes [{self.offset}, {self.end}) of a {self.buffer.size}-byte buffer"


# What help() and documentation show: the call as it is written (pydantic would show the aliases, positional-only).
BufferBinding.__signature__ = inspect.Signature(
    [
        inspect.Parameter("buffer", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="BindableBuffer"),
        inspect.Parameter("offset", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=0, annotation="int"),
        inspect.Parameter(
            "size_in_bytes", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation="int | None"
        ),
    ],
    return_annotation=None,
)


@dataclass(frozen=True)
class BindingProperties:
    """DML_BINDING_PROPERTIES."""

    required_descriptor_count: int
    temporary_resource_size: int
    persistent_resource_size: int


@dataclass(frozen=True)
class BoundTensor:
    """A tensor slot with its binding, named for messages (``ELEMENT_WISE_ROUND.InputTensor``)."""

    where: str
    desc: BufferTensorDesc
    binding: BufferBinding
    is_output: bool = False


def check_tensor_binding(bound: BoundTensor) -> None:
    """Offset alignment, size and range of one binding against its tensor."""
    where, desc, binding = bound.where, bound.desc, bound.binding
    if binding.offset > binding.buffer.size:
        message = f"{where} binding Offset is {binding.offset}, past the end of the {binding.buffer.size}-byte buffer"
        raise refused(message, [bound], conflict=[bound])
    alignment = max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, desc.guaranteed_base_offset_alignment)
    if binding.offset < 0 or binding.offset % alignment:
        rule = f"a multiple of {DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT} (DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT)"
        if desc.guaranteed_base_offset_alignment > DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT:
            rule = (
                f"a multiple of {alignment}, the tensor's GuaranteedBaseOffsetAlignment "
                f"({desc.guaranteed_base_offset_alignment})"
            )
        raise InvalidArgumentError(f"{where} binding Offset is {binding.offset}; it must be {rule}")
    if binding.size < desc.total_tensor_size_in_bytes:
        raise InvalidArgumentError(
            f"{where} binding SizeInBytes is {binding.size}; it must be at least the tensor's "
            f"TotalTensorSizeInBytes ({desc.total_tensor_size_in_bytes})"
        )
    if binding.end > binding.buffer.size:
        message = (
            f"{where} binding covers bytes [{binding.offset}, {binding.end}) but the buffer holds "
            f"{binding.buffer.size} bytes; the range must lie inside the buffer"
        )
        raise refused(message, [bound], conflict=[bound])


def check_temporary_binding(binding: BufferBinding, required: int, tensors: list[BoundTensor], *, owner: str) -> None:
    """IDMLBindingTable::BindTemporaryResource's rules: a range of at least the reported TemporaryResourceSize,
    its Offset a multiple of DML_TEMPORARY_BUFFER_ALIGNMENT, inside the buffer, apart from every tensor (the
    dispatch writes it)."""
    where = "bind_temporary_resource: binding"
    if binding.offset % DML_TEMPORARY_BUFFER_ALIGNMENT:
        raise InvalidArgumentError(
            f"{where} Offset is {binding.offset}; a temporary resource starts at a multiple of "
            f"{DML_TEMPORARY_BUFFER_ALIGNMENT} (DML_TEMPORARY_BUFFER_ALIGNMENT)"
        )
    if binding.offset > binding.buffer.size or binding.end > binding.buffer.size:
        message = (
            f"{where} covers bytes [{binding.offset}, {binding.end}) but the buffer holds {binding.buffer.size} "
            "bytes; the range must lie inside the buffer"
        )
        raise refused(message, tensors, temporary=binding, conflict=[binding])
    if binding.size < required:
        raise InvalidArgumentError(
            f"{where} SizeInBytes is {binding.size}; the {owner} reports a TemporaryResourceSize of {required} "
            "bytes (get_binding_properties), and the range must hold at least that"
        )
    for tensor in tensors:
        if _overlap(tensor.binding, binding):
            message = (
                f"the temporary resource ({binding.describe()}) overlaps {tensor.where} "
                f"({tensor.binding.describe()}); the dispatch writes the temporary resource, so it shares memory "
                "with no tensor"
            )
            raise refused(message, tensors, temporary=binding, conflict=[tensor, binding])


def _overlap(a: BufferBinding, b: BufferBinding) -> bool:
    return a.buffer is b.buffer and a.offset < b.end and b.offset < a.end


def same_layout(a: BufferTensorDesc, b: BufferTensorDesc) -> bool:
    """Whether two tensors put the same elements at the same bytes, so one binding may serve both (in place)."""
    return (
        a.data_type == b.data_type
        and a.sizes == b.sizes
        and a.effective_strides == b.effective_strides
        and a.total_tensor_size_in_bytes == b.total_tensor_size_in_bytes
    )


def _identical(a: BoundTensor, b: BoundTensor) -> bool:
    return a.binding.offset == b.binding.offset and a.binding.size == b.binding.size and same_layout(a.desc, b.desc)


def aliasing_conflict(
    inputs: list[BoundTensor], outputs: list[BoundTensor], *, supports_in_place: bool
) -> tuple[BoundTensor, BoundTensor, str] | None:
    """The first pair that breaks DirectML's hazard rules, with the message, or None. Inputs may overlap each
    other; an input may share memory with an output only when the operator runs in place and range and layout
    are identical; outputs never overlap."""
    for index, output in enumerate(outputs):
        for other in outputs[index + 1 :]:
            if _overlap(output.binding, other.binding):
                return (
                    output,
                    other,
                    f"{output.where} ({output.binding.describe()}) and {other.where} "
                    f"({other.binding.describe()}) overlap; the writable ranges of two outputs never may",
                )
        for source in inputs:
            if not _overlap(source.binding, output.binding):
                continue
            if supports_in_place and _identical(source, output):
                continue
            in_place = (
                "identical binding Offset and SizeInBytes and identical Sizes, Strides and "
                "TotalTensorSizeInBytes (in-place execution)"
                if supports_in_place
                else "never: this operator does not run in place"
            )
            return (
                source,
                output,
                f"{source.where} ({source.binding.describe()}) and {output.where} "
                f"({output.binding.describe()}) share memory but are not the same tensor. DirectML lets an "
                f"input and an output overlap only with {in_place}; any partial overlap makes the result "
                "depend on the order the GPU writes in. Bind them to disjoint ranges, or to the same range "
                "with the same layout.",
            )
    return None


def check_aliasing(inputs: list[BoundTensor], outputs: list[BoundTensor], *, supports_in_place: bool) -> None:
    """InvalidArgumentError, with a picture of the buffers, for the first pair aliasing_conflict finds."""
    found = aliasing_conflict(inputs, outputs, supports_in_place=supports_in_place)
    if found is not None:
        first, second, message = found
        raise refused(message, [*inputs, *outputs], conflict=[first, second], supports_in_place=supports_in_place)


def draw_bindings(
    title: str,
    tensors: list[BoundTensor],
    *,
    temporary: BufferBinding | None = None,
    supports_in_place: bool = False,
    conflict: list[BoundTensor | BufferBinding] = [],  # noqa: B006  # read only
    problem: str | None = None,
) -> Picture:
    """The buffers ``tensors`` (and a temporary resource) are bound to, each range at its offset, the in-place
    pairs marked allowed, ``conflict`` drawn red with ``problem`` (dmlpy.drawing.bindings)."""
    entries: list[BoundTensor | BufferBinding] = [*tensors, *([temporary] if temporary is not None else [])]
    buffers: list[BindableBuffer] = []
    ranges: list[DrawnRange] = []
    for entry in entries:
        binding = entry if isinstance(entry, BufferBinding) else entry.binding
        if not any(binding.buffer is known for known in buffers):
            buffers.append(binding.buffer)
        buffer = next(k for k, known in enumerate(buffers) if known is binding.buffer)
        if isinstance(entry, BufferBinding):
            ranges.append(DrawnRange("temporary resource", "temporary", buffer, binding.offset, _end(binding)))
        else:
            role: Literal["input", "output"] = "output" if entry.is_output else "input"
            ranges.append(DrawnRange(entry.where, role, buffer, binding.offset, _end(binding)))
    in_place = [
        (i, j)
        for i, a in enumerate(entries)
        for j, b in enumerate(entries)
        if i < j
        and isinstance(a, BoundTensor)
        and isinstance(b, BoundTensor)
        and supports_in_place
        and ranges[i].role != ranges[j].role
        and (ranges[i].buffer, ranges[i].offset, ranges[i].end) == (ranges[j].buffer, ranges[j].offset, ranges[j].end)
        and ranges[i].end > ranges[i].offset
        and same_layout(a.desc, b.desc)
    ]
    flagged = [k for k, entry in enumerate(entries) if any(entry is bad for bad in conflict)]
    return bindings_picture(
        title, [_size(buffer) for buffer in buffers], ranges, in_place=in_place, conflict=flagged, problem=problem
    )


def _size(buffer: BindableBuffer) -> int | None:
    """The buffer's size, None once released (a table may still hold a binding of it, and still draws)."""
    try:
        return buffer.size
    except InvalidArgumentError:
        return None


def _end(binding: BufferBinding) -> int:
    size = _size(binding.buffer)
    if binding.size_in_bytes is not None or size is not None:
        return binding.end
    return binding.offset  # to the end of a released buffer: its length is gone


def refused(
    message: str,
    tensors: list[BoundTensor],
    *,
    temporary: BufferBinding | None = None,
    conflict: list[BoundTensor | BufferBinding],
    supports_in_place: bool = False,
) -> InvalidArgumentError:
    """The InvalidArgumentError for a refused binding, its ``picture`` the buffers with what breaks in red."""
    error = InvalidArgumentError(message)
    error.picture = draw_bindings(
        "refused binding",
        tensors,
        temporary=temporary,
        supports_in_place=supports_in_place,
        conflict=conflict,
        problem=message,
    )
    return error
