"""dmlpy: DirectML's operator-descriptor model in Python, run on any OpenCL device (not a DirectML binding).

The package mirrors DirectML's C API: ``BufferTensorDesc`` is DML_BUFFER_TENSOR_DESC, ``OperatorDesc`` is
DML_OPERATOR_DESC, each ``*OperatorDesc`` a DML_*_OPERATOR_DESC, the enums carry directml.h's values, and
``validate`` checks a descriptor against a DML_FEATURE_LEVEL as IDMLDevice::CreateOperator would.

Descriptors and validation (``dmlpy.tensor``, ``dmlpy.ops``) are pure Python; only ``dmlpy.runtime`` (the
object model) and ``dmlpy.arrays`` (the one-liners) import pyopencl, and ``import dmlpy`` loads them on first
use of one of their names (listed below), so describing and validating operators needs no OpenCL.
``dmlpy.extensions`` holds what is not DirectML.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from dmlpy import graph, ops
from dmlpy.about import LAZY_NAMES, package_version
from dmlpy.drawing import Picture
from dmlpy.enums import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_PERSISTENT_BUFFER_ALIGNMENT,
    DML_TEMPORARY_BUFFER_ALIGNMENT,
    DML_TENSOR_DIMENSION_COUNT_MAX,
    DML_TENSOR_DIMENSION_COUNT_MAX1,
    AxisDirection,
    BindingType,
    ConvolutionDirection,
    ConvolutionMode,
    CreateDeviceFlags,
    DepthSpaceOrder,
    ExecutionFlags,
    Feature,
    FeatureLevel,
    GraphEdgeType,
    GraphNodeType,
    InterpolationMode,
    IsInfinityMode,
    MatrixTransform,
    MultiheadAttentionMaskType,
    OperatorType,
    PaddingMode,
    QuantizationType,
    RandomGeneratorType,
    RecurrentNetworkDirection,
    ReduceFunction,
    RoundingMode,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from dmlpy.errors import (
    DescriptorProblems,
    DeviceRemovedError,
    DmlError,
    InvalidArgumentError,
    KernelBuildError,
    KeywordOnlyArgumentError,
    OutOfMemoryError,
    ScaleWarning,
    UnsupportedError,
)
from dmlpy.graph import Graph
from dmlpy.graph.desc import (
    ConstantDataGraphNodeDesc,
    GraphDesc,
    GraphEdgeDesc,
    GraphNodeDesc,
    InputGraphEdgeDesc,
    IntermediateGraphEdgeDesc,
    OperatorGraphNodeDesc,
    OutputGraphEdgeDesc,
)
from dmlpy.graph.validation import validate  # operators and graphs
from dmlpy.ops import *  # noqa: F403  # the operator table's descriptors, OperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc, calc_buffer_tensor_size

if TYPE_CHECKING:
    from dmlpy.arrays import *  # noqa: F403
    from dmlpy.runtime import *  # noqa: F403

    __version__: str


def __getattr__(name: str) -> Any:
    # The runtime and the one-liners import pyopencl; load them only when one of their names is used, so
    # descriptor work and validation need no OpenCL installation. Dunder probes (copy, pickle, inspect) never load
    # them.
    if name == "__version__":  # looked up on first use: importlib.metadata costs ~40 ms at import
        globals()["__version__"] = value = package_version()
        return value
    module = LAZY_NAMES.get(name)
    if module is not None:
        # Kept as a module global once loaded: a lookup through here costs ~7 us, a twentieth of a 1K dml.round.
        globals()[name] = value = getattr(importlib.import_module(module), name)
        return value
    raise AttributeError(f"module 'dmlpy' has no attribute {name!r}")


def __dir__() -> list[str]:
    # The public API, the lazy names included, without loading them. inspect.getmembers (which pydoc's help()
    # uses) calls getattr on every name dir() gives; while the runtime is not loaded it gets the package's own
    # names only, so help(dmlpy) imports no pyopencl (it lists the lazy names from the docstring instead).
    names = {*__all__, "__version__", *(name for name in globals() if name.startswith("__"))}
    try:
        caller = sys._getframe(1).f_globals.get("__name__")
    except ValueError:  # called from C with no Python frame
        caller = None
    if caller != "inspect" or "dmlpy.runtime" in sys.modules:
        names.update(LAZY_NAMES)
    return sorted(names)


def _runtime_section() -> str:
    """The docstring's list of the lazy names, generated from LAZY_NAMES."""
    lines = [f"    dmlpy.{name}" for name in sorted(LAZY_NAMES)]
    return (
        "\nRuntime names (dmlpy.runtime and dmlpy.arrays, loaded on first use; they import pyopencl):\n\n"
        + "\n".join(lines)
        + "\n\nSee help(dmlpy.runtime) and help(dmlpy.round) once loaded.\n"
    )


if __doc__ is not None:  # python -OO strips docstrings
    __doc__ += _runtime_section()


__all__ = [
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_PERSISTENT_BUFFER_ALIGNMENT",
    "DML_TEMPORARY_BUFFER_ALIGNMENT",
    "DML_TENSOR_DIMENSION_COUNT_MAX",
    "DML_TENSOR_DIMENSION_COUNT_MAX1",
    "AxisDirection",
    "BindingType",
    "BufferTensorDesc",
    "ConstantDataGraphNodeDesc",
    "ConvolutionDirection",
    "ConvolutionMode",
    "CreateDeviceFlags",
    "DepthSpaceOrder",
    "DescriptorProblems",
    "DeviceRemovedError",
    "DmlError",
    "ExecutionFlags",
    "Feature",
    "FeatureLevel",
    "Graph",
    "GraphDesc",
    "GraphEdgeDesc",
    "GraphEdgeType",
    "GraphNodeDesc",
    "GraphNodeType",
    "InputGraphEdgeDesc",
    "IntermediateGraphEdgeDesc",
    "InterpolationMode",
    "InvalidArgumentError",
    "IsInfinityMode",
    "KernelBuildError",
    "KeywordOnlyArgumentError",
    "MatrixTransform",
    "MultiheadAttentionMaskType",
    "OperatorGraphNodeDesc",
    "OperatorType",
    "OutOfMemoryError",
    "OutputGraphEdgeDesc",
    "PaddingMode",
    "Picture",
    "QuantizationType",
    "RandomGeneratorType",
    "RecurrentNetworkDirection",
    "ReduceFunction",
    "RoundingMode",
    "ScaleWarning",
    "TensorDataType",
    "TensorDesc",
    "TensorFlags",
    "TensorType",
    "UnsupportedError",
    "calc_buffer_tensor_size",
    "graph",
]
__all__ += [*ops.__all__, "validate"]  # names that `import *` gives; the lazy ones are looked up on first use
