"""A graph's Names are the user's text: any Unicode a C string can hold validates, compiles and runs, and none of it
ever reaches kernel source (issue 26: a Name holding a newline ended the fused kernel's comment, and the rest
compiled, writing past the output). NUL and lone surrogates, which a NUL-terminated UTF-8 ``const char*`` cannot
hold, are refused with a DmlError naming the field; messages show a Name with its controls escaped."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlpy as dml
from dmlpy.graph.fusion import plan_graph
from dmlpy.kernels import LaunchProfile
from tests.helpers.object_model import initialize

T = dml.TensorDataType
INJECTION = "x\n#define min(a, b) ((b) + 4000)\n//"
"""The Name that corrupted memory on f2aef26: min() then wrote 4000 elements past each work-item's range."""
PROFILES = [LaunchProfile("cpu", vector_width=8), LaunchProfile("gpu", vector_width=4, work_group_size=64)]

# Every code point, surrogates included, weighted towards what breaks C sources and terminals.
ANY_CHARACTER = st.characters(codec=None, exclude_categories=())
HOSTILE = st.sampled_from(["\0", "\n", "\r", "\u2028", "\u0085", "*/", "/*", "\\", '"', "\x1b[2J", "\ud800", "#", "\t"])
NAMES = st.none() | st.lists(HOSTILE | st.text(ANY_CHARACTER, max_size=4), max_size=6).map("".join)


def chain(names: list[str | None], edge_names: list[str | None], sizes: tuple[int, ...] = (1, 1, 4, 64)) -> Any:
    """Input -> Round -> Identity -> DequantizeLinear(QuantizeLinear) -> output, Names as given, from raw fields (so
    nothing but the models' own validation sees them)."""
    f32 = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes)
    u8 = dml.BufferTensorDesc(data_type=T.UINT8, sizes=sizes)
    scale = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes, strides=(0,) * len(sizes))
    ops = [
        dml.ElementWiseRoundOperatorDesc(input_tensor=f32, output_tensor=f32, rounding_mode="TOWARD_ZERO"),
        dml.ElementWiseIdentityOperatorDesc(input_tensor=f32, output_tensor=f32),
        dml.ElementWiseQuantizeLinearOperatorDesc(input_tensor=f32, scale_tensor=scale, output_tensor=u8),
        dml.ElementWiseDequantizeLinearOperatorDesc(input_tensor=u8, scale_tensor=scale, output_tensor=f32),
    ]
    return dml.GraphDesc.model_validate(
        {
            "Nodes": [{"Desc": {"Operator": op, "Name": name}} for op, name in zip(ops, names, strict=True)],
            "InputEdges": [
                {"Desc": {"GraphInputIndex": 0, "ToNodeIndex": 0, "ToNodeInputIndex": 0, "Name": edge_names[0]}},
                {"Desc": {"GraphInputIndex": 1, "ToNodeIndex": 2, "ToNodeInputIndex": 1, "Name": edge_names[1]}},
                {"Desc": {"GraphInputIndex": 1, "ToNodeIndex": 3, "ToNodeInputIndex": 1, "Name": edge_names[2]}},
            ],
            "IntermediateEdges": [
                {
                    "Desc": {
                        "FromNodeIndex": k,
                        "FromNodeOutputIndex": 0,
                        "ToNodeIndex": k + 1,
                        "ToNodeInputIndex": 0,
                        "Name": n,
                    }
                }
                for k, n in enumerate(edge_names[3:6])
            ],
            "OutputEdges": [
                {"Desc": {"FromNodeIndex": 3, "FromNodeOutputIndex": 0, "GraphOutputIndex": 0, "Name": edge_names[6]}},
            ],
        }
    )


def kernels(graph: Any) -> list[Any]:
    """Every KernelSpec (source file, defines, the fused kernel's #define prelude) the graph compiles to, fused and
    one node at a time, under both launch profiles."""
    analysis = graph.validate_on(dml.FeatureLevel.FL_6_4)
    return [
        step.lowered.kernel
        for profile in PROFILES
        for fuse in (True, False)
        for step in plan_graph(graph, analysis, profile, fuse=fuse).steps
    ]


UNNAMED = kernels(chain([None] * 4, [None] * 7))


def c_string_holds(name: str | None) -> bool:
    return name is None or not any(c == "\0" or "\ud800" <= c <= "\udfff" for c in name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NAMES, min_size=4, max_size=4), st.lists(NAMES, min_size=7, max_size=7))
def test_names_never_reach_kernel_source(names: list[str | None], edge_names: list[str | None]) -> None:
    if not all(map(c_string_holds, names + edge_names)):
        with pytest.raises(dml.DmlError, match=r"\.Name is .*(NUL character|lone surrogate)"):
            chain(names, edge_names)
        return
    graph = chain(names, edge_names)
    assert kernels(graph) == UNNAMED
    for index in range(len(graph.nodes)):
        label = graph.node_label(index)
        assert label.isprintable(), label  # controls, separators and format characters shown as escapes


