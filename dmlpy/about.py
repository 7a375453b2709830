"""What dmlpy is: its version and the names of its OpenCL half, in one place (a dmlpy module, not DirectML).

``dmlpy.runtime`` exports exactly ``RUNTIME_NAMES`` and ``dmlpy.arrays`` exactly ``ARRAY_NAMES`` (their
``__all__``), and ``import dmlpy`` offers both lazily (``LAZY_NAMES``: its ``__getattr__``, ``__dir__`` and the
list in its docstring) without importing pyopencl. ``dmlpy.__version__``
and ``dmlpy --version`` read ``package_version()``. This module imports nothing at import time.
"""

from __future__ import annotations

RUNTIME_NAMES: tuple[str, ...] = (
    "BindingProperties",
    "BindingTable",
    "Buffer",
    "BufferBinding",
    "CommandRecorder",
    "CompiledGraph",
    "CompiledOperator",
    "Device",
    "Operator",
    "OperatorInitializer",
    "create_device",
    "default_device",
    "devices",
    "sub_devices",
)
"""dmlpy.runtime's public names: the IDML* objects, DML_BUFFER_BINDING and DMLCreateDevice1."""

ARRAY_NAMES: tuple[str, ...] = ("dequantize_linear", "quantize_linear", "round")
"""dmlpy.arrays's public names: the one-liners."""

LAZY_NAMES: dict[str, str] = {
    **dict.fromkeys(RUNTIME_NAMES, "dmlpy.runtime"),
    **dict.fromkeys(ARRAY_NAMES, "dmlpy.arrays"),
}
"""Each name ``import dmlpy`` loads on first use, and the package that defines it."""


def package_version() -> str:
    """dmlpy's version (dmlpy's, not DirectML's) from the installed package's metadata: pyproject.toml's version.

    A source tree imported without being installed reports ``0+unknown``.
    """
    from importlib.metadata import PackageNotFoundError, version  # ~40 ms: only when asked

    try:
        return version("dmlpy")
    except PackageNotFoundError:
        return "0+unknown"
