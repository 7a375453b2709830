"""The lowering of the convolutions (CONVOLUTION, CONVOLUTION_INTEGER, QUANTIZED_LINEAR_CONVOLUTION): a plan of an
unfold step and gemm.cl's contraction (im2col), the matrix products' kernel doing the arithmetic.

Per group g, the convolution is a matrix product: the filter as {OutputChannelCount / GroupCount rows (M),
InputChannelCount / GroupCount x the filter's elements (K)} times the unfolded input, {K, the output positions (N)}
(``opencl/convolution.cl``: every input element each filter element meets at each output position, the padding
value where it meets none). The domain's batch is (BatchCount, GroupCount), so the groups are strides, never
launches. The steps, each only where it is needed:

1. the filter copied packed as {GroupCount, M, K} (``movement.window_copy``) where it is not one already: a
   flipped filter (CONVOLUTION FORWARD, CROSS_CORRELATION BACKWARD: steps of -1 along the spatial axes), BACKWARD's
   {InputChannelCount, OutputChannelCount / GroupCount, ...} (its first two axes swapped), or K not one stride;
2. the input unfolded (``unfold_kernel``) but for a FORWARD float convolution under the "cpu" profile, whose
   contraction reads its panel through the window itself (``opencl/gemm_window.h``, IMPLICIT), and a pointwise
   FORWARD convolution (a 1 x 1 filter, strides 1, no padding) whose input's spatial axes are one stride: the input
   is then the matrix as it is;
3. the contraction, the bias and FusedActivation in its epilogue, into the output, or, where the output's spatial
   axes are not one stride, into a packed temporary copied out after (``movement.strided_copy``).

A depth-wise convolution (``Geometry.depthwise``), float or integer, is no product worth the name (one row per group)
and runs as one launch of ``depthwise_plan``'s kernel (``opencl/depthwise.cl``) instead: each output element the sum
over its window, computed directly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from dmlpy.dtypes import FLOATS, AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout, coalesce
from dmlpy.kernels.contraction import Domain
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS, bits_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.movement import Window, strided_copy, window_copy
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.source import KernelSpec
from dmlpy.tensor import BufferTensorDesc

SPATIAL = 3
"""convolution.cl's spatial dimensions: fewer are leading dimensions of size 1."""
UNFOLD_RUN = 4096
"""Columns elements per work-item of the unfold under the "cpu" profile: runs long enough that mapping a run's outer
coordinates (a division per dimension) costs little against its elements."""
DEPTHWISE_RUN = 2048
"""Output elements per work-item of the direct depth-wise kernel under the "cpu" profile, about (whole rows where a
row is shorter, ``depthwise_run``). Measured on MobileNetV2's 144 @56 layer (224 work-items): Intel's CPU runtime ran
the integer kernel in 5.5-24 ms with runs of 256 and 1.6-1.7 ms with 2048; the float one, and PoCL's, the same."""


