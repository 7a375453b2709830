"""Launch profiles: how a kernel spreads elements over work-items on a kind of device, and ``LoweredOperator``,
what the runtime needs to run an operator (the kernel kind, the layout arguments and the launch size)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.source import KernelSpec

LaunchProfileName = Literal["cpu", "gpu"]
LAUNCH_PROFILE_NAMES: tuple[LaunchProfileName, ...] = ("cpu", "gpu")

ParameterKind = Literal["int8", "uint8", "ulong"]


@dataclass(frozen=True)
class KernelParameter:
    """An argument a kernel takes after the element-wise convention's (dmlpy/kernels/source.py): an OpenCL
    ``int8`` or ``uint8`` (``values`` padded to 8) or one ``ulong``. Numbers, never text: an operator's fields
    reach a kernel as arguments, so kernels of one kind share one program."""

    kind: ParameterKind
    values: tuple[int, ...]


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
    lanes_across_work_items: bool = False
    """cpu, on a runtime whose compiler vectorises across work-items and never along a work-item's loop (Intel's
    CPU runtime: 16 work-items a vector): the element-wise template's packed kernel takes one element a work-item
    in work-groups of ACROSS_GROUP, so that a vector's lanes are neighbouring elements. Runs of PACKED_RUN in
    work-groups of one work-item run its scalar kernel there (docs/performance.md, Intel's runtime)."""

    @property
    def grid_stride(self) -> bool:
        return self.name == "gpu"

    def lowered(
        self,
        kernel: KernelSpec,
        layout: ElementwiseLayout,
        run_length: int,
        *,
        vector_width: int = 1,
        parameters: tuple[KernelParameter, ...] = (),
        work_group_size: int | None = None,
    ) -> LoweredOperator:
        """``kernel`` in this profile's shape over ``layout``: its -D options gain GRID_STRIDE (and, for the
        "cpu" shape, ELEMENTS_PER_ITEM = ``run_length``, the operator's own tuning); a work-item handles
        ``run_length`` elements per launch under the "cpu" shape, ``vector_width`` per step of the grid under
        the "gpu" one. ``work_group_size``: a "cpu" kernel's own work-groups (``LoweredOperator``'s)."""
        if self.grid_stride:
            shape: tuple[tuple[str, str], ...] = (("GRID_STRIDE", "1"),)
        else:
            shape = (("GRID_STRIDE", "0"), ("ELEMENTS_PER_ITEM", str(run_length)))
        spec = KernelSpec(
            kernel.source_name, kernel.kernel_name, (*kernel.defines, *shape), kernel.options, kernel.prelude
        )
        per_item = vector_width if self.grid_stride else run_length
        return LoweredOperator(spec, layout, per_item, self, parameters, None if self.grid_stride else work_group_size)


PACKED_RUN = 2048
"""Elements per work-item of a packed kernel's plain loop (elementwise_walk.h's FOR_EACH_PACKED) under the "cpu"
profile: a loop long enough for the vectorised body to dominate, as the packed Round kernel measured."""

ACROSS_GROUP = 1024
"""Work-items per work-group where a vector's lanes are across work-items (``LaunchProfile.lanes_across_work_items``):
a fixed size, so that any element count vectorises (the driver's choice divides the work-items: 1 for a prime
count, and 16,777,213 float32 RELU ran 15x slower than in runs of PACKED_RUN), and few enough groups that their
scheduling is lost in the work (on Intel's runtime, 16M one-element work-items in groups of 16 took 4x the time of
groups of 256 or more)."""

CPU_PROFILE = LaunchProfile("cpu", vector_width=8)
"""The profile of lowering without a device (``desc.lower()``): what ``dmlpy explain`` shows by default."""


@dataclass(frozen=True)
class LoweredOperator:
    """What the runtime needs to run an operator: the kernel kind, the layout arguments and the launch size."""

    kernel: KernelSpec
    layout: ElementwiseLayout
    elements_per_work_item: int
    profile: LaunchProfile = CPU_PROFILE
    parameters: tuple[KernelParameter, ...] = ()
    """The kernel's arguments after the layout's, in order (movement.cl's window)."""
    work_group_size: int | None = None
    """"cpu": work-items per work-group of this kernel's launch (a power of two; less where the kernel cannot run
    that many), which is exactly ``global_size`` work-items (``launch_ranges``); None for the profile's choice."""

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

    @property
    def launch_ranges(self) -> tuple[tuple[int, int], ...]:
        """(first work-item, work-items) of each enqueue of one launch: all ``global_size`` at once, or for a
        kernel of its own ``work_group_size`` its whole work-groups, then the rest from that global offset in the
        driver's work-groups. So no work-item is past the end, and such a kernel checks no bound (the one-element
        shape of the element-wise template, whose bound check cost Intel's vectoriser masked stores)."""
        total, group = self.global_size, self.work_group_size
        if group is None:
            return ((0, total),)
        whole = total - total % group
        return tuple((first, count) for first, count in ((0, whole), (whole, total - whole)) if count)
