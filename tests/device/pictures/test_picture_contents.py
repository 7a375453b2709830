"""The binding, graph, operator and CLI pictures parse as XML and hold what they claim, counted against the
objects drawn: ranges per binding, in-place marks, the overlap a refusal names, nodes and edges per kind, kernels
as compile_graph plans them, the red parts of a refused descriptor. (Tensor pictures:
tests/unit/descriptors/test_drawing.py; pixels in a browser: test_browser.py.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import dmlpy as dml
from dmlpy.graph.desc import GraphDesc
from tests.helpers.cli import EXAMPLES, run_dmlpy
from tests.helpers.svg_geometry import (
    border_segments,
    grown,
    path_points,
    polyline_enters,
    segment_enters,
    text_rect,
)

SVG = "{http://www.w3.org/2000/svg}"
F32 = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 4))


def classes(picture: object) -> Counter[str]:
    """How many parts of each class the picture holds (its SVG parsed as XML)."""
    svg = picture.svg if isinstance(picture, dml.Picture) else str(picture)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return Counter(element.get("class") or "" for element in root.iter() if element.get("class"))


def texts(svg: str, cls: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text") if t.get("class") == cls]


@pytest.fixture(scope="module")
def default_device() -> dml.Device:
    """The default device: pictures do not depend on the device (conftest's ``device`` runs on each)."""
    return dml.create_device()


@pytest.fixture(scope="module")
def compiled(default_device: dml.Device) -> dml.CompiledOperator:
    op = default_device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=F32, output_tensor=F32))
    return default_device.compile_operator(op)


def test_a_table_bound_in_place_marks_the_pair_allowed(
    default_device: dml.Device, compiled: dml.CompiledOperator
) -> None:
    buffer = default_device.create_buffer(64)
    table = default_device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 0, 32)])
    table.bind_outputs([dml.BufferBinding(buffer, 0, 32)])
    found = classes(table.picture())
    assert found["buffer"] == 1 and found["range input"] == 1 and found["range output"] == 1
    assert found["in-place"] == 2 and found["conflict"] == 0
    assert table._repr_svg_() == table.picture().svg


def test_disjoint_buffers_are_two_bars_and_nothing_is_marked(
    default_device: dml.Device, compiled: dml.CompiledOperator
) -> None:
    table = default_device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(default_device.create_buffer(32))])
    table.bind_outputs([dml.BufferBinding(default_device.create_buffer(64), 32)])
    found = classes(table.picture())
    assert found["buffer"] == 2 and found["in-place"] == 0 and found["conflict"] == 0
    assert "[32, 64)" in table.picture().svg


def test_a_refused_partial_overlap_carries_its_picture(
    default_device: dml.Device, compiled: dml.CompiledOperator
) -> None:
    buffer = default_device.create_buffer(64)
    table = default_device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 0, 32)])
    with pytest.raises(dml.InvalidArgumentError, match="share memory") as caught:
        table.bind_outputs([dml.BufferBinding(buffer, 16, 32)])
    picture = caught.value.picture
    assert isinstance(picture, dml.Picture)
    found = classes(picture)
    assert found["conflict"] == 1 and found["in-place"] == 0 and found["range input"] == 1
    (conflict,) = [r for r in ET.fromstring(picture.svg).iter(f"{SVG}rect") if r.get("class") == "conflict"]
    bar = next(r for r in ET.fromstring(picture.svg).iter(f"{SVG}rect") if r.get("class") == "buffer")
    # The red band covers bytes [16, 32) of the 64-byte bar: a quarter of its width, starting a quarter in.
    bar_x, bar_w = float(bar.get("x", 0)), float(bar.get("width", 0))
    assert float(conflict.get("x", 0)) == pytest.approx(bar_x + bar_w / 4)
    assert float(conflict.get("width", 0)) == pytest.approx(bar_w / 4)
    assert " ".join(texts(picture.svg, "problem")) == str(caught.value)


def test_a_range_past_the_buffer_is_drawn_red(default_device: dml.Device, compiled: dml.CompiledOperator) -> None:
    table = default_device.create_binding_table(compiled)
    with pytest.raises(dml.InvalidArgumentError, match="must lie inside the buffer") as caught:
        table.bind_inputs([dml.BufferBinding(default_device.create_buffer(48), 32, 32)])
    found = classes(caught.value.picture)
    assert found["conflict"] == 1 and found["range input"] == 1  # the 16 bytes past the end


