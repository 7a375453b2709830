"""The one-liners' argument checks: each refuses what it cannot use with InvalidArgumentError naming the
argument, before anything is allocated or dispatched."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.errors import InvalidArgumentError
from dmlpy.runtime.device import Device

MAX_DIMENSIONS = 8


def described(value: object, limit: int = 60) -> str:
    """A value as an argument error quotes it: its type and a repr cut to ``limit`` characters."""
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__} {text}"


def as_array(name: str, value: object) -> npt.NDArray[Any]:
    """``np.asarray(value)``, with NumPy's own error for what it cannot make an array of (a ragged list, an
    object whose ``__array__`` fails) turned into InvalidArgumentError naming the argument."""
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as error:
        raise InvalidArgumentError(
            f"{name} must be a rectangular array of numbers (a NumPy array, a number, or nested lists whose rows "
            f"have equal lengths); NumPy cannot make an array of the {described(value)} given: {error}"
        ) from None


def check_device(device: object) -> None:
    """A one-liner's ``device``: a dml.Device or None (the default device), nothing else."""
    if device is not None and not isinstance(device, Device):
        raise InvalidArgumentError(
            f"device must be a dml.Device or None, not {described(device)}; a device index, name or selector is "
            "not accepted here: pass dml.create_device(cl_device=...) or dml.default_device(), or None for the "
            "default device"
        )


def check_dimensions(x: npt.NDArray[Any]) -> None:
    if x.ndim > MAX_DIMENSIONS:
        raise InvalidArgumentError(f"x has {x.ndim} dimensions; DirectML tensors have at most {MAX_DIMENSIONS}")


def check_out(out: object, shape: tuple[int, ...], dtype: np.dtype[Any], *, what: str) -> None:
    """A one-liner's ``out``: None, or a writeable NumPy array of ``shape`` and ``dtype`` (``what`` says whose
    they are)."""
    if out is None:
        return
    if not isinstance(out, np.ndarray):
        raise InvalidArgumentError(f"out must be a NumPy array or None, not {described(out)}")
    if out.shape != shape or out.dtype != dtype:
        raise InvalidArgumentError(
            f"out has shape {out.shape} and dtype {out.dtype}; it must be {what} {shape} {dtype}"
        )
    if not out.flags.writeable:
        raise InvalidArgumentError("out is read-only")
