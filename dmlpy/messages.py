"""pydantic's validation errors retold as DirectML would explain them: C field paths, the value given, the rule.

``ELEMENT_WISE_ROUND.InputTensor.DataType is "FLOAT64"; it must be one of ...`` rather than pydantic's
``input_tensor.desc.data_type: Input should be ...``: whoever wrote the descriptor wrote C names.

The translation lives with the models (:mod:`dmlpy.model`), so constructors, ``model_validate``, the JSON parser
and the CLI speak with one voice; the operators add their own notes through the models' hooks (rounding-mode
names, in ``dmlpy.ops._base``). This module is the helpers' door to it, for a ``ValidationError`` caught
elsewhere (a ``pydantic.TypeAdapter`` over a descriptor type, say).
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from dmlpy.problems import DescriptorProblems, show
from dmlpy.problems import validation_problems as _validation_problems

__all__ = ["DescriptorProblems", "show", "validation_problems"]


def validation_problems(error: ValidationError, model: type[BaseModel]) -> list[str]:
    """One teaching line per field pydantic found wrong while validating ``model``, its path starting at the
    struct's C name (an operator's name such as ``ELEMENT_WISE_ROUND``, or ``DML_BUFFER_TENSOR_DESC``) and
    written in C field names."""
    return _validation_problems(error, model)
