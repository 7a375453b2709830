"""The pictures rendered in a real browser (issue 18): headless Chromium draws the README's examples, the
screenshots' pixels hold what the SVG says (the padding slot has the padding colour, a broadcast cell its orange,
an elided gap is drawn, the elision note is written), and the browser's console stays empty of errors, the
harness's layout reports (text measured by the browser running out of a picture, overlapping another text or a
rectangle's edge) included.

Data-driven: ``ROWS`` lists (name, svg, checks); a check names a pixel and its colour, or a box that must hold ink,
in the picture's own coordinates, located from the SVG itself. More pictures (binding tables, graphs) are more rows.

The screenshots are kept for people to look at: ``$DMLPY_ARTIFACTS`` if set, else build/screenshots/ under the
repository root; one PNG per row, readme.png with them all on one page, and a .log of each run's console."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

import dmlpy as dml
from dmlpy.cli.files import read_descriptor
from dmlpy.cli.pictures import descriptor_picture
from tests.helpers.browser import (
    PAGE_BACKGROUND,
    SVG,
    Box,
    BrowserRun,
    Check,
    InkIn,
    PixelIs,
    Placed,
    cells,
    chromium,  # noqa: F401  (the fixture: every test here needs the browser)
    clear_point,
    failures,
    page,
    page_size,
    rgb,
    screenshot,
    stack,
    svg_size,
    text_box,
)

ARTIFACTS = Path(os.environ.get("DMLPY_ARTIFACTS") or Path(__file__).resolve().parents[3] / "build" / "screenshots")
USED = rgb("#cfe3ff")
PADDING = rgb("#e6e6e6")
ROUNDING = rgb("#b9b9b9")
BROADCAST = rgb("#ffd79a")
WHITE = (255, 255, 255)


@dataclass(frozen=True)
class Row:
    name: str
    svg: str
    checks: list[Check]


def cell_colour(svg: str, cls: str, rgb: tuple[int, int, int], what: str, *, index: int = 0) -> PixelIs:
    """The ``index``-th cell of class ``cls`` is filled with ``rgb``, at a pixel clear of its label and links."""
    boxes = cells(svg, cls)
    assert len(boxes) > index, f"the SVG has {len(boxes)} cell(s) of class {cls!r}"
    x, y = clear_point(svg, boxes[index])
    return PixelIs(f"{what} ({cls!r} cell {index})", x, y, rgb)


def gap_drawn(svg: str, cls: str) -> list[Check]:
    """The first cell of class ``cls`` (an elided run) is drawn: white inside, its "..." inked. The box stays 2
    pixels inside the rect, so its stroke does not count, and a link crossing the cell is never darker than 140
    (#7a9cc6 at opacity 0.6 is 192, several overlapping tend to 151): the dark pixels are the dots' (9 px black text,
    two pixels of 46 in Chromium 156 with DejaVu Sans)."""
    (box, *_) = cells(svg, cls)
    x, y = clear_point(svg, box)
    inside = (round(box.x) + 2, round(box.y) + 2, round(box.x + box.width) - 2, round(box.y + box.height) - 2)
    return [PixelIs(f"{cls!r} cell is white", x, y, WHITE), InkIn(f"{cls!r} cell shows '...'", inside, at_least=2)]


def extent(svg: str) -> list[Check]:
    """The picture is drawn whole and unscaled: its last pixel is its white background and the next one the page."""
    width, height = svg_size(svg)
    return [
        PixelIs("bottom-right pixel is the picture's background", width - 1, height - 1, WHITE),
        PixelIs("the pixel past the bottom-right corner is the page", width, height, PAGE_BACKGROUND),
    ]


def byte_number_box(svg: str) -> tuple[int, int, int, int]:
    """A box sure to hold ink of the first byte number under a 4-bit buffer (a centred 8 px digit)."""
    number = next(t for t in ET.fromstring(svg).iter(f"{SVG}text") if t.get("class") == "byte number")
    x, y = float(number.get("x", "0")), float(number.get("y", "0"))
    return round(x) - 3, round(y) - 6, round(x) + 3, round(y) + 1


def readme_rows() -> list[Row]:
    """The README's four tensor pictures and what each screenshot must show."""
    padded = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1))._repr_svg_()
    broadcast = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(0, 0, 0, 1))._repr_svg_()
    elided = dml.BufferTensorDesc(data_type="UINT8", sizes=(3, 40, 50), strides=(4000, 100, 2))._repr_svg_()
    nibbles = dml.BufferTensorDesc(data_type="INT4", sizes=(3, 3))._repr_svg_()
    return [
        Row(
            "padded",
            padded,
            [
                cell_colour(padded, "slot padding", PADDING, "the padding slot has the padding colour"),
                cell_colour(padded, "slot used", USED, "a used slot is blue"),
                cell_colour(padded, "element", USED, "an element is blue", index=5),
                *extent(padded),
            ],
        ),
        Row(
            "broadcast",
            broadcast,
            [
                cell_colour(broadcast, "element", BROADCAST, "a broadcast element is orange"),
                cell_colour(broadcast, "slot used", BROADCAST, "a slot read by several elements is orange", index=2),
                *extent(broadcast),
            ],
        ),
        Row(
            "elided",
            elided,
            [
                *gap_drawn(elided, "gap"),
                *gap_drawn(elided, "slot gap"),
                cell_colour(elided, "slot padding", PADDING, "a padding slot has the padding colour"),
                cell_colour(elided, "slot used", USED, "a used slot is blue"),
                InkIn("the elision note is written", text_box(elided, "elided"), at_least=40),
                *extent(elided),
            ],
        ),
        Row(
            "nibbles",
            nibbles,
            [
                cell_colour(nibbles, "slot used", USED, "a byte's high nibble is blue", index=5),
                cell_colour(nibbles, "slot padding", PADDING, "the tail nibble of the fifth byte is padding"),
                cell_colour(nibbles, "slot rounding", ROUNDING, "the rounding to 4 bytes is dark grey"),
                InkIn("the first byte's number is written", byte_number_box(nibbles), at_least=2),
                *extent(nibbles),
            ],
        ),
    ]


IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


def blend(hex_colour: str, opacity: float) -> tuple[int, int, int]:
    """``hex_colour`` at ``opacity`` over white."""
    return tuple(round(opacity * c + (1 - opacity) * 255) for c in rgb(hex_colour))  # type: ignore[return-value]


def rect_of(svg: str, cls: str) -> Box:
    """The first bare ``<rect class="{cls}">`` of the SVG."""
    for rect in ET.fromstring(svg).iter(f"{SVG}rect"):
        if rect.get("class") == cls:
            return Box(*(float(rect.get(a, "0")) for a in ("x", "y", "width", "height")))
    raise AssertionError(f"no <rect class={cls!r}> in the SVG")


def binding_and_graph_rows() -> list[Row]:
    """The README's binding, graph and refused-descriptor pictures (docs/images, kept fresh by
    test_readme_pictures.py)."""
    in_place, refused, graph, refused_round = (
        (IMAGES / f"{name}.svg").read_text(encoding="utf-8")
        for name in ("in_place", "overlap_refused", "qdq_graph", "round_refused")
    )
    input_range, output_range = rect_of(in_place, "range input"), rect_of(in_place, "range output")
    conflict = rect_of(refused, "conflict")
    fused = rect_of(graph, "kernel fused")
    return [
        Row(
            "in_place",
            in_place,
            [
                PixelIs(
                    "the input range is blue",
                    round(input_range.x) + 8,
                    round(input_range.y) + 5,
                    blend("#7a9cc6", 0.85),
                ),
                PixelIs(
                    "the output range is green",
                    round(output_range.x) + 8,
                    round(output_range.y) + 5,
                    blend("#5aa469", 0.85),
                ),
                *extent(in_place),
            ],
        ),
        Row(
            "overlap_refused",
            refused,
            [
                # Between the buffer's bar and the first lane the overlap band lies over white.
                PixelIs(
                    "the overlap is shaded red",
                    round(conflict.x + conflict.width / 2),
                    round(conflict.y) + 21,
                    blend("#f4a4a4", 0.45),
                ),
                InkIn("the rule is written", text_box(refused, "problem"), at_least=40),
                *extent(refused),
            ],
        ),
        Row(
            "qdq_graph",
            graph,
            [
                PixelIs(
                    "the fused kernel is shaded", round(fused.x) + 5, round(fused.y + fused.height / 2), rgb("#fff6e0")
                ),
                *extent(graph),
            ],
        ),
        Row(
            "round_refused",
            refused_round,
            [
                cell_colour(refused_round, "element outside", rgb("#f4a4a4"), "an element past the end is red"),
                cell_colour(refused_round, "slot outside", rgb("#f4a4a4"), "a slot past the end is red"),
                *extent(refused_round),
            ],
        ),
    ]


def cli_rows() -> list[Row]:
    """What `dmlpy validate examples/descriptors/qdq_graph.json --svg` draws (issue 30: its edges struck through
    their labels): the layout script's reports of a text crossed by a line are the check, with the picture's
    extent."""
    desc = read_descriptor(str(IMAGES.parent.parent / "examples" / "descriptors" / "qdq_graph.json"))
    graph = descriptor_picture(desc, dml.FeatureLevel.FL_6_4).svg
    return [Row("cli_qdq_graph", graph, extent(graph))]


