"""The one translation of pydantic's validation errors into DirectML's terms: one teaching line per problem, in
C field paths that start at the struct's C name, with the accepted values and hints (``dmlpy.problems`` tells
the whole story)."""

from __future__ import annotations

import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from dmlpy.enums import EXTENSION_BASE, DmlEnum, DmlFlag
from dmlpy.problems.values import did_you_mean, is_dml_model, show


@dataclass(frozen=True)
class Expect:
    """What a value must be, in words, for error messages: ``Annotated[int, Expect("a whole number, at least
    1")]``. The innermost annotation's last Expect speaks (a sequence's items have their own)."""

    text: str


def _members(annotation: Any) -> list[Any]:
    """The types a value may be under ``annotation``: Annotated unwrapped, unions flattened, None dropped."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return [member for arg in get_args(annotation) for member in _members(arg)]
    if annotation is None or annotation is type(None):
        return []
    return [annotation]


def _metadata(annotation: Any) -> list[Any]:
    """Annotated metadata of ``annotation`` and of its union members (``UInt64 | None``), outermost first."""
    origin = get_origin(annotation)
    if origin is Annotated:
        args = get_args(annotation)
        return [*_metadata(args[0]), *args[1:]]
    if origin is Union or origin is types.UnionType:
        return [item for arg in get_args(annotation) for item in _metadata(arg)]
    return []


def _model_class(annotation: Any) -> type[BaseModel] | None:
    """The one model class ``annotation`` stands for, or None."""
    models = [m for m in _members(annotation) if isinstance(m, type) and issubclass(m, BaseModel)]
    return models[0] if len(models) == 1 else None


def _tagged_member(annotation: Any, tag: str) -> Any:
    """The member of a discriminated union (``Annotated[Model, Tag(tag)] | ...``) that pydantic names ``tag`` in
    an error's location, or None."""
    origin = get_origin(annotation)
    if origin is Annotated:
        args = get_args(annotation)
        if any(isinstance(item, Tag) and item.tag == tag for item in args[1:]):
            return args[0]
        return _tagged_member(args[0], tag)
    if origin is Union or origin is types.UnionType:
        return next((m for arg in get_args(annotation) if (m := _tagged_member(arg, tag)) is not None), None)
    return None


def _enum_classes(annotation: Any) -> list[type[DmlEnum] | type[DmlFlag]]:
    return [m for m in _members(annotation) if isinstance(m, type) and issubclass(m, DmlEnum | DmlFlag)]


def _item(annotation: Any) -> Any:
    """The annotation of one item of a sequence annotation (``tuple[UInt32, ...]`` -> ``UInt32``)."""
    for member in _members(annotation):
        args = get_args(member)
        if get_origin(member) in (tuple, list) and args:
            return args[0]
    return None


def _struct_name(model: type[BaseModel]) -> str:
    try:
        return str(model.struct_name()) if is_dml_model(model) else model.__name__  # type: ignore[attr-defined]
    except Exception:  # a model that cannot name itself (an abstract base) is named by its class
        return model.__name__


@dataclass
class _Place:
    """Where a problem is: its C path, and what the path's last field is."""

    path: str
    name: str = ""
    """The last field's snake_case name ("" at the root or for a key that is no field)."""
    c_name: str = ""
    """The last field's C name, or the key as given."""
    owner: type[BaseModel] | None = None
    """The model declaring the last field."""
    annotation: Any = None
    """What the value there must be."""
    metadata: list[Any] = field(default_factory=list)
    """The field's own metadata (pydantic moves a field's top-level Annotated metadata here)."""
    selector: bool = False
    """The field is its owner's SELECTOR."""


_WRONG_KIND = {"model_type", "model_attributes_type", "dict_type", "is_instance_of"}


def _field(model: type[BaseModel], key: str) -> tuple[str, FieldInfo] | None:
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            return name, info
    return None


def _is_tag(part: str) -> bool:
    # pydantic names union members in locations: "int-enum[TensorDataType]", "OperatorDesc[DML_...]", ...
    return "[" in part


