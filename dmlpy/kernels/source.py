"""Kernel sources: where the .cl files are, their text with local headers inlined, and ``KernelSpec``, one
compiled kind of kernel (a source file and its -D specialisation).

Kernels are compiled per kind, not per shape: a KernelSpec (source file + defines) is the program cache key,
and everything that varies with the shape (element count, coalesced sizes and strides) travels as kernel
arguments in an ElementwiseLayout (dmlpy/kernels/coalescing.py).

Every element-wise kernel in ``opencl/`` takes the same arguments, so one runtime routine can launch any of
them: for each tensor in binding order, its buffer and its element offset (``ulong``); then the element count
(``ulong``), the coalesced sizes (``uint8``) and one ``uint8`` of strides per tensor.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path


def opencl_source_dir() -> Path:
    """Where the .cl files are: inside the installed package (the wheel maps them there), else the source
    tree's top-level ``opencl/`` (an editable install)."""
    packaged = Path(str(importlib.resources.files("dmlpy"))) / "opencl"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / "opencl"


_LOCAL_INCLUDE = re.compile(r'^#include "([\w.]+)"[ \t]*$', re.MULTILINE)


@cache
def kernel_source(name: str) -> str:
    """The text of ``opencl/<name>`` with its local ``#include "header.h"`` lines replaced by the headers.

    The .cl files compile on their own with ``-I opencl``; inlining makes the program self-contained, so its
    cache key holds no install path and ``compiled.source`` shows every line that runs. The headers' include
    guards keep a header included twice harmless, as with the preprocessor."""
    text = (opencl_source_dir() / name).read_text(encoding="utf-8")
    return _LOCAL_INCLUDE.sub(lambda match: f"// ---- {match.group(1)} ----\n{kernel_source(match.group(1))}", text)


@dataclass(frozen=True)
class KernelSpec:
    """One compiled kind of kernel: a source file in ``opencl/`` and its -D specialisation."""

    source_name: str
    kernel_name: str
    defines: tuple[tuple[str, str], ...]
    options: tuple[str, ...] = ()
    """Build options beyond the defaults, e.g. -cl-fp32-correctly-rounded-divide-sqrt for a true division."""
    prelude: str = ""
    """#define lines written before the file, for what a -D option cannot carry (a fused kernel's statements)."""

    @property
    def build_options(self) -> tuple[str, ...]:
        # No -cl-fast-relaxed-math, -cl-finite-math-only or -cl-denorms-are-zero: they break exact rounding of
        # NaN, infinities, signed zeros and subnormals (peers.md §5).
        defines = (f"-D{name}={value}" for name, value in self.defines)
        return ("-cl-std=CL1.2", *self.options, *defines)

    @property
    def source(self) -> str:
        return self.prelude + kernel_source(self.source_name)

    def specialised_source(self, device_options: Sequence[str] = ()) -> str:
        """The source as the compiler sees it, every -D option (the operator's, then ``device_options``)
        written out as a #define line, for reading."""
        options = (*self.build_options, *device_options)
        defines = (option[2:].split("=", 1) for option in options if option.startswith("-D"))
        lines = "".join(f"#define {name} {value}\n" for name, value in defines)
        return f"// {self.source_name}, specialised by -D options:\n{lines}\n{self.source}"
