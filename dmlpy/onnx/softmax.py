"""ONNX's Softmax, LogSoftmax and Hardmax as DirectML's ACTIVATION_SOFTMAX1, LOG_SOFTMAX1 and HARDMAX1
(DML_FEATURE_LEVEL_5_1): the node's ``axis`` attribute as the operator's Axes.

From opset 13 the op types reduce along one axis (``axis``, default -1). Before it they coerce the input to 2-D,
[the dimensions before ``axis``, those from it on] (``axis`` default 1), and reduce the second: a joint reduction
along every axis from ``axis`` on, which the "1" forms express directly (HARDMAX1's first maximum in row-major order
of those axes is the first of the flattened row)."""

from __future__ import annotations

from dmlpy.errors import InvalidArgumentError

SOFTMAX_OPS = ("Softmax", "LogSoftmax", "Hardmax")
ONE_AXIS_OPSET = 13
"""The opset from which the three reduce along one axis rather than the coerced 2-D input's rows."""


def softmax_axes(opset: int, attributes: dict[str, int], rank: int, where: str) -> tuple[int, ...]:
    """The Axes of the "1" form of a Softmax, LogSoftmax or Hardmax node at ``opset`` whose input has ``rank``
    dimensions (0: an ONNX scalar, or ``prepare``'s one-element stand-in, whose one element is its group)."""
    if rank == 0:
        return (0,)
    one_axis = opset >= ONE_AXIS_OPSET
    axis = attributes.get("axis", -1 if one_axis else 1)
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"{where}: axis {axis} is out of range for an input of rank {rank} ({-rank} to {rank - 1})"
        )
    first = axis % rank
    return (first,) if one_axis else tuple(range(first, rank))
