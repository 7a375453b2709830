"""Graphs: DML_GRAPH_DESC and CompileGraph's rules (``dmlpy.graph.desc``), which nodes share a kernel
(``dmlpy.graph.fusion``), and the DirectMLX-style builder, whose names this package offers: ``dml.Graph`` and
``dml.graph.round`` / ``quantize_linear`` / ``dequantize_linear`` / ``identity``."""

from dmlpy.graph.builder import Expression as Expression
from dmlpy.graph.builder import Graph as Graph
from dmlpy.graph.builder import dequantize_linear as dequantize_linear
from dmlpy.graph.builder import identity as identity
from dmlpy.graph.builder import quantize_linear as quantize_linear
from dmlpy.graph.builder import round as round

__all__ = ["Expression", "Graph", "dequantize_linear", "identity", "quantize_linear", "round"]
