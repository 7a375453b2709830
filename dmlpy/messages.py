"""pydantic's validation errors retold as DirectML would explain them: C field paths, the value given, the rule.

``ELEMENT_WISE_ROUND.InputTensor.DataType is "FLOAT64"; it must be one of ...`` rather than pydantic's
``input_tensor.desc.data_type: Input should be ...``: whoever wrote the descriptor wrote C names.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from dmlpy.enums import DmlEnum, DmlFlag, OperatorType, RoundingMode, TensorDataType, TensorFlags, TensorType
from dmlpy.modes import OTHER_MODE_NAMES
from dmlpy.ops import OPERATORS, OperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc


def _c_field_names() -> dict[str, str]:
    names: dict[str, str] = {}
    models: list[type[BaseModel]] = [OperatorDesc, TensorDesc, BufferTensorDesc, *OPERATORS.values()]
    for model in models:
        for name, field in model.model_fields.items():
            names[name] = field.alias or name
    return names


_C_FIELDS = _c_field_names()
_ENUM_FIELDS: dict[str, type[DmlEnum] | type[DmlFlag]] = {
    "DataType": TensorDataType,
    "Flags": TensorFlags,
    "RoundingMode": RoundingMode,
}
_CEIL_NAMES = {"CEIL", "UP", "ROUND_UP"}


def _field_path(root: str, loc: Sequence[int | str]) -> tuple[str, str]:
    """``ELEMENT_WISE_ROUND.InputTensor.Sizes[1]`` for a pydantic location, and the last field's C name."""
    path, last, member_of_union = root, "", False
    for part in loc:
        if isinstance(part, str) and "[" in part:
            # A union member tag such as "int-enum[TensorDataType]", or OperatorDesc's "OperatorDesc[DML_...]".
            member_of_union = part.startswith("OperatorDesc[")
            continue
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        name = _C_FIELDS.get(part, part)
        if name == "Desc" and (path != root or member_of_union):
            # InputTensor.Desc.DataType reads as InputTensor.DataType, and an operator's Desc as the operator
            # itself (ELEMENT_WISE_ROUND.InputTensor), as DirectML's messages do.
            continue
        path += f".{name}"
        last = name
    return path, last


def _enum_choices(enum_class: type[DmlEnum] | type[DmlFlag]) -> str:
    members = cast(list[DmlEnum | DmlFlag], list(enum_class))
    choices = ", ".join(f"{member.name} ({member.value})" for member in members)
    example = members[0]
    return f"one of {choices}: the C name ({example.c_name}), the short name or the number"


def _show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (str, int, float, bool, list, dict)) or value is None else repr(value)


def _enum_problem(path: str, last: str, root: str, given: Any, message: str) -> str:
    enum_class: type[DmlEnum] | type[DmlFlag] | None = _ENUM_FIELDS.get(last)
    if last == "Type":
        enum_class = OperatorType if path == f"{root}.Type" else TensorType
    line = f"{path} is {_show(given)}; it must be " + (_enum_choices(enum_class) if enum_class else message)
    if isinstance(given, str) and given.lower() in OTHER_MODE_NAMES:
        line += f" ({given!r} is another system's name; DirectML calls it {OTHER_MODE_NAMES[given.lower()].name})"
    if isinstance(given, str) and given.upper() in _CEIL_NAMES:
        line += " (DirectML has no ceil mode; TOWARD_INFINITY rounds halves away from zero, it is not ceil)"
    return line


def validation_problems(error: ValidationError, root: str) -> list[str]:
    """One teaching line per field pydantic found wrong, its path starting at ``root`` (an operator's name such
    as ``ELEMENT_WISE_ROUND``, or ``DML_BUFFER_TENSOR_DESC``) and written in C field names."""
    lines: list[str] = []
    seen: set[str] = set()
    for problem in error.errors(include_url=False):
        path, last = _field_path(root, problem["loc"])
        if path in seen:
            continue  # one line per field, even when a union tried several types
        seen.add(path)
        kind, given = problem["type"], problem.get("input")
        message = problem["msg"].removeprefix("Value error, ")
        if kind == "enum":
            lines.append(_enum_problem(path, last, root, given, message))
        elif kind == "missing" and path == root:  # an operator's Desc left out: there is no descriptor at all
            lines.append(f"{path} is null; it must be a JSON object with the descriptor's fields")
        elif kind == "missing":
            lines.append(f"{path} is missing; it is required")
        elif kind == "extra_forbidden":
            lines.append(f"{path} is not a field here (given {_show(given)}); check its spelling")
        elif kind == "greater_than_equal":
            lines.append(f"{path} is {_show(given)}; it must be a whole number from {problem.get('ctx', {}).get('ge')}")
        elif kind == "less_than_equal":
            limit = problem.get("ctx", {}).get("le")
            width = "UINT64" if limit == 2**64 - 1 else "UINT" if limit == 2**32 - 1 else "field"
            lines.append(f"{path} is {_show(given)}; a C {width} holds at most {limit}")
        elif kind in {"model_type", "model_attributes_type", "dict_type"}:
            lines.append(f"{path} is {_show(given)}; it must be a JSON object with the descriptor's fields")
        elif kind == "value_error":
            lines.append(f"{path}: {message}")
        else:
            lines.append(f"{path} is {_show(given)}: {message}")
    return lines
