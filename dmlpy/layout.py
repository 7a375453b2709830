"""How a buffer tensor lies in memory, in words: strides in elements and bytes, the kind of layout (packed,
broadcast, permuted, padded), the bytes to bind, and where each element is."""

from __future__ import annotations

import numpy as np

from dmlpy.dtypes import element_size, is_nibble
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.kernels import coalesce
from dmlpy.tensor import BufferTensorDesc, calc_buffer_tensor_size


def describe_layout(name: str, desc: BufferTensorDesc, *, max_rows: int = 8) -> list[str]:
    """How a buffer tensor lies in memory: strides, the class of layout, sizes, and where its elements are."""
    sizes, strides = desc.sizes, desc.effective_strides
    nibbles = is_nibble(desc.data_type)
    itemsize = element_size(desc.data_type)
    count = desc.element_count
    span = sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)) + 1 if count else 0
    stated = "null (packed)" if desc.strides is None else list(desc.strides)
    if nibbles:  # a 4-bit stride is half as many bytes, and an odd one ends mid-byte: 0.5, 1.5, ...
        per_element = "4 bits per element, two a byte"
        in_bytes = "[" + ", ".join(str(s // 2) if s % 2 == 0 else str(s / 2) for s in strides) + "]"
    else:
        per_element = f"{itemsize} bytes per element"
        in_bytes = str([s * itemsize for s in strides])
    lines = [
        f"{name}: {desc.data_type}, {per_element}, Flags {desc.flags}",
        f"  Sizes {list(sizes)}, DimensionCount {desc.dimension_count}, {count} elements",
        f"  Strides {stated}; in elements {list(strides)}, in bytes {in_bytes}",
    ]
    broadcast = [d for d, (n, s) in enumerate(zip(sizes, strides, strict=True)) if s == 0 and n > 1]
    moving = [s for n, s in zip(sizes, strides, strict=True) if n > 1 and s > 0]
    kinds: list[str] = []
    if count and coalesce(sizes, (strides,)).packed:
        kinds.append("packed: one contiguous run in row-major order")
    else:
        if broadcast:
            kinds.append(f"broadcast: dimension(s) {broadcast} have stride 0, so their elements share memory")
        if moving != sorted(moving, reverse=True):
            kinds.append("permuted: strides are not in decreasing order (e.g. NHWC data described as NCHW)")
        if not broadcast and span > count:
            gap = span - count
            kinds.append(f"padded: spans {span} element slots for {count} elements ({gap} of padding)")
        if not kinds:
            kinds.append("strided")
    lines.append("  layout: " + "; ".join(kinds))
    terms = " + ".join(f"{s}*i{d}" for d, s in enumerate(strides))
    where = f"element [i0..i{len(sizes) - 1}] is at"
    if nibbles:
        lines.append(f"  {where} nibble n = {terms}: byte n // 2, its low half when n is even (bits 0-3)")
    else:
        lines.append(f"  {where} byte offset {itemsize} * ({terms})")
    calc = calc_buffer_tensor_size(desc.data_type, sizes, desc.strides)
    extra = "" if calc == desc.total_tensor_size_in_bytes else f" (DMLCalcBufferTensorSize gives {calc})"
    spanned_bytes = (span + 1) // 2 if nibbles else span * itemsize
    lines.append(
        f"  spans {span} elements = {spanned_bytes} bytes; DMLCalcBufferTensorSize = {calc} "
        f"(rounded up to a multiple of 4); TotalTensorSizeInBytes {desc.total_tensor_size_in_bytes}{extra}"
    )
    alignment = max(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, desc.guaranteed_base_offset_alignment)
    lines.append(
        f"  bind with DML_BUFFER_BINDING.SizeInBytes >= {desc.total_tensor_size_in_bytes} at an Offset that is "
        f"a multiple of {alignment}"
    )
    if 0 < count <= 64 and len(sizes) >= 1:
        lines.append("  element offsets, one row per innermost run:")
        row_length = sizes[-1]
        outer = [s for s in sizes[:-1]]
        for rows, index in enumerate(np.ndindex(*outer) if outer else [()]):
            if rows == max_rows:
                lines.append("    ...")
                break
            base = sum(i * s for i, s in zip(index, strides, strict=False))
            offsets = [base + j * strides[-1] for j in range(row_length)]
            label = ",".join(str(i) for i in index) + ("," if index else "")
            lines.append(f"    [{label}:] -> {' '.join(str(o) for o in offsets)}")
    return lines
