"""A small harness that renders pages in headless Chromium (Debian's ``chromium`` package, which ``.ci/run``
installs under CI=true) and returns the screenshot and the browser's console.

``page`` places each picture (SVG text) at a known absolute position: the body has no margin and every picture
sits in a ``position: absolute`` div at its ``left``/``top``, so a pixel of the screenshot at (x, y) is the SVG's
(x - left, y - top). The page's background is a pale pink, never a colour of the pictures and light enough
that ink checks do not pass on it, so a picture's extent shows in the screenshot.

The console: Chromium's ``--enable-logging=stderr`` writes each console message as a record such as
``[1:1:1123/142649.563852:INFO:CONSOLE:2] "text", source: file:///.../page.html (2)`` (older builds write
``INFO:CONSOLE(2)``), always at INFO whatever the message's level (Chromium passes the level through only for its
own pages). So ``page`` starts with a script that prefixes what ``console.error`` and the other methods print with
``[console.error]`` and so on; a message without that prefix comes from the browser itself (an uncaught exception,
``Error: <rect> attribute width: Expected length``) and counts as an error.

The layout: ``page`` ends with a script that measures every picture's ``<text>`` with the browser's own font
metrics (``getBBox``) and writes a ``console.error`` starting ``layout:`` for a text that runs out of its picture,
overlaps another text, straddles the edge of a rectangle (a text is either inside a rectangle, as a cell's
label, or clear of it) or is crossed by a line, a path or an arrowhead (a point of it, taken a pixel apart along
it, inside the text's box).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers.tools import missing_tool

TIMEOUT_S = 60
PAGE_BACKGROUND = (0xF2, 0xD4, 0xE8)
EXECUTABLES = ("chromium", "chromium-browser")

CONSOLE_LEVELS_SCRIPT = """<script>
for (const level of ["error", "warn", "log", "info", "debug"]) {
  const print = console[level].bind(console);
  console[level] = (...args) => print("[console." + level + "] " + args.map(String).join(" "));
}
</script>"""
"""Tags each console message with its level (see the module docstring); the first thing ``page`` writes."""

LAYOUT_SCRIPT = """<script>
// Text boxes measured by the browser; see the module docstring. Tolerance: half a pixel.
for (const [n, svg] of [...document.querySelectorAll("body > div > svg")].entries()) {
  const name = svg.parentElement.id || "picture " + n;
  const size = { width: svg.width.baseVal.value, height: svg.height.baseVal.value };
  // getBBox is in the element's own user space: getCTM carries it into the picture's (a <g transform>).
  const box = (e) => {
    const b = e.getBBox(), m = e.getCTM();
    const x0 = b.x * m.a + m.e, y0 = b.y * m.d + m.f;
    return { x0, y0, x1: x0 + b.width * m.a, y1: y0 + b.height * m.d };
  };
  const texts = [...svg.querySelectorAll("text")].map((e) => [e.textContent, box(e)]);
  // Every line, path and arrowhead as points a pixel apart along it, in the picture's space.
  const strokes = [...svg.querySelectorAll("line, path, polygon")].map((e) => {
    const m = e.getCTM(), length = e.getTotalLength(), points = [];
    for (let at = 0; at <= length; at += 1) {
      const p = e.getPointAtLength(at);
      points.push([p.x * m.a + m.e, p.y * m.d + m.f]);
    }
    return [e.tagName, points];
  });
  const rects = [...svg.querySelectorAll("rect")].map(box)
    .filter((r) => !(r.x0 <= 0 && r.y0 <= 0 && r.x1 >= size.width && r.y1 >= size.height));  // the background
  const meet = (a, b) => a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5;
  const inside = (a, b) => a.x0 >= b.x0 - 0.5 && a.y0 >= b.y0 - 0.5 && a.x1 <= b.x1 + 0.5 && a.y1 <= b.y1 + 0.5;
  const where = (b) => `(${b.x0.toFixed(1)}, ${b.y0.toFixed(1)})-(${b.x1.toFixed(1)}, ${b.y1.toFixed(1)})`;
  const picture = { x0: 0, y0: 0, x1: size.width, y1: size.height };
  for (const [k, [words, t]] of texts.entries()) {
    if (!inside(t, picture)) console.error(`layout: ${name}: text "${words}" ${where(t)} runs out of the picture`);
    for (const [other, u] of texts.slice(k + 1)) {
      if (meet(t, u)) console.error(`layout: ${name}: text "${words}" ${where(t)} overlaps "${other}" ${where(u)}`);
    }
    for (const r of rects) {
      if (meet(t, r) && !inside(t, r)) {
        console.error(`layout: ${name}: text "${words}" ${where(t)} straddles the rectangle ${where(r)}`);
      }
    }
    for (const [tag, points] of strokes) {
      const hit = points.find(([x, y]) => x > t.x0 + 0.5 && x < t.x1 - 0.5 && y > t.y0 + 0.5 && y < t.y1 - 0.5);
      if (hit) {
        console.error(`layout: ${name}: text "${words}" ${where(t)} is crossed by a <${tag}> at ` +
          `(${hit[0].toFixed(1)}, ${hit[1].toFixed(1)})`);
      }
    }
  }
}
</script>"""
"""Measures the pictures' text in the browser (see the module docstring); the last thing ``page`` writes."""

