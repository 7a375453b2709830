"""dmlpy's descriptor JSON Schema as the jsonschema library checks documents against it, checked against its
metaschema and compiled once per process: ``jsonschema.validate(document, schema)`` does both on every call, 1.3 s
each for this schema (a document's own check takes 0.08 s)."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema

from dmlpy.descriptors_json import descriptor_schema


@functools.cache
def schema_validator() -> Any:
    """The Draft 2020-12 validator of ``descriptor_schema()`` (as JSON text has it: tuples become lists)."""
    schema = json.loads(json.dumps(descriptor_schema()))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)
