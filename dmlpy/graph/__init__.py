"""Graphs: DML_GRAPH_DESC and CompileGraph's rules (``dmlpy.graph.desc``), which nodes share a kernel
(``dmlpy.graph.fusion``), and the DirectMLX-style builder, whose names this package offers: ``dml.Graph`` and
one function per operator of the table that names a ``BUILDER_NAME`` (``dml.graph.round`` / ``quantize_linear``
/ ``dequantize_linear`` / ``identity``, ...; ``dmlpy.graph.operators``), and ``reinterpret`` and ``transpose``, an
expression's buffer read another way (``dmlpy.graph.reinterpretation``)."""

from dmlpy.graph.builder import Expression as Expression
from dmlpy.graph.builder import Graph as Graph
from dmlpy.graph.operators import BUILDERS as _BUILDERS
from dmlpy.graph.operators import Builder as _Builder
from dmlpy.graph.quantization import dequantize_linear as dequantize_linear
from dmlpy.graph.quantization import quantize_linear as quantize_linear
from dmlpy.graph.reinterpretation import reinterpret as reinterpret
from dmlpy.graph.reinterpretation import transpose as transpose


def __getattr__(name: str) -> _Builder:
    """``dml.graph.<BUILDER_NAME>``: the builder function the operator table gives that name."""
    if name in _BUILDERS:
        return _BUILDERS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_BUILDERS})


__all__ = ["Expression", "Graph", "reinterpret", "transpose", *_BUILDERS]
