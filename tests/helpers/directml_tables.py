"""Microsoft's support tables as ``check_support.py`` reads them: the script and its ``support.json`` from a folder
of the repository (``tests/data/directml-elementwise``, ``tests/data/directml-operators``), loaded as a module."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any


def load_checker(tables: Path) -> tuple[ModuleType, Any]:
    """The folder's ``check_support`` module and its ``Spec`` of ``support.json``."""
    script, table = tables / "check_support.py", tables / "support.json"
    assert script.is_file() and table.is_file(), f"DirectML's support tables are not at {tables}"
    spec = importlib.util.spec_from_file_location(f"check_support_{tables.name.replace('-', '_')}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, module.Spec(json.loads(table.read_text(encoding="utf-8")))
