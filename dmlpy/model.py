"""The one base configuration every descriptor model shares."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

UInt32 = Annotated[int, Field(ge=0, le=2**32 - 1)]
"""A C ``UINT``."""
UInt64 = Annotated[int, Field(ge=0, le=2**64 - 1)]
"""A C ``UINT64``."""


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
    )