def readme_graph() -> GraphDesc:
    shape = (1, 3, 2, 2)
    i8 = dml.BufferTensorDesc(data_type="INT8", sizes=shape)
    scale = dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape, strides=(0, 1, 0, 0))
    zero = dml.BufferTensorDesc(data_type="INT8", sizes=shape, strides=(0, 1, 0, 0))
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, s, z = g.input(i8), g.input(scale), g.input(zero)
    y = dml.graph.quantize_linear(dml.graph.round(dml.graph.dequantize_linear(x, s, z), "TOWARD_ZERO"), s, z)
    return g.desc_for([y])


def test_a_graph_desc_draws_every_node_and_edge() -> None:
    desc = readme_graph()
    svg = desc.picture().svg
    found = classes(svg)
    assert found["node"] == 3 and found["graph-input"] == 3 and found["graph-output"] == 1
    assert found["edge input"] == 5 and found["edge intermediate"] == 2 and found["edge output"] == 1
    assert found["kernel fused"] == 0 and found["kernel single"] == 0  # a descriptor has no kernels yet
    # x, the zero point twice and the output are INT8; the scale twice and the two intermediates FLOAT32.
    assert Counter(texts(svg, "edge-label")) == {"FLOAT32 [1, 3, 2, 2]": 4, "INT8 [1, 3, 2, 2]": 4}
    assert desc._repr_svg_() == svg


def boxes_of(root: ET.Element, cls: str) -> list[tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) of each rect in a group of class ``cls`` (or the rect of that class)."""
    rects = [r for g in root.iter(f"{SVG}g") if g.get("class") == cls for r in g.iter(f"{SVG}rect")]
    rects += [r for r in root.iter(f"{SVG}rect") if r.get("class") == cls]
    sides = ([float(r.get(a, 0)) for a in ("x", "y", "width", "height")] for r in rects)
    return [(x, y, x + w, y + h) for x, y, w, h in sides]


def lanes_of(d: str) -> list[float]:
    """Heights of an edge's level runs beneath the nodes: an L to the same height, not straight after the M."""
    return [float(y) for y in re.findall(r" [-0-9.]+,([-0-9.]+) L[-0-9.]+,\1 C", d)]


def assert_no_edge_under_a_node(svg: str) -> list[float]:
    """No edge path passes inside a node box (constants included); the heights of the lanes drawn."""
    root = ET.fromstring(svg)
    boxes = boxes_of(root, "node") + boxes_of(root, "node constant")
    lanes = []
    for path in root.iter(f"{SVG}path"):
        d = path.get("d", "")
        inside = [
            (x, y) for x, y in path_points(d) for x0, y0, x1, y1 in boxes if x0 + 1 < x < x1 - 1 and y0 + 1 < y < y1 - 1
        ]
        assert not inside, f"{path.get('class')} {d} passes under a node at {inside[:3]}"
        lanes += lanes_of(d)
    return lanes


def test_edges_that_skip_columns_run_beneath_the_nodes_they_pass() -> None:
    """Dequantize -> Round -> Identity -> Round -> Quantize: the scale and zero point reach Quantize past three
    nodes, on two lanes that keep apart."""
    shape = (1, 3, 2, 2)
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape))
    s = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape, strides=(0, 1, 0, 0)))
    z = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape, strides=(0, 1, 0, 0)))
    middle = dml.graph.round(dml.graph.identity(dml.graph.round(dml.graph.dequantize_linear(x, s, z)), (2.0, 0.0)))
    svg = g.desc_for([dml.graph.quantize_linear(middle, s, z)]).picture().svg
    assert len(boxes_of(ET.fromstring(svg), "node")) == 5
    lanes = assert_no_edge_under_a_node(svg)
    assert len(lanes) == 2 and abs(lanes[0] - lanes[1]) >= 8


def test_edges_clear_constant_nodes_and_the_wider_nodes_beside_them() -> None:
    """Constants stand in a band under the operator nodes, in the column left of their first reader: an edge from
    a graph input passes over the constants under the inputs (wider than the input pills), and an edge from a
    constant passes the operator nodes of its own column (wider than the constant) before it climbs."""
    i8, f32 = (dml.BufferTensorDesc(data_type=t, sizes=(1, 1, 2, 2)) for t in ("INT8", "FLOAT32"))
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x, s = g.input(i8), g.input(f32)
    q = dml.graph.quantize_linear(dml.graph.dequantize_linear(x, 0.5, 3), 0.25, 1)
    assert_no_edge_under_a_node(g.desc_for([dml.graph.dequantize_linear(q, s)]).picture().svg)
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    x = g.input(f32)
    first, second, third = (
        dml.graph.round(x, mode) for mode in ("TOWARD_ZERO", "TOWARD_INFINITY", "HALVES_TO_NEAREST_EVEN")
    )
    assert_no_edge_under_a_node(g.desc_for([dml.graph.quantize_linear(first, 0.5, 3), second, third]).picture().svg)


