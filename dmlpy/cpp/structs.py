"""C++ statements that fill DirectML.h's structs from dmlpy's descriptor models, as Microsoft's HelloDirectML sample
does: each struct value-initialised (``DML_..._DESC name = {};``) and then its members assigned one by one in the
model's field order (C order), arrays declared before the struct that points at them, wrappers (DML_TENSOR_DESC,
DML_OPERATOR_DESC, DML_GRAPH_NODE_DESC, DML_GRAPH_EDGE_DESC) initialised as ``{Type, &desc}``.

Everything is read from the models: C member names are the fields' aliases, C struct names the models' own
(``struct_name``; an operator's is ``DML_<TYPE>_OPERATOR_DESC``), enums print their directml.h spellings. No
operator is written by hand. What DirectML.h declares as a pointer: a tensor, an array, and a struct a field may
leave null (DML_SCALE_BIAS, a FusedActivation); DML_SIZE_2D and DML_SCALAR_UNION are members by value."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

from pydantic.fields import FieldInfo

from dmlpy.cpp.literals import c_enum, c_number, c_string, camel
from dmlpy.enums import DmlEnum, DmlFlag
from dmlpy.errors import UnsupportedError
from dmlpy.model import DmlModel
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._recurrent import RecurrentActivation
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.ops.union import OperatorDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc

_PLACEHOLDER = TensorDesc(desc=BufferTensorDesc(data_type="FLOAT32", sizes=(1,)))
"""What an activation nested in an operator is bound to so that its own class reads its fields; DirectML gets
null tensors there, and so does the C++."""


def struct_name(model: DmlModel) -> str:
    """The C struct a model is: DML_<TYPE>_OPERATOR_DESC for an operator, else the model's own C name."""
    if isinstance(model, OperatorDescBase):
        return f"DML_{model.OPERATOR_TYPE.name}_OPERATOR_DESC"
    return model.struct_name()


def operator_type(model: OperatorDescBase, where: str) -> str:
    """The DML_OPERATOR_* spelling of an operator descriptor (UnsupportedError for a dmlpy extension)."""
    return c_enum(model.OPERATOR_TYPE, where)


def _element_type(annotation: Any) -> str:
    """The C element type of a number array field (``tuple[T, ...]``, perhaps ``| None``): FLOAT, INT (a signed
    constraint) or UINT."""
    if typing.get_origin(annotation) is not tuple:
        (annotation,) = (arg for arg in typing.get_args(annotation) if typing.get_origin(arg) is tuple)
    element = typing.get_args(annotation)[0]
    if element is float:
        return "FLOAT"
    constraints = [rule for meta in typing.get_args(element)[1:] for rule in getattr(meta, "metadata", [meta])]
    return "INT" if any((getattr(rule, "ge", 0) or 0) < 0 for rule in constraints) else "UINT"


