"""C++ spellings of single values: numbers, C BOOLs, enums, C string literals and variable names. Pure text; no
descriptor knowledge."""

from __future__ import annotations

import math
import re

import numpy as np

from dmlpy.enums import DmlEnum, DmlFlag
from dmlpy.errors import UnsupportedError

_PLAIN = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\t"): "\\t", ord("?"): "\\?"}
"""Escapes of the printable ASCII a C string literal cannot hold as is (``?``: the trigraphs of older C++)."""


def c_string(text: str) -> str:
    """``text`` as a C string literal of its UTF-8 bytes: printable ASCII as is but quotes, backslashes and ``?``
    escaped, every other byte as a three-digit octal escape (which, unlike ``\\x``, never swallows a following
    digit), so that no user text can end the literal or the line it is on."""
    parts = []
    for byte in text.encode("utf-8"):
        if byte in _PLAIN:
            parts.append(_PLAIN[byte])
        elif 0x20 <= byte < 0x7F:
            parts.append(chr(byte))
        else:
            parts.append(f"\\{byte:03o}")
    return '"' + "".join(parts) + '"'


def c_float(value: float) -> str:
    """``value`` as DirectML reads a FLOAT: rounded to float32 and written as the shortest decimal that reads back
    as that float (``0.1f``, ``1e-05f``); ``INFINITY``, ``-INFINITY`` and ``NAN`` (<cmath>) otherwise."""
    with np.errstate(over="ignore"):  # beyond float32's range: an infinity, as C's conversion to FLOAT gives
        single = np.float32(value)
    if math.isnan(single):
        return "NAN"
    if math.isinf(single):
        return "INFINITY" if single > 0 else "-INFINITY"
    text = str(single)
    return f"{text}f" if any(mark in text for mark in ".e") else f"{text}.0f"


def c_number(value: bool | int | float) -> str:
    """A C BOOL as TRUE or FALSE, an integer as itself, a float as ``c_float`` writes it."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    return c_float(value)


def c_enum(value: DmlEnum | DmlFlag, where: str) -> str:
    """The directml.h spelling of ``value``; UnsupportedError for dmlpy's extension values, which DirectML.h has
    no name for (``where`` names the field)."""
    name = value.c_name
    if not name.startswith("DML_"):
        raise UnsupportedError(
            f"{where} is {name}, a dmlpy extension that DirectML does not have, so there is no C++ for it: "
            "use a DirectML value to see the C++"
        )
    return name


def camel(c_name: str) -> str:
    """A C++ variable name from a C member or operator name: ``InputTensor`` -> ``inputTensor``,
    ``ELEMENT_WISE_ADD`` -> ``elementWiseAdd``."""
    if "_" in c_name or c_name.isupper():
        words = [word for word in re.split(r"_+", c_name.lower()) if word]
        return words[0] + "".join(word.capitalize() for word in words[1:])
    return c_name[:1].lower() + c_name[1:]
