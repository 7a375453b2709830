"""Lowering, the pure half of compilation: which kernel source, which -D specialisation, which launch.

Kernels are compiled per kind, not per shape: a KernelSpec (source file + defines) is the program cache key,
and everything that varies with the shape (element count, coalesced sizes and strides) travels as kernel
arguments in an ElementwiseLayout.

Every element-wise kernel in ``opencl/`` takes the same arguments, so one runtime routine can launch any of
them: for each tensor in binding order, its buffer and its element offset (``ulong``); then the element count
(``ulong``), the coalesced sizes (``uint8``) and one ``uint8`` of strides per tensor.
"""

from __future__ import annotations

import importlib.resources
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

MAX_RANK = 8


def opencl_source_dir() -> Path:
    """Where the .cl files are: inside the installed package (the wheel maps them there), else the source
    tree's top-level ``opencl/`` (an editable install)."""
    packaged = Path(str(importlib.resources.files("dmlpy"))) / "opencl"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "opencl"


_LOCAL_INCLUDE = re.compile(r'^#include "([\w.]+)"[ \t]*$', re.MULTILINE)


@cache
def kernel_source(name: str) -> str:
    """The text of ``opencl/<name>`` with its local ``#include "header.h"`` lines replaced by the headers.

    The .cl files compile on their own with ``-I opencl``; inlining makes the program self-contained, so its
    cache key holds no install path and ``compiled.source`` shows every line that runs. The headers' include
    guards keep a header included twice harmless, as with the preprocessor."""
    text = (opencl_source_dir() / name).read_text(encoding="utf-8")
    return _LOCAL_INCLUDE.sub(lambda match: f"// ---- {match.group(1)} ----\n{kernel_source(match.group(1))}", text)


@dataclass(frozen=True)
class KernelSpec:
    """One compiled kind of kernel: a source file in ``opencl/`` and its -D specialisation."""

    source_name: str
    kernel_name: str
    defines: tuple[tuple[str, str], ...]
    options: tuple[str, ...] = ()
    """Build options beyond the defaults, e.g. -cl-fp32-correctly-rounded-divide-sqrt for a true division."""
    prelude: str = ""
    """#define lines written before the file, for what a -D option cannot carry (a fused kernel's statements)."""

    @property
    def build_options(self) -> tuple[str, ...]:
        # No -cl-fast-relaxed-math, -cl-finite-math-only or -cl-denorms-are-zero: they break exact rounding of
        # NaN, infinities, signed zeros and subnormals (peers.md §5).
        defines = (f"-D{name}={value}" for name, value in self.defines)
        return ("-cl-std=CL1.2", *self.options, *defines)

    @property
    def source(self) -> str:
        return self.prelude + kernel_source(self.source_name)

    def specialised_source(self, device_options: Sequence[str] = ()) -> str:
        """The source as the compiler sees it, every -D option (the operator's, then ``device_options``)
        written out as a #define line, for reading."""
        options = (*self.build_options, *device_options)
        defines = (option[2:].split("=", 1) for option in options if option.startswith("-D"))
        lines = "".join(f"#define {name} {value}\n" for name, value in defines)
        return f"// {self.source_name}, specialised by -D options:\n{lines}\n{self.source}"


@dataclass(frozen=True)
class ElementwiseLayout:
    """Sizes and per-tensor strides after coalescing; ``packed`` when every tensor is one contiguous run."""

    element_count: int
    sizes: tuple[int, ...]
    strides: tuple[tuple[int, ...], ...]
    """One tuple per tensor, in binding order (inputs, then outputs)."""

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def packed(self) -> bool:
        return self.rank == 1 and all(s == (1,) for s in self.strides)


def coalesce(sizes: Sequence[int], strides: Sequence[Sequence[int]]) -> ElementwiseLayout:
    """Drop size-1 dimensions and merge neighbours that are contiguous in every tensor.

    A packed tensor of any shape becomes rank 1, so it runs the 1-D vectorised kernel; a transposed or
    broadcast one keeps only the dimensions that really differ.
    """
    kept = [d for d, size in enumerate(sizes) if size != 1] or [len(sizes) - 1]
    merged_sizes = [sizes[kept[0]]]
    merged_strides = [[tensor[kept[0]]] for tensor in strides]
    for dim in kept[1:]:
        size = sizes[dim]
        if all(
            tensor_merged[-1] == tensor[dim] * size
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True)
        ):
            merged_sizes[-1] *= size
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True):
                tensor_merged[-1] = tensor[dim]
        else:
            merged_sizes.append(size)
            for tensor_merged, tensor in zip(merged_strides, strides, strict=True):
                tensor_merged.append(tensor[dim])
    if len(kept) == 1 and sizes[kept[0]] == 1:
        merged_strides = [[1] for _ in strides]  # a single element: any stride reads the same address
    return ElementwiseLayout(
        element_count=math.prod(sizes),
        sizes=tuple(merged_sizes),
        strides=tuple(tuple(s) for s in merged_strides),
    )


TILE = 8
"""Elements per side of a tiled transpose's square tile (tile_order): eight vectors of eight."""


