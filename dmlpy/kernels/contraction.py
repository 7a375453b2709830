"""The lowering of the matrix products (GEMM and the integer ones, ``opencl/gemm.cl``): the contraction domain
(batch0, batch1, M, N, K) and every tensor's strides in it, so that one kernel serves every layout.

A matrix operand's last two dimensions run along two of M, N and K (A: M and K, or K and M under TransA; B: K and
N, or N and K; C, a bias and the output: M and N), so a transpose is its two strides swapped; its batch dimensions,
right-aligned into the domain's two, keep their own strides (0 where it is broadcast). A scale or zero point holds
one value, or one per row (M) or column (N): the stride of its one dimension that is not 1 goes to that axis, and
every other is 0.

The kernel takes the element-wise argument convention (dmlpy/kernels/source.py): the layout's sizes are the domain's
five, its element count the output's, and each tensor's uint8 of strides holds its five strides."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.launch import KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.source import KernelSpec

Axis = Literal["m", "n", "k"]
_POSITION: dict[Axis, int] = {"m": 2, "n": 3, "k": 4}
BATCH_RANK = 2
"""The domain's batch dimensions: DirectML's matrices have at most 4 dimensions, two of them batch."""

CPU_TILE = 64 * 16
"""Outputs of one "cpu" work-item's tile (gemm.cl's CPU_ROWS x CPU_COLUMNS): at least 256, so CPU devices run it in
work-groups of one work-item (runtime/programs.py), each with its own private panel."""
PAIR_TILE = 64 * 32
"""The same for the 8-bit integer products (gemm_pairs.h: CPU_ROWS x PAIR_COLUMNS)."""
PAIR_OPERATORS = frozenset(
    {"MATRIX_MULTIPLY_INTEGER", "QUANTIZED_LINEAR_MATRIX_MULTIPLY", "QUANTIZED_LINEAR_CONVOLUTION"}
)
"""gemm.cl's INTEGER_PANEL operators, whose "cpu" tiles are gemm_pairs.h's."""
GPU_ITEM_OUTPUTS = 16
"""Outputs per "gpu" work-item (gemm.cl's 4 x 4), so the launch has about one work-group per 64 x 64 tile."""

GEMM_CL_OPERATORS = {
    "GEMM": 0,
    "MATRIX_MULTIPLY_INTEGER": 1,
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": 2,
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": 3,
    "QUANTIZED_LINEAR_CONVOLUTION": 4,
}
"""gemm.cl's OPERATOR values."""


@dataclass(frozen=True)
class Domain:
    """The contraction's sizes: the batch (right-aligned, padded with 1s to two dimensions), M, N and K."""

    batch: tuple[int, ...]
    m: int
    n: int
    k: int

    @property
    def sizes(self) -> tuple[int, ...]:
        padded = (1,) * (BATCH_RANK - len(self.batch)) + tuple(self.batch)
        return (*padded, self.m, self.n, self.k)


def matrix_strides(sizes: Sequence[int], strides: Sequence[int], last_two: tuple[Axis, Axis]) -> tuple[int, ...]:
    """A matrix operand's strides in the domain: its batch dimensions' own (a size-1 one steps by 0), its last two
    dimensions' on the axes ``last_two`` names (A under TransA: ("k", "m")), 0 on the third axis."""
    domain = [0] * (BATCH_RANK + 3)
    batch = len(sizes) - 2
    for dim in range(batch):
        domain[BATCH_RANK - batch + dim] = 0 if sizes[dim] == 1 else strides[dim]
    for axis, stride in zip(last_two, strides[-2:], strict=True):
        domain[_POSITION[axis]] = stride
    return tuple(domain)


def parameter_strides(sizes: Sequence[int], strides: Sequence[int], along: Axis) -> tuple[int, ...]:
    """A scale or zero point's strides in the domain: one value (every size 1) steps by 0 everywhere; one per row or
    column steps along ``along`` by its one dimension's stride (the operator's rules allow no other shape)."""
    domain = [0] * (BATCH_RANK + 3)
    spread = [stride for size, stride in zip(sizes, strides, strict=True) if size != 1]
    if spread:
        (domain[_POSITION[along]],) = spread
    return tuple(domain)


ABSENT = (0,) * (BATCH_RANK + 3)
"""The strides of an optional tensor left out: bound as null, never read."""


def contraction_kernel(
    operator: str,
    defines: Sequence[tuple[str, str]],
    domain: Domain,
    strides: Sequence[tuple[int, ...]],
    profile: LaunchProfile,
    *,
    prelude: str = "",
    parameters: tuple[KernelParameter, ...] = (),
) -> LoweredOperator:
    """gemm.cl's contraction for ``operator`` (an ``OPERATORS`` name) over ``domain``, ``strides`` one tuple per
    tensor in binding order (``matrix_strides``, ``parameter_strides`` or ``ABSENT``); ``prelude`` defines a
    FusedActivation's ACTIVATION, ``parameters`` follow the convention's arguments (GEMM's Alpha and Beta bits)."""
    spec = KernelSpec(
        "gemm.cl",
        "contraction",
        (("OPERATOR", str(GEMM_CL_OPERATORS[operator])), *defines),
        TEMPLATE_OPTIONS,  # quantize's division correctly rounded, as the element-wise template builds it
        prelude,
    )
    layout = ElementwiseLayout(math.prod(domain.batch) * domain.m * domain.n, domain.sizes, tuple(strides))
    tile = PAIR_TILE if operator in PAIR_OPERATORS else CPU_TILE
    return profile.lowered(spec, layout, tile, vector_width=GPU_ITEM_OUTPUTS, parameters=parameters)
