"""The tests that the Oclgrind suites of named variants share (test_*_oclgrind.py under tests/device/movement,
reduction, generators, indexing and normalization, whose scripts run tests/helpers/oclgrind_sweep.py): a suite
declares its script, its labels and the kernels a label must run; ``OclgrindSuite``'s methods make its tests, which
the suite's module names (pytest collects them by those names).

The passes are tests/helpers/oclgrind_passes.py's: the sampled variants under ``DEFAULT_PASSES`` by default, every
variant under all four combinations with ``--run-slow``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .oclgrind_passes import DEFAULT_PASSES, OCLGRIND_PASSES, default_share, run_reportless

Test = Callable[..., None]


def _pass_param(profile: str, uninitialized: bool) -> Any:
    return pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")


DEFAULT = pytest.mark.parametrize(("profile", "uninitialized"), [_pass_param(*p) for p in DEFAULT_PASSES])
"""The default run's (profile, pass) combinations."""
EVERY = pytest.mark.parametrize(
    ("profile", "uninitialized"), [_pass_param(p, u) for p in ("cpu", "gpu") for u in (False, True)]
)
"""All four combinations, for a test marked slow."""


@dataclass(frozen=True)
class OclgrindSuite:
    script: Path
    name: str
    """The suite's name in the tally: ``oclgrind {name} variants``."""
    every: Callable[[], list[str]]
    sampled: Callable[[], list[str]]
    kernels_right: Callable[[str, Any], bool] | None = None
    """Whether what the summary recorded of a label's kernels is what it must run (None: nothing recorded)."""

    def run(
        self,
        run_oclgrind_script: Any,
        tmp_path: Path,
        profile: str,
        uninitialized: bool,
        sample: bool,
        share: tuple[int, int] | None = None,
    ) -> dict[str, Any]:
        """Run the script under one pass and check it: no report, no mismatch, exactly the variants asked for run
        under ``profile`` (``share`` (k, n): the sample's every n-th from the k-th), each on the kernels
        ``kernels_right`` expects."""
        flags = ("--sample",) if sample else ()
        summary = run_reportless(
            run_oclgrind_script, self.script, tmp_path, profile, uninitialized, *flags, timeout=600, share=share
        )
        assert summary["mismatches"] == []
        wanted = self.sampled() if sample else self.every()
        if share is not None:
            wanted = wanted[share[0] :: share[1]]
        assert wanted and summary["variants"] == wanted
        assert summary["launch_profile"] == profile
        if self.kernels_right is not None:
            for label, kernels in summary["kernels"].items():
                assert self.kernels_right(label, kernels), (label, kernels)
        return summary

    def sampled_test(self) -> Test:
        """The sampled variants, shared between the default passes: each takes every other one (its index in
        DEFAULT_PASSES), so each sampled variant runs under one of them and the default run costs one pass (every
        variant runs under all four with --run-slow). A sample too small to share runs whole under both."""

        @DEFAULT
        def test(run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any) -> None:
            index, passes = default_share(profile, uninitialized), len(DEFAULT_PASSES)
            share = (index, passes) if index is not None and len(self.sampled()) >= passes else None
            summary = self.run(run_oclgrind_script, tmp_path, profile, uninitialized, sample=True, share=share)
            tally[f"oclgrind {self.name} variants"] += len(summary["variants"])

        return test

    def every_test(self, check: Callable[[dict[str, Any]], None] | None = None) -> Test:
        """Every variant under all four combinations (--run-slow), then ``check`` of the summary."""

        @pytest.mark.slow
        @EVERY
        def test(run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any) -> None:
            summary = self.run(run_oclgrind_script, tmp_path, profile, uninitialized, sample=False)
            if check is not None:
                check(summary)
            tally[f"oclgrind {self.name} variants (every variant)"] += len(summary["variants"])

        return test

    def shared_passes_test(self) -> Test:
        """OCLGRIND_PASSES: the sample under the default two, every variant under the other two (--run-slow)."""

        @OCLGRIND_PASSES
        def test(run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any) -> None:
            sample = default_share(profile, uninitialized) is not None
            summary = self.run(run_oclgrind_script, tmp_path, profile, uninitialized, sample)
            tally[f"oclgrind {self.name} variants"] += len(summary["variants"])

        return test

    def every_under_default_passes_test(self) -> Test:
        """Every variant under the default two passes (--run-slow), for the suites whose OCLGRIND_PASSES test
        samples them."""

        @pytest.mark.slow
        @pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES)
        def test(run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool) -> None:
            self.run(run_oclgrind_script, tmp_path, profile, uninitialized, sample=False)

        return test

    def negative_control_test(self) -> Test:
        """The driver's broken kernel is reported, under the uninitialised pass (which checks the invalid read and
        write too; the memory pass's control is the suite's own, ``short_buffer_test``)."""

        def test(assert_negative_control_reported: Any, tmp_path: Path) -> None:
            assert_negative_control_reported(self.script, tmp_path=tmp_path, uninitialized=True)

        return test

    def short_buffer_test(self, flag: str, headline: str, kernel: str, *, uninitialized_too: bool = False) -> Test:
        """The script's own control (``flag``: ``--short-input`` or ``--short-output``, a buffer one element
        shorter than its binding) is reported as ``headline`` (``Invalid read of size 4``) in ``kernel``: under
        the memory pass every report is that one; ``uninitialized_too`` runs the uninitialised pass as well, where
        the reports need only include it."""
        buffer = flag.removeprefix("--short-")

        def check(run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool) -> None:
            _, errors = run_oclgrind_script(self.script, flag, tmp_path=tmp_path, uninitialized=uninitialized)
            assert errors, f"Oclgrind reported nothing for an {buffer} buffer one element short"
            seen = [block for block in errors if block.startswith(headline) and f"Kernel: {kernel}" in block]
            if uninitialized_too:
                assert seen, errors[0]
            else:
                assert seen == errors, errors[0]

        if not uninitialized_too:

            def test(run_oclgrind_script: Any, tmp_path: Path) -> None:
                check(run_oclgrind_script, tmp_path, False)

            return test

        @pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
        def test_both(run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool) -> None:
            check(run_oclgrind_script, tmp_path, uninitialized)

        return test_both
