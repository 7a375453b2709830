"""The ``tally`` counter of tests/conformance, for the Oclgrind counts in the session summary."""

from __future__ import annotations

from collections import Counter

import pytest

COUNTS: Counter[str] = Counter()


@pytest.fixture
def tally() -> Counter[str]:
    return COUNTS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if COUNTS:
        terminalreporter.section("oclgrind counts")
        for name, value in sorted(COUNTS.items()):
            terminalreporter.write_line(f"{name}: {value}")
