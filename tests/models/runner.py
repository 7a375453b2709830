"""One model of the catalogue through ``dmlpy.onnx`` and onnxruntime: does it prepare (else the refusal's op types
and counts, verbatim), does it run, the largest error against onnxruntime and whether it is within the model's
tolerance, the ratio of one run's times (onnxruntime / dmlpy: above 1, dmlpy is faster), and the DirectML operators
of each kind the model became (the nodes of the DML_GRAPH_DESC it compiled, ``rep.compiled_graphs``)."""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tests.models.cache import Unobtainable
from tests.models.catalogue import Model
from tests.models.kernel_times import time_by_operator

REFUSED_LINE = re.compile(r"^  (\S+): (\d+) nodes?, ", re.MULTILINE)
"""A line of dmlpy.onnx's refusal of unmapped op types: ``  Conv: 53 nodes, the first graph.node[213] "Conv@0"``."""

SEED = 46


@dataclass
class Outcome:
    name: str
    kind: str
    precision: str
    stage: str  # unobtainable, onnxruntime fails, refused or crashed at prepare or at run, mismatch, matches
    message: str = ""  # the refusal (or why unobtainable), verbatim
    refused_ops: dict[str, int] = field(default_factory=dict)  # op type: nodes, from the refusal
    in_subgraphs: dict[str, int] = field(default_factory=dict)  # unmapped op types inside If/Loop/Scan bodies
    max_error: float | None = None  # the largest |dmlpy - onnxruntime| over every output
    onnxruntime_s: float | None = None
    dmlpy_s: float | None = None
    directml_operators: dict[str, int] = field(default_factory=dict)  # OperatorType name: nodes
    kernels: int | None = None  # the compiled graph's launches after fusion
    time_by_operator: dict[str, float] = field(default_factory=dict)  # seconds per operator (kernel_times.py)

    @property
    def ratio(self) -> float | None:
        """onnxruntime's time over dmlpy's, one run each after a first (compiling) one."""
        if self.onnxruntime_s is None or not self.dmlpy_s:
            return None
        return self.onnxruntime_s / self.dmlpy_s

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


def refused_op_counts(message: str) -> dict[str, int]:
    """The op types and node counts a refusal of unmapped op types names (empty for any other refusal)."""
    return {op: int(count) for op, count in REFUSED_LINE.findall(message)}


