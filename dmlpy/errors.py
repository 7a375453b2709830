"""Errors mirror DirectML's HRESULTs, but every message says what was wrong and why.

DirectML reports most mistakes as E_INVALIDARG ("The parameter is incorrect") and removes the device for
others. dmlpy raises at once, before anything is enqueued, with the operator, the field (C names), the value
given, the rule, and the feature level where the rule changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

E_INVALIDARG = 0x80070057
DXGI_ERROR_UNSUPPORTED = 0x887A0004
DXGI_ERROR_DEVICE_REMOVED = 0x887A0005
E_OUTOFMEMORY = 0x8007000E
E_FAIL = 0x80004005


class SvgPicture(Protocol):
    """What Jupyter shows as a picture (dml.Picture)."""

    def _repr_svg_(self) -> str: ...


class DmlError(Exception):
    """Base of every dmlpy error; ``hresult`` is the HRESULT DirectML would have returned. ``picture`` is a
    dml.Picture of the mistake where one says more than words (a refused binding: the buffers and the ranges that
    overlap), else None."""

    hresult: int = E_FAIL
    picture: SvgPicture | None = None


class InvalidArgumentError(DmlError, ValueError):
    """E_INVALIDARG: a descriptor, binding or argument breaks a DirectML rule."""

    hresult = E_INVALIDARG


class DescriptorProblems(InvalidArgumentError):
    """E_INVALIDARG for a descriptor or binding built with wrong fields: a field name misspelt or missing, a
    value of the wrong type or range, a field given twice. ``problems`` holds one teaching line per problem in C
    field paths (``ELEMENT_WISE_ROUND.InputTensor.Sizes[3] is -4; ...``, a misspelt name with "did you mean"),
    and the message is the line, or the lines one per row when there are several. The constructors,
    ``model_validate`` and the JSON reader raise it; catch ``InvalidArgumentError`` (or ``ValueError``) to catch it
    with the rule violations ``validate`` finds."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        if len(self.problems) == 1:
            message = self.problems[0]
        else:
            message = f"{len(self.problems)} problems:\n" + "\n".join(f"  {line}" for line in self.problems)
        super().__init__(message)

    def __reduce__(self) -> tuple[type[DescriptorProblems], tuple[list[str]]]:
        return type(self), (self.problems,)


class UnsupportedError(DmlError):
    """DXGI_ERROR_UNSUPPORTED: the feature level, operator or data type is not available here."""

    hresult = DXGI_ERROR_UNSUPPORTED


class DeviceSettingError(InvalidArgumentError):
    """DMLPY_DEVICE names no usable device (not an index, past the last device, or one whose compiler cannot build
    a kernel): a usage error, so the ``dmlpy`` command exits with status 2 as for a bad option."""


class DeviceRemovedError(DmlError):
    """DXGI_ERROR_DEVICE_REMOVED: the OpenCL device failed; recreate the device and everything made from it."""

    hresult = DXGI_ERROR_DEVICE_REMOVED


class OutOfMemoryError(DmlError, MemoryError):
    """E_OUTOFMEMORY: the OpenCL device could not allocate a buffer."""

    hresult = E_OUTOFMEMORY


class KernelBuildError(DmlError):
    """An OpenCL program failed to build (dmlpy's own error, not DirectML's: DirectML ships compiled shaders);
    ``build_log`` holds the compiler's output. Its ``hresult`` is E_FAIL."""

    def __init__(self, message: str, build_log: str) -> None:
        super().__init__(f"{message}\n--- OpenCL build log ---\n{build_log}")
        self.build_log = build_log


class KeywordOnlyArgumentError(DmlError, TypeError):
    """A one-liner called with more positional arguments than it takes (dmlpy's, not DirectML's: DirectML has no
    one-liners): a TypeError, as Python's own, whose message says why the rest are keyword-only (``dml.round(x,
    2)`` reads like ``np.round(x, 2)``, two decimals, which it is not) and how to pass them. Its ``hresult`` is
    E_INVALIDARG."""

    hresult = E_INVALIDARG


class ScaleWarning(UserWarning):
    """dmlpy's warning (not DirectML's: neither DirectML nor ONNX checks scale values) that ``dml.quantize_linear``
    or ``dml.dequantize_linear`` was given a scale that is zero, negative, infinite or NaN (as the input's float
    type holds it). The call still runs, as DirectML's would; its results are not a quantization of the input.
    Silence it with ``warnings.filterwarnings("ignore", category=dml.ScaleWarning)``."""


def argument_error(where: str, name: str, value: object, expected: str) -> InvalidArgumentError:
    """The InvalidArgumentError for an ill-typed argument of a public call: ``where``'s argument ``name`` is
    ``value``, and it must be ``expected``. The message names the argument, whatever ``value`` is."""
    try:
        # A dmlpy object says what it is (ELEMENT_WISE_ROUND (FLOAT16, ...)); a pydantic repr would flood the line.
        describe = getattr(value, "describe", None)
        shown = str(describe()) if callable(describe) and not isinstance(value, type) else repr(value)
    except Exception:  # a broken __repr__ must not hide the real mistake
        shown = f"a {type(value).__name__}"
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return InvalidArgumentError(f"{where}: {name} is {shown}; it must be {expected}")
