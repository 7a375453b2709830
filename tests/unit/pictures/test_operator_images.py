"""The operator pages' pictures (docs/images/operators/*.svg) are what dmlpy draws today for their examples:
scripts/draw_operator_pictures.py --check redraws each and compares byte for byte, so a change to the drawing code
fails here until the pictures are redrawn; and each is shown on the pictures page and on its operator's page."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers.picture_scripts import check, copy_for_check

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "draw_operator_pictures.py"
IMAGES = ROOT / "docs" / "images" / "operators"


def test_the_operator_pictures_are_fresh() -> None:
    done = check(SCRIPT, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_check_sees_a_stale_picture(tmp_path: Path) -> None:
    """Negative control: a copy of the script (and of draw_pictures.py, whose main it runs) beside a gemm.svg that
    lost its K label is reported stale."""
    images = copy_for_check(tmp_path, (SCRIPT, SCRIPT.with_name("draw_pictures.py")), IMAGES)
    gemm = images / "gemm.svg"
    gemm.write_text(re.sub(r"K = 3", "K = ?", gemm.read_text(encoding="utf-8")), encoding="utf-8")
    done = check(tmp_path / "scripts" / SCRIPT.name)
    assert done.returncode == 1 and "operators/gemm.svg" in done.stderr and "join" not in done.stderr


def test_each_operator_picture_is_shown_on_the_pictures_page_and_its_operator_s() -> None:
    stems = {image.stem for image in IMAGES.glob("*.svg")}
    pictures_page = (ROOT / "docs" / "api" / "pictures.md").read_text(encoding="utf-8")
    assert set(re.findall(r"\]\(\.\./images/operators/(\w+)\.svg\)", pictures_page)) == stems
    for page, stem in (("gemm", "gemm"), ("convolution", "convolution"), ("reduction", "reduce")):
        assert f"](../images/operators/{stem}.svg)" in (ROOT / "docs" / "operators" / f"{page}.md").read_text()