def unmapped_in_subgraphs(path: str) -> dict[str, int]:
    """Op types outside ``dmlpy.onnx.SUPPORTED_OPS`` inside the model's subgraphs (an If's branches), with their
    node counts: the refusal names the If, and planning needs what its branches hold."""
    import onnx

    from dmlpy.onnx import SUPPORTED_OPS

    def bodies(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
        for node in graph.node:
            for attribute in node.attribute:
                for body in [*([attribute.g] if attribute.HasField("g") else []), *attribute.graphs]:
                    yield body
                    yield from bodies(body)

    model = onnx.load(path, load_external_data=False)
    found = Counter(
        node.op_type for body in bodies(model.graph) for node in body.node if node.op_type not in SUPPORTED_OPS
    )
    return dict(found.most_common())


def onnxruntime_outputs(path: str, feeds: dict[str, np.ndarray[Any, Any]]) -> tuple[list[Any], float]:
    """onnxruntime's CPU provider on every core this process may use (dmlpy's OpenCL CPU device uses them too),
    computing what the graph says: the outputs and one run's seconds, after a first run."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = len(os.sched_getaffinity(0))
    # DequantizeLinear (int4 blocks) feeding MatMul as the graph says, in float32: by default onnxruntime fuses the
    # pair into MatMulNBits at accuracy level 4, quantizing the activations to int8 (9.4e-4 off on hf-bert-int4).
    options.add_session_config_entry("session.qdq_matmulnbits_accuracy_level", "0")
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    session.run(None, feeds)
    start = time.perf_counter()
    outputs = session.run(None, feeds)
    return outputs, time.perf_counter() - start


def fused_reference_outputs(path: str, feeds: dict[str, np.ndarray[Any, Any]]) -> list[Any]:
    """onnxruntime's CPU provider on the QDQ model as dmlpy runs it: its quantized Convs and MatMuls fused into
    QLinearConv and QLinearMatMul where ``dmlpy.onnx.qdq.fuse_qdq`` fuses them (where onnxruntime's default run does
    too), every other node as the graph says, onnxruntime's own optimizations off (its default run also fuses
    QLinearConcat, QLinearSigmoid, QLinearMul, ..., contrib operators that requantize in their own arithmetic, which
    dmlpy computes as the graph's float chain)."""
    import onnx
    import onnxruntime as ort

    from dmlpy.onnx.initializers import initializer_types
    from dmlpy.onnx.qdq import fuse_qdq

    model = onnx.load(path)
    fused = fuse_qdq(model.graph, initializer_types(model.graph))
    del model.graph.node[:]
    model.graph.node.extend(fused.node)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = len(os.sched_getaffinity(0))
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


def max_error(got: Any, want: list[Any], model: Model) -> tuple[float, bool]:
    """The largest absolute difference over all outputs, and whether every element is within the tolerance."""
    worst, within = 0.0, True
    for mine, theirs in zip(got, want, strict=True):
        mine, theirs = np.asarray(mine, np.float64), np.asarray(theirs, np.float64)
        if mine.shape != theirs.shape:
            return float("inf"), False
        difference = np.abs(mine - theirs)
        worst = max(worst, float(np.max(difference, initial=0.0)))
        bound = model.tolerance.atol + model.tolerance.rtol * np.abs(theirs)
        within = within and bool(np.all(difference <= bound))
    return worst, within


def directml_operators(rep: Any) -> tuple[dict[str, int], int]:
    """Operator nodes of the DML_GRAPH_DESC compiled last, by OperatorType, and its kernel count after fusion."""
    compiled = rep.compiled_graphs[-1]
    types = Counter(node.desc.operator.type.name for node in compiled.graph.nodes if hasattr(node.desc, "operator"))
    return dict(types.most_common()), int(compiled.kernel_count)


def run_model(model: Model, dml_device: Any = None, *, time_operators: bool = False) -> Outcome:
    """``model`` prepared and run by dmlpy.onnx and by onnxruntime on the same inputs (seeded); with
    ``time_operators`` one more run, its kernels timed one by one (``kernel_times.time_by_operator``)."""
    import dmlpy as dml
    import dmlpy.onnx

    outcome = Outcome(model.name, model.kind, model.precision, "unobtainable")
    try:
        path = str(model.obtain())
    except Unobtainable as error:
        outcome.message = str(error)
        return outcome
    feeds = model.inputs(np.random.default_rng(SEED))
    try:
        want, outcome.onnxruntime_s = onnxruntime_outputs(path, feeds)  # the default run: its time
        if model.fused_reference:
            want = fused_reference_outputs(path, feeds)
    except Exception as error:  # onnxruntime's own errors have no common base class
        outcome.stage, outcome.message = "onnxruntime fails", f"{type(error).__name__}: {error}"
        return outcome
    try:
        rep = dmlpy.onnx.prepare(path, dml_device=dml_device)
    except dml.DmlError as error:
        outcome.stage, outcome.message = "refused at prepare", str(error)
        outcome.refused_ops = refused_op_counts(outcome.message)
        outcome.in_subgraphs = unmapped_in_subgraphs(path)
        return outcome
    except Exception as error:  # a dmlpy bug: every refusal is a DmlError; kept in the row, not raised
        outcome.stage, outcome.message = "crashed at prepare", f"{type(error).__name__}: {error}"
        return outcome
    try:
        rep.run(feeds)  # the first run compiles the graph for these shapes
        start = time.perf_counter()
        got = rep.run(feeds)
        outcome.dmlpy_s = time.perf_counter() - start
    except dml.DmlError as error:
        outcome.stage, outcome.message = "refused at run", str(error)
        outcome.refused_ops = refused_op_counts(outcome.message)
        return outcome
    except Exception as error:
        outcome.stage, outcome.message = "crashed at run", f"{type(error).__name__}: {error}"
        return outcome
    outcome.directml_operators, outcome.kernels = directml_operators(rep)
    if time_operators:
        outcome.time_by_operator = time_by_operator(rep, feeds)
    outcome.max_error, within = max_error(got, want, model)
    outcome.stage = "matches" if within else "mismatch"
    return outcome
