"""A builder node's output tensor: DirectMLX's default tensor policy (packed, no Strides) over the Sizes and
DataType its operator's rule gives (``OperatorDescBase.output_shapes``), so that no builder function says what an
operator makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc


def packed_output(
    desc_class: type[OperatorDescBase],
    inputs: Mapping[str, BufferTensorDesc | None],
    data_type: TensorDataType | None = None,
    *,
    fields: Mapping[str, Any] | None = None,
) -> BufferTensorDesc:
    """The first output of a ``desc_class`` node on ``inputs`` (descs by field; None for one left out) and its
    ``fields`` (those the rule reads: SLICE1's window, JOIN's Axis), packed: the rule's Sizes, and ``data_type`` where
    the caller chose one (DirectMLX's outputDataType), else the rule's."""
    (shape, *_) = desc_class.output_shapes(dict(inputs), dict(fields or {}))
    chosen = data_type if data_type is not None else shape.data_type
    if chosen is None:
        raise InvalidArgumentError(
            f"{desc_class.operator_name()}: its output's DataType is the caller's choice ({shape.rule}); give one"
        )
    if shape.sizes is None:
        raise InvalidArgumentError(
            f"{desc_class.operator_name()}: its output's Sizes are the caller's choice ({shape.rule}); give them"
        )
    return BufferTensorDesc(data_type=chosen, sizes=shape.sizes)