def test_a_lane_keeps_clear_of_kernel_outlines(default_device: dml.Device) -> None:
    """The fused kernel's outline lies 10 px below its taller nodes (Dequantize, Quantize); the edge from Dequantize
    to Quantize's scale runs beneath the shorter Rounds, and keeps 8 px from the outline's borders."""
    g = dml.Graph(default_device)
    dequantized = dml.graph.dequantize_linear(g.input(dml.BufferTensorDesc(data_type="INT8", sizes=(1, 1, 2, 2))), 0.5)
    rounded = dml.graph.round(dml.graph.round(dequantized))
    svg = default_device.compile_graph(g.desc_for([dml.graph.quantize_linear(rounded, dequantized)])).picture().svg
    lanes = assert_no_edge_under_a_node(svg)
    (outline,) = boxes_of(ET.fromstring(svg), "kernel fused")
    assert lanes and all(abs(lane - border) >= 8 for lane in lanes for border in (outline[1], outline[3]))


def test_compiled_graphs_outline_their_kernels(default_device: dml.Device) -> None:
    desc = readme_graph()
    assert classes(default_device.compile_graph(desc).picture())["kernel fused"] == 1
    one_by_one = classes(default_device.compile_graph(desc, fuse=False).picture())
    assert one_by_one["kernel single"] == 3 and one_by_one["kernel fused"] == 0


def test_constant_nodes_are_drawn_as_constants(default_device: dml.Device) -> None:
    g = dml.Graph(default_device)
    x = g.input(F32)
    y = dml.graph.quantize_linear(x, 0.5, 3, dtype="UINT8")
    found = classes(g.picture())
    assert found["node constant"] == 2 and found["node"] == 1 and found["edge intermediate"] == 2
    assert g._repr_svg_() == g.picture().svg
    assert classes(g.compile([y]).picture())["kernel single"] + classes(g.compile([y]).picture())["kernel fused"] == 1


def test_a_refused_graph_flags_what_its_message_names() -> None:
    desc = readme_graph()
    data = desc.model_dump(by_alias=True)
    data["IntermediateEdges"][1]["Desc"]["ToNodeInputIndex"] = 1  # round's output into quantize's ScaleTensor
    broken = GraphDesc.model_validate(data)
    with pytest.raises(dml.InvalidArgumentError) as caught:
        broken.validate_on(dml.FeatureLevel.FL_6_4)
    message = str(caught.value)
    named = set(re.findall(r"(Nodes|InputEdges|IntermediateEdges|OutputEdges)\[(\d+)\]", message))
    assert named, message
    svg = broken.picture(problem=message).svg
    flagged = classes(svg)
    assert sum(n for cls, n in flagged.items() if cls.endswith("flagged")) == len(named)
    assert " ".join(texts(svg, "problem")) == message


def test_a_refused_operator_marks_the_elements_past_its_size() -> None:
    desc = dml.ElementWiseRoundOperatorDesc(
        input_tensor=dml.BufferTensorDesc(
            data_type="FLOAT32", sizes=(1, 1, 2, 3), strides=(8, 8, 4, 1), total_tensor_size_in_bytes=20
        ),
        output_tensor=dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 2, 3)),
    )
    with pytest.raises(dml.InvalidArgumentError, match="TotalTensorSizeInBytes is 20") as caught:
        dml.validate(desc, "6_4")
    found = classes(desc.picture(str(caught.value)))
    # Offsets 0 1 2 4 5 6; 20 bytes hold slots 0-4, so elements at 5 and 6 and those two slots lie past the end.
    assert found["element outside"] == 2 and found["slot outside"] == 2 and found["element"] == 10
    assert found["problem"] >= 2  # on top, and under the InputTensor it names
    assert classes(desc.picture())["element outside"] == 2  # drawn from the numbers, refused or not


def test_validate_svg_writes_the_picture_of_a_valid_or_refused_descriptor(tmp_path: Path) -> None:
    valid = run_dmlpy("validate", str(EXAMPLES / "round_padded.json"), "--svg", str(tmp_path / "padded.svg"))
    assert valid.returncode == 0 and valid.stdout.rstrip().endswith(f"picture written to {tmp_path / 'padded.svg'}")
    found = classes((tmp_path / "padded.svg").read_text())
    assert found["slot padding"] == 1 and found["slot rounding"] == 1  # FLOAT16: 7 slots spanned, 16 bytes
    refused = run_dmlpy("validate", str(EXAMPLES / "round_refused.json"), "--svg", str(tmp_path / "refused.svg"))
    assert refused.returncode == 1 and "picture written to" in refused.stdout
    assert classes((tmp_path / "refused.svg").read_text())["element outside"] == 2


