"""The SVG picture of a buffer tensor (dmlpy.drawing, BufferTensorDesc._repr_svg_): it parses as XML and holds
what it claims, counted for the README's padded and broadcast examples and against the strides by hand."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from itertools import product

import dmlpy as dml
from dmlpy.drawing.slots import ReadCounts
from dmlpy.drawing.svg import escape
from tests.helpers.svg_geometry import SVG, Point, Rect, crossings, path_points, polyline_enters, rect_of


def parts(desc: dml.BufferTensorDesc) -> dict[str, list[ET.Element]]:
    root = ET.fromstring(desc._repr_svg_())
    assert root.tag == f"{SVG}svg"
    found: dict[str, list[ET.Element]] = {}
    for element in root.iter():
        if element.get("class"):
            found.setdefault(element.get("class") or "", []).append(element)
    return found


def test_padded_rows_show_the_padding_slot() -> None:
    padded = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1))
    found = parts(padded)
    assert len(found["element"]) == 6
    assert len(found["slot used"]) == 6 and len(found["slot padding"]) == 1  # slot 3, between the rows
    assert "slot rounding" not in found  # 28 bytes: whole DWORDs already
    assert len(found["link"]) == 6 and "link broadcast" not in found
    assert "slot broadcast" not in found
    text = padded._repr_svg_()
    assert "Strides [8, 8, 4, 1]" in text and "TotalTensorSizeInBytes 28" in text


def test_broadcast_links_several_cells_to_one_slot() -> None:
    broadcast = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(0, 0, 0, 1))
    found = parts(broadcast)
    assert len(found["element"]) == 6 and len(found["slot used"]) == 3
    assert len(found["link broadcast"]) == 6  # each of the three slots read by two elements


def test_rounding_to_whole_dwords_is_shaded() -> None:
    bytes_ = dml.BufferTensorDesc(data_type="UINT8", sizes=(5,))
    found = parts(bytes_)
    assert bytes_.total_tensor_size_in_bytes == 8
    assert len(found["slot used"]) == 5 and len(found["slot rounding"]) == 3


def test_large_tensors_are_elided_and_say_so() -> None:
    big = dml.BufferTensorDesc(data_type="UINT8", sizes=(3, 40, 50), strides=(4000, 100, 2))
    found = parts(big)
    assert found["gap"] and found["slot gap"]
    assert len(found["element"]) < 150
    (note,) = found["elided"]
    assert note.text is not None and note.text.startswith("drawn: ") and "of 6000 elements" in note.text


def test_tensor_desc_shows_its_buffer_tensor() -> None:
    inner = dml.BufferTensorDesc(data_type="FLOAT16", sizes=(2, 2))
    assert dml.TensorDesc(desc=inner)._repr_svg_() == inner._repr_svg_()


def test_read_counts_equal_a_count_over_every_element() -> None:
    """ReadCounts counts only the slots drawn, up to 2 (one reader or several); on 400 random small layouts
    (0-strides, overlapping strides, size-1 dimensions) it equals counting every element's offset."""
    rng = random.Random(18)
    for _ in range(400):
        rank = rng.randint(1, 4)
        sizes = [rng.randint(1, 4) for _ in range(rank)]
        strides = [rng.choice([0, 1, 2, 3, 5, 7]) for _ in range(rank)]
        every: Counter[int] = Counter(
            sum(i * d for i, d in zip(index, strides, strict=True)) for index in product(*map(range, sizes))
        )
        counts = ReadCounts(sizes, strides)
        assert [counts[o] for o in range(-1, 80)] == [min(every[o], 2) for o in range(-1, 80)], (sizes, strides)


def test_a_tensor_of_half_a_billion_elements_draws_the_elided_picture() -> None:
    # Counting every element's offset (what the picture did at first) takes minutes and gigabytes here.
    big = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(8, 64, 1024, 1024), strides=(0, 1024 * 1024, 1024, 1))
    found = parts(big)
    (note,) = found["elided"]
    assert note.text is not None and "of 536870912 elements" in note.text
    # The 0-stride batch: every element is read 8 times, so every link drawn is a broadcast one.
    assert found["link broadcast"] and "link" not in found


def test_four_bit_elements_fill_half_a_byte_each() -> None:
    nibbles = dml.BufferTensorDesc(data_type="UINT4", sizes=(1, 1, 1, 8))
    assert nibbles.total_tensor_size_in_bytes == 4
    found = parts(nibbles)
    assert len(found["slot used"]) == 8 and "element outside" not in found and "slot outside" not in found
    assert "rounded up to a multiple of 4 bytes = 4" in nibbles._repr_svg_()


def test_huge_overlapping_strides_draw_quickly() -> None:
    # Refused (too many elements), but drawn by validate --svg: counting stops at two readers per slot.
    huge = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2**24, 2**24), strides=(0, 0, 1, 1))
    assert len(parts(huge)["link broadcast"]) > 0


def test_no_dimensions_draw_one_element() -> None:
    scalar = dml.BufferTensorDesc(data_type="FLOAT32", sizes=())
    assert len(parts(scalar)["element"]) == 1


