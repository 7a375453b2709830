"""What dmlpy is: its version and the names of its runtime half, in one place (a dmlpy module, not DirectML).

``dmlpy.runtime`` exports exactly ``RUNTIME_NAMES`` (its ``__all__``), and ``import dmlpy`` offers them lazily
(its ``__getattr__``, ``__dir__`` and the list in its docstring) without importing pyopencl. ``dmlpy.__version__``
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
    "dequantize_linear",
    "quantize_linear",
    "round",
    "sub_devices",
)
"""dmlpy.runtime's public names: the IDML* objects, DML_BUFFER_BINDING, DMLCreateDevice1 and the one-liners."""


def package_version() -> str:
    """dmlpy's version (dmlpy's, not DirectML's) from the installed package's metadata: pyproject.toml's version.

    A source tree imported without being installed reports ``0+unknown``.
    """
    from importlib.metadata import PackageNotFoundError, version  # ~40 ms: only when asked

    try:
        return version("dmlpy")
    except PackageNotFoundError:
        return "0+unknown"