def test_validate_svg_writes_nothing_for_json_that_makes_no_descriptor(tmp_path: Path) -> None:
    target = tmp_path / "kept.svg"
    target.write_text("an earlier picture")
    broken = run_dmlpy("validate", str(EXAMPLES / "round_broken.json"), "--svg", str(target), "--force")
    assert broken.returncode == 1 and f"no picture written to {target}" in broken.stdout
    assert target.read_text() == "an earlier picture"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.svg"]


def test_explain_svg_draws_the_graph_with_its_kernels(tmp_path: Path) -> None:
    done = run_dmlpy("explain", str(EXAMPLES / "qdq_graph.json"), "--svg", str(tmp_path / "graph.svg"))
    assert done.returncode == 0, done.stderr
    found = classes((tmp_path / "graph.svg").read_text())
    assert found["kernel fused"] == 1 and found["node"] == 3


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("round_refused.json", "invalid at DML_FEATURE_LEVEL_6_4"),
        ("round_broken.json", "RoundingMode"),
        ("tensor.json", "this is a tensor"),
    ],
)
def test_explain_svg_that_cannot_explain_writes_nothing_and_points_to_validate(
    tmp_path: Path, name: str, says: str
) -> None:
    source = tmp_path / "in" / name
    source.parent.mkdir()
    if name == "tensor.json":
        source.write_text('{"DataType": "FLOAT32", "Sizes": [2, 3]}', encoding="utf-8")
    else:
        source.write_bytes((EXAMPLES / name).read_bytes())
    refused = run_dmlpy("explain", str(source), "--svg", str(tmp_path / "refused.svg"))
    assert refused.returncode == 1 and says in refused.stderr
    assert f"no picture written to {tmp_path / 'refused.svg'}: explain draws a valid operator" in refused.stderr
    assert "`dmlpy validate --svg` draws tensors and where a refusal breaks" in refused.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["in"]


def test_a_table_still_draws_after_its_buffer_is_released(
    default_device: dml.Device, compiled: dml.CompiledOperator
) -> None:
    buffer = default_device.create_buffer(64)
    table = default_device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer)])
    table.bind_outputs([dml.BufferBinding(default_device.create_buffer(32))])
    buffer.release()
    assert "buffer 1: released" in [t.text for t in ET.fromstring(table.picture().svg).iter(f"{SVG}text")]
    assert classes(table.picture())["buffer"] == 2


def test_an_offset_past_the_buffer_carries_its_picture(
    default_device: dml.Device, compiled: dml.CompiledOperator
) -> None:
    table = default_device.create_binding_table(compiled)
    with pytest.raises(dml.InvalidArgumentError, match="past the end") as caught:
        table.bind_inputs([dml.BufferBinding(default_device.create_buffer(64), 128, 32)])
    assert classes(caught.value.picture)["conflict"] == 1


