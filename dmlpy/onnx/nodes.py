"""Which ONNX nodes dmlpy runs, read from the operator table (each operator's ``ONNX_OPS``): the op types, their
inputs (optional ones, Clip's bounds, may be left out) and attributes (INT ones; FLOAT ones: Clip's bounds before
opset 11, the activations' parameters; Gelu's approximate STRING), what an attribute becomes in the operator's
builder function (IsInf's detect_negative and detect_positive, DirectML's InfinityMode; an activation's parameters,
its descriptor's C FLOAT fields; the movement op types' attributes, checked against their schema by
``dmlpy.onnx.movement``), which operator an attribute chooses (Mod's fmod, BitShift's direction:
``lowered_operator``), and which node outputs are ONNX bool tensors (UINT8 in DirectML)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx

from dmlpy.enums import IsInfinityMode, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.onnx.contrib import CONTRIB_DOMAIN, CONTRIB_OPS, contrib_attributes, contrib_input_types, is_contrib
from dmlpy.onnx.contrib_schemas import register_contrib_schemas
from dmlpy.onnx.elements import NodeRefused, onnx_name
from dmlpy.onnx.families import FAMILY_OPS
from dmlpy.onnx.generators import REFUSED_GENERATOR_OPS, eye_like_boolean
from dmlpy.onnx.movement import MOVEMENT_OPS, check_attributes
from dmlpy.onnx.recurrent import RECURRENT_OPS
from dmlpy.onnx.reduction import REDUCTION_OPS
from dmlpy.onnx.softmax import SOFTMAX_OPS
from dmlpy.onnx.views import VIEW_OPS
from dmlpy.ops import OPERATORS
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._types import FLOATS_AND_FLOAT64, SIGNED
from dmlpy.problems.values import QUOTED_LENGTH, quoted

register_contrib_schemas()  # onnx's shape inference, run by folding, then knows their outputs

LOWERED_TO = {op_type: desc for desc in OPERATORS.values() for op_type in desc.ONNX_OPS}
"""ONNX op type -> the operator it is lowered to, from the operator table's ``ONNX_OPS``."""
SUPPORTED_OPS = tuple(LOWERED_TO)
_REFUSED_OP_TYPES = REFUSED_GENERATOR_OPS | {
    "If": (
        "DirectML's graphs have no control flow: an If runs where the input shapes or, at run, the inputs' values "
        "decide its condition (dmlpy.onnx.branches), and here they were not given"
    )
}
"""The op types dmlpy refuses with a reason of their own (NonZero; an If left undecided: ``dmlpy explain`` and
``run_dask`` take no input values)."""

_CHOSEN_BY: dict[str, tuple[str, dict[int | str, OperatorType]]] = {
    "Mod": (
        "fmod",
        {0: OperatorType.ELEMENT_WISE_MODULUS_FLOOR, 1: OperatorType.ELEMENT_WISE_MODULUS_TRUNCATE},
    ),
    "BitShift": (
        "direction",
        {"LEFT": OperatorType.ELEMENT_WISE_BIT_SHIFT_LEFT, "RIGHT": OperatorType.ELEMENT_WISE_BIT_SHIFT_RIGHT},
    ),
}
"""The op types one of two operators lowers, as an attribute's value chooses: Mod's fmod (0, its default: the
floored remainder, the divisor's sign; 1: C's fmod, truncated, the dividend's sign) and BitShift's direction. The
table declares each op type once, on the operator of fmod 0 and of LEFT."""
FLOAT_FLOOR_MOD_OPSET = 28
"""Mod of floats with fmod 0: refused by ONNX before opset 28 ("fmod must be set to 1"), the floored remainder
(np.mod's, MODULUS_FLOOR's) from Mod-28."""

