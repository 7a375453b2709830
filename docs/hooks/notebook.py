"""MkDocs hook: where mkdocs-jupyter's notebook pages go. docs/tour.ipynb and docs/tour.md (the tour)
would both become tour/index.html, and MkDocs would silently keep one; the notebook's page is notebook-tour/."""

from __future__ import annotations

import os
from typing import Any

NOTEBOOK_PAGES = {"tour.ipynb": "notebook-tour/index.html"}
"""Notebook (relative to docs/) -> its page in the site. Runs after mkdocs-jupyter's on_files has made the
notebook a page (hooks run after the plugins)."""


def on_files(files: Any, config: Any) -> Any:
    for file in files:
        dest = NOTEBOOK_PAGES.get(file.src_uri)
        if dest is not None:
            file.dest_uri = dest
            file.url = os.path.dirname(dest) + "/"
            file.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], dest))
    return files
