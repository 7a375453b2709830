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
    return elementwise_kernel(
        [bits, bits], [0], [Statement("in0", bits, COPY)], [(1, 0)], layout, profile, fused=False, may_alias=False
    )


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
        (("ELEMENT_T", element), ("RANK", str(rank)), ("BOUNDARY", str(int(window.boundary)))),
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
