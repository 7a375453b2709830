"""Shared fixtures: the OpenCL device the device tests run on, and the opt-in switch for long sweeps."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow (long sweeps)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long sweep: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def device():  # type: ignore[no-untyped-def]
    """dmlpy's default device (a GPU when present, else PoCL's CPU device), shared by the whole session."""
    import dmlpy as dml

    return dml.default_device()