def test_any_text_escapes_to_savable_xml() -> None:
    """XML 1.0's forbidden characters and lone surrogates (which no encoding writes) become U+FFFD; markup is
    escaped; everything else is kept."""
    text = "a\x00b\x1b\ud800\udfff<&>\"'\u202e\ufffe z"
    escaped = escape(text)
    escaped.encode("utf-8")  # a lone surrogate would raise here
    assert ET.fromstring(f"<t>{escaped}</t>").text == "a\ufffdb\ufffd\ufffd\ufffd<&>\"'\u202e\ufffd z"


def _rect(group: ET.Element) -> tuple[float, float, float]:
    rect = group.find(f"{SVG}rect")
    assert rect is not None
    return float(rect.get("x", "0")), float(rect.get("y", "0")), float(rect.get("width", "0"))


def _label(group: ET.Element) -> int:
    label = group.find(f"{SVG}text")
    assert label is not None and label.text is not None
    return int(label.text)


def test_four_bit_slots_are_the_halves_of_their_byte_low_nibble_first() -> None:
    """DirectML's [1, 2, 3, 4, 5] as UINT4 is the bytes [0x21, 0x43, 0x05]: each byte's frame holds two slots half
    its width, element 2b in the left (low) half and 2b + 1 in the right, the byte's number under it; the fifth
    element leaves the third byte's high nibble as padding, and the rounding to 4 bytes is the fourth byte."""
    desc = dml.BufferTensorDesc(data_type="UINT4", sizes=(5,))
    found = parts(desc)
    frames = [(float(r.get("x", "0")), float(r.get("y", "0")), float(r.get("width", "0"))) for r in found["byte"]]
    assert len(frames) == 4  # TotalTensorSizeInBytes 4
    slots = {
        _label(g): (_rect(g), g.get("class")) for kind in ("used", "padding", "rounding") for g in found[f"slot {kind}"]
    }
    assert sorted(slots) == list(range(8))
    for number, (x, y, width) in enumerate(frames):
        (low_x, low_y, low_width), _ = slots[2 * number]
        (high_x, high_y, high_width), _ = slots[2 * number + 1]
        assert low_width == high_width == width / 2
        assert (low_x, low_y) == (x, y) and (high_x, high_y) == (x + width / 2, y)
    assert [x for x, _, _ in frames] == sorted(x for x, _, _ in frames)
    assert [t.text for t in found["byte number"]] == ["0", "1", "2", "3"]
    assert [slots[s][1] for s in range(8)] == ["slot used"] * 5 + ["slot padding"] + ["slot rounding"] * 2
    tail = found["slot padding"][0].find(f"{SVG}title")
    assert (
        tail is not None
        and tail.text == "byte 2, high nibble (bits 4-7): padding: the tail nibble of a half-filled byte, never read"
    )
    assert "5 element(s) spanned x 4-bit = 3 byte(s) (the last half-filled)" in desc._repr_svg_()


def test_four_bit_links_end_on_their_nibble() -> None:
    """A 4-bit row that starts mid-byte: Sizes [2, 3] packed puts element [1, 0] in the high nibble of byte 1; each
    element's link ends at the bottom middle of the half-byte slot its offset names."""
    desc = dml.BufferTensorDesc(data_type="INT4", sizes=(2, 3))
    found = parts(desc)
    slot_bottoms = {}
    for g in found["slot used"]:
        rect = g.find(f"{SVG}rect")
        assert rect is not None
        x0, _, x1, y1 = rect_of(rect)
        slot_bottoms[_label(g)] = ((x0 + x1) / 2, y1)
    ends = [path_points(link.get("d", ""))[-1] for link in found["link"]]
    assert ends == [slot_bottoms[offset] for offset in range(6)]
    titles = [g.find(f"{SVG}title") for g in found["element"]]
    assert [t.text for t in titles if t is not None][3] == "element [1, 0] reads nibble 3 (byte 1, high)"


def test_a_long_four_bit_tensor_elides_whole_bytes() -> None:
    """Elision leaves out bytes, never one nibble of a pair: every drawn slot's partner is drawn, and the gap is a
    byte wide."""
    desc = dml.BufferTensorDesc(data_type="UINT4", sizes=(1001,))
    found = parts(desc)
    drawn = {_label(g) for kind in ("used", "padding", "rounding") for g in found.get(f"slot {kind}", [])}
    assert all(slot ^ 1 in drawn for slot in drawn)
    assert 1000 in drawn and 1001 in drawn  # the last element and the tail nibble of its byte
    (gap,) = found["slot gap"]
    assert _rect(gap)[2] == 2 * _rect(found["slot used"][0])[2]
    (note,) = found["elided"]
    assert note.text is not None and f"of {desc.total_tensor_size_in_bytes * 2} slots" in note.text


