"""Graph JSON fuzzed (hypothesis): random graphs of every operator and data type, their JSON mutated (a value
replaced, a key removed) and every node and edge given an arbitrary Unicode Name. Each document is either refused
with a DmlError, or it validates, compiles and runs, the fused kernels bit-identical to the nodes one by one
(``fuse=False``), the inputs untouched and the bytes after every output binding still their sentinel. Never another
exception, never a hang: a document still running after HANG_SECONDS ends the test process with every thread's
stack. The default suite runs a few dozen documents per device and profile; ``--run-slow`` runs many more."""

from __future__ import annotations

import faulthandler
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import dmlpy as dml
from tests.helpers.object_model import initialize

T = dml.TensorDataType
SIZES = [(37,), (2, 3, 5), (1, 1, 4, 8)]
FLOATS = [T.FLOAT32, T.FLOAT16]
INTEGERS = [T.INT8, T.UINT8]
SENTINEL = 0xA5
RUN_LIMIT = 1 << 20
"""Bytes a mutated document may ask a binding for before it is only compiled, not run."""

NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\0"), max_size=12) | st.sampled_from(
    ["x\n#define min(a, b) ((b) + 4000)\n//", "*/", "\\", "\x1b[2J", "\u202e", "\r\n"]
)
"""Names a C string holds: any Unicode but NUL and surrogates, and the ones that once became code."""
REFUSED_NAMES = st.sampled_from(["\0", "a\ud800", "\udfff"])
MUTANT_VALUES = st.one_of(
    st.sampled_from([None, True, 0, 1, 2, 3, -1, 7, 2**32 - 1, 2**32, 2**64, 0.5, "", "FLOAT16", "INT8", [], {}]),
    st.text(max_size=6),
    st.integers(-5, 40),
    st.lists(st.integers(0, 9), max_size=5),
)


@st.composite
def built_graphs(draw: st.DrawFn) -> dml.GraphDesc:
    """A graph the builder makes: one or two inputs, then up to 6 nodes, each on a value made before it."""
    sizes = draw(st.sampled_from(SIZES))
    g = dml.Graph(dml.FeatureLevel.FL_6_4)
    node_count = draw(st.integers(1, 6))
    values = [
        g.input(dml.BufferTensorDesc(data_type=draw(st.sampled_from(FLOATS + INTEGERS)), sizes=sizes))
        for _ in range(min(node_count, draw(st.integers(1, 2))))
    ]
    inputs = len(values)
    for index in range(node_count):
        x = values[index] if index < inputs else draw(st.sampled_from(values))  # every input is read
        scale = draw(st.sampled_from([0.5, 0.125, 3.0]))
        zero = draw(st.integers(0, 9))
        if x.data_type in FLOATS:
            op = draw(st.sampled_from(["round", "identity", "quantize"]))
        else:
            op = draw(st.sampled_from(["identity", "dequantize"]))
        if op == "round":
            values.append(dml.graph.round(x, draw(st.sampled_from(list(dml.RoundingMode)))))
        elif op == "identity":
            scale_bias = draw(st.none() | st.sampled_from([(0.5, 1.0), (2.0, -3.0)]))
            values.append(dml.graph.identity(x, scale_bias))
        elif op == "quantize":
            values.append(dml.graph.quantize_linear(x, scale, zero, dtype=draw(st.sampled_from(INTEGERS))))
        else:
            values.append(dml.graph.dequantize_linear(x, scale, zero, dtype=draw(st.sampled_from(FLOATS))))
    return g.desc  # its outputs: every value no node reads


