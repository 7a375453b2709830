"""An ONNX node's attributes read by name, each left out taking its schema's default (FLOAT, STRING) or None
(INTS): the one reading of them for every family module (their types are checked against the schema first, by
``dmlpy.onnx.movement.check_attributes``)."""

from __future__ import annotations

import onnx


def _given(node: onnx.NodeProto, name: str) -> onnx.AttributeProto | None:
    return next((attribute for attribute in node.attribute if attribute.name == name), None)


def float_attribute(node: onnx.NodeProto, opset: int, name: str) -> float:
    """The FLOAT attribute ``name``, or its schema's default."""
    given = _given(node, name)
    if given is not None:
        return float(given.f)
    return float(onnx.defs.get_schema(node.op_type, opset).attributes[name].default_value.f)


def ints_attribute(node: onnx.NodeProto, name: str) -> list[int] | None:
    """The INTS attribute ``name``, or None where it is left out."""
    given = _given(node, name)
    return None if given is None else [int(value) for value in given.ints]


def string_attribute(node: onnx.NodeProto, opset: int, name: str) -> str:
    """The STRING attribute ``name`` (decoded, an undecodable byte replaced), or its schema's default."""
    given = _given(node, name)
    if given is not None:
        return given.s.decode(errors="replace")
    return bytes(onnx.defs.get_schema(node.op_type, opset).attributes[name].default_value.s).decode(errors="replace")