QUANTIZATION_OPS = ("QuantizeLinear", "DequantizeLinear")
"""The op types with a scale and a zero point, lowered by their own path; the others take one input."""
_ATTRIBUTES = {
    "QuantizeLinear": {"axis", "saturate", "output_dtype", "block_size"},
    "DequantizeLinear": {"axis", "output_dtype", "block_size"},
    "IsInf": {"detect_negative", "detect_positive"},
    **{op_type: {"axis"} for op_type in SOFTMAX_OPS},
    "Cast": {"to", "saturate"},
    "CastLike": {"saturate"},
}
"""The INT attributes each op type takes, and so the ones dmlpy reads; the other op types take none."""
_ACTIVATION_PARAMETERS = {
    "LeakyRelu": {"alpha"},
    "ThresholdedRelu": {"alpha"},
    "HardSigmoid": {"alpha", "beta"},
    "Shrink": {"bias", "lambd"},
    "Elu": {"alpha"},
    "Celu": {"alpha"},
    "Selu": {"alpha", "gamma"},
}
"""The activations' FLOAT attributes, their builder's keywords of the same names but where ``_KEYWORD_OF`` says
(Selu's alpha and gamma are SCALED_ELU's Alpha and Gamma)."""
_KEYWORD_OF = {"lambd": "threshold"}
"""The builder keywords that ONNX names otherwise: Shrink's lambd is SHRINK's Threshold."""
_FLOAT_ATTRIBUTES = {"Clip": {"min", "max"}, **_ACTIVATION_PARAMETERS}
"""The FLOAT attributes each op type takes: Clip's bounds before opset 11 (inputs from opset 11, read by
``dmlpy.onnx.clip``) and the activations' parameters."""
_FIXED_PARAMETERS = {"HardSwish": {"alpha": float(np.float32(1 / 6)), "beta": 0.5}, "Softplus": {"steepness": 1.0}}
"""The parameters of the op types that define them rather than take them: ONNX's HardSwish is
``x * max(0, min(1, alpha * x + beta))`` with alpha 1/6 and beta 0.5, its function body a HardSigmoid of those
(1/6 as a FLOAT attribute, float32) and a Mul, which DirectML's HARD_SWISH computes step for step; ONNX's Softplus
is ``ln(exp(x) + 1)``, SOFTPLUS with Steepness 1."""
_GELU_FORMS = {"none": "", "tanh": "DirectML's ACTIVATION_GELU is the exact erf form, not tanh's approximation"}
"""Gelu's approximate attribute: "none" is DirectML's GELU; "tanh" (0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715
* x^3)))) is refused with the reason."""
_QUANTIZATION_INPUTS = (2, 3)
"""QuantizeLinear and DequantizeLinear take x, the scale and, optionally, the zero point."""

INFINITY_MODES = {
    (1, 1): IsInfinityMode.EITHER,
    (0, 1): IsInfinityMode.POSITIVE,
    (1, 0): IsInfinityMode.NEGATIVE,
}
"""IsInf's (detect_negative, detect_positive) -> DML_IS_INFINITY_MODE. (0, 0), detecting nothing, has none."""


ONNX_DOMAINS = ("", "ai.onnx")
"""The domain names of ONNX's own operators (the empty one is ai.onnx too)."""


def _shown(text: str) -> str:
    """An op type or domain from the model: bare where it is short and of identifiers (Conv, com.microsoft), else
    quoted and cut."""
    plain = all(part.isidentifier() for part in text.split(".")) and len(text) <= QUOTED_LENGTH
    return text if plain else quoted(text)


def check_op_types(nodes: Sequence[onnx.NodeProto], opset: int) -> None:
    """NodeRefused unless every node is of an op type dmlpy runs: the message names each other op type (with its
    domain where it is not ONNX's), how many nodes have it and the first of them, in the order they appear, and
    leaves the list of the op types dmlpy runs to docs/api/onnx.md (a model of many nodes has many to name)."""
    unmapped: dict[tuple[str, str], list[int]] = {}
    for index, node in enumerate(nodes):
        if is_contrib(node):
            continue
        if node.domain not in ONNX_DOMAINS or node.op_type not in SUPPORTED_OPS:
            domain = "" if node.domain in ONNX_DOMAINS else node.domain
            unmapped.setdefault((domain, node.op_type), []).append(index)
    if not unmapped:
        return
    lines = []
    for (domain, op_type), indices in unmapped.items():
        first = nodes[indices[0]].name
        named = f"graph.node[{indices[0]}] {quoted(first) if first else '(unnamed)'}"
        kind = f"{_shown(op_type)} (domain {_shown(domain)})" if domain else _shown(op_type)
        count = f"{len(indices)} nodes, the first {named}" if len(indices) > 1 else f"1 node, {named}"
        why = f" ({_REFUSED_OP_TYPES[op_type]})" if not domain and op_type in _REFUSED_OP_TYPES else ""
        lines.append(f"\n  {kind}: {count}{why}")
    refused = sum(len(indices) for indices in unmapped.values())
    raise NodeRefused(
        f"ONNX model (opset {opset}): {refused} of its {len(nodes)} nodes are of op types dmlpy does not run:"
        f"{''.join(lines)}\ndmlpy runs {len(SUPPORTED_OPS)} ONNX op types (dmlpy.onnx.SUPPORTED_OPS), the ones "
        f"DirectML's operators express exactly, and {len(CONTRIB_OPS)} of onnxruntime's ({CONTRIB_DOMAIN}), listed "
        "with their operators in docs/api/onnx.md: run these nodes "
        "with another runtime, and the rest with dmlpy (onnx.utils.extract_model cuts a model in parts)"
    )


