"""A descriptor from parsed JSON, whatever kind it is, with every structural problem told in C field names.

Four shapes are read: ``{"Type": ..., "Desc": {...}}`` (DML_OPERATOR_DESC), a bare operator descriptor
(``{"InputTensor": ...}``, the operator found from its fields), a tensor (DML_BUFFER_TENSOR_DESC, or
DML_TENSOR_DESC around one), and a graph (DML_GRAPH_DESC: ``{"Nodes": [...], "InputEdges": [...], ...}``). C or
snake_case field names.

The problems are the models' own (:mod:`dmlpy.model` translates pydantic's errors for every caller): the CLI
and ``dml.OperatorDesc.model_validate`` tell the same mistake in the same words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from dmlpy.enums import OperatorType, TensorType
from dmlpy.graph.desc import GraphDesc
from dmlpy.ops import OPERATORS, OperatorDesc
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.problems import DescriptorProblems
from dmlpy.tensor import TensorDesc

Descriptor = OperatorDescBase | TensorDesc | GraphDesc

_TENSOR_KEYS = ("DataType", "data_type", "Sizes", "sizes")
_OPERATOR_KEYS = ("Type", "type", "Desc", "desc")
_GRAPH_KEYS = ("Nodes", "nodes", "NodeCount", "node_count")


__all__ = ["Descriptor", "DescriptorProblems", "bare_operator_class", "descriptor_schema", "parse_descriptor"]


def _keys(data: dict[str, Any], names: Sequence[str]) -> bool:
    return any(name in data for name in names)


def _names_an_operator(data: dict[str, Any]) -> bool:
    """Whether a wrapped descriptor's Type is an operator's and no tensor's (SLICE's Desc has a Sizes field too)."""
    kind = data.get("Type", data.get("type"))
    return _parses(OperatorType, kind) and not _parses(TensorType, kind)


def _parses(enum: type[OperatorType] | type[TensorType], value: Any) -> bool:
    try:
        enum.parse(value)
    except (TypeError, ValueError):
        return False
    return True


def _field_spellings(model: type[BaseModel]) -> set[str]:
    return {spelling for name, field in model.model_fields.items() for spelling in (name, field.alias or name)}


def bare_operator_class(data: dict[str, Any]) -> type[OperatorDescBase]:
    """The operator descriptor whose fields a bare (unwrapped) descriptor uses; Round when in doubt."""
    candidates = [cls for cls in OPERATORS.values() if cls.BARE_FORM and set(data) <= _field_spellings(cls)]
    # An extension is taken only when no DirectML operator has these fields.
    fitting = [cls for cls in candidates if not cls.is_extension()] or candidates
    if len(fitting) > 1 and ElementWiseRoundOperatorDesc not in fitting:
        names = " or ".join(cls.OPERATOR_TYPE.c_name for cls in fitting)
        raise DescriptorProblems(
            [f'these fields fit {names}; wrap the descriptor as {{"Type": "<operator>", "Desc": {{...}}}}']
        )
    return fitting[0] if len(fitting) == 1 else ElementWiseRoundOperatorDesc


def parse_descriptor(data: Any) -> Descriptor:
    """The operator or tensor descriptor a JSON value describes (the module docstring lists the shapes);
    DescriptorProblems lists every structural problem."""
    if not isinstance(data, dict):
        raise DescriptorProblems(
            [
                f"the JSON holds {type(data).__name__ if data is not None else 'null'}; a descriptor is a JSON object "
                'such as {"Type": "DML_OPERATOR_ELEMENT_WISE_ROUND", "Desc": {...}}'
            ]
        )
    if _keys(data, _GRAPH_KEYS):
        return GraphDesc.model_validate(data)
    inner = data.get("Desc", data.get("desc"))
    if _keys(data, _TENSOR_KEYS) or (
        isinstance(inner, dict) and _keys(inner, _TENSOR_KEYS) and not _names_an_operator(data)
    ):
        return TensorDesc.model_validate(data)
    if _keys(data, _OPERATOR_KEYS):
        return OperatorDesc.model_validate(data).desc
    return bare_operator_class(data).model_validate(data)


def descriptor_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of what :func:`parse_descriptor` reads, built from the models' own schemas:
    ``OperatorDesc.model_json_schema()`` (one member per operator, Desc tied to Type), a bare operator
    descriptor, or a tensor. Enums take their numbers and spellings; fields their C or snake_case names."""
    operator = OperatorDesc.model_json_schema()
    defs: dict[str, Any] = operator.pop("$defs")
    members = [defs.pop(ref["$ref"].rsplit("/", 1)[-1]) for ref in operator["oneOf"]]
    defs["OperatorDesc"] = {"title": "OperatorDesc", "description": OperatorDesc.__doc__ or "", "oneOf": members}
    for desc in OPERATORS.values():  # the extensions, which no DML_OPERATOR_DESC holds, are read bare
        bare = desc.model_json_schema()
        defs.update(bare.pop("$defs", {}))
        defs[desc.__name__] = bare
    graph = GraphDesc.model_json_schema(ref_template="#/$defs/{model}")
    defs.update(graph.pop("$defs", {}))
    defs["GraphDesc"] = graph
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/dmlpy/dmlpy/schema/descriptor.json",
        "title": "dmlpy descriptor",
        "description": (
            "What `dmlpy validate` and `dmlpy explain` read: a DML_OPERATOR_DESC, a bare operator descriptor "
            "(DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, ...), a DML_GRAPH_DESC, or a tensor (validate only). C or "
            "snake_case field names."
        ),
        # anyOf, not oneOf: a bare Round descriptor also has the Round extension's fields; dmlpy reads it as Round.
        "anyOf": [
            {"$ref": "#/$defs/OperatorDesc"},
            *({"$ref": f"#/$defs/{desc.__name__}"} for desc in OPERATORS.values()),
            {"$ref": "#/$defs/TensorDesc"},
            {"$ref": "#/$defs/GraphDesc"},
        ],
        "$defs": defs,
    }
