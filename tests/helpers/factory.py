"""One known-good ELEMENT_WISE_ROUND descriptor, and helpers that change one thing about it.

The helpers rebuild the models instead of using ``model_copy(update=...)``, which skips validation and would leave
derived fields (DimensionCount, TotalTensorSizeInBytes) stale.
"""

from __future__ import annotations

from typing import Any

import dmlpy as dml

GOOD_SIZES = (1, 2, 3, 4)
"""N=1, C=2, H=3, W=4: a valid 4-D tensor at every feature level from 2_1."""


def tensor(**changes: Any) -> dml.BufferTensorDesc:
    """A packed FLOAT32 1x2x3x4 BufferTensorDesc with ``changes`` (snake_case fields) applied."""
    fields: dict[str, Any] = {"data_type": dml.TensorDataType.FLOAT32, "sizes": GOOD_SIZES}
    fields.update(changes)
    return dml.BufferTensorDesc(**fields)


def round_op(
    input_tensor: dml.BufferTensorDesc | dml.TensorDesc | None = None,
    output_tensor: dml.BufferTensorDesc | dml.TensorDesc | None = None,
    **changes: Any,
) -> dml.ElementWiseRoundOperatorDesc:
    """The good Round descriptor (in place: output = input) with either tensor or other fields replaced.

    When only the input is given, the output is the same tensor, so the pair stays consistent.
    """
    source = input_tensor if input_tensor is not None else tensor()
    target = output_tensor if output_tensor is not None else source
    return dml.ElementWiseRoundOperatorDesc(input_tensor=source, output_tensor=target, **changes)


def both(**changes: Any) -> dml.ElementWiseRoundOperatorDesc:
    """Round whose input and output are both ``tensor(**changes)``."""
    return round_op(tensor(**changes))
