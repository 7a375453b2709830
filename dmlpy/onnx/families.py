"""The op types of the operators that are not element-wise and read their inputs through ``Reads``
(``dmlpy.onnx.reads``), each family's module making a node's outputs: the normalizations, the indexing op types,
the generators, the matrix products, the poolings, the convolutions, the resampling op types, the recurrent networks,
DynamicQuantizeLinear, the regions of interest and attention.
``dmlpy.onnx.lowering`` calls ``family_outputs`` for each."""

from __future__ import annotations

import onnx

from dmlpy.graph import Graph
from dmlpy.onnx.attention import ATTENTION_OPS, attention_outputs
from dmlpy.onnx.convolution import CONVOLUTION_OPS, convolution_outputs
from dmlpy.onnx.dynamic_quantization import DYNAMIC_QUANTIZATION_OPS, dynamic_quantization_outputs
from dmlpy.onnx.generators import GENERATOR_OPS, generator_outputs
from dmlpy.onnx.indexing import INDEXING_OPS, indexing_outputs
from dmlpy.onnx.matrix import MATRIX_OPS, matrix_outputs
from dmlpy.onnx.normalization import NORMALIZATION_OPS, normalization_outputs
from dmlpy.onnx.pooling import POOLING_OPS, pooling_outputs
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.onnx.recurrent import RECURRENT_OPS, recurrent_outputs
from dmlpy.onnx.regions import REGION_OPS, region_outputs
from dmlpy.onnx.resample import RESAMPLE_OPS, resample_outputs

FAMILY_OPS = (*NORMALIZATION_OPS, *INDEXING_OPS, *GENERATOR_OPS, *MATRIX_OPS, *POOLING_OPS, *RESAMPLE_OPS)
FAMILY_OPS += (*CONVOLUTION_OPS, *RECURRENT_OPS, *DYNAMIC_QUANTIZATION_OPS, *REGION_OPS, *ATTENTION_OPS)


def family_outputs(
    graph: Graph,
    node: onnx.NodeProto,
    opset: int,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    where: str,
) -> Outputs:
    """The node's outputs, each one's expression and ONNX shape, for its inputs' shapes (at ``prepare``, every
    value one element: what does not depend on the shapes checked)."""
    if node.op_type in GENERATOR_OPS:  # Range and EyeLike read no tensor: their node is the graph's own
        return generator_outputs(graph, node, opset, attributes, reads, prepare, where)
    if node.op_type in NORMALIZATION_OPS:
        return normalization_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in INDEXING_OPS:
        return indexing_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in MATRIX_OPS:
        return matrix_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in POOLING_OPS:
        return pooling_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in CONVOLUTION_OPS:
        return convolution_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in RECURRENT_OPS:
        return recurrent_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in ATTENTION_OPS:
        return attention_outputs(node, opset, attributes, reads, prepare, where)
    if node.op_type in DYNAMIC_QUANTIZATION_OPS:
        return dynamic_quantization_outputs(node, reads, where)
    if node.op_type in REGION_OPS:
        return region_outputs(node, opset, attributes, reads, prepare, where)
    return resample_outputs(node, opset, attributes, reads, prepare, where)
