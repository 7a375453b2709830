"""The one base configuration every descriptor model shares."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

UInt32 = Annotated[int, Field(ge=0, le=2**32 - 1)]
"""A C ``UINT``."""
UInt64 = Annotated[int, Field(ge=0, le=2**64 - 1)]
"""A C ``UINT64``."""


def _accept_snake_case(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The JSON Schema takes what the parser takes: each C-named property may be written in snake_case too (not
    both), so "required" asks for one spelling or the other."""
    properties = schema.get("properties", {})
    snake = {field.alias: name for name, field in model.model_fields.items() if field.alias and field.alias != name}
    pattern_properties = {f"^{snake[c]}$": value for c, value in properties.items() if c in snake}
    if pattern_properties:
        schema["patternProperties"] = pattern_properties
    required = schema.pop("required", [])
    if required:
        schema["allOf"] = [
            {"anyOf": [{"required": [c]}, {"required": [snake[c]]}]} if c in snake else {"required": [c]}
            for c in required
        ]


class DmlModel(BaseModel):
    """Frozen (hashable, usable as a cache key), unknown fields refused, snake_case names with the C member
    names as aliases; either spelling is accepted on input, ``by_alias=True`` dumps the C names."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        use_attribute_docstrings=True,
        use_enum_values=False,
        json_schema_extra=_accept_snake_case,
    )
