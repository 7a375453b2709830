"""Run the picture scripts (scripts/draw_pictures.py, scripts/draw_operator_pictures.py) with --check, in the
repository or in a copy of the parts they read, for the tests that keep docs/images fresh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def check(script: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python script --check``: exit 1 and the stale pictures on stderr when a picture differs."""
    return subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=timeout)


def copy_for_check(tmp_path: Path, scripts: tuple[Path, ...], images: Path) -> Path:
    """Copy ``scripts`` and ``images``' SVGs to the same places under ``tmp_path``; the copied images folder, for a
    negative control to spoil one picture in."""
    (tmp_path / "scripts").mkdir()
    for script in scripts:
        (tmp_path / "scripts" / script.name).write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    copied = tmp_path / images.relative_to(ROOT)
    copied.mkdir(parents=True)
    for image in images.glob("*.svg"):
        (copied / image.name).write_text(image.read_text(encoding="utf-8"), encoding="utf-8")
    return copied