ROWS = readme_rows() + binding_and_graph_rows() + cli_rows()
pytestmark = pytest.mark.usefixtures("chromium")


def keep_log(name: str, run: BrowserRun) -> None:
    """The run's command and console next to its screenshot."""
    lines = [" ".join(run.command), f"{run.seconds:.2f} s", *(str(m) for m in run.console)]
    (ARTIFACTS / f"{name}.log").write_text("\n".join(lines) + "\n")


def render(name: str, placed: list[Placed], folder: Path = ARTIFACTS, extra: str = "") -> BrowserRun:
    width, height = page_size(placed)
    run = screenshot(page(placed, extra=extra), folder / f"{name}.png", width=width, height=height)
    if folder == ARTIFACTS:
        keep_log(name, run)
    return run


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_picture_in_chromium(row: Row) -> None:
    placed = stack([(row.name, row.svg)])
    run = render(row.name, placed)
    assert run.errors == [], "\n".join(map(str, run.console))
    assert failures(run, placed[0], row.checks) == []


def test_readme_pictures_on_one_page() -> None:
    placed = stack([(row.name, row.svg) for row in ROWS])
    run = render("readme", placed)
    assert run.console == [], "\n".join(map(str, run.console))
    assert [why for p, row in zip(placed, ROWS, strict=True) for why in failures(run, p, row.checks)] == []


def test_the_harness_sees_console_errors(tmp_path: Path) -> None:
    """Negative control: what a broken page prints reaches ``run.console``, each with its level, and a page
    without scripts prints nothing."""
    broken_svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="x" height="9"/></svg>'
    script = "<script>console.error('deliberate', 1); console.log('two\\nlines'); throw new Error('boom');</script>"
    run = render("broken", stack([("broken", broken_svg)]), tmp_path, extra=script)
    found = [(m.level, m.text) for m in run.console]
    assert ("error", "deliberate 1") in found, found
    assert ("log", "two\nlines") in found, found
    assert ("browser", "Uncaught Error: boom") in found, found
    assert any(level == "browser" and "<rect> attribute width" in text for level, text in found), found
    assert len(run.errors) == 3, run.errors
    assert render("clean", [], tmp_path).console == []


def test_the_layout_script_sees_text_out_of_place(tmp_path: Path) -> None:
    """Negative control: overlapping words, a label running into a swatch, a text past the picture's edge and a
    text struck through by a line are reported; a label inside its cell is not."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" font-family="sans-serif" font-size="11">'
        '<rect width="120" height="60" fill="#ffffff"/>'
        '<text x="4" y="14">overlapping</text><text x="30" y="16">words</text>'
        '<rect x="60" y="30" width="12" height="12" fill="#e6e6e6"/><text x="20" y="40">into the swatch</text>'
        '<text x="100" y="56">out of the picture</text>'
        '<text x="78" y="26">struck</text><line x1="76" y1="22" x2="118" y2="22" stroke="#000"/>'
        '<rect x="2" y="44" width="40" height="14" fill="#cfe3ff"/><text x="4" y="55">inside</text></svg>'
    )
    run = render("layout", stack([("layout", svg)]), tmp_path)
    reports = [m.text for m in run.errors]
    assert len(reports) == 4 and all(r.startswith("layout: layout: text ") for r in reports), reports
    assert '"overlapping"' in reports[0] and 'overlaps "words"' in reports[0], reports
    assert '"into the swatch"' in reports[1] and "straddles the rectangle (60.0, 30.0)-(72.0, 42.0)" in reports[1]
    assert '"out of the picture"' in reports[2] and "runs out of the picture" in reports[2], reports
    assert '"struck"' in reports[3] and "is crossed by a <line> at (" in reports[3], reports


def test_the_checks_fail_on_a_blank_page(tmp_path: Path) -> None:
    """Negative control: where no picture is drawn every colour and ink check fails (those that expect the
    page's own background aside)."""
    placed = stack([(row.name, row.svg) for row in ROWS])
    width, height = page_size(placed)
    run = screenshot(page([]), tmp_path / "blank.png", width=width, height=height)
    for p, row in zip(placed, ROWS, strict=True):
        for check in row.checks:
            if isinstance(check, PixelIs) and check.rgb == PAGE_BACKGROUND:
                continue
            assert check.failure(run.image, p.left, p.top) is not None, (row.name, check)
    padding = ROWS[0].checks[0]
    assert isinstance(padding, PixelIs) and padding.rgb == PADDING
    assert "expected #e6e6e6" in (padding.failure(run.image, placed[0].left, placed[0].top) or "")
