"""The descriptions of the models' fields, from the docstring under each field (``x: int`` then ``\"\"\"...\"\"\"``),
read once per module.

pydantic's ``use_attribute_docstrings`` reads them too, but finds each class's source by walking the import's
frames through ``inspect`` and parses it class by class: 1.1 s of the 2.7 s of CPU that ``import dmlpy`` took
(436 models, 2026-12-07), paid again by every process that imports dmlpy (the CLI, each test subprocess). Here
each module's source is parsed once and its classes looked up by qualified name, with pydantic's rule for
which string documents which field (its ``DocstringVisitor``: a string statement right after an annotated
assignment to a name)."""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from functools import cache

from pydantic import BaseModel

ClassDocs = dict[str, dict[str, str]]
"""A module's classes by qualified name, each its fields' docstrings by field name."""


def describe_fields(model: type[BaseModel]) -> None:
    """Give each of ``model``'s fields without a description the docstring written under it in ``model``'s own
    class body (fields it inherits keep what their own class gave them), as ``use_attribute_docstrings`` does."""
    docs = _module_class_docs(model.__module__).get(model.__qualname__)
    if docs is None:  # a class made inside a function, or by type() (no source: nothing to read)
        docs = _class_source_docs(model) if "<locals>" in model.__qualname__ else {}
    for name, field in model.model_fields.items():
        if field.description is None and name in docs:
            field.description = docs[name]


@cache
def _module_class_docs(module_name: str) -> ClassDocs:
    """Every class of the module's source, nested ones by their dotted path; a module without a source file
    (or a class made by ``type()``) has none."""
    path = getattr(sys.modules.get(module_name), "__file__", None)
    if path is None or not path.endswith(".py"):
        return {}
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), path)
    found: ClassDocs = {}
    _collect(tree.body, "", found)
    return found


def _class_source_docs(model: type[BaseModel]) -> dict[str, str]:
    """The docstrings of a class made inside a function, which the module's classes do not list, from its own
    source as ``inspect`` finds it."""
    try:
        source = textwrap.dedent(inspect.getsource(model))
    except (OSError, TypeError):
        return {}
    statement = ast.parse(source).body[0]
    return _field_docs(statement.body) if isinstance(statement, ast.ClassDef) else {}


def _collect(body: list[ast.stmt], prefix: str, found: ClassDocs) -> None:
    for statement in body:
        if isinstance(statement, ast.ClassDef):
            qualname = prefix + statement.name
            found[qualname] = _field_docs(statement.body)
            _collect(statement.body, qualname + ".", found)


def _field_docs(body: list[ast.stmt]) -> dict[str, str]:
    """pydantic's rule: a string statement right after an annotated assignment documents that assignment's name
    (the last such name not yet documented, when the assignment's target is not a plain name)."""
    docs: dict[str, str] = {}
    target: str | None = None
    after_annotation = False
    for statement in body:
        if isinstance(statement, ast.AnnAssign):
            if isinstance(statement.target, ast.Name):
                target = statement.target.id
            after_annotation = True
            continue
        value = statement.value if isinstance(statement, ast.Expr) else None
        if after_annotation and isinstance(value, ast.Constant) and isinstance(value.value, str):
            if target:
                docs[target] = inspect.cleandoc(value.value)
            target = None
        after_annotation = False
    return docs