def node_name(node: onnx.NodeProto, opset: int) -> str:
    return f"ONNX node{' ' + repr(node.name) if node.name else ''} ({node.op_type}, opset {opset})"


def node_attributes(node: onnx.NodeProto, opset: int, where: str) -> dict[str, int]:
    """The node's attributes, after checking the node (of an op type dmlpy runs: ``check_op_types``) has the
    inputs (as many as its op type's schema at ``opset`` takes), outputs and INT attributes its operator takes
    (a contrib op type's as ``dmlpy.onnx.contrib`` declares them)."""
    if is_contrib(node):
        return contrib_attributes(node, where)
    if node.op_type in QUANTIZATION_OPS:
        fewest, most = _QUANTIZATION_INPUTS
        required, takes = node.input[:fewest], f"{fewest} or {most} (the zero point is optional)"
    else:  # one input (Round, ...), two (Add, ...), one or more (Sum, Max, ...) or optional ones (Clip's bounds)
        schema = onnx.defs.get_schema(node.op_type, opset)
        fewest, most = schema.min_input, schema.max_input
        optional = schema.inputs[-1].option == onnx.defs.OpSchema.FormalParameterOption.Optional
        required = node.input[:fewest] if optional else node.input
        takes = f"{fewest}" if fewest == most else f"{fewest} to {most}" if optional else f"{fewest} or more"
    if not fewest <= len(node.input) <= most or not all(required):
        raise InvalidArgumentError(f"{where}: inputs {list(node.input)}; {node.op_type} takes {takes}")
    # SPLIT's parts, an output each; TopK's and MaxPool's values and indices; BatchNormalization's and
    # LayerNormalization's optional statistics (refused by dmlpy.onnx.normalization, saying why); the recurrent
    # networks' Y, Y_h (and Y_c) and Attention's Y, present keys and values (and qk_matmul_output, refused by
    # dmlpy.onnx.attention), each optional: one left out before another is named ""
    optional_outputs = (*RECURRENT_OPS, "Attention")
    parts = node.op_type in (
        "Split",
        "TopK",
        "BatchNormalization",
        "LayerNormalization",
        "MaxPool",
        "DynamicQuantizeLinear",
        *optional_outputs,
    )
    named = any(node.output) if node.op_type in optional_outputs else all(node.output)
    if not node.output or (len(node.output) != 1 and not parts) or not named:
        has = "one or more outputs, each named" if parts else "one output"
        raise InvalidArgumentError(f"{where}: outputs {list(node.output)}; {node.op_type} has {has}")
    if any(node.op_type in ops for ops in (MOVEMENT_OPS, REDUCTION_OPS, FAMILY_OPS, VIEW_OPS)):
        return check_attributes(node, opset, where)
    attributes: dict[str, int] = {}
    for attribute in node.attribute:
        if attribute.name == _CHOSEN_BY.get(node.op_type, ("",))[0]:
            continue  # read by lowered_operator
        if node.op_type == "Gelu" and attribute.name == "approximate":
            _check_gelu_form(attribute, where)
            continue
        if attribute.name in _FLOAT_ATTRIBUTES.get(node.op_type, set()):
            if attribute.type != onnx.AttributeProto.FLOAT:
                raise InvalidArgumentError(
                    f"{where}: attribute {attribute.name!r} is not FLOAT; {node.op_type} takes a FLOAT"
                )
            continue
        if attribute.name not in _ATTRIBUTES.get(node.op_type, set()):
            raise NodeRefused(
                f"{where}: attribute {attribute.name!r} is not one dmlpy knows how to express in DirectML"
            )
        if attribute.type != onnx.AttributeProto.INT:
            kind = _attribute_kind(attribute)
            raise InvalidArgumentError(f"{where}: attribute {attribute.name!r} is {kind}; {node.op_type} takes an INT")
        attributes[attribute.name] = int(attribute.i)
    if attributes.get("block_size", 0) < 0:
        raise InvalidArgumentError(f"{where}: block_size {attributes['block_size']}; ONNX asks for 0 or more")
    return attributes


