"""The tour's and the docs' pictures (docs/images/*.svg) are what dmlpy draws today for the tour's examples:
scripts/draw_pictures.py --check redraws each and compares byte for byte, so a change to the drawing code or to
an example fails here until the pictures are redrawn."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers.picture_scripts import check, copy_for_check

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "draw_pictures.py"


def test_docs_images_are_fresh() -> None:
    done = check(SCRIPT)
    assert done.returncode == 0, done.stderr


def test_the_check_sees_a_stale_picture(tmp_path: Path) -> None:
    """Negative control: the script compares (a copy whose padded.svg lost a cell is reported stale)."""
    images = copy_for_check(tmp_path, (SCRIPT,), ROOT / "docs" / "images")
    padded = images / "padded.svg"
    padded.write_text(re.sub(r'<g class="slot padding">.*?</g>', "", padded.read_text(encoding="utf-8")))
    examples = tmp_path / "examples" / "descriptors"
    examples.mkdir(parents=True)
    (examples / "round_refused.json").write_text((ROOT / "examples/descriptors/round_refused.json").read_text())
    done = check(tmp_path / "scripts" / SCRIPT.name)
    assert done.returncode == 1 and "docs/images/padded.svg" in done.stderr and "broadcast" not in done.stderr
