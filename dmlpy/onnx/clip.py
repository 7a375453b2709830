"""ONNX's Clip as DirectML's ELEMENT_WISE_CLIP1 (DML_FEATURE_LEVEL_5_0), whose Min and Max are of the input's own
type (MinMaxDataType), so exact for every type. The bounds become descriptor fields, fixed when the graph is
built: opset 6's min and max attributes, or from opset 11 the optional min and max inputs, read from
initializers (a bound given as a graph input or computed by a node has no value until the graph runs, and is
refused by lowering). An absent bound is the type's lowest or highest value: -inf and +inf for floats, opset 6's
attribute defaults (its schema's, -FLT_MAX and FLT_MAX) where it takes attributes. With neither bound given
(from opset 11) Clip is the input itself, an ELEMENT_WISE_IDENTITY copy (NaN stays NaN, as in onnx.reference).

ONNX's Clip is ``min(max(x, min), max)`` (np.clip): where min > max every element becomes max. CLIP1's
``max(Min, min(x, Max))`` would give Min there, so CLIP1 is given ``min(min, max)`` as Min, which gives the same
result for every x but a NaN and a zero at a zero bound (np.clip keeps x's zero; D3D's min and max choose between
two zeros by their order: docs/conformance.md lists it). A NaN x gives NaN in onnx.reference and Max in DirectML
(D3D's min and max return the operand that is not NaN): dmlpy answers as DirectML does (docs/conformance.md). A
NaN bound, which makes every element NaN in onnx.reference and which DirectML's min and max would pass over, is
refused."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx

from dmlpy.dtypes import DATA_TYPES, is_nibble
from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.operators import BUILDERS
from dmlpy.onnx.elements import NodeRefused, expressed, onnx_name

BoundOf = Callable[[str, str, str], "np.ndarray[Any, Any]"]
"""``bound_of(name, what, where)``: the value of the initializer ``name`` that the node ``where`` reads as its
``what`` ("min" or "max")."""


def clip_node(node: onnx.NodeProto, opset: int, x: Expression, bound_of: BoundOf, where: str) -> Expression:
    """The CLIP1 node of a Clip ``node`` (of ``opset``) on ``x``, its bounds read as the module says."""
    data_type = TensorDataType(x.data_type)
    if is_nibble(data_type):
        # Before the bounds are read, as without them: a bound-less Clip is an IDENTITY copy, which takes no 4-bit
        # type either, and the schema of every Clip opset none (so the node is refused whatever it holds).
        raise NodeRefused(
            f"{where}: its input {node.input[0]!r} is {onnx_name(data_type)}; DirectML's ELEMENT_WISE_CLIP1 takes "
            "no 4-bit type at any feature level, nor does ONNX's Clip: clip the value before QuantizeLinear makes "
            f"it {onnx_name(data_type)}, or after DequantizeLinear"
        )
    lowest, highest = _type_range(data_type)
    if opset < 11:
        schema = onnx.defs.get_schema("Clip", opset)
        given = {a.name: float(a.f) for a in node.attribute}
        defaults = {
            name: _attribute_default(schema, name, limit) for name, limit in (("min", lowest), ("max", highest))
        }
        low, high = (_as_held(given.get(name, defaults[name]), data_type) for name in ("min", "max"))
    else:
        names = dict(zip(("min", "max"), node.input[1:], strict=False))
        if not any(names.values()):  # no bound: ONNX's Clip is the input itself, NaN included
            return expressed(where, BUILDERS["identity"], x)
        low = _bound(names.get("min"), "min", data_type, bound_of, where, lowest)
        high = _bound(names.get("max"), "max", data_type, bound_of, where, highest)
    for what, value in (("min", low), ("max", high)):
        if math.isnan(value):
            raise NodeRefused(
                f"{where}: its {what} is NaN, which makes every element NaN in ONNX's Clip (np.clip); DirectML's "
                "CLIP1 clamps with D3D's min and max, which pass over a NaN bound"
            )
    return expressed(where, BUILDERS["clip1"], x, min(low, high), high)


def _as_held(bound: float | int, data_type: TensorDataType) -> float | int:
    """An attribute bound (a float32) rounded to the input's float type: the same clip, for clipping and rounding to
    the type are both monotone; a bound beyond the type's range (opset 6's default FLT_MAX on FLOAT16) becomes that
    side's infinity, which clips nothing, as the bound did."""
    with np.errstate(over="ignore"):
        return float(DATA_TYPES[data_type].numpy.type(bound))


def _attribute_default(schema: Any, name: str, limit: float | int) -> float | int:
    """An absent bound attribute: its schema's default where it declares one (opset 6: -FLT_MAX and FLT_MAX), the
    type's ``limit`` where it declares none (Clip-1, whose page says an absent bound is the type's lowest or
    highest value; its default_value is empty, whose ``f`` would read 0)."""
    default = schema.attributes[name].default_value
    return float(default.f) if default.name else limit


def _type_range(data_type: TensorDataType) -> tuple[float | int, float | int]:
    numpy_type = np.dtype(DATA_TYPES[data_type].numpy)
    if numpy_type.kind == "f":
        return -math.inf, math.inf
    info = np.iinfo(np.dtype(numpy_type.str))
    return int(info.min), int(info.max)


def _bound(
    name: str | None,
    what: str,
    data_type: TensorDataType,
    bound_of: BoundOf,
    where: str,
    absent: float | int,
) -> float | int:
    """Clip's ``what`` bound, the input ``name``: one value of the input's type; ``absent`` where it is not given
    (no input, or the empty name ONNX gives an optional input left out)."""
    if not name:
        return absent
    value = bound_of(name, what, where)
    wanted = DATA_TYPES[data_type].numpy
    if value.dtype != wanted:
        held = onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
        raise InvalidArgumentError(
            f"{where}: its {what} {name!r} is {onnx.TensorProto.DataType.Name(held)} and its input "
            f"{onnx_name(data_type)}; Clip takes one type for the input and its bounds"
        )
    if value.size != 1:
        raise InvalidArgumentError(
            f"{where}: its {what} {name!r} has shape {list(value.shape)}; Clip's bounds are scalars (one value)"
        )
    scalar: float | int = value.reshape(-1)[0].item()
    return scalar