_RECORD = re.compile(r"^\[\d+:\d+:\d+/\d+\.\d+:[A-Z0-9_]+:[^\]\n]*\]", re.MULTILINE)
"""The start of a log record: ``[pid:tid:MMDD/HHMMSS.micro:LEVEL:file(line)]`` or ``...:LEVEL:file:line]``."""
_CONSOLE = re.compile(
    r'^\[[^\]\n]*:CONSOLE[:(]\d+\)?\] "(?P<text>.*)", source: (?P<source>[^\n]*) \((?P<line>\d+)\)$', re.S | re.M
)
"""A console record, up to its last line (lines that are no record, such as ``... bytes written to file``, follow)."""
_LEVEL = re.compile(r"^\[console\.(?P<level>error|warn|log|info|debug)\] ", re.S)


@dataclass(frozen=True)
class ConsoleMessage:
    level: str
    """``error``, ``warn``, ``log``, ``info``, ``debug`` (tagged by the page's script) or ``browser`` (untagged:
    the browser's own message about the page, such as an uncaught exception or an invalid SVG attribute)."""
    text: str
    source: str
    line: int

    def __str__(self) -> str:
        return f"[{self.level}] {self.text} ({self.source}:{self.line})"


@dataclass
class BrowserRun:
    image: Image.Image
    """The screenshot, RGB, ``width`` x ``height`` pixels."""
    console: list[ConsoleMessage]
    stderr: str
    command: list[str]
    seconds: float

    @property
    def errors(self) -> list[ConsoleMessage]:
        """Console messages at level ``error`` and the browser's own (untagged) messages."""
        return [m for m in self.console if m.level in ("error", "browser")]


def console_messages(stderr: str) -> list[ConsoleMessage]:
    """The console records in Chromium's stderr log (a record may span lines: a message with a newline)."""
    starts = [m.start() for m in _RECORD.finditer(stderr)]
    messages = []
    for start, end in zip(starts, [*starts[1:], len(stderr)], strict=True):
        record = _CONSOLE.match(stderr[start:end])
        if record is None:
            continue
        text = record["text"]
        tagged = _LEVEL.match(text)
        level = tagged["level"] if tagged else "browser"
        messages.append(
            ConsoleMessage(level, text[tagged.end() :] if tagged else text, record["source"], int(record["line"]))
        )
    return messages


def find_chromium() -> str | None:
    """The Chromium executable on PATH (``chromium``, Debian; ``chromium-browser``, elsewhere), or None;
    ``DMLPY_CHROMIUM`` names another."""
    configured = os.environ.get("DMLPY_CHROMIUM")
    if configured:
        return shutil.which(configured)
    return next((path for name in EXECUTABLES if (path := shutil.which(name))), None)


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium executable. Skips without one, except under CI=true, where .ci/run installs it: there a
    missing Chromium fails."""
    executable = find_chromium()
    if executable is None:
        missing_tool("Chromium is not installed (apt-get install chromium, or set DMLPY_CHROMIUM)")
    return executable


@dataclass(frozen=True)
class Placed:
    """A picture on the page: SVG text drawn with its top-left corner at (left, top), width x height pixels."""

    name: str
    svg: str
    left: int
    top: int
    width: int
    height: int


def svg_size(svg: str) -> tuple[int, int]:
    """The width and height attributes of the SVG's root element, in pixels."""
    root = ET.fromstring(svg)
    return round(float(root.get("width", "0"))), round(float(root.get("height", "0")))