def lowered_operator(node: onnx.NodeProto, opset: int, data_type: TensorDataType, where: str) -> type[OperatorDescBase]:
    """The operator a node of operands of ``data_type`` lowers to: its op type's, or the one its attribute chooses
    (``_CHOSEN_BY``). Refused: Mod of floats with fmod 0 before opset 28 (malformed) and BitShift of a signed type
    (from opset 28), which DirectML's shifts do not take: their tables hold unsigned types, shifted logically,
    and ONNX shifts a signed value right arithmetically (sign-extending)."""
    if node.op_type not in _CHOSEN_BY:
        return LOWERED_TO[node.op_type]
    name, choices = _CHOSEN_BY[node.op_type]
    given = {attribute.name: attribute for attribute in node.attribute}
    value: int | str = 0
    if name in given:
        attribute = given[name]
        value = attribute.s.decode(errors="replace") if attribute.type == onnx.AttributeProto.STRING else attribute.i
        if attribute.type not in (onnx.AttributeProto.STRING, onnx.AttributeProto.INT) or value not in choices:
            raise InvalidArgumentError(
                f"{where}: attribute {name!r} is {value!r}; {node.op_type} takes {' or '.join(map(repr, choices))}"
            )
    elif node.op_type == "BitShift":
        raise InvalidArgumentError(f"{where}: attribute 'direction' is missing; BitShift takes 'LEFT' or 'RIGHT'")
    if node.op_type == "Mod" and value == 0 and data_type in FLOATS_AND_FLOAT64 and opset < FLOAT_FLOOR_MOD_OPSET:
        raise InvalidArgumentError(
            f"{where}: fmod 0 with {onnx_name(data_type)} inputs; before opset {FLOAT_FLOOR_MOD_OPSET} Mod takes "
            "floating-point inputs only with fmod 1 (fmod 0 on floats, the floored remainder, is Mod-28's)"
        )
    if node.op_type == "BitShift" and data_type in SIGNED:
        raise NodeRefused(
            f"{where}: its inputs are {onnx_name(data_type)}; DirectML's BIT_SHIFT_LEFT and BIT_SHIFT_RIGHT take "
            "unsigned types only (UINT8 to UINT64, shifted logically), and ONNX shifts a signed value right "
            "arithmetically, filling with its sign bit"
        )
    return OPERATORS[choices[value]]


def _attribute_kind(attribute: onnx.AttributeProto) -> str:
    """The attribute's type as ONNX names it (INT, STRING, ...), or its number where ONNX names none."""
    try:
        return str(onnx.AttributeProto.AttributeType.Name(attribute.type))
    except ValueError:
        return f"attribute type {attribute.type}"


def _check_gelu_form(attribute: onnx.AttributeProto, where: str) -> None:
    """Gelu's approximate: a STRING, "none" (DirectML's GELU) or "tanh" (refused, _GELU_FORMS says why)."""
    if attribute.type != onnx.AttributeProto.STRING:
        raise InvalidArgumentError(
            f"{where}: attribute 'approximate' is {_attribute_kind(attribute)}; Gelu takes a STRING, 'none' or 'tanh'"
        )
    form = attribute.s.decode("utf-8", "replace")
    if form not in _GELU_FORMS:
        raise InvalidArgumentError(f"{where}: attribute 'approximate' is {form!r}; ONNX asks for 'none' or 'tanh'")
    if _GELU_FORMS[form]:
        raise NodeRefused(f"{where}: approximate {form!r}: {_GELU_FORMS[form]}")


def builder_keywords(node: onnx.NodeProto, opset: int, attributes: dict[str, int], where: str) -> dict[str, Any]:
    """The keywords of the builder function a one-input node and its INT ``attributes`` give: IsInf's
    InfinityMode from detect_negative and detect_positive (each 1 when left out, as ONNX defaults them); an
    activation's alpha and beta (``_float_parameters``); none for the others."""
    if node.op_type in _FIXED_PARAMETERS:
        return dict(_FIXED_PARAMETERS[node.op_type])
    if node.op_type in _ACTIVATION_PARAMETERS:
        return _float_parameters(node, opset)
    if node.op_type != "IsInf":
        return {}
    detect = (attributes.get("detect_negative", 1), attributes.get("detect_positive", 1))
    if detect == (0, 0):
        raise NodeRefused(
            f"{where}: detect_negative 0 and detect_positive 0 detect no infinity (the output is all false); "
            "DirectML's DML_IS_INFINITY_MODE has no such mode (EITHER, POSITIVE, NEGATIVE): leave the node out"
        )
    if detect not in INFINITY_MODES:
        raise InvalidArgumentError(
            f"{where}: detect_negative {detect[0]}, detect_positive {detect[1]}; ONNX asks for 0 or 1 for each"
        )
    return {"infinity_mode": INFINITY_MODES[detect]}


