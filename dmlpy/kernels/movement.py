"""The lowering of the operators that move data without computing: each output element is one input element (or
PADDING's constant), its bits copied unchanged.

A move is described once, as a ``Window``: per output dimension, the input coordinate ``start + step * out`` and,
where that falls outside the input, a boundary rule. Two kernels run it:

- ``window_copy`` picks the element-wise template's copy (ELEMENT_WISE_IDENTITY's, ``opencl/elementwise.cl``)
  wherever the window is a strided view of the input, every step non-negative and nothing outside: SLICE, SLICE1
  forwards, the pieces of JOIN and SPLIT, the depth-space rearrangements. Such a move costs no kernel of its own: it
  is the copy, vectorised and coalesced as Identity is, over the input's strides times the steps and an element
  shift (``PlanRef.shift``) to the window's first element.
- otherwise ``opencl/movement.cl``: SLICE1 backwards (a negative step), PADDING's modes, TILE (the input wrapped).

Under the "cpu" launch profile two layouts the template walks element by element get kernels that copy whole rows
(docs/performance.md, "Movement operators"): a strided copy whose innermost dimension interleaves a few rows
(DEPTH_TO_SPACE, SPACE_TO_DEPTH: ``block_layout``, ``opencl/block_copy.cl``), and JOIN along an inner axis, one
launch for all the parts (``joined_rows``, ``opencl/join_rows.cl``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from dmlpy.dtypes import AnyDataType
from dmlpy.errors import UnsupportedError
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, Statement, bits_type, elementwise_kernel
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import InputView
from dmlpy.kernels.source import KernelSpec

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
"""The range of movement.cl's int8 starts and steps."""
MAPPED_RUN = 4096
"""Output elements per work-item of movement.cl under the "cpu" profile, copied a row at a time: 16M float32 on
PoCL and Intel, against 1024 (the template's walk), 0.05 to 0.15 more of the copy kernel for SLICE1 reversed and
PADDING, TILE level; 16384 no better."""
MAX_BLOCK = 8
"""The widest block block_copy.cl interleaves (its unrolled inner loop): DEPTH_TO_SPACE's BlockSize is mostly 2 to 4."""
MAX_JOINED = 7
"""The most parts join_rows.cl joins in one launch (8 tensors with the output)."""
JOINED_ROW_LIMIT = 1 << 16
"""The longest joined row (elements) join_rows.cl takes: a work-item copies at least one whole row, so longer rows
leave too few work-items; their copies per part are long runs already."""
COPY = "ELEMENT_WISE_IDENTITY"
"""The operator a strided window's kernel names: it is Identity's copy, and shares Identity's programs."""


class Boundary(IntEnum):
    """What an input coordinate outside the input reads (movement.cl's BOUNDARY; DML_PADDING_MODE's rules)."""

    NONE = 0
    """Never outside."""
    CONSTANT = 1
    EDGE = 2
    REFLECTION = 3
    SYMMETRIC = 4
    WRAP = 5


@dataclass(frozen=True)
class Window:
    """Which input element each output element copies: per output dimension d, input coordinate
    ``starts[d] + steps[d] * out[d]``, and ``boundary`` where that is outside ``input_sizes[d]``."""

    input_sizes: tuple[int, ...]
    starts: tuple[int, ...]
    steps: tuple[int, ...]
    boundary: Boundary = Boundary.NONE
    fill: int = 0
    """CONSTANT: the bits every outside element holds."""

    @classmethod
    def of_slice(cls, input_sizes: Sequence[int], starts: Sequence[int], steps: Sequence[int]) -> Window:
        return cls(tuple(input_sizes), tuple(starts), tuple(steps))

    def strided(self, output_sizes: Sequence[int]) -> bool:
        """Whether every element read lies inside the input at a non-negative step: a view of the input."""
        return all(
            step >= 0 and start >= 0 and start + step * (size - 1) < extent
            for start, step, size, extent in zip(self.starts, self.steps, output_sizes, self.input_sizes, strict=True)
        )

    def view(self, input_strides: Sequence[int], output_sizes: Sequence[int]) -> InputView | None:
        """The window as the input read through strides (each step times the input's stride, the first element's
        offset as the shift), where it is one (``strided``); None otherwise."""
        if not self.strided(output_sizes):
            return None
        steps = tuple(step * stride for step, stride in zip(self.steps, input_strides, strict=True))
        return InputView(steps, sum(start * stride for start, stride in zip(self.starts, input_strides, strict=True)))


