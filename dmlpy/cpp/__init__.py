"""DirectML C++ for any descriptor dmlpy holds: the structs filled as the model holds them, and the calls around
them in the order of Microsoft's HelloDirectML sample (``dmlpy explain --cpp``). Printing only: no device, no
OpenCL."""

from __future__ import annotations

from dmlpy.cpp.literals import c_string
from dmlpy.cpp.program import graph_cpp, operator_cpp, tensor_cpp
from dmlpy.enums import FeatureLevel
from dmlpy.graph.desc import GraphDesc
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import TensorDesc

__all__ = ["c_string", "cpp_lines"]


def cpp_lines(desc: OperatorDescBase | TensorDesc | GraphDesc, level: FeatureLevel) -> list[str]:
    """The C++ that fills ``desc``'s structs and creates and compiles it on a device of ``level``;
    UnsupportedError for a dmlpy extension, which DirectML has no struct for."""
    if isinstance(desc, TensorDesc):
        return tensor_cpp(desc)
    if isinstance(desc, GraphDesc):
        return graph_cpp(desc, level)
    return operator_cpp(desc, level)
