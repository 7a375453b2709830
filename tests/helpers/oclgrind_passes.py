"""Which Oclgrind passes a default run takes, for every Oclgrind suite under tests/device.

Oclgrind checks a kernel twice: the memory pass (kernels built as dmlpy builds them, every global access checked
against its buffer, data races too) and the uninitialised pass (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``; Oclgrind reports out-of-bounds accesses in it as well). Each pass can run under either launch
profile, and a pass costs one Oclgrind compile per kernel (about 0.3 s each: the optimiser, not the simulation),
so the four combinations of a suite cost minutes.

A default run takes two of the four, so that each pass and each profile runs: the memory pass under the "cpu"
profile and the uninitialised pass under the "gpu" profile. The other two run with ``--run-slow`` (the full
sweep each closing note reports). A suite that has only a memory pass runs it under "cpu" by default and under
"gpu" too with ``--run-slow``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from .oclgrind_driver import SWEEP_SHARE

Item = TypeVar("Item")

DEFAULT_PASSES = (("cpu", False), ("gpu", True))
"""(launch profile, uninitialised pass) of a default run, in the order a suite's share of its cases follows."""

OCLGRIND_PASSES = pytest.mark.parametrize(
    ("profile", "uninitialized"),
    [
        pytest.param("cpu", False, id="cpu-memory"),
        pytest.param("gpu", True, id="gpu-uninitialized"),
        pytest.param("cpu", True, id="cpu-uninitialized", marks=pytest.mark.slow),
        pytest.param("gpu", False, id="gpu-memory", marks=pytest.mark.slow),
    ],
)
"""The four (profile, pass) combinations, the two of ``DEFAULT_PASSES`` by default."""

MEMORY_PASS_PROFILES = pytest.mark.parametrize(
    "profile",
    [pytest.param("cpu", id="cpu-profile"), pytest.param("gpu", id="gpu-profile", marks=pytest.mark.slow)],
)
"""A memory-only suite's launch profiles: "cpu" by default, "gpu" too with --run-slow."""


def default_share(profile: str, uninitialized: bool) -> int | None:
    """The share of a sampled suite's cases that this combination takes by default (its index in
    ``DEFAULT_PASSES``, of ``len(DEFAULT_PASSES)``), or None for a --run-slow combination, which takes them all."""
    combination = (profile, uninitialized)
    return DEFAULT_PASSES.index(combination) if combination in DEFAULT_PASSES else None


def default_pass_settings(profile: str, uninitialized: bool) -> dict[str, str]:
    """The ``SWEEP_SHARE`` setting of a script whose plans the default passes share (each runs every other plan,
    ``default_share``), or none under a --run-slow combination, which runs them all."""
    index = default_share(profile, uninitialized)
    return {} if index is None else {SWEEP_SHARE: f"{index}/{len(DEFAULT_PASSES)}"}


def pass_share(plans: list[Item], profile: str, uninitialized: bool) -> list[Item]:
    """The plans a script given ``default_pass_settings`` runs under this combination: every other one under a
    default pass, all of them under a --run-slow one."""
    index = default_share(profile, uninitialized)
    return plans if index is None else plans[index :: len(DEFAULT_PASSES)]


def run_reportless(
    run_oclgrind_script: Callable[..., tuple[dict[str, Any], list[str]]],
    script: Path,
    tmp_path: Path,
    profile: str,
    uninitialized: bool,
    *flags: str,
    timeout: float,
    share: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Run ``script`` under Oclgrind in one (profile, pass) combination, data races checked in the memory pass, and
    fail on any Oclgrind report; the script's summary, for the suite's own checks. ``share`` (k, n): a sweep's
    sample takes every n-th of its labels from the k-th (``SWEEP_SHARE``, tests/helpers/oclgrind_sweep.py)."""
    summary, errors = run_oclgrind_script(
        script,
        "--launch-profile",
        profile,
        *flags,
        tmp_path=tmp_path,
        uninitialized=uninitialized,
        timeout=timeout,
        **({} if uninitialized else {"OCLGRIND_DATA_RACES": "1"}),
        **({} if share is None else {SWEEP_SHARE: f"{share[0]}/{share[1]}"}),
    )
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    return summary