def stack(pictures: Sequence[tuple[str, str]], *, margin: int = 16, spacing: int = 16) -> list[Placed]:
    """``(name, svg)`` pictures placed one under another, ``margin`` pixels from the page's edges."""
    placed, top = [], margin
    for name, svg in pictures:
        width, height = svg_size(svg)
        placed.append(Placed(name, svg, margin, top, width, height))
        top += height + spacing
    return placed


def page_size(placed: Sequence[Placed], *, margin: int = 16) -> tuple[int, int]:
    """A window that shows every picture with ``margin`` pixels to spare on the right and below."""
    return (
        max((p.left + p.width for p in placed), default=0) + margin,
        max((p.top + p.height for p in placed), default=0) + margin,
    )


def page(placed: Sequence[Placed], *, extra: str = "") -> str:
    """An HTML page drawing each picture at its position (``extra``: more HTML at the end of the body)."""
    r, g, b = PAGE_BACKGROUND
    divs = "\n".join(
        f'<div id="{escape(p.name)}" style="position:absolute; left:{p.left}px; top:{p.top}px; '
        f'width:{p.width}px; height:{p.height}px; line-height:0">\n{p.svg}\n</div>'
        for p in placed
    )
    return (
        '<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        f"{CONSOLE_LEVELS_SCRIPT}\n<title>dmlpy pictures</title>\n"
        f"<style>html, body {{ margin: 0; padding: 0; background: rgb({r}, {g}, {b}); }}\n"
        "div > svg { display: block; }</style>\n"
        f"</head>\n<body>\n{divs}\n{extra}\n{LAYOUT_SCRIPT}\n</body>\n</html>\n"
    )


def screenshot(page_html: str, png_path: Path, *, width: int, height: int) -> BrowserRun:
    """Render ``page_html`` in a width x height window of headless Chromium (a fresh profile, a 60 s limit),
    write the screenshot to ``png_path`` and return it with the console messages."""
    executable = find_chromium()
    if executable is None:
        raise RuntimeError("Chromium is not installed; use the chromium fixture, which skips without it")
    png_path.parent.mkdir(parents=True, exist_ok=True)
    png_path.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="dmlpy-chromium-") as folder:
        html = Path(folder) / "page.html"
        html.write_text(page_html, encoding="utf-8")
        command = [
            executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={width},{height}",
            f"--screenshot={png_path.resolve()}",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={Path(folder) / 'profile'}",
            html.as_uri(),
        ]
        started = time.monotonic()
        # A session of its own, so that a browser past the limit is ended with every process it started.
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise AssertionError(f"Chromium ran past {TIMEOUT_S} s: {' '.join(command)}\n{stderr[-4000:]}") from None
        seconds = time.monotonic() - started
    if process.returncode != 0 or not png_path.is_file():
        raise AssertionError(f"Chromium exited {process.returncode} without a screenshot\n{stdout}\n{stderr[-4000:]}")
    with Image.open(png_path) as png:
        image = png.convert("RGB")
    if image.size != (width, height):
        raise AssertionError(f"screenshot is {image.size}, the window {width} x {height}")
    return BrowserRun(image, console_messages(stderr), stderr, command, seconds)


# ---------------------------------------------------------------------------------------------------- checks


def _distance(colour: tuple[int, ...], expected: tuple[int, int, int]) -> int:
    return max(abs(a - b) for a, b in zip(colour[:3], expected, strict=True))


@dataclass(frozen=True)
class PixelIs:
    """The pixel at (x, y) of the picture (SVG coordinates) has colour ``rgb``, each channel within ``tolerance``."""

    description: str
    x: int
    y: int
    rgb: tuple[int, int, int]
    tolerance: int = 3

    def failure(self, image: Image.Image, left: int, top: int) -> str | None:
        """None when the check holds for the picture drawn at (left, top) of ``image``, else what is wrong."""
        at = (left + self.x, top + self.y)
        found = image.getpixel(at)
        assert isinstance(found, tuple)
        if _distance(found, self.rgb) <= self.tolerance:
            return None
        return f"{self.description}: pixel {at} is {_hex(found)}, expected {_hex(self.rgb)}"


