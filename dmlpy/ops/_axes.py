"""The axis arithmetic of the operators that work along some dimensions of their input: REDUCE, ARGMIN and ARGMAX
(``Axes``, reduced to size 1), TOP_K and TOP_K1 (``Axis``, cut to K), CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT
(``Axis``, run along). Axes count the dimensions from 0, the outermost, as DirectML's Sizes do."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OperatorDescBase


def check_axis(desc: OperatorDescBase, field: str, axis: int, rank: int) -> None:
    """``field`` (an ``Axis``) names a dimension of InputTensor: less than its DimensionCount ``rank``."""
    if axis >= rank:
        raise InvalidArgumentError(
            f"{desc.operator_name()}.{desc.c_field(field)} is {axis}; it must be less than InputTensor.DimensionCount "
            f"({rank}): axes count the dimensions from 0, the outermost, so {rank - 1} is the innermost"
        )


def check_axes(desc: OperatorDescBase, axes: Sequence[int], rank: int) -> None:
    """``Axes`` names at least one dimension of InputTensor, each once, each less than its DimensionCount."""
    name = desc.operator_name()
    if not axes:
        raise InvalidArgumentError(
            f"{name}.AxisCount is 0; name at least one axis in Axes (to reduce the whole tensor, list every "
            f"dimension: {list(range(rank))})"
        )
    for index, axis in enumerate(axes):
        if axis >= rank:
            raise InvalidArgumentError(
                f"{name}.Axes[{index}] is {axis}; each axis must be in [0, InputTensor.DimensionCount - 1] = "
                f"[0, {rank - 1}]: axes count the dimensions from 0, the outermost"
            )
        if axis in axes[:index]:
            raise InvalidArgumentError(
                f"{name}.Axes[{index}] is {axis}, which Axes {list(axes)} holds already; each axis may appear once"
            )


def reduced_sizes(sizes: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    """``sizes`` with each dimension of ``axes`` made 1: the rank kept."""
    return tuple(1 if dim in axes else size for dim, size in enumerate(sizes))


def sizes_along(sizes: Sequence[int], axis: int, size: int) -> tuple[int, ...]:
    """``sizes`` with dimension ``axis`` made ``size``."""
    return tuple(size if dim == axis else given for dim, given in enumerate(sizes))
