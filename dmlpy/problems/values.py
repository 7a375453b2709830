"""How messages show values: JSON for plain data, C names for enums, a model by what it describes, and text from
outside (a Name, a file name) quoted, cut and with every character a terminal would act on escaped."""

from __future__ import annotations

import difflib
import enum
import json
from collections.abc import Sequence
from typing import Any, cast

from pydantic import BaseModel

from dmlpy.enums import DmlEnum, DmlFlag


def is_dml_model(cls: Any) -> bool:
    """Whether ``cls`` is a dmlpy descriptor model (it has the hooks), told without importing dmlpy.model."""
    return isinstance(cls, type) and issubclass(cls, BaseModel) and hasattr(cls, "struct_name")


def show(value: Any) -> str:
    """A value as a message shows it: JSON for plain data, C names for enums, a model by what it describes,
    anything else by a short repr (never longer than 80 characters)."""
    if isinstance(value, DmlEnum | DmlFlag):
        return value.c_name
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, BaseModel):
        try:
            return str(cast(Any, value).describe()) if is_dml_model(type(value)) else f"a {type(value).__name__}"
        except Exception:
            return f"a {type(value).__name__}"
    if isinstance(value, str):
        return quoted(value)
    try:
        if isinstance(value, int | float | bool | list | tuple | dict) or value is None:
            text = json.dumps(value, default=_brief)
        else:
            text = repr(value)
    except Exception:  # unserialisable keys, a broken __repr__, integers too long to print, ...
        text = f"a {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(char: str) -> str:
    if char.isprintable():
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every character a terminal would act on or hide (C0 and C1 controls, so ESC and the escape
    sequences it starts; bidi overrides and other format characters; line and paragraph separators; lone
    surrogates; unassigned code points) as a Python escape (``\\x1b``, ``\\u202e``): text from outside (a Name, a
    file name, a driver's device name) then cannot recolour, reorder or rewrite the line it is shown on."""
    return text if text.isprintable() else "".join(_escaped(char) for char in text)


QUOTED_LENGTH = 80
"""Characters of a text a message shows at most: a Name may be megabytes long."""


def quoted(text: str) -> str:
    """``text`` in double quotes as messages show user text (a Name, any string value): ``visible``, with quotes
    and backslashes escaped too, so what is shown is what is there; a long text cut, its length said."""
    shown = text[:QUOTED_LENGTH]
    body = visible(shown.replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{body}"' if shown == text else f'"{body}..." ({len(text)} characters)'


def did_you_mean(given: str, choices: Sequence[str]) -> str:
    """`` (did you mean X?)`` naming the choice closest to a misspelt ``given``, case aside (difflib's ratio at
    least 0.6), or "" when none is close: the one suggestion for field and rounding-mode typos."""
    spelled = {choice.casefold(): choice for choice in reversed(choices)}  # the first of equal folds wins
    close = difflib.get_close_matches(given.casefold(), list(spelled), n=1, cutoff=0.6)
    return f" (did you mean {spelled[close[0]]}?)" if close else ""


def _brief(value: Any) -> str:
    return show(value)