def _locate(model: type[BaseModel], loc: Sequence[int | str], kind: str) -> _Place:
    """The C path of pydantic's location ``loc`` in ``model``, for a problem of pydantic's type ``kind``."""
    place = _Place(path=_struct_name(model), annotation=model)
    at_root = True
    key_last = kind == "extra_forbidden"  # the last part is a key the user wrote, never a union tag
    for index, part in enumerate(loc):
        if isinstance(part, int):
            place.path += f"[{part}]"
            place.annotation, place.metadata = _item(place.annotation), []
            continue
        may_be_tag = _is_tag(part) and not (key_last and index == len(loc) - 1)
        cls = _model_class(place.annotation)
        member = cls.member_for_tag(part) if cls is not None and is_dml_model(cls) else None  # type: ignore[attr-defined]
        if member is None and may_be_tag:
            member = _tagged_member(place.annotation, part)
        if member is not None:
            place.annotation = member
            continue
        found = _field(cls, part) if cls is not None else None
        if found is None:
            if may_be_tag:
                continue
            place.path += f".{part}"
            place.name, place.c_name, place.owner, place.annotation, place.metadata = "", part, cls, None, []
            place.selector = False
            at_root = False
            continue
        name, info = found
        assert cls is not None
        wraps = getattr(cls, "WRAPS", None) if is_dml_model(cls) else None
        place.annotation, place.metadata = info.annotation, list(info.metadata)
        # A wrapped struct is named by its own name, unless the wrapping field holds the wrong kind of value
        # (Desc: 5), which is said of the field the user wrote.
        last = index == len(loc) - 1
        if name == wraps and not (last and kind in _WRONG_KIND):
            inner = _model_class(info.annotation)
            if at_root and inner is not None:
                place.path = _struct_name(inner)
            continue
        place.path += f".{info.alias or name}"
        place.name, place.c_name, place.owner = name, info.alias or name, cls
        place.selector = is_dml_model(cls) and name == getattr(cls, "SELECTOR", None)
        at_root = False
    return place


def _choices(enums: Sequence[type[DmlEnum] | type[DmlFlag]], allowed: Sequence[DmlEnum | DmlFlag] | None) -> str:
    """The accepted values of an enum field: DirectML's enum (an extension enum only where it stands alone);
    placeholders DirectML never accepts (UNKNOWN, INVALID) are left out."""
    directml = [e for e in enums if not all(int(m) >= EXTENSION_BASE for m in e.__members__.values())]
    enum_class = (directml or list(enums))[0]
    if allowed is None:
        members = [m for name, m in enum_class.__members__.items() if name == m.name]
        allowed = [m for m in members if m.name not in {"UNKNOWN", "INVALID"}]
    if issubclass(enum_class, DmlFlag):
        flags = [m for m in allowed if m.value]
        listed = ", ".join(f"{m.name} ({int(m)})" for m in flags)
        example = flags[0] if flags else allowed[0]
        return f"NONE (0) or {listed}, combined with |: the C names ({example.c_name}), the short names or the number"
    listed = ", ".join(f"{m.name} ({int(m)})" for m in allowed)
    return f"one of {listed}: the C name ({allowed[0].c_name}), the short name or the number"


def _expect(place: _Place) -> str:
    """What the value at ``place`` must be, in words."""
    expects = [m for m in (*place.metadata, *_metadata(place.annotation)) if isinstance(m, Expect)]
    if expects:
        return expects[-1].text
    members = _members(place.annotation)
    model = _model_class(place.annotation)
    if model is not None:
        return _object_expected(model)
    if any(get_origin(m) in (tuple, list) for m in members):
        item = _expect(_Place(path="", annotation=_item(place.annotation)))
        return f"a list (a JSON array), each item {item}"
    if float in members:
        return "a number"
    if int in members:
        return "a whole number"
    if str in members:
        return "text"
    return "another value"


def _public_class(model: type[BaseModel]) -> type[BaseModel]:
    """The class a user knows ``model`` by: itself, or the public class it is a hidden member of (a
    DML_OPERATOR_DESC member is an OperatorDesc)."""
    for cls in model.__mro__:
        module = sys.modules.get(cls.__module__)
        if not cls.__name__.startswith("_") and getattr(module, cls.__name__, None) is cls:
            return cls if issubclass(cls, BaseModel) else model
    return model


def _object_expected(model: type[BaseModel]) -> str:
    """What a struct-valued field takes: a JSON object (or dict) of its fields, or the model itself; a wrapper
    (DML_TENSOR_DESC) also takes what it wraps, which is the usual form."""
    classes = [_public_class(model)]
    inner_name = getattr(model, "WRAPS", None) if is_dml_model(model) else None
    inner = _model_class(model.model_fields[inner_name].annotation) if inner_name else None
    if inner is not None and model.model_fields[inner_name or ""].is_required():
        classes.insert(0, _public_class(inner))
    struct = _struct_name(classes[0])
    names = " or ".join(f"a dmlpy {c.__name__}" for c in classes)
    return f"a JSON object with the {struct} fields, or {names}"