def depthwise_run(width: int) -> int:
    """The "cpu" profile's run: whole rows of ``width`` outputs, about ``DEPTHWISE_RUN``, so that each of the kernel's
    row blocks starts at a row's start (a run cut mid-row costs a partial block on each side)."""
    return width * max(1, DEPTHWISE_RUN // width)


@dataclass(frozen=True)
class Geometry:
    """A convolution's numbers, each spatial tuple padded at the front to ``SPATIAL`` entries."""

    batch: int
    groups: int
    input_channels: int
    output_channels: int
    input_spatial: tuple[int, ...]
    kernel: tuple[int, ...]
    output_spatial: tuple[int, ...]
    valid: tuple[int, ...]
    """The outputs the window computes per spatial axis: FORWARD, the output less OutputPadding (its zeros); BACKWARD,
    all of it."""
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    starts: tuple[int, ...]
    spatial_count: int
    backward: bool
    flipped: bool
    """Whether the filter is read reversed along its spatial axes."""

    @property
    def rows(self) -> int:
        """M: the output channels of one group."""
        return self.output_channels // self.groups

    @property
    def group_channels(self) -> int:
        """The input channels of one group."""
        return self.input_channels // self.groups

    @property
    def depth(self) -> int:
        """K: a group's input channels times the filter's elements."""
        return self.group_channels * math.prod(self.kernel)

    @property
    def positions(self) -> int:
        """N: the output's positions."""
        return math.prod(self.output_spatial)

    @property
    def domain(self) -> Domain:
        return Domain((self.batch, self.groups), self.rows, self.positions, self.depth)

    @property
    def depthwise(self) -> bool:
        """GroupCount = InputChannelCount = OutputChannelCount: one filter channel per channel, a product of one row
        per group, which ``depthwise_plan`` computes directly."""
        return self.groups == self.input_channels == self.output_channels

    @property
    def pointwise(self) -> bool:
        """A FORWARD 1 x 1 filter at strides 1, no padding: each output position reads its own input position."""
        ones = all(value == 1 for value in (*self.kernel, *self.strides))
        return not self.backward and ones and not any(self.starts) and self.valid == self.input_spatial


def pad_spatial(values: Sequence[int], fill: int) -> tuple[int, ...]:
    """Spatial entries padded at the front to ``SPATIAL`` with ``fill``."""
    return (fill,) * (SPATIAL - len(values)) + tuple(values)


def one_stride(sizes: Sequence[int], strides: Sequence[int]) -> int | None:
    """The one stride that walks axes ``sizes`` (strides ``strides``) as a single run, last fastest; None where they
    are not one run. No axis (or only axes of size 1): 0."""
    if not sizes or math.prod(sizes) == 1:
        return 0
    layout = coalesce(sizes, [strides])
    return layout.strides[0][0] if len(layout.sizes) == 1 else None


@dataclass(frozen=True)
class Operand:
    """What a contraction operand is bound to and its strides in the domain (batch0, batch1, M, N, K)."""

    ref: PlanRef
    strides: tuple[int, ...]


Contraction = Callable[[Operand, Operand, Operand, LaunchProfile], tuple[LoweredOperator, tuple[PlanRef | None, ...]]]
"""An operator's contraction step from its filter, columns and output operands: the kernel and its tensors' refs."""


def convolution_plan(
    geometry: Geometry,
    tensors: dict[str, tuple[PlanRef, BufferTensorDesc]],
    fill: PlanRef | None,
    contraction: Contraction,
    profile: LaunchProfile,
) -> OperatorPlan:
    """The convolution's launches: ``tensors`` gives the input, filter and output (by those names) with their descs,
    ``fill`` the input's zero point (None: padding is 0), ``contraction`` the operator's own product step."""
    steps: list[PlannedStep] = []
    temporaries: list[BufferTensorDesc] = []

    def temporary(data_type: AnyDataType, sizes: tuple[int, ...]) -> PlanRef:
        temporaries.append(BufferTensorDesc(data_type=data_type, sizes=sizes))
        return PlanRef("temporary", len(temporaries) - 1)

    g = geometry
    filter_ref, filter_desc = tensors["filter"]
    filter_operand = _direct_filter(g, filter_ref, filter_desc)
    if filter_operand is None:
        packed = (g.groups, g.rows, g.group_channels, *g.kernel[SPATIAL - g.spatial_count :])
        target = temporary(filter_desc.data_type, packed)
        lowered, shift = _filter_copy(g, filter_desc, packed, profile)
        steps.append(PlannedStep(lowered, (PlanRef(filter_ref.kind, filter_ref.index, shift), target)))
        filter_operand = Operand(target, (0, g.rows * g.depth, g.depth, 0, 1))
    input_ref, input_desc = tensors["input"]
    columns = _direct_columns(g, input_ref, input_desc)
    through_window = columns is None and implicit(g, input_desc.data_type, profile)
    if through_window:
        columns = _window_operand(g, input_ref, input_desc)
    elif columns is None:
        desc = columns_desc(input_desc.data_type, g)
        target = temporary(desc.data_type, desc.sizes)
        steps.append(PlannedStep(unfold_kernel(input_desc, g, fill is not None, profile), (input_ref, fill, target)))
        batch, channel = desc.effective_strides[:2]
        columns = Operand(target, (batch, g.group_channels * channel, 0, 1, g.positions))
    output_ref, output_desc = tensors["output"]
    output = _output_operand(g, output_ref, output_desc.sizes, output_desc.effective_strides)

    def product(target: Operand) -> PlannedStep:
        lowered, refs = contraction(filter_operand, columns, target, profile)
        return PlannedStep(_read_through_window(lowered, g) if through_window else lowered, refs)

    if output is not None:
        steps.append(product(output))
        return OperatorPlan(tuple(steps), tuple(temporaries))
    staging = BufferTensorDesc(data_type=output_desc.data_type, sizes=output_desc.sizes)
    target = temporary(staging.data_type, staging.sizes)
    staged = _output_operand(g, target, staging.sizes, staging.effective_strides)
    assert staged is not None  # packed: its spatial axes are one run
    steps.append(product(staged))
    copy = strided_copy(
        staging.data_type, staging.sizes, staging.effective_strides, output_desc.effective_strides, profile
    )
    steps.append(PlannedStep(copy, (target, output_ref)))
    return OperatorPlan(tuple(steps), tuple(temporaries))


def _output_operand(g: Geometry, ref: PlanRef, sizes: Sequence[int], strides: Sequence[int]) -> Operand | None:
    """The output as the contraction's (M, N) matrix per (batch, group), where its spatial axes are one stride."""
    along = one_stride(sizes[2:], strides[2:])
    if along is None:
        return None
    return Operand(ref, (strides[0], g.rows * strides[1], strides[1], along, 0))


def _direct_filter(g: Geometry, ref: PlanRef, desc: BufferTensorDesc) -> Operand | None:
    """The filter read as it is: FORWARD, not flipped, its channel and spatial axes one stride (K)."""
    strides = desc.effective_strides
    along = one_stride(desc.sizes[1:], strides[1:])
    if g.backward or g.flipped or along is None:
        return None
    return Operand(ref, (0, g.rows * strides[0], strides[0], 0, along))


def _direct_columns(g: Geometry, ref: PlanRef, desc: BufferTensorDesc) -> Operand | None:
    """A pointwise convolution's input as the columns themselves, where its spatial axes are one stride (N)."""
    strides = desc.effective_strides
    along = one_stride(desc.sizes[2:], strides[2:])
    if not g.pointwise or along is None:
        return None
    return Operand(ref, (strides[0], g.group_channels * strides[1], 0, along, strides[1]))


def implicit(g: Geometry, data_type: AnyDataType, profile: LaunchProfile) -> bool:
    """Whether the contraction reads the input through the window itself (gemm.cl's IMPLICIT, gemm_window.h) rather
    than unfolded columns: a FORWARD float convolution under the "cpu" profile. The unfold's columns are the input
    copied once per filter element, written and read back (at ResNet-18's 3 x 3 64->64 @56, 7.2 MB, 0.9-1.1 ms of a
    4.5 ms layer: docs/performance.md); the panel copy reads the same elements from the input instead. The "gpu"
    profile's work-group tiles keep the unfold (not measured on a GPU), BACKWARD's gather does too, and so do the
    integer convolutions: their panel of pairs read through the window measured slower on Intel's runtime."""
    return data_type in FLOATS and not g.backward and not profile.grid_stride


def _window_operand(g: Geometry, ref: PlanRef, desc: BufferTensorDesc) -> Operand:
    """The input as gemm_window.h's B: strides batch, group, channel, then the three spatial axes."""
    strides = desc.effective_strides
    return Operand(ref, (strides[0], g.group_channels * strides[1], strides[1], *pad_spatial(strides[2:], 0)))


def _read_through_window(lowered: LoweredOperator, g: Geometry) -> LoweredOperator:
    """The operator's contraction with its B panel read through ``g``'s window: IMPLICIT 1 and the window's
    numbers after the kernel's own parameters (gemm_window.h's WINDOW_PARAMETERS)."""
    spec = lowered.kernel
    defines = (*spec.defines, ("IMPLICIT", "1"))
    shape = KernelParameter("uint8", (*g.kernel, *g.output_spatial))
    parameters = (*lowered.parameters, *_window_parameters(g), shape)
    return replace(lowered, kernel=replace(spec, defines=defines), parameters=parameters)


def _window_parameters(g: Geometry) -> tuple[KernelParameter, ...]:
    """The window's numbers as convolution.cl's unfold and gemm_window.h take them: the input's spatial sizes and
    the window's own outputs, the strides and dilations, the start paddings."""
    return (
        KernelParameter("uint8", (*g.input_spatial, *g.valid)),
        KernelParameter("int8", (*g.strides, *g.dilations)),
        KernelParameter("int8", g.starts),
    )


def _filter_copy(
    g: Geometry, desc: BufferTensorDesc, packed: tuple[int, ...], profile: LaunchProfile
) -> tuple[LoweredOperator, int]:
    """The filter copied to ``packed`` {GroupCount, M, InputChannelCount / GroupCount, spatial...}: FORWARD's
    {OutputChannelCount, ..} splits its first axis into (group, row); BACKWARD's {InputChannelCount,
    OutputChannelCount / GroupCount, ..} splits its first into (group, channel) and swaps; flipped, each spatial
    axis read from its end."""
    strides = desc.effective_strides
    spatial_sizes, spatial_strides = desc.sizes[2:], strides[2:]
    if g.backward:
        leading = (g.group_channels * strides[0], strides[1], strides[0])
    else:
        leading = (g.rows * strides[0], strides[0], strides[1])
    starts = (0, 0, 0, *((size - 1 if g.flipped else 0) for size in spatial_sizes))
    steps = (1, 1, 1, *((-1 if g.flipped else 1) for _ in spatial_sizes))
    window = Window(packed, starts, steps)
    packed_strides = BufferTensorDesc(data_type=desc.data_type, sizes=packed).effective_strides
    return window_copy(desc.data_type, window, (*leading, *spatial_strides), packed, packed_strides, profile)


def columns_desc(data_type: AnyDataType, g: Geometry) -> BufferTensorDesc:
    """The unfolded input, packed: (BatchCount, InputChannelCount, the filter's three spatial sizes, the output's
    three); along K = (channel, filter element) one stride, the output's positions."""
    return BufferTensorDesc(data_type=data_type, sizes=(g.batch, g.input_channels, *g.kernel, *g.output_spatial))


def unfold_kernel(input_desc: BufferTensorDesc, g: Geometry, fill: bool, profile: LaunchProfile) -> LoweredOperator:
    """convolution.cl's unfold of the input into packed columns (BatchCount, InputChannelCount, the filter's three
    spatial sizes, the output's three); ``fill``: the padding value is the bound zero point's."""
    strides = input_desc.effective_strides
    spatial_strides = pad_spatial(strides[2:], 0)
    columns = columns_desc(input_desc.data_type, g)
    layout_strides = ((*strides[:2], *spatial_strides), (0,) * 8, columns.effective_strides)
    layout = ElementwiseLayout(math.prod(columns.sizes), columns.sizes, layout_strides)
    spec = KernelSpec(
        "convolution.cl",
        "unfold",
        (
            ("ELEMENT_T", bits_type(input_desc.data_type).storage),
            ("BACKWARD", str(int(g.backward))),
            ("FILL_TENSOR", str(int(fill))),
        ),
        TEMPLATE_OPTIONS,
    )
    return profile.lowered(spec, layout, UNFOLD_RUN, parameters=_window_parameters(g))


ROW_BLOCK_FILTERS = (3, 5)
"""The filter sizes along each spatial axis the fast path takes (compiled in, so that its loops unroll)."""
ROW_BLOCK_SPAN = 320
"""The fast path's padded input rows, floats each (private memory, DEPTHWISE_KH + 1 of them: the filter's rows and a
row of zeros): a row of outputs whose blocks of 8 read more (wider than 312 at stride 1, 152 at stride 2) takes the
general run."""


def row_blocks(
    g: Geometry, source: BufferTensorDesc, output: BufferTensorDesc, profile: LaunchProfile
) -> tuple[tuple[str, str], ...]:
    """depthwise.cl's fast path's defines (DEPTHWISE_KH, DEPTHWISE_KW, DEPTHWISE_SW: blocks of 8 outputs along a
    row, their sums held across the window) where the layer is the common one it is written for, else none (the
    general run): FLOAT32 (the integer sums and FLOAT16's conversions keep the general run), FORWARD, the "cpu"
    profile (the "gpu" one computes an output a work-item, neighbouring work-items neighbouring outputs, which a
    block per work-item would spread apart), a filter of depth 1 and 3 or 5 elements along each of its last two axes,
    stride 1 or 2 and dilation 1 along the rows, no OutputPadding along them, and the input's and output's rows
    packed (a block is a vector load and its outputs one run)."""
    common = (
        source.data_type == TensorDataType.FLOAT32
        and not g.backward
        and not profile.grid_stride
        and g.kernel[0] == 1
        and g.kernel[1] in ROW_BLOCK_FILTERS
        and g.kernel[2] in ROW_BLOCK_FILTERS
        and g.strides[2] in (1, 2)
        and g.dilations[2] == 1
        and g.valid[2] == g.output_spatial[2]
        and source.effective_strides[-1] == 1
        and output.effective_strides[-1] == 1
        and -(-g.output_spatial[2] // 8) * 8 * g.strides[2] + g.kernel[2] - 1 <= ROW_BLOCK_SPAN
    )
    if not common:
        return ()
    # DEPTHWISE_RING: input row ih kept in slot ih % KH, distinct for a row of outputs' filter rows where the row
    # dilation is prime to KH
    ring = math.gcd(g.dilations[1], g.kernel[1]) == 1
    sizes = {"DEPTHWISE_KH": g.kernel[1], "DEPTHWISE_KW": g.kernel[2], "DEPTHWISE_SW": g.strides[2]}
    sizes |= {"DEPTHWISE_SPAN": ROW_BLOCK_SPAN, "DEPTHWISE_RING": int(ring)}
    return tuple((name, str(value)) for name, value in sizes.items())


def depthwise_plan(
    g: Geometry,
    tensors: Sequence[tuple[str, PlanRef | None, BufferTensorDesc | None]],
    defines: tuple[tuple[str, str], ...],
    prelude: str,
    profile: LaunchProfile,
) -> OperatorPlan:
    """depthwise.cl's direct depth-wise kernel in one launch, no temporary: ``g.depthwise`` holds; ``tensors`` the
    operator's (name, ref, desc) in binding order, the output last, "input" and "filter" walked through their
    windows and every other a value per channel or one value (None: absent); ``defines`` the operator's arithmetic
    (depthwise.cl's INTEGER_SUM, QUANTIZED, the types, which tensors are given); ``prelude`` the
    FusedActivation's ACTIVATION(v), or nothing."""
    descs = {name: desc for name, _, desc in tensors}
    source, kernel, output = descs["input"], descs["filter"], tensors[-1][2]
    assert source is not None and kernel is not None and output is not None  # required tensors

    def spatial_padded(strides: Sequence[int], leading: int) -> tuple[int, ...]:
        return (*strides[:leading], *pad_spatial(strides[leading:], 0))

    def per_channel(desc: BufferTensorDesc | None) -> tuple[int, ...]:
        channel = 0 if desc is None or desc.sizes[1] == 1 else desc.effective_strides[1]
        return (0, channel, 0, 0, 0)

    walks = {
        "input": spatial_padded(source.effective_strides, 2),
        "filter": spatial_padded((kernel.effective_strides[0], *kernel.effective_strides[2:]), 1),
    }
    layout_strides = tuple(walks.get(name) or per_channel(desc) for name, _, desc in tensors[:-1])
    sizes = (*output.sizes[:2], *g.output_spatial)
    layout = ElementwiseLayout(math.prod(sizes), sizes, (*layout_strides, spatial_padded(output.effective_strides, 2)))
    fast = row_blocks(g, source, output, profile)
    spec = KernelSpec(
        "depthwise.cl",
        "depthwise",
        (*defines, ("BACKWARD", str(int(g.backward))), ("FLIPPED", str(int(g.flipped))), *fast),
        TEMPLATE_OPTIONS,
        prelude,
    )
    parameters = (
        KernelParameter("uint8", (*g.input_spatial, *g.valid)),
        KernelParameter("int8", (*g.strides, *g.dilations)),
        KernelParameter("int8", g.starts),
        KernelParameter("uint8", g.kernel),
    )
    lowered = profile.lowered(spec, layout, depthwise_run(g.output_spatial[-1]), parameters=parameters)
    return OperatorPlan((PlannedStep(lowered, tuple(ref for _, ref, _ in tensors)),), ())
