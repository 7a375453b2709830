"""The base of dmlpy's enums: ``DmlEnum`` and ``DmlFlag``, which parse directml.h's spellings (the C name, the
short name, the number, a number written as text, ``"A|B"`` for flags) and print them, and give the JSON Schema
every spelling (dmlpy/enums.py holds the enums themselves)."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Any, ClassVar, Self, cast

from dmlpy.errors import InvalidArgumentError

_NUMBER = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)")


def _parse_name(cls: type[Any], prefix: str, value: object) -> Any:
    """Look a member up by its C spelling or its short name (case-insensitive); None if neither matches."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _NUMBER.fullmatch(text):  # a number written as text, e.g. "1" or "0x2100" from a CLI or JSON
        try:
            return cls(int(text, 0))
        except ValueError:
            return None
    name = text.upper()
    name = name.removeprefix(prefix)
    for candidate in (name, cls._short_name_alias(name)):
        if candidate in cls.__members__:
            return cls.__members__[candidate]
    return None


class _CSpelling:
    """What DmlEnum and DmlFlag share: the C prefix given as a class keyword, parsing with a teaching error,
    and printing the directml.h spelling."""

    C_PREFIX: ClassVar[str]

    def __init_subclass__(cls, *, c_prefix: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.C_PREFIX = c_prefix

    @classmethod
    def parse(cls, value: Self | int | str) -> Self:
        """The member for a C spelling, short name, number or member (flags: ``"A|B"`` too);
        InvalidArgumentError (a ValueError) naming the accepted values for anything else."""
        try:
            return cls(value)  # type: ignore[call-arg]  # the enum's _missing_ handles the strings
        except (ValueError, TypeError):
            members = cast("Iterable[DmlEnum | DmlFlag]", cls)
            how = "combine" if issubclass(cls, enum.Flag) else "use one of"
            names = ", ".join(member.c_name for member in members)
            raise InvalidArgumentError(f"{value!r} is not a {cls.__name__}; {how} {names}") from None

    @classmethod
    def _short_name_alias(cls, name: str) -> str:
        return name

    @classmethod
    def spellings(cls) -> list[str]:
        """Every name a value of this enum may be written as (its number aside): C names, then short names."""
        # __members__' names, not iteration: a flag's NONE is included, and an alias (OperatorType's SCATTER, for
        # SCATTER_ELEMENTS) is spelt as directml.h spells it.
        members = cast("dict[str, DmlEnum | DmlFlag]", cast("type[enum.Enum]", cls).__members__)
        c_names = [m.c_name if m.name == name else cls.C_PREFIX + name for name, m in members.items()]
        return c_names + list(members)

    @classmethod
    def _json_values(cls) -> tuple[dict[str, Any], dict[str, Any]]:
        """JSON Schemas of the numbers and of the strings the parser takes."""
        members = cast("list[DmlEnum]", list(cast("type[enum.Enum]", cls)))  # each value once, aliases aside
        return {"type": "integer", "enum": [m.value for m in members]}, {"type": "string", "enum": cls.spellings()}

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        # What the parser takes, so a JSON Schema validator accepts what dmlpy accepts: numbers and spellings.
        numbers, names = cls._json_values()
        return {
            "title": cls.__name__,
            "description": f"{(cls.__doc__ or '').strip()} The C name, the short name (any case) or the number.",
            "anyOf": [numbers, names],
        }

    @property
    def c_name(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.c_name


class DmlEnum(_CSpelling, enum.IntEnum):
    """An IntEnum that parses directml.h spellings and prints them."""

    @classmethod
    def _missing_(cls, value: object) -> Self | None:
        member: Self | None = _parse_name(cls, cls.C_PREFIX, value)
        return member

    @property
    def c_name(self) -> str:
        """The directml.h spelling, e.g. ``DML_ROUNDING_MODE_TOWARD_ZERO``."""
        return self.C_PREFIX + self.name


class DmlFlag(_CSpelling, enum.IntFlag, boundary=enum.STRICT):
    """An IntFlag that parses directml.h spellings, including ``"A|B"`` combinations."""

    @classmethod
    def _missing_(cls, value: object) -> Self | None:
        if isinstance(value, str):
            combined = cls(0)
            for part in value.split("|"):
                member = _parse_name(cls, cls.C_PREFIX, part)
                if member is None:
                    return None
                combined |= member
            return combined
        if isinstance(value, int) and value < 0:
            return None  # Flag would read -1 as "every bit"; a C flags value is unsigned
        fallback: Self | None = super()._missing_(value)
        return fallback

    @classmethod
    def _json_values(cls) -> tuple[dict[str, Any], dict[str, Any]]:
        every_bit = sum(m.value for m in cls)
        name = "(" + "|".join(re.escape(spelling) for spelling in cls.spellings()) + ")"
        combined = {"type": "string", "pattern": f"^{name}(\\|{name})*$"}
        return {"type": "integer", "minimum": 0, "maximum": every_bit}, combined

    @property
    def c_name(self) -> str:
        """The directml.h spelling, ``|``-joined for combinations (``DML_TENSOR_FLAG_NONE`` for zero)."""
        if self.value == 0:
            return self.C_PREFIX + "NONE"
        return "|".join(self.C_PREFIX + (m.name or "") for m in type(self) if m.value and m in self)
