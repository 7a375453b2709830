"""One one-liner call on a host array split across several OpenCL devices (``devices=[...]``): the array is cut
along one axis into pieces sized by each device's compute units, each piece runs on its device in its own
thread (the devices work at once), and the results land in one array.

With ``out=`` the pieces are computed into a scratch array first and copied into ``out`` only when every device
succeeded: a device that fails leaves ``out`` as it was, and the error names the device and its piece.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.arrays.checks import described, is_dask_array, is_device_array
from dmlpy.errors import DmlError, InvalidArgumentError
from dmlpy.runtime.device import Device

Piece = tuple[slice, ...]
"""An index into the array: everything, except one range along the split axis."""
RunPiece = Callable[[Piece, int, Device, npt.NDArray[Any]], None]
"""Computes ``x[piece]`` into ``result[piece]`` on the device; the axis is given for slicing per-axis values."""


def check_devices(devices: object, device: object, x: object) -> list[Device]:
    """``devices``: a non-empty list of distinct dml.Device, given instead of ``device``, for a host array."""
    if device is not None:
        raise InvalidArgumentError("give device= or devices=, not both")
    if isinstance(devices, Device) or not isinstance(devices, Sequence) or isinstance(devices, str) or not devices:
        raise InvalidArgumentError(f"devices must be a non-empty list of dml.Device, not {described(devices)}")
    for index, entry in enumerate(devices):
        if not isinstance(entry, Device):
            raise InvalidArgumentError(f"devices[{index}] must be a dml.Device, not {described(entry)}")
    if len({id(d) for d in devices}) != len(devices):
        raise InvalidArgumentError("devices lists one device twice; list each once")
    if is_device_array(x) or is_dask_array(x):
        raise InvalidArgumentError(
            "devices= splits a host (NumPy) array across devices; a pyopencl array already lives on one device, "
            "and a dask array's chunks go to Dask's workers (pass device=None or an index)"
        )
    return list(devices)


def split_axis(shape: tuple[int, ...], count: int) -> int | None:
    """The axis to cut: the first at least ``count`` long, else the longest; None for nothing to cut."""
    if not shape or 0 in shape:
        return None
    long_enough = [d for d, size in enumerate(shape) if size >= count]
    return long_enough[0] if long_enough else int(np.argmax(shape))


def pieces(length: int, devices: Sequence[Device]) -> list[tuple[int, int]]:
    """[start, stop) along the split axis per device, in proportion to its compute units (a device may get none)."""
    weights = [max(1, d.cl_device.max_compute_units) for d in devices]
    total = sum(weights)
    bounds, acc = [0], 0
    for weight in weights:
        acc += weight
        bounds.append(length * acc // total)
    return list(itertools.pairwise(bounds))


def run_split(
    x: npt.NDArray[Any], result: npt.NDArray[Any], devices: Sequence[Device], run: RunPiece, *, fresh: bool
) -> None:
    """Compute every piece of ``x`` into ``result`` on its device, at once. Unless ``result`` is ``fresh`` (a new
    array nobody else sees), the pieces go to a scratch array first, so a failing device leaves it untouched."""
    axis = split_axis(x.shape, len(devices))
    if axis is None:
        return
    scratch = result if fresh else np.empty_like(result)
    work = []
    for device, (start, stop) in zip(devices, pieces(x.shape[axis], devices), strict=True):
        if stop > start:
            piece = tuple(slice(start, stop) if d == axis else slice(None) for d in range(x.ndim))
            work.append((device, piece, start, stop))

    def one(entry: tuple[Device, Piece, int, int]) -> None:
        device, piece, _, _ = entry
        run(piece, axis, device, scratch)

    with ThreadPoolExecutor(max_workers=len(work), thread_name_prefix="dmlpy-split") as pool:
        futures = [pool.submit(one, entry) for entry in work]
        errors = [(entry, future.exception()) for entry, future in zip(work, futures, strict=True)]
    for (device, _, start, stop), error in errors:
        if error is not None:
            message = (
                f"device {device.name} failed on its piece (axis {axis}, {start}:{stop}) of the split call"
                f"{'' if fresh else ', so nothing was written to out'}: {error}"
            )
            raise _like(error, message) from error
    if scratch is not result:
        np.copyto(result, scratch)


def _like(error: BaseException, message: str) -> DmlError:
    """A DmlError of ``error``'s kind where it takes a message alone, else a plain DmlError."""
    if isinstance(error, DmlError):
        try:
            return type(error)(message)
        except TypeError:
            pass
    return DmlError(message)