@dataclass(frozen=True)
class InkIn:
    """At least ``at_least`` pixels of the box (SVG coordinates, right and bottom excluded) are darker than
    ``darker_than`` (in luminance, 0 to 255): a stroke or text is drawn there."""

    description: str
    box: tuple[int, int, int, int]
    at_least: int
    darker_than: int = 140

    def failure(self, image: Image.Image, left: int, top: int) -> str | None:
        x0, y0, x1, y1 = self.box
        area = image.crop((left + x0, top + y0, left + x1, top + y1))
        dark = sum(area.convert("L").histogram()[: self.darker_than])
        if dark >= self.at_least:
            return None
        return (
            f"{self.description}: {dark} pixel(s) darker than {self.darker_than} in "
            f"{(left + x0, top + y0, left + x1, top + y1)}, expected at least {self.at_least}"
        )


Check = PixelIs | InkIn


def _hex(colour: Sequence[int]) -> str:
    return "#" + "".join(f"{c:02x}" for c in colour[:3])


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``"#e6e6e6"`` as (230, 230, 230)."""
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def failures(run: BrowserRun, placed: Placed, checks: Sequence[Check]) -> list[str]:
    """What is wrong with the picture ``placed`` in the screenshot, by ``checks``; empty when all hold."""
    return [f"{placed.name}: {why}" for c in checks if (why := c.failure(run.image, placed.left, placed.top))]


# ---------------------------------------------------------------------------------------------------- locating
# Where to look, read from the SVG itself: a cell is ``<g class="..."><rect x= y= width= height= .../>...</g>``.

SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    width: float
    height: float


_TRANSLATE = re.compile(r"translate\((?P<x>[-\d.]+)[ ,]+(?P<y>[-\d.]+)\)")


def cells(svg: str, cls: str) -> list[Box]:
    """The rectangle of every cell ``<g class="{cls}">`` (the exact class attribute), in document order, in the
    picture's coordinates (the ``translate`` of enclosing groups, as a stacked picture has, added)."""
    boxes = []

    def visit(element: ET.Element, dx: float, dy: float) -> None:
        moved = _TRANSLATE.fullmatch(element.get("transform", ""))
        if moved:
            dx, dy = dx + float(moved["x"]), dy + float(moved["y"])
        rect = element.find(f"{SVG}rect")
        if element.tag == f"{SVG}g" and element.get("class") == cls and rect is not None:
            x, y, width, height = (float(rect.get(a, "0")) for a in ("x", "y", "width", "height"))
            boxes.append(Box(x + dx, y + dy, width, height))
        for child in element:
            visit(child, dx, dy)

    visit(ET.fromstring(svg), 0.0, 0.0)
    return boxes


def _segment_distance(px: float, py: float, x1: float, y1: float, x2: float, y2: float) -> float:
    dx, dy = x2 - x1, y2 - y1
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - x1) * dx + (py - y1) * dy) / (dx * dx + dy * dy)))
    return float(((px - x1 - t * dx) ** 2 + (py - y1 - t * dy) ** 2) ** 0.5)


def clear_point(svg: str, box: Box, *, inset: int = 3) -> tuple[int, int]:
    """A pixel ``inset`` pixels inside a corner of ``box`` (top corners first: cell labels sit low and centred)
    that no ``<line>`` of the SVG passes within 2.5 pixels of; its centre is (x + 0.5, y + 0.5)."""
    lines = ET.fromstring(svg).iter(f"{SVG}line")
    segments = [tuple(float(line.get(a, "0")) for a in ("x1", "y1", "x2", "y2")) for line in lines]
    left, top = round(box.x) + inset, round(box.y) + inset
    right, bottom = round(box.x + box.width) - inset - 1, round(box.y + box.height) - inset - 1
    for x, y in ((left, top), (right, top), (left, bottom), (right, bottom)):
        if all(_segment_distance(x + 0.5, y + 0.5, *s) > 2.5 for s in segments):
            return x, y
    raise AssertionError(f"every corner of {box} is crossed by a line; pick another cell")


def text_box(svg: str, cls: str) -> tuple[int, int, int, int]:
    """A box sure to hold ink of the (left-anchored) ``<text class="{cls}">``: its first characters, from the
    baseline up to most of the font's height (the font's metrics are not known here, so not its whole extent)."""
    root = ET.fromstring(svg)
    text = next((t for t in root.iter(f"{SVG}text") if t.get("class") == cls), None)
    assert text is not None and text.text, f"no <text class={cls!r}> in the SVG"
    size = float(text.get("font-size") or root.get("font-size") or "16")
    x, y = float(text.get("x", "0")), float(text.get("y", "0"))
    width = 0.45 * size * min(len(text.text), 40)
    return round(x), round(y - 0.7 * size), round(x + width), round(y + 1)
