"""MkDocs hook: the site's Home, Tour and Changelog pages are README.md's and CHANGELOG.md's text, so each
file stays the one source.

A page whose Markdown is a line ``<!-- README: home -->`` gets every README section except the tour; one with
``<!-- README: tour -->`` gets the tour ("## A tour of the DirectML model in code"), its heading raised to the
page title; one with ``<!-- include: CHANGELOG.md -->`` gets that file. Links are rewritten for the site:
``docs/X.md`` becomes ``X.md``, ``CHANGELOG.md`` the changelog page, and an anchor of the other README page
gets that page's name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

TOUR = "## A tour of the DirectML model in code"
MARKER = re.compile(r"^<!-- (?:README: (home|tour)|include: ([\w.]+)) -->\s*$", re.MULTILINE)
HEADING = re.compile(r"^## (.+)$", re.MULTILINE)
ROOT_PAGES = {"CHANGELOG.md": "changelog.md"}
"""Files at the repository root that the site has as pages: the README's links to them point there."""


def _anchor(title: str) -> str:
    """The id Python-Markdown's toc extension gives a heading (its default slugify)."""
    slug = re.sub(r"[^\w\s-]", "", title).strip().lower()
    return re.sub(r"[-\s]+", "-", slug)


def _split(readme: str) -> tuple[str, str]:
    before, rest = readme.split(TOUR, 1)
    tour, after = rest.split("\n## ", 1) if "\n## " in rest else (rest, "")
    home = before + ("## " + after if after else "")
    return home, "# " + TOUR[3:] + tour


def _link(text: str, other: str, other_page: str) -> str:
    text = text.replace("](docs/", "](")
    for root, page in ROOT_PAGES.items():
        text = text.replace(f"]({root})", f"]({page})")
    for title in HEADING.findall(other):
        text = text.replace(f"](#{_anchor(title)})", f"]({other_page}#{_anchor(title)})")
    return text


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    match = MARKER.search(markdown)
    if match is None:
        return markdown
    root = Path(config["config_file_path"]).parent
    section, included = match.groups()
    if included is not None:
        return (root / included).read_text(encoding="utf-8")
    home, tour = _split((root / "README.md").read_text(encoding="utf-8"))
    if section == "home":
        return _link(home, tour, "tour.md")
    return _link(tour, home, "index.md")
