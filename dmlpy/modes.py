"""Rounding-mode names across systems, resolved to DirectML's modes or dmlpy's extension modes.

| name given                                   | resolves to                                        |
|----------------------------------------------|----------------------------------------------------|
| "half_to_even" (ONNX Round, OpenVINO default) | RoundingMode.HALVES_TO_NEAREST_EVEN (DirectML)    |
| "half_away_from_zero" (OpenVINO Round-5)      | RoundingMode.TOWARD_INFINITY (DirectML)           |
| "toward_zero"                                 | RoundingMode.TOWARD_ZERO (DirectML)               |
| DirectML names, C names, numbers 0-2          | RoundingMode                                      |
| nGraph names "ROUND_NEAREST_UPWARD", ...      | ExtRoundingMode (a dmlpy extension, not DirectML) |

A short name means DirectML's mode where DirectML has one: "TOWARD_INFINITY" is DirectML's halves away from
zero, while nGraph's directed "ROUND_TOWARD_INFINITY" must be written with its ROUND_ prefix.
"""

from __future__ import annotations

import functools
import numbers

from dmlpy.enums import ExtRoundingMode, RoundingMode
from dmlpy.errors import InvalidArgumentError

AnyRoundingMode = RoundingMode | ExtRoundingMode

MODE_ALIASES: dict[str, RoundingMode] = {
    "half_to_even": RoundingMode.HALVES_TO_NEAREST_EVEN,
    "half_away_from_zero": RoundingMode.TOWARD_INFINITY,
    "toward_zero": RoundingMode.TOWARD_ZERO,
}

ALIAS_OF: dict[RoundingMode, str] = {mode: name for name, mode in MODE_ALIASES.items()}
"""The short name dml.round and `dmlpy round --mode` also take for each DirectML mode."""

OTHER_MODE_NAMES: dict[str, RoundingMode] = {
    **MODE_ALIASES,
    "round_nearest_toward_even": RoundingMode.HALVES_TO_NEAREST_EVEN,
    "round_nearest_toward_infinity": RoundingMode.TOWARD_INFINITY,
    "round_toward_zero": RoundingMode.TOWARD_ZERO,
}
"""Other systems' names (ONNX, OpenVINO, nGraph; lower-cased) for DirectML's modes, which a descriptor's
RoundingMode does not take, and the DirectML mode to write instead."""

DIRECTML_EQUIVALENT: dict[ExtRoundingMode, RoundingMode] = {
    ExtRoundingMode.NEAREST_TOWARD_EVEN: RoundingMode.HALVES_TO_NEAREST_EVEN,
    ExtRoundingMode.TOWARD_ZERO: RoundingMode.TOWARD_ZERO,
    ExtRoundingMode.NEAREST_TOWARD_INFINITY: RoundingMode.TOWARD_INFINITY,
}
"""The three nGraph modes DirectML also has, so they can run as DirectML operators."""

EXTENSION_EQUIVALENT: dict[RoundingMode, ExtRoundingMode] = {dml: ext for ext, dml in DIRECTML_EQUIVALENT.items()}
"""DirectML's three modes under their nGraph names, for extension operators that take only those."""


def resolve_mode(mode: AnyRoundingMode | str | int) -> AnyRoundingMode:
    """The mode a name, number or member stands for (table above); InvalidArgumentError listing the names, for
    an unknown name or number and for anything else (None, a float, a bool)."""
    if isinstance(mode, RoundingMode | ExtRoundingMode):
        return mode
    if type(mode) in (str, int):  # hashable and never a bool: remembered (a one-liner resolves it every call)
        return _resolve_remembered(mode)
    return _resolve(mode)


@functools.lru_cache(maxsize=256)
def _resolve_remembered(mode: str | int) -> AnyRoundingMode:
    return _resolve(mode)


MODE_NAMES: tuple[str, ...] = (
    *MODE_ALIASES,
    *(mode.name for mode in RoundingMode),
    *(mode.ngraph_name for mode in ExtRoundingMode),
)
"""The names resolve_mode lists when it refuses a mode (it takes more spellings: C names, numbers, any case)."""


def _resolve(mode: object) -> AnyRoundingMode:
    names = ", ".join(MODE_NAMES)
    # A bool is an int to Python and 1.0 equals 1, but neither names a mode: only names, numbers and members do.
    if isinstance(mode, bool) or not isinstance(mode, str | numbers.Integral):
        given = repr(mode) if len(repr(mode)) <= 60 else repr(mode)[:57] + "..."
        raise InvalidArgumentError(
            f"mode must be a rounding mode's name (str), number (int) or a RoundingMode or ExtRoundingMode member, "
            f"not {type(mode).__name__} {given}; use one of {names}"
        )
    if isinstance(mode, str) and mode.strip().lower() in MODE_ALIASES:
        return MODE_ALIASES[mode.strip().lower()]
    for enum in (RoundingMode, ExtRoundingMode):
        try:
            return enum.parse(mode if isinstance(mode, str) else int(mode))
        except ValueError:
            pass
    raise InvalidArgumentError(f"mode {mode!r} is not a rounding mode; use one of {names}")
