"""Every descriptor model's fields carry the docstring written under them (dmlpy/attribute_docs.py, which reads
each module once), exactly as pydantic's ``use_attribute_docstrings`` would give them: checked against pydantic's
own extraction (``extract_docstrings_from_cls`` through ``inspect``) for every model class, and seen in the JSON
schema, whose descriptions come from the fields."""

from __future__ import annotations

import inspect
from typing import Any

from pydantic._internal._docs_extraction import extract_docstrings_from_cls

import dmlpy as dml
from dmlpy.model import DmlModel


def _models() -> list[type[DmlModel]]:
    found: list[type[DmlModel]] = []
    pending: list[type[DmlModel]] = [DmlModel]
    while pending:
        model = pending.pop()
        found.append(model)
        pending.extend(model.__subclasses__())
    return found


def _annotating_class(model: type[DmlModel], name: str) -> type[Any] | None:
    """The class nearest ``model`` in its MRO whose own body annotates ``name``: the one whose docstring counts."""
    return next((k for k in model.__mro__ if name in vars(k).get("__annotations__", {})), None)


def test_every_field_has_the_docstring_pydantic_would_give_it() -> None:
    models = _models()
    assert len(models) > 400  # the operators' descriptors, their nested structs and the tensors
    pydantic_docs: dict[type[Any], dict[str, str]] = {}
    described = 0
    for model in models:
        for name, field in model.model_fields.items():
            owner = _annotating_class(model, name)
            assert owner is not None, (model, name)
            if owner not in pydantic_docs:
                pydantic_docs[owner] = extract_docstrings_from_cls(owner, use_inspect=True) if owner.__module__ else {}
            doc = pydantic_docs[owner].get(name)
            if doc is not None:
                assert field.description == doc, (model.__qualname__, name)
                described += 1
    assert described > 1000


def test_the_json_schema_says_what_the_docstrings_say() -> None:
    schema = dml.BufferTensorDesc.model_json_schema()
    field = dml.BufferTensorDesc.model_fields["sizes"]
    assert field.description and schema["properties"]["Sizes"]["description"] == field.description


def test_a_model_made_anywhere_is_built_with_its_descriptions_and_signature() -> None:
    class Probe(DmlModel):  # inside a function: found by its own source, not the module's top level
        count: int = 0
        """How many."""

    assert Probe.model_fields["count"].description == "How many."
    assert Probe.model_json_schema()["properties"]["count"]["description"] == "How many."
    assert list(inspect.signature(Probe).parameters) == ["count"]  # built when made, not a mock of (**data)
