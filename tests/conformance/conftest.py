"""Counts for the conformance note: every test adds what it compared, tried or ran, and the terminal summary
prints the totals (``cases compared``, ``fuzz examples``, ``threads x calls``)."""

from __future__ import annotations

from collections import Counter

import pytest

COUNTS: Counter[str] = Counter()


@pytest.fixture
def tally() -> Counter[str]:
    """A session-wide counter: ``tally["cases compared"] += n``."""
    return COUNTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if COUNTS:
        terminalreporter.section("conformance counts")
        for name, value in sorted(COUNTS.items()):
            terminalreporter.write_line(f"{name}: {value}")