def window_copy(
    data_type: AnyDataType,
    window: Window,
    input_strides: Sequence[int],
    output_sizes: Sequence[int],
    output_strides: Sequence[int],
    profile: LaunchProfile,
) -> tuple[LoweredOperator, int]:
    """The kernel copying ``window`` of an input of ``input_strides`` into an output of ``output_sizes`` and
    ``output_strides``, and the elements to shift the input's binding by (the window's first element, for a
    strided view; 0 for movement.cl, whose arguments hold the start)."""
    view = window.view(input_strides, output_sizes)
    if view is not None:
        return strided_copy(data_type, output_sizes, view.strides, output_strides, profile), view.shift
    return _mapped_copy(data_type, window, input_strides, output_sizes, output_strides, profile), 0


def strided_copy(
    data_type: AnyDataType,
    sizes: Sequence[int],
    source_strides: Sequence[int],
    target_strides: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """The element-wise template's copy of ``sizes`` elements from a view of ``source_strides`` to one of
    ``target_strides``: Identity's kernel (its bits, unchanged), coalesced as Identity's is."""
    bits = bits_type(data_type)
    layout = coalesce(sizes, [source_strides, target_strides])
    if not profile.grid_stride and not bits.nibble:
        blocks = block_layout(layout)
        if blocks is not None:
            return _block_copy(bits.storage, blocks, profile)
    return elementwise_kernel(
        [bits, bits], [0], [Statement("in0", bits, COPY)], [(1, 0)], layout, profile, fused=False, may_alias=False
    )


@dataclass(frozen=True)
class BlockLayout:
    """A copy whose innermost dimension (``block`` elements) interleaves rows (opencl/block_copy.cl): ``groups``
    is the index space of the dimensions before it, in which one tensor (the output where ``packed_output``) steps
    by ``block`` along the last and the other by 1; along the innermost dimension the packed tensor steps by 1 and
    the other by ``plane``."""

    groups: ElementwiseLayout
    block: int
    packed_output: bool
    plane: int


def block_layout(layout: ElementwiseLayout) -> BlockLayout | None:
    """``layout`` (input, output) as a BlockLayout, where its two innermost dimensions are one (DEPTH_TO_SPACE's
    and SPACE_TO_DEPTH's, rows contiguous on both sides), with a block of 2 to MAX_BLOCK elements; None otherwise."""
    if layout.rank < 2 or not 2 <= layout.sizes[-1] <= MAX_BLOCK:
        return None
    block = layout.sizes[-1]
    (input_row, input_step), (output_row, output_step) = (strides[-2:] for strides in layout.strides)
    if (output_row, output_step, input_row) == (block, 1, 1):
        packed_output, plane = True, input_step
    elif (input_row, input_step, output_row) == (block, 1, 1):
        packed_output, plane = False, output_step
    else:
        return None
    outer = layout.sizes[:-1]
    groups = ElementwiseLayout(math.prod(outer), outer, tuple(strides[:-1] for strides in layout.strides))
    return BlockLayout(groups, block, packed_output, plane)


def _block_copy(element: str, blocks: BlockLayout, profile: LaunchProfile) -> LoweredOperator:
    """block_copy.cl over ``blocks``: a work-item copies MAPPED_RUN elements a launch, a row of groups at a time."""
    spec = KernelSpec(
        "block_copy.cl",
        "block_copy",
        (
            ("ELEMENT_T", element),
            ("RANK", str(blocks.groups.rank)),
            ("BLOCK", str(blocks.block)),
            ("PACKED_OUTPUT", "1" if blocks.packed_output else "0"),
            _vector_spans(profile),
        ),
        TEMPLATE_OPTIONS,
    )
    parameters = (KernelParameter("ulong", (blocks.plane,)),)
    return profile.lowered(spec, blocks.groups, MAPPED_RUN // blocks.block, parameters=parameters)


def _mapped_copy(
    data_type: AnyDataType,
    window: Window,
    input_strides: Sequence[int],
    output_sizes: Sequence[int],
    output_strides: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator:
    """movement.cl over the output, uncoalesced (each dimension keeps its own map)."""
    if any(not INT_MIN <= value <= INT_MAX for value in (*window.starts, *window.steps)):
        raise UnsupportedError(
            f"a window starting at {list(window.starts)} with steps {list(window.steps)}: movement.cl holds starts "
            f"and steps as 32-bit signed integers ({INT_MIN} to {INT_MAX}); no tensor of DirectML's 2^32 - 1 "
            "elements needs more along one dimension but one with a single dimension over 2^31 elements"
        )
    if window.boundary != Boundary.NONE and any(step != 1 for step in window.steps):
        raise UnsupportedError(
            f"a {window.boundary.name} window with steps {list(window.steps)}: movement.cl applies a boundary rule "
            "to windows of steps 1 only (PADDING's and TILE's); give steps of 1, or BOUNDARY NONE"
        )
    rank = len(output_sizes)
    layout = ElementwiseLayout(
        element_count=math.prod(output_sizes), sizes=tuple(output_sizes), strides=((0,) * rank, tuple(output_strides))
    )
    element = bits_type(data_type).storage
    spec = KernelSpec(
        "movement.cl",
        "movement",
        (("ELEMENT_T", element), ("RANK", str(rank)), ("BOUNDARY", str(int(window.boundary))), _vector_spans(profile)),
        TEMPLATE_OPTIONS,
    )
    parameters = (
        KernelParameter("int8", window.starts),
        KernelParameter("int8", window.steps),
        KernelParameter("uint8", window.input_sizes),
        KernelParameter("uint8", tuple(input_strides)),
        KernelParameter("ulong", (window.fill,)),
    )
    return profile.lowered(spec, layout, MAPPED_RUN, parameters=parameters)


def joined_rows(
    data_type: AnyDataType,
    axis: int,
    parts: Sequence[tuple[Sequence[int], Sequence[int]]],
    whole_sizes: Sequence[int],
    whole_strides: Sequence[int],
    profile: LaunchProfile,
) -> LoweredOperator | None:
    """JOIN of ``parts`` (each its sizes and strides) along ``axis`` into a whole of ``whole_sizes`` and
    ``whole_strides`` as one launch of opencl/join_rows.cl writing whole rows (the whole's dimensions before
    ``axis``), where it applies: the "cpu" profile, 2 to 7 parts of whole bytes, at least two rows, and from
    ``axis`` on every part and the whole packed. None otherwise: a copy per part then (a join along the outer
    axis is already one packed run per part)."""
    if profile.grid_stride or axis == 0 or not 2 <= len(parts) <= MAX_JOINED or bits_type(data_type).nibble:
        return None
    if not all(_row_major(sizes[axis:], strides[axis:]) for sizes, strides in (*parts, (whole_sizes, whole_strides))):
        return None
    rows = coalesce(whole_sizes[:axis], [*(strides[:axis] for _, strides in parts), whole_strides[:axis]])
    lengths = tuple(math.prod(sizes[axis:]) for sizes, _ in parts)
    if math.prod(rows.sizes) < 2 or sum(lengths) > JOINED_ROW_LIMIT:
        return None
    spec = KernelSpec(
        "join_rows.cl",
        "join_rows",
        (
            ("ELEMENT_T", bits_type(data_type).storage),
            ("RANK", str(rows.rank)),
            ("PARTS", str(len(parts))),
            _vector_spans(profile),
        ),
        TEMPLATE_OPTIONS,
    )
    per_item = 1 << (max(1, MAPPED_RUN // sum(lengths)).bit_length() - 1)  # a power of two: few programs
    return profile.lowered(spec, rows, per_item, parameters=(KernelParameter("uint8", lengths),))


def _row_major(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether ``sizes`` at ``strides`` are one contiguous run (dimensions of size 1 step anywhere)."""
    return all(
        size == 1 or stride == math.prod(sizes[d + 1 :])
        for d, (size, stride) in enumerate(zip(sizes, strides, strict=True))
    )


def _vector_spans(profile: LaunchProfile) -> tuple[str, str]:
    """span_copy.h's VECTOR_SPANS: explicit vector copies where the runtime's compiler vectorises across work-items
    only (Intel's CPU runtime), plain loops elsewhere (PoCL vectorises those, and runs its vload built-ins a lane at
    a time)."""
    return ("VECTOR_SPANS", "1" if profile.lanes_across_work_items else "0")