# ---------------------------------------------------------------------------------------- links a person can follow
def _links(root: ET.Element) -> list[list[Point]]:
    """Each element-to-slot link as the points along it (a path, or a straight line as earlier pictures drew)."""
    found = []
    for element in root.iter():
        if not (element.get("class") or "").startswith("link"):
            continue
        if element.tag == f"{SVG}path":
            found.append(path_points(element.get("d", "")))
        elif element.tag == f"{SVG}line":
            found.append([(float(element.get(f"x{k}", "0")), float(element.get(f"y{k}", "0"))) for k in (1, 2)])
    return found


def _cells(root: ET.Element, prefix: str) -> list[tuple[Rect, str]]:
    """(box, label) of each cell whose class starts with ``prefix`` ("element", "slot")."""
    found = []
    for group in root.iter(f"{SVG}g"):
        if (group.get("class") or "").split(" ")[0] == prefix:
            rect, label = group.find(f"{SVG}rect"), group.find(f"{SVG}text")
            assert rect is not None and label is not None
            found.append((rect_of(rect), label.text or ""))
    return found


def _on_edge(point: Point, box: Rect) -> bool:
    (x, y), (x0, y0, x1, y1) = point, box
    inside = x0 - 0.5 <= x <= x1 + 0.5 and y0 - 0.5 <= y <= y1 + 0.5
    return inside and min(abs(x - x0), abs(x - x1), abs(y - y0), abs(y - y1)) <= 0.5


def assert_links_followable(desc: dml.BufferTensorDesc) -> list[tuple[int, int, list[Point]]]:
    """Each link starts on the edge of one element's cell and ends, under an arrowhead, on the edge of the slot
    that element's offset names, and between them enters no cell, slot or byte: it can be followed by eye. The
    links as (element number in row-major order, slot, points)."""
    root = ET.fromstring(desc._repr_svg_())
    elements, slots = _cells(root, "element"), _cells(root, "slot")
    slot_boxes = {int(label): box for box, label in slots if label != "..."}
    frames = [rect_of(r) for r in root.iter(f"{SVG}rect") if r.get("class") == "byte"]
    obstacles = [box for box, _ in elements + slots + _cells(root, "gap")] + frames
    heads = [
        [tuple(map(float, corner.split(","))) for corner in polygon.get("points", "").split()]
        for polygon in root.iter(f"{SVG}polygon")
        if (polygon.get("class") or "").startswith("arrow")
    ]
    found = []
    links = _links(root)
    assert links
    for points in links:
        start, end = points[0], points[-1]
        (number,) = [k for k, (box, _) in enumerate(elements) if _on_edge(start, box)]
        slot = int(elements[number][1])
        assert _on_edge(end, slot_boxes[slot]), f"the link from element {number} ends at {end}, not on slot {slot}"
        assert any(end in head for head in heads), f"no arrowhead at {end}"
        entered = [box for box in obstacles if polyline_enters(points, box)]
        assert not entered, f"the link from element {number} to slot {slot} runs through the cells at {entered}"
        found.append((number, slot, points))
    return found


def assert_no_needless_crossing(desc: dml.BufferTensorDesc) -> int:
    """Two links to different slots cross only where their elements' row-major order is the reverse of their
    slots' order, and then once; how many such crossings the picture has."""
    links = assert_links_followable(desc)
    forced = 0
    for k, (first, first_slot, first_points) in enumerate(links):
        for second, second_slot, second_points in links[k + 1 :]:
            if first_slot == second_slot:
                continue  # links to one slot join: they share their last stretch
            where = crossings(first_points, second_points)
            reversed_order = (first < second) != (first_slot < second_slot)
            assert len(where) <= int(reversed_order), (first, first_slot, second, second_slot, where)
            forced += len(where)
    return forced


def test_links_of_the_readme_tensors_can_be_followed() -> None:
    """The padded rows (read in order: no link crosses another), the broadcast (each of the three pairs of
    elements whose order the slots reverse crosses once), 4-bit elements two a byte, and a transposed view."""
    padded = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1))
    assert assert_no_needless_crossing(padded) == 0
    broadcast = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(0, 0, 0, 1))
    assert assert_no_needless_crossing(broadcast) == 3
    assert assert_no_needless_crossing(dml.BufferTensorDesc(data_type="INT4", sizes=(3, 3))) == 0
    transposed = dml.BufferTensorDesc(data_type="UINT8", sizes=(3, 4), strides=(1, 3))
    assert assert_no_needless_crossing(transposed) > 0


def test_links_of_elided_and_refused_tensors_can_be_followed() -> None:
    """Elided rows and columns, slots past TotalTensorSizeInBytes, several rows of slots, several rows of bytes."""
    assert_links_followable(dml.BufferTensorDesc(data_type="UINT8", sizes=(3, 40, 50), strides=(4000, 100, 2)))
    assert_links_followable(
        dml.BufferTensorDesc(
            data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1), total_tensor_size_in_bytes=20
        )
    )
    assert_links_followable(dml.BufferTensorDesc(data_type="FLOAT16", sizes=(5, 9)))
    assert_links_followable(dml.BufferTensorDesc(data_type="UINT4", sizes=(4, 11), strides=(12, 1)))
    assert_links_followable(dml.BufferTensorDesc(data_type="FLOAT32", sizes=(8, 6), strides=(0, 1)))
