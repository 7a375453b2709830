"""Griffe extension: the graph builder's operator functions (``dml.graph.round``, ...) are made from the
operator table when ``dmlpy.graph`` is imported, so static analysis cannot see them; they are added to the API
reference from the imported module, with the signature and docstring the table gave them (mkdocs.yml loads this
extension for mkdocstrings)."""

from __future__ import annotations

from typing import Any

import griffe


class TableBuilders(griffe.Extension):
    def on_module_members(self, *, mod: griffe.Module, **kwargs: Any) -> None:
        if mod.path != "dmlpy.graph":
            return
        inspected = griffe.inspect("dmlpy.graph")
        mod.exports = inspected.exports  # __all__ lists the table's names, which static analysis cannot read
        for name in inspected.exports or ():
            if name not in mod.members:
                mod.set_member(name, inspected.members[name])
