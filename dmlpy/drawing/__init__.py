"""Pictures of DirectML's spatial concepts as SVG, from plain numbers (this package knows no descriptor): a
buffer tensor's layout (``tensor``), a binding table's buffers (``bindings``), a graph's nodes, edges and
kernels (``graph``). The models turn themselves into these numbers and show the result in Jupyter."""

from dmlpy.drawing.bindings import DrawnRange, bindings_picture
from dmlpy.drawing.graph import DrawnEdge, DrawnKernel, DrawnNode, graph_picture
from dmlpy.drawing.svg import Picture, stacked
from dmlpy.drawing.tensor import tensor_picture

__all__ = [
    "DrawnEdge",
    "DrawnKernel",
    "DrawnNode",
    "DrawnRange",
    "Picture",
    "bindings_picture",
    "graph_picture",
    "stacked",
    "tensor_picture",
]