def _is_number_text(value: Any) -> bool:
    try:
        float(value.decode() if isinstance(value, bytes | bytearray) else value)
    except (ValueError, TypeError, UnicodeDecodeError):
        return False
    return True


def _fields_of(model: type[BaseModel] | None) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()] if model is not None else []


def _problem_line(model: type[BaseModel], problem: ErrorDetails) -> tuple[_Place, str]:
    kind = problem["type"]
    place = _locate(model, problem["loc"], kind)
    path, given = place.path, problem.get("input")
    message = problem["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
    ctx = problem.get("ctx") or {}
    if kind == "enum" or (kind in {"int_type", "int_parsing", "is_instance_of"} and _enum_classes(place.annotation)):
        owner: Any = place.owner if place.owner is not None and is_dml_model(place.owner) else None
        allowed = owner.field_choices(place.name) if owner is not None else None
        line = f"{path} is {show(given)}; it must be " + _choices(_enum_classes(place.annotation), allowed)
        hint = owner.value_hint(place.name, given) if owner is not None else ""
        return place, f"{line} {hint}" if hint else line
    if kind == "missing" and place.c_name == "":  # an operator's Desc left out: there is no descriptor at all
        return place, f"{path} is null; it must be a JSON object with the descriptor's fields"
    if kind == "missing":
        return place, f"{path} is missing; it is required"
    if kind == "extra_forbidden":
        fields = _fields_of(place.owner)
        if place.owner is not None and _field(place.owner, place.c_name) is not None:
            return place, f"{path} is given twice (as its C name and in snake_case); give it once"
        suggestion = did_you_mean(place.c_name, fields)
        known = f"; the fields are {', '.join(fields)}" if fields else ""
        return place, f"{path} is not a field here (given {show(given)}){suggestion}; check its spelling{known}"
    if kind == "less_than_equal":
        limit = ctx.get("le")
        width = "UINT64" if limit == 2**64 - 1 else "UINT" if limit == 2**32 - 1 else "field"
        return place, f"{path} is {show(given)}; a C {width} holds at most {limit}"
    if kind in {"model_type", "model_attributes_type", "dict_type"}:
        return place, f"{path} is {show(given)}; it must be {_expect(place)}"
    if kind == "whole_number_text":
        as_text = ", written as a number, not as text" if _is_number_text(given) else ""
        return place, f"{path} is {show(given)}; it must be {_expect(place)}{as_text}"
    if kind in {
        "whole_number_bool",
        "greater_than_equal",
        "int_type",
        "int_parsing",
        "int_from_float",
        "int_parsing_size",
        "float_type",
        "float_parsing",
        "finite_number",
        "tuple_type",
        "list_type",
        "iterable_type",
        "expected_kind",
    }:
        return place, f"{path} is {show(given)}; it must be {_expect(place)}"
    if kind == "json_invalid":
        return place, f"{path}: the JSON is not valid: {ctx.get('error', message)}"
    if kind in {"value_error", "assertion_error"}:
        return place, f"{path}: {message}"
    return place, f"{path} is {show(given)}: {message}"


def validation_problems(error: ValidationError, model: type[BaseModel]) -> list[str]:
    """One teaching line per field pydantic found wrong while validating ``model``, its path starting at the
    struct's C name (``ELEMENT_WISE_ROUND``, ``DML_BUFFER_TENSOR_DESC``, ``DML_OPERATOR_DESC``) and written in
    C field names. One line per field, even when pydantic tried several union members; when the field that
    decides the struct's kind (DML_OPERATOR_DESC's Type) is wrong, only that is reported."""
    lines: list[str] = []
    selector_lines: list[str] = []
    seen: set[str] = set()
    for problem in error.errors(include_url=False):
        try:
            place, line = _problem_line(model, problem)
        except Exception:  # never let a message hide the mistake: fall back to pydantic's words
            place, line = _Place(path=_struct_name(model)), f"{_struct_name(model)}: {problem.get('msg', '')}"
        if place.path in seen:
            continue
        seen.add(place.path)
        (selector_lines if place.selector else lines).append(line)
    return selector_lines or lines