def test_the_refusal_names_the_field_the_rule_and_the_fix() -> None:
    with pytest.raises(dml.InvalidArgumentError) as caught:
        chain(["a\0b", None, None, None], [None] * 7)
    assert str(caught.value) == (
        'DML_GRAPH_DESC.Nodes[0].Desc.Name is "a\\x00b": holds a NUL character at index 1; a C string ends at its '
        "first NUL: remove it"
    )
    with pytest.raises(
        dml.InvalidArgumentError, match=r"IntermediateEdges\[1\]\.Desc\.Name .* lone surrogate \(U\+DC00\)"
    ):
        chain([None] * 4, [None, None, None, None, "\udc00", None, None])


def test_messages_show_a_name_escaped() -> None:
    graph = chain(["\x1b[31mred\u202e", INJECTION, None, None], [None] * 7)
    assert graph.node_label(0) == 'Nodes[0] (ELEMENT_WISE_ROUND "\\x1b[31mred\\u202e")'
    assert graph.node_label(1) == 'Nodes[1] (ELEMENT_WISE_IDENTITY "x\\n#define min(a, b) ((b) + 4000)\\n//")'


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "one-by-one"])
def test_the_injection_name_compiles_and_runs_exactly(device: Any, fuse: bool) -> None:
    """The issue's Name on every node: the graph runs exactly (NumPy's trunc, then a uint8 quantize and back), the
    input is untouched and the bytes after the output binding keep their sentinel."""
    sizes = (1, 1, 4, 64)
    graph = chain([INJECTION] * 4, [INJECTION] * 7, sizes)
    compiled = device.compile_graph(graph, fuse=fuse)
    assert INJECTION not in compiled.source.split("\n", 1)[1]  # the header line names the nodes, escaped
    x = np.random.default_rng(26).uniform(-2, 300, sizes).astype(np.float32)
    scale = np.float32(0.5)
    sentinel = np.full(64, 0x5A, np.uint8)
    inputs = device.upload(x)
    scales = device.upload(np.array([scale], np.float32))
    output = device.create_buffer(x.nbytes + sentinel.nbytes)
    output.write(sentinel, x.nbytes)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(inputs), dml.BufferBinding(scales)])
    table.bind_outputs([dml.BufferBinding(output, 0, x.nbytes)])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size)))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    quantized = np.clip(np.rint(np.trunc(x) / scale), 0, 255)
    assert output.read(np.float32, x.size).reshape(sizes).tobytes() == (quantized * scale).astype(np.float32).tobytes()
    assert output.read(np.uint8, sentinel.size, x.nbytes).tobytes() == sentinel.tobytes()
    assert inputs.read(np.float32, x.size).reshape(sizes).tobytes() == x.tobytes()


def test_groups_of_one_shape_share_one_program() -> None:
    """Two chains of different Sizes (so two fused kernels): their kernel sources are the same, so the device
    builds one program for both (a 10,000-node tree was 2,250 builds when sources held node indices)."""
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    outputs = []
    for sizes in ((37,), (41,)):
        x = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes))
        outputs.append(dml.graph.identity(dml.graph.round(x, "TOWARD_ZERO"), (0.5, 1.0)))
    desc = g.desc_for(outputs)
    for profile in PROFILES:
        steps = plan_graph(desc, desc.validate_on(dml.FeatureLevel.FL_6_4), profile).steps
        assert [step.nodes for step in steps] == [(0, 1), (2, 3)]
        assert steps[0].lowered.kernel == steps[1].lowered.kernel


def test_an_edge_name_in_a_refusal_is_shown_escaped_and_a_long_one_cut() -> None:
    document = json.loads(chain([None] * 4, [None] * 7).model_dump_json(by_alias=True))
    edge = document["IntermediateEdges"][0]["Desc"]
    edge.update(Name='e\x1b[2J\n"x', ToNodeInputIndex=5)
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.GraphDesc.model_validate(document).validate_on(dml.FeatureLevel.FL_6_4)
    assert 'IntermediateEdges[0] "e\\x1b[2J\\n\\"x"' in str(caught.value)
    assert str(caught.value).isprintable()
    edge["Name"] = "n" * 100_000
    with pytest.raises(dml.InvalidArgumentError) as caught:
        dml.GraphDesc.model_validate(document).validate_on(dml.FeatureLevel.FL_6_4)
    assert f'IntermediateEdges[0] "{"n" * 80}..." (100000 characters)' in str(caught.value)
    assert len(str(caught.value)) < 1000