def _float_parameters(node: onnx.NodeProto, opset: int) -> dict[str, float]:
    """The FLOAT attributes of an activation ``node`` (checked FLOAT by ``node_attributes``) as its builder's
    keywords, each left out taking its schema's default at ``opset`` (LeakyRelu's alpha 0.01, HardSigmoid's 0.2 and
    0.5, Shrink's bias 0 and lambd 0.5, ...), each rounded to float32, as ONNX's FLOAT attribute and DirectML's C
    FLOAT field hold it."""
    schema = onnx.defs.get_schema(node.op_type, opset)
    given = {attribute.name: attribute.f for attribute in node.attribute}
    return {
        _KEYWORD_OF.get(name, name): float(np.float32(given.get(name, schema.attributes[name].default_value.f)))
        for name in sorted(_ACTIVATION_PARAMETERS[node.op_type])
    }


def _allowed_types(schema: onnx.defs.OpSchema, type_str: str) -> list[str]:
    """The types an input or output of ``schema`` typed ``type_str`` (a type parameter such as "T", or a type)
    may have."""
    allowed = {c.type_param_str: list(c.allowed_type_strs) for c in schema.type_constraints}
    return allowed.get(type_str, [type_str])


def boolean_output(node: onnx.NodeProto, opset: int, inputs_boolean: Sequence[bool]) -> bool:
    """Whether a node's output is an ONNX bool tensor (which DirectML stores as UINT8, 1 and 0): its op type's
    schema allows only bool there (IsNaN, IsInf), or gives it the type of an input (the first; Where's X) that is
    bool (``inputs_boolean``: the node's inputs, in order), or EyeLike's dtype says so."""
    if node.op_type == "EyeLike":
        return eye_like_boolean(node, inputs_boolean[0])
    if node.domain == CONTRIB_DOMAIN:  # no contrib op type computes a bool
        return False
    schema = onnx.defs.get_schema(node.op_type, opset)
    output = schema.outputs[0].type_str
    pairs = zip(schema.inputs, inputs_boolean, strict=False)  # a variadic input (Sum's) is one formal parameter
    alike = [boolean for formal, boolean in pairs if formal.type_str == output]
    return _allowed_types(schema, output) == ["tensor(bool)"] or alike[:1] == [True]


def input_types(op_type: str, opset: int, index: int) -> list[str]:
    """The ONNX element types (as ``onnx.TensorProto.DataType`` names them, lower case: float, int8, bool, ...)
    input ``index`` of ``op_type``'s schema at ``opset`` may have (Identity's may be bool, Mean's no integer;
    onnx.checker leaves the check to the schema's users); a contrib op type's as ``dmlpy.onnx.contrib`` declares."""
    if op_type in CONTRIB_OPS:  # none of them is one of ONNX's own op types
        return contrib_input_types(op_type, index)
    schema = onnx.defs.get_schema(op_type, opset)
    allowed = _allowed_types(schema, schema.inputs[min(index, len(schema.inputs) - 1)].type_str)
    return [name.removeprefix("tensor(").removesuffix(")") for name in allowed]


def check_schema_type(op_type: str, opset: int, index: int, value: tuple[str, TensorDataType], where: str) -> None:
    """InvalidArgumentError unless input ``index``, ``value`` (its name and data type), has a type ``op_type``'s
    schema allows there: a model that breaks its schema (a Mean of INT32) is malformed, though DirectML may run it."""
    allowed = input_types(op_type, opset, index)
    name, data_type = value
    if onnx_name(data_type).lower() not in allowed:
        raise InvalidArgumentError(
            f"{where}: its input {name!r} is {onnx_name(data_type)}; {op_type}'s schema (opset {opset}) takes "
            f"{', '.join(allowed)} there"
        )


def needed_nodes(graph: onnx.GraphProto) -> list[onnx.NodeProto]:
    """The nodes the graph outputs depend on, in the model's order: a node nothing reads is left out, as
    onnxruntime prunes it (a DirectML graph refuses a node used by nothing)."""
    producer = {output: node for node in graph.node for output in node.output}
    needed: set[int] = set()
    stack = [value.name for value in graph.output]
    while stack:
        node = producer.get(stack.pop())
        if node is not None and id(node) not in needed:
            needed.add(id(node))
            stack.extend(name for name in node.input if name)
    return [node for node in graph.node if id(node) in needed]