def tile_order(layout: ElementwiseLayout) -> ElementwiseLayout | None:
    """``layout`` reordered for a tiled transpose, or None where it is not one.

    A transpose here: the input (the first tensor) steps by 1 along one dimension and the output (the last)
    along another, each at least TILE long. Walking the output's order then reads every element from another
    cache line; a kernel that goes tile by tile reads rows of the input and writes rows of the output instead.
    The dimensions are reordered (the same order for every tensor, which an element-wise operator does not
    notice) so that the input's contiguous one is second to last and the output's last."""
    if layout.rank < 2:
        return None
    source, target = layout.strides[0], layout.strides[-1]
    read_along = next((d for d, stride in enumerate(source) if stride == 1), None)
    write_along = next((d for d, stride in enumerate(target) if stride == 1), None)
    if read_along is None or write_along is None or read_along == write_along:
        return None
    if min(layout.sizes[read_along], layout.sizes[write_along]) < TILE:
        return None
    order = [d for d in range(layout.rank) if d not in (read_along, write_along)] + [read_along, write_along]
    return ElementwiseLayout(
        element_count=layout.element_count,
        sizes=tuple(layout.sizes[d] for d in order),
        strides=tuple(tuple(tensor[d] for d in order) for tensor in layout.strides),
    )


LaunchProfileName = Literal["cpu", "gpu"]
LAUNCH_PROFILE_NAMES: tuple[LaunchProfileName, ...] = ("cpu", "gpu")


@dataclass(frozen=True)
class LaunchProfile:
    """How every kernel spreads elements over work-items on a kind of device (chosen by the runtime from the
    device, or forced with ``create_device(launch_profile=...)``).

    ``"cpu"``: each work-item handles a long run of consecutive elements (the operator's ELEMENTS_PER_ITEM),
    which PoCL compiles to one SIMD loop. ``"gpu"``: a grid-stride loop (``-DGRID_STRIDE=1``): work-item g of a
    grid of G handles elements (or vectors) g, g + G, ..., so neighbouring work-items touch neighbouring
    addresses and the loads coalesce; G is enough work-items to fill every compute unit, and one launch covers
    any size. The profile is part of each KernelSpec (its -D options), so both shapes can live in one process.
    """

    name: LaunchProfileName
    vector_width: int
    """Elements per vector load in the packed Round kernel: 8 on CPUs (a float8 is one 256-bit register), 4 on
    GPUs (16 bytes of float per work-item, the widest load that measured at or above the copy kernel)."""
    work_group_size: int | None = None
    """Work-items per work-group (a power of two), or None for the driver's choice."""
    grid_size: int | None = None
    """gpu: the work-items of one launch at most (a multiple of ``work_group_size``), enough to fill the device."""

    @property
    def grid_stride(self) -> bool:
        return self.name == "gpu"

    def lowered(
        self, kernel: KernelSpec, layout: ElementwiseLayout, run_length: int, *, vector_width: int = 1
    ) -> LoweredOperator:
        """``kernel`` in this profile's shape over ``layout``: its -D options gain GRID_STRIDE (and, for the
        "cpu" shape, ELEMENTS_PER_ITEM = ``run_length``, the operator's own tuning); a work-item handles
        ``run_length`` elements per launch under the "cpu" shape, ``vector_width`` per step of the grid under
        the "gpu" one."""
        if self.grid_stride:
            shape: tuple[tuple[str, str], ...] = (("GRID_STRIDE", "1"),)
        else:
            shape = (("GRID_STRIDE", "0"), ("ELEMENTS_PER_ITEM", str(run_length)))
        spec = KernelSpec(
            kernel.source_name, kernel.kernel_name, (*kernel.defines, *shape), kernel.options, kernel.prelude
        )
        return LoweredOperator(spec, layout, vector_width if self.grid_stride else run_length, self)


PACKED_RUN = 2048
"""Elements per work-item of a packed kernel's plain loop (elementwise_walk.h's FOR_EACH_PACKED) under the "cpu"
profile: a loop long enough for the vectorised body to dominate, as the packed Round kernel measured."""

CPU_PROFILE = LaunchProfile("cpu", vector_width=8)
"""The profile of lowering without a device (``desc.lower()``): what ``dmlpy explain`` shows by default."""


@dataclass(frozen=True)
class LoweredOperator:
    """What the runtime needs to run an operator: the kernel kind, the layout arguments and the launch size."""

    kernel: KernelSpec
    layout: ElementwiseLayout
    elements_per_work_item: int
    profile: LaunchProfile = CPU_PROFILE

    @property
    def global_size(self) -> int:
        """Work-items to launch: one per ``elements_per_work_item`` elements, under the "gpu" profile rounded
        up to whole work-groups and capped at the profile's grid (the grid-stride loop covers the rest)."""
        needed = max(1, -(-self.layout.element_count // self.elements_per_work_item))
        group = self.profile.work_group_size
        if not self.profile.grid_stride or group is None:
            return needed
        needed = -(-needed // group) * group
        grid = self.profile.grid_size
        return needed if grid is None else min(needed, grid)