class StructWriter:
    """Collects the statements that fill a descriptor's structs; ``lines`` holds them in declaration order.
    Variables are named after the members that point at them (``inputTensor``, ``inputTensorBuffer``,
    ``inputTensorSizes``), behind a prefix inside a graph node (``node0InputTensor``)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.taken: set[str] = set()

    def name(self, wanted: str) -> str:
        """A variable name not used yet: ``wanted``, else ``wanted2``, ``wanted3``, ..."""
        name, suffix = wanted, 2
        while name in self.taken:
            name, suffix = f"{wanted}{suffix}", suffix + 1
        self.taken.add(name)
        return name

    # ------------------------------------------------------------------------------------------- structs

    def struct(self, model: DmlModel, wanted: str, prefix: str, *, null_tensors: bool = False) -> str:
        """Declare ``model``'s struct as ``wanted`` and assign every member in field order, naming what members
        point at ``prefix`` + member; returns the variable's name. Tensor members are nullptr with
        ``null_tensors`` (an activation nested in an operator)."""
        where = struct_name(model)
        values = []
        for field, info in type(model).model_fields.items():
            member = info.alias or field
            value = getattr(model, field)
            values.append((member, self.value(model, value, info, camel(f"{prefix}{member}"), f"{where}.{member}",
                                              null_tensors)))  # fmt: skip
        name = self.name(wanted)
        self.lines.append(f"{where} {name} = {{}};")
        for member, text in values:
            if isinstance(text, list):  # an array held in the struct: DML_SCALAR_UNION's BYTE Bytes[8]
                self.lines += [f"{name}.{member}[{index}] = {byte};" for index, byte in enumerate(text)]
            elif text is not None:
                self.lines.append(f"{name}.{member} = {text};")
        return name

    def operator(self, desc: OperatorDescBase, prefix: str) -> str:
        """Declare an operator's struct (``<prefix><OperatorType>Desc``) and its DML_OPERATOR_DESC
        (``<prefix>OperatorDesc``); returns the DML_OPERATOR_DESC's name."""
        kind = operator_type(desc, desc.operator_name())
        inner = self.struct(desc, camel(f"{prefix}_{desc.OPERATOR_TYPE.name}_DESC"), prefix)
        name = self.name(camel(f"{prefix}OperatorDesc"))
        self.lines.append(f"DML_OPERATOR_DESC {name} = {{{kind}, &{inner}}};")
        return name

    def wrapped(self, wrapper: DmlModel, entry: str) -> tuple[str, str]:
        """A wrapper's Type and a pointer to its Desc, which is declared (``entry`` names it, or its members)."""
        if isinstance(wrapper, TensorDesc):
            buffer = self.struct(wrapper.desc, f"{entry}Buffer", entry)
            return c_enum(wrapper.type, "DML_TENSOR_DESC.Type"), f"&{buffer}"
        if isinstance(wrapper, FusedActivation | RecurrentActivation):
            bound = wrapper.bound_to(_PLACEHOLDER, entry)
            activation = self.struct(bound, f"{entry}Desc", entry, null_tensors=True)
            return operator_type(bound, entry), f"&{activation}"
        kind, desc = getattr(wrapper, "type"), getattr(wrapper, "desc")  # noqa: B009  # a wrapper's two fields
        return c_enum(kind, f"{struct_name(wrapper)}.Type"), "&" + self.struct(desc, entry, entry)

    def pointer_to_operator(self, wrapper: OperatorDesc, prefix: str) -> str:
        """What a graph node's Operator member holds: the graph's writer creates the IDMLOperator."""
        raise UnsupportedError(f"{prefix}: an operator outside a graph node has no IDMLOperator to point at")

    # -------------------------------------------------------------------------------------------- values

    def value(self, owner: DmlModel, value: Any, info: FieldInfo, wanted: str, where: str, null_tensors: bool) -> Any:
        """The C++ expression of one member (declaring what it points at first); None for a union member left
        out; a list of byte literals for an array held in the struct."""
        if value is None:  # a pointer left null; a union's members but one are left out
            return None if isinstance(owner, ScalarUnion) else "nullptr"
        if isinstance(value, TensorDesc) and null_tensors:
            return "nullptr"
        if isinstance(value, TensorDesc | FusedActivation):
            kind, desc = self.wrapped(value, wanted)
            name = self.name(wanted)
            self.lines.append(f"{struct_name(value)} {name} = {{{kind}, {desc}}};")
            return f"&{name}"
        if isinstance(value, OperatorDesc):
            return self.pointer_to_operator(value, wanted.removesuffix("Operator"))
        if isinstance(value, DmlModel):
            name = self.struct(value, wanted, wanted)
            return f"&{name}" if type(None) in typing.get_args(info.annotation) else name
        if isinstance(value, DmlEnum | DmlFlag):
            return c_enum(value, where)
        if isinstance(value, str):
            return c_string(value)
        if isinstance(value, bytes):
            return self.array("BYTE", [f"0x{byte:02X}" for byte in value], wanted)
        if isinstance(value, tuple):
            return self.sequence(owner, value, info, wanted)
        return c_number(value)

    def sequence(self, owner: DmlModel, items: tuple[Any, ...], info: FieldInfo, wanted: str) -> Any:
        """An array member: nullptr when empty; held in the struct (DML_SCALAR_UNION's Bytes); else declared,
        wrappers as ``{Type, &desc}`` entries named in the singular (``inputTensor0``, ``node1``)."""
        if not items:
            return "nullptr"
        if isinstance(owner, ScalarUnion):
            return [f"0x{item:02X}" for item in items]
        if isinstance(items[0], DmlModel):
            entries = [self.wrapped(item, f"{wanted.removesuffix('s')}{index}") for index, item in enumerate(items)]
            kind = "DML_OPERATOR_DESC" if isinstance(items[0], RecurrentActivation) else struct_name(items[0])
            return self.array(kind, [f"{{{t}, {d}}}" for t, d in entries], wanted)
        return self.array(_element_type(info.annotation), [c_number(item) for item in items], wanted)

    def array(self, element: str, items: Sequence[str], wanted: str) -> str:
        """Declare ``element name[n] = {...};``; returns its name."""
        name = self.name(wanted)
        self.lines.append(f"{element} {name}[{len(items)}] = {{{', '.join(items)}}};")
        return name
