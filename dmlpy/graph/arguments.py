"""The written builder functions' argument checks, one each (DirectMLX's argument kinds): an enum member by any of
its names, an optional input, a FusedActivation, one number per spatial dimension; each refusal names the
function and the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from dmlpy.enum_base import DmlEnum
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.ops.fused_activation import FusedActivation

E = TypeVar("E", bound=DmlEnum)


def enum_argument(kind: type[E], value: Any, where: str, name: str) -> E:
    """``value`` as a member of ``kind`` (by its C name, short name or number)."""
    try:
        return kind.parse(value)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: {name}: {error}") from None


def optional_operand(value: Any, where: str, name: str) -> Expression | None:
    """An optional input (DirectMLX's ``Optional<Expression>``): an expression, or None to leave it out."""
    return None if value is None else operand(value, where, name)


def activation_argument(value: Any, where: str) -> FusedActivation | None:
    """A FusedActivation, or None."""
    if value is not None and not isinstance(value, FusedActivation):
        raise argument_error(where, "fused_activation", value, "a dml.FusedActivation(type=..., desc={...}) or None")
    return value


def spatial_argument(
    x: Expression, values: Sequence[int] | None, default: int, where: str, name: str
) -> tuple[int, ...]:
    """``values`` as a tuple; None or empty: ``default`` for each spatial dimension of ``x`` (DirectMLX's default).
    The count is checked by the operator's rule when the node is added."""
    if values is None:
        return (default,) * max(len(x.sizes) - 2, 0)
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise argument_error(where, name, values, "a list of one whole number per spatial dimension, or None")
    return tuple(values) or (default,) * max(len(x.sizes) - 2, 0)