def test_a_temporary_resource_past_its_buffer_carries_its_picture(default_device: dml.Device) -> None:
    compiled_graph = default_device.compile_graph(readme_graph(), fuse=False)
    needed = compiled_graph.get_binding_properties().temporary_resource_size
    assert needed > 0
    table = default_device.create_binding_table(compiled_graph)
    buffer = default_device.create_buffer(256 + needed // 2)
    with pytest.raises(dml.InvalidArgumentError, match="must lie inside the buffer") as caught:
        table.bind_temporary_resource(dml.BufferBinding(buffer, 256, needed))
    found = classes(caught.value.picture)
    assert found["range temporary"] == 1 and found["conflict"] == 1


def test_a_builder_with_an_unread_input_shows_its_text(default_device: dml.Device) -> None:
    g = dml.Graph(default_device)
    x, _unread = g.input(F32), g.input(F32)
    dml.graph.round(x, "TOWARD_ZERO")
    assert g._repr_svg_() is None  # no DML_GRAPH_DESC yet: Jupyter shows repr(g), no traceback


def test_names_xml_cannot_hold_still_make_xml() -> None:
    data = readme_graph().model_dump(by_alias=True)
    data["Nodes"][1]["Desc"]["Name"] = 'r<o>&"\x01\x1f'
    svg = GraphDesc.model_validate(data).picture().svg
    # The subtitle shows the Name as messages do (problems.quoted): its controls as escapes, so XML holds them.
    assert '"r<o>&\\"\\x01\\x1f" (Nodes[1])' in [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_a_huge_graph_input_index_draws_a_bounded_picture() -> None:
    data = readme_graph().model_dump(by_alias=True)
    data["InputEdges"][0]["Desc"]["GraphInputIndex"] = 4_000_000_000
    del data["InputCount"]
    desc = GraphDesc.model_validate(data)
    assert desc.input_count == 4_000_000_001
    found = classes(desc.picture())
    assert found["graph-input"] <= 24 and found["elided"] == 1


def test_svg_never_overwrites_the_descriptor(tmp_path: Path) -> None:
    mine = tmp_path / "round.json"
    mine.write_text((EXAMPLES / "round.json").read_text())
    for command in ("validate", "explain"):
        done = run_dmlpy(command, str(mine), "--svg", str(mine))
        assert done.returncode == 2 and "refusing to overwrite it" in done.stderr
        assert mine.read_text() == (EXAMPLES / "round.json").read_text()


# ------------------------------------------------------------------------------------ labels a line never strikes
def labels_and_lines(
    svg: str,
) -> tuple[list[tuple[str, tuple[float, float, float, float]]], list[list[tuple[float, float]]]]:
    """The edge labels and kernel captions, each with its box; every edge and arrowhead as the points along it."""
    root = ET.fromstring(svg)
    labels = [
        (t.text or "", text_rect(t, root))
        for t in root.iter(f"{SVG}text")
        if t.get("class") in ("edge-label", "kernel-caption")
    ]
    lines = [path_points(p.get("d", "")) for p in root.iter(f"{SVG}path")]
    for polygon in root.iter(f"{SVG}polygon"):
        corners = [(float(x), float(y)) for x, y in (c.split(",") for c in polygon.get("points", "").split())]
        lines.append([*corners, corners[0]])
    return labels, lines


def assert_labels_clear(svg: str) -> int:
    """No edge or arrowhead passes within a pixel of an edge label or a kernel's caption, and no label comes within
    two pixels of a kernel outline's border (a label lies inside an outline or outside it); how many labels."""
    labels, lines = labels_and_lines(svg)
    outlines = boxes_of(ET.fromstring(svg), "kernel fused") + boxes_of(ET.fromstring(svg), "kernel single")
    for words, box in labels:
        struck = [points[0] for points in lines if polyline_enters(points, grown(box, 1))]
        assert not struck, f"label {words!r} {box} is crossed by the lines starting at {struck}"
        for outline in outlines:
            for a, b in border_segments(outline):
                assert not segment_enters(a, b, grown(box, 2)), f"label {words!r} {box} meets the outline {outline}"
    return len(labels)


def test_no_line_strikes_a_label_of_the_readme_and_cli_graphs(default_device: dml.Device, tmp_path: Path) -> None:
    """docs/images/qdq_graph.svg (compiled: one fused kernel), the same graph node by node (three kernels), its
    descriptor, and what `dmlpy validate examples/descriptors/qdq_graph.json --svg` writes."""
    desc = readme_graph()
    assert assert_labels_clear(default_device.compile_graph(desc).picture().svg) == 9  # 8 edges, 1 kernel
    assert assert_labels_clear(default_device.compile_graph(desc, fuse=False).picture().svg) == 11
    assert assert_labels_clear(desc.picture().svg) == 8
    done = run_dmlpy("validate", str(EXAMPLES / "qdq_graph.json"), "--svg", str(tmp_path / "qdq.svg"))
    assert done.returncode == 0, done.stderr
    assert assert_labels_clear((tmp_path / "qdq.svg").read_text()) == 9


def test_no_line_strikes_a_label_of_graphs_with_lanes_and_constants(default_device: dml.Device) -> None:
    """Edges skipping columns on lanes beneath the nodes, constants in their band, outputs read from several
    nodes, compiled and as descriptors."""
    shape = (1, 3, 2, 2)
    g = dml.Graph(default_device)
    x = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape))
    s = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=shape, strides=(0, 1, 0, 0)))
    z = g.input(dml.BufferTensorDesc(data_type="INT8", sizes=shape, strides=(0, 1, 0, 0)))
    dequantized = dml.graph.dequantize_linear(x, s, z)
    middle = dml.graph.round(dml.graph.identity(dml.graph.round(dequantized), (2.0, 0.0)))
    outputs = [dml.graph.quantize_linear(middle, s, z), dml.graph.quantize_linear(dequantized, 0.25, 1), middle]
    desc = g.desc_for(outputs)
    assert assert_labels_clear(desc.picture().svg) > 10
    assert assert_labels_clear(default_device.compile_graph(desc).picture().svg) > 10
    assert assert_labels_clear(default_device.compile_graph(desc, fuse=False).picture().svg) > 10
