"""A written builder function's node (dmlpy.graph.normalization, indexing, generators, reduction's ``top_k``): the
operator's input tensors by field, its outputs packed (DirectMLX's default tensor policy) with the Sizes and
DataType its rule gives (``OperatorDescBase.output_shapes``), so that no builder function says what an operator
makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dmlpy.enums import TensorDataType
from dmlpy.graph.builder import Expression, Graph
from dmlpy.graph.outputs import packed_output
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc, TensorDesc


def operator_node(
    desc_class: type[OperatorDescBase],
    inputs: Mapping[str, Expression | None],
    data_type: TensorDataType | None = None,
    **fields: Any,
) -> Expression:
    """A ``desc_class`` node on ``inputs`` (expressions by input field; None for an optional one left out) with
    ``fields``; its one output packed by the operator's rule, of ``data_type`` where the caller chose one."""
    descs = {name: None if value is None else value.desc for name, value in inputs.items()}
    (output_field,) = desc_class.OUTPUTS
    output = packed_output(desc_class, descs, data_type, fields=fields)
    return add_node(desc_class, inputs, {output_field: output}, fields)[0]


def add_node(
    desc_class: type[OperatorDescBase],
    inputs: Mapping[str, Expression | None],
    outputs: Mapping[str, BufferTensorDesc],
    fields: Mapping[str, Any],
    graph: Graph | None = None,
) -> list[Expression]:
    """A ``desc_class`` node on ``inputs`` writing ``outputs`` (descs by output field), in ``graph`` (the inputs'
    graph where there are inputs); every output as an expression, in binding order."""
    given = [value for value in inputs.values() if value is not None]
    owner = graph if graph is not None else given[0].graph
    tensors = {name: TensorDesc(desc=value.desc) for name, value in inputs.items() if value is not None}
    tensors.update({name: TensorDesc(desc=desc) for name, desc in outputs.items()})
    op = desc_class(**tensors, **fields)
    return owner.add_operator_outputs(op, [inputs.get(name) for name in desc_class.INPUTS])
