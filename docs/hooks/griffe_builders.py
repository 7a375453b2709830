"""Griffe extensions for the API reference (mkdocs.yml loads both for mkdocstrings), each adding what static
analysis cannot see to the pages:

- ``TableBuilders``: the graph builder's operator functions (``dml.graph.round``, ...) are made from the operator
  table when ``dmlpy.graph`` is imported; they are added from the imported module, with the signature and
  docstring the table gave them.
- ``ModelFieldSignatures``: a descriptor is a pydantic model whose ``__init__`` takes ``**data``, so its
  signature would read ``GraphDesc(**data: Any)``; it is shown with the model's fields as keyword arguments
  instead, in pydantic's order, with their annotations as the source writes them and their defaults.
"""

from __future__ import annotations

import enum
import importlib
import inspect
from collections.abc import Iterator
from typing import Any

import griffe
from pydantic import BaseModel


class TableBuilders(griffe.Extension):
    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        if mod.path != "dmlpy.graph":
            return
        inspected = griffe.inspect("dmlpy.graph")
        mod.exports = inspected.exports  # __all__ lists the table's names, which static analysis cannot read
        for name in inspected.exports or ():
            if name not in mod.members:
                mod.set_member(name, inspected.members[name])


class ModelFieldSignatures(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.path != "dmlpy":
            return
        for cls in _classes(pkg):
            model = getattr(importlib.import_module(cls.module.path), cls.name, None)
            if _takes_only_keywords(model):
                parameters = [_parameter(pkg, model, name) for name in model.model_fields]
                cls.set_member("__init__", griffe.Function("__init__", parameters=griffe.Parameters(*parameters)))


def _classes(module: griffe.Module) -> Iterator[griffe.Class]:
    """The classes defined in ``module`` and its submodules (not the names they import)."""
    for member in module.members.values():
        if member.is_alias:
            continue
        if isinstance(member, griffe.Module):
            yield from _classes(member)
        elif isinstance(member, griffe.Class):
            yield member


def _takes_only_keywords(model: Any) -> bool:
    """A pydantic model whose constructor is pydantic's ``**data`` (a class with its own, such as
    DML_BUFFER_BINDING's positional form, keeps its own signature)."""
    if not (inspect.isclass(model) and issubclass(model, BaseModel)):
        return False
    parameters = list(inspect.signature(model.__init__).parameters.values())[1:]
    return [parameter.kind for parameter in parameters] == [inspect.Parameter.VAR_KEYWORD]


def _parameter(pkg: griffe.Module, model: type[BaseModel], name: str) -> griffe.Parameter:
    field = model.model_fields[name]
    default = None
    if not field.is_required():
        value = field.get_default(call_default_factory=True)
        default = f"{type(value).__name__}.{value.name}" if isinstance(value, enum.Enum) else repr(value)
    return griffe.Parameter(
        name,
        annotation=_annotation(pkg, model, name),
        kind=griffe.ParameterKind.keyword_only,
        default=default,
    )


def _annotation(pkg: griffe.Module, model: type[BaseModel], name: str) -> str | griffe.Expr | None:
    """The field's annotation as the class that declares it writes it (``UInt32``, not pydantic's expansion)."""
    for klass in model.__mro__:
        if not klass.__module__.startswith("dmlpy.") or name not in inspect.get_annotations(klass):
            continue
        declaring = pkg.get_member(f"{klass.__module__.removeprefix('dmlpy.')}.{klass.__qualname__}")
        attribute = declaring.members.get(name)
        if attribute is not None and not attribute.is_alias:
            return attribute.annotation  # type: ignore[no-any-return]
    return None