def leaves(document: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value in the JSON document (dict keys and list indices)."""
    found = [path] if path else []
    if isinstance(document, dict):
        for key, value in document.items():
            found += leaves(value, (*path, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += leaves(value, (*path, index))
    return found


def mutate(document: Any, path: tuple[Any, ...], value: Any, remove: bool) -> None:
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    if remove and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


@st.composite
def documents(draw: st.DrawFn) -> Any:
    document = json.loads(draw(built_graphs()).model_dump_json(by_alias=True))
    for kind in ("Nodes", "InputEdges", "OutputEdges", "IntermediateEdges"):
        for item in document.get(kind, []):
            item["Desc"]["Name"] = draw(st.none() | NAMES)
    if draw(st.integers(0, 9)) == 0:
        nodes = document["Nodes"]
        nodes[draw(st.integers(0, len(nodes) - 1))]["Desc"]["Name"] = draw(REFUSED_NAMES)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        paths = leaves(document)
        path = draw(st.sampled_from(paths))
        mutate(document, path, draw(MUTANT_VALUES), draw(st.booleans()))
    return document


def run(device: Any, desc: dml.GraphDesc, inputs: list[bytes], fuse: bool) -> list[bytes]:
    """Every output's bytes followed by 64 bytes that began as sentinels, and every input's bytes afterwards."""
    compiled = device.compile_graph(desc, fuse=fuse)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    bound = [device.upload(np.frombuffer(data, np.uint8)) for data in inputs]
    table.bind_inputs([dml.BufferBinding(buffer) for buffer in bound])
    outputs = []
    for tensor in compiled.output_descs():
        buffer = device.create_buffer(tensor.total_tensor_size_in_bytes + 64)
        buffer.write(np.full(tensor.total_tensor_size_in_bytes + 64, SENTINEL, np.uint8))
        outputs.append((buffer, tensor.total_tensor_size_in_bytes))
    table.bind_outputs([dml.BufferBinding(buffer, 0, size) for buffer, size in outputs])
    temporary = compiled.get_binding_properties().temporary_resource_size
    if temporary:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(temporary)))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    read = [buffer.read(np.uint8, size + 64).tobytes() for buffer, size in outputs]
    return read + [buffer.read(np.uint8, len(data)).tobytes() for buffer, data in zip(bound, inputs, strict=True)]


HANG_SECONDS = 300
"""A document's bound: past it the test process prints every thread's stack and exits, a failure no deadline on a
busy 2-core machine could give falsely (one example takes well under a second; hypothesis' deadline is off)."""


def check_document(device: Any, document: Any, seed: int) -> None:
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    try:
        run_document(device, document, seed)
    finally:
        faulthandler.cancel_dump_traceback_later()


def run_document(device: Any, document: Any, seed: int) -> None:
    try:
        desc = dml.GraphDesc.model_validate(document)
        device.compile_graph(desc)
    except dml.DmlError as error:
        event(f"refused: {type(error).__name__}")
        return
    analysis = desc.analyse()
    sizes = [d.total_tensor_size_in_bytes for d in (*analysis.input_descs, *analysis.output_descs) if d is not None]
    if sum(sizes) > RUN_LIMIT:
        event("compiled, too large to run")
        return
    rng = np.random.default_rng(seed)
    inputs = [rng.integers(0, 256, d.total_tensor_size_in_bytes, np.uint8).tobytes() for d in analysis.input_descs]
    fused = run(device, desc, inputs, fuse=True)
    separate = run(device, desc, inputs, fuse=False)
    assert fused == separate
    event("ran")
    for data, tensor in zip(fused, analysis.output_descs, strict=False):
        assert tensor is not None
        assert data[tensor.total_tensor_size_in_bytes :] == bytes([SENTINEL]) * 64
    assert fused[len(fused) - len(inputs) :] == inputs


UNHURRIED = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)


@settings(UNHURRIED, max_examples=25)
@given(documents(), st.integers(0, 2**32 - 1))
def test_a_graph_document_runs_exactly_or_is_refused(device: Any, document: Any, seed: int) -> None:
    check_document(device, document, seed)


@pytest.mark.slow
@settings(UNHURRIED, max_examples=600)
@given(documents(), st.integers(0, 2**32 - 1))
def test_many_graph_documents_run_exactly_or_are_refused(device: Any, document: Any, seed: int) -> None:
    check_document(device, document, seed)
