"""OpenCL does not survive fork: :func:`check_process` refuses, in a process forked after this one had created a
device, every call that would reach the inherited OpenCL runtime (which would hang there).

Its own module, below everything else in the runtime, so the device, buffers and the recorder all import it at
the top: it imports nothing of dmlpy but the errors."""

from __future__ import annotations

import os

from dmlpy.errors import UnsupportedError

_opencl_pid: int | None = None
"""The process that created the first device (and so initialised OpenCL); None before any."""
_forked_from: int | None = None
"""In a process forked after OpenCL was initialised: the pid of the process that initialised it."""


def note_opencl_use() -> None:
    global _opencl_pid
    if _opencl_pid is None:
        _opencl_pid = os.getpid()


def _after_fork_in_child() -> None:
    global _forked_from
    if _opencl_pid is not None and _forked_from is None:
        _forked_from = _opencl_pid


if hasattr(os, "register_at_fork"):  # every Unix; Windows has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def forked_from() -> int | None:
    """The pid of the process this one was forked from after that one had initialised OpenCL, else None."""
    return _forked_from


def check_process() -> None:
    """UnsupportedError when this process was forked (``os.fork``, multiprocessing's default "fork" start method
    on Linux) from one that had already created a dmlpy device: an OpenCL runtime's threads and locks do not
    survive fork, and any call into it would hang. Every runtime entry point that reaches OpenCL calls this
    first: creating a device, ``Device.create_buffer``, ``upload``, ``wrap_buffer``, ``compile_operator``,
    ``CommandRecorder.record_dispatch``, ``Buffer.read``, ``write`` and ``as_array``, and the one-liners' run
    path."""
    if _forked_from is not None:
        raise UnsupportedError(
            f"OpenCL does not survive fork: process {os.getpid()} was forked from process {_forked_from} after "
            "that process had initialised OpenCL, and the OpenCL runtime's threads and locks do not exist in a "
            'forked child (a call would hang). Start worker processes with multiprocessing\'s "spawn" or '
            '"forkserver" start method (multiprocessing.get_context("spawn")), or fork before creating '
            "the first device"
        )
