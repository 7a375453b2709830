"""MkDocs hook: the site's Home and Changelog pages are README.md's and CHANGELOG.md's text, so each file stays
the one source.

A page whose Markdown is a line ``<!-- include: README.md -->`` (or another file at the repository root) gets that
file. Links in it are rewritten for the site: ``docs/X.md`` becomes ``X.md`` (and ``docs/images/...``
``images/...``), and a file at the root that the site has as a page (``CHANGELOG.md``) becomes that page.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- include: ([\w.]+) -->\s*$", re.MULTILINE)
ROOT_PAGES = {"CHANGELOG.md": "changelog.md"}
"""Files at the repository root that the site has as pages: the README's links to them point there."""


def _link(text: str) -> str:
    text = text.replace("](docs/", "](")
    for root, page in ROOT_PAGES.items():
        text = text.replace(f"]({root})", f"]({page})")
    return text


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    match = MARKER.search(markdown)
    if match is None:
        return markdown
    root = Path(config["config_file_path"]).parent
    return _link((root / match.group(1)).read_text(encoding="utf-8"))
