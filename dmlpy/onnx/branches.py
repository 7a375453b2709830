"""ONNX's If, decided on the host: DirectML's graphs have no control flow, so an If runs only where its condition is
known before the graph is built, and its taken branch's nodes are lowered in its place (the branch's outputs
renamed to the If's, through Identity nodes), as onnxruntime's DirectML provider leaves If to the CPU.

Two ways a condition is known: from the shapes (``dmlpy.onnx.folding`` folds it with the shape arithmetic), or
from the values of graph inputs, at ``run`` (a sample rate given as an input: silero-vad's 16 kHz and 8 kHz
branches). For the second, the condition's ancestry (the nodes it depends on) must read only graph inputs, small
initializers (at most ``SMALL`` elements, which folding holds on the host) and each other: it is computed on the
host by onnx.reference for each run's inputs, and the model is compiled once per set of shapes and condition
values. A condition that depends on what the model's weights compute (a large initializer, another If, a Loop) is
refused saying so: it would need the device's results before the device's graph is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from dmlpy.lru import LruCache
from dmlpy.onnx.elements import NodeRefused
from dmlpy.onnx.folding import RANDOM_OPS, SMALL

_UNDECIDABLE = ("If", "Loop", "Scan", *RANDOM_OPS)
"""Op types a condition decided at run may not depend on: control flow (its own outputs undecided) and random
values."""
_SHAPES = ("Shape", "Size")
MAX_CONDITION_PLANS = 64
"""How many sets of input shapes a prepared model keeps its conditions' evaluator for (as its compiled graphs)."""


@dataclass(frozen=True)
class RunConditions:
    """The If conditions a model's graph inputs decide, for one set of shapes: ``names``, in the graph's order, and
    ``values(arrays)`` computing them on the host (onnx.reference over their ancestry)."""

    names: tuple[str, ...]
    inputs: tuple[str, ...]
    evaluator: Any

    def values(self, arrays: Mapping[str, np.ndarray[Any, Any]]) -> tuple[bool, ...]:
        if not self.names:
            return ()
        results = self.evaluator.run(None, {name: arrays[name] for name in self.inputs})
        return tuple(bool(np.asarray(value).reshape(-1)[0]) for value in results)


NO_CONDITIONS = RunConditions((), (), None)


class Branches:
    """A prepared model's If nodes decided at each run: ``decided(shapes, arrays)``, each condition's value for these
    inputs (None where the model has no If the inputs decide), from an evaluator kept per set of shapes (the
    model folded for them by ``fold``, a function of the shapes: ``dmlpy.onnx.folding.folded_for``'s model)."""

    def __init__(self, conditions: RunConditions, fold: Callable[[Mapping[str, tuple[int, ...]]], Any]) -> None:
        self.any = bool(conditions.names)
        self._fold = fold
        self._plans: LruCache[tuple[tuple[int, ...], ...], RunConditions] = LruCache(MAX_CONDITION_PLANS)

    def decided(self, input_names: Sequence[str], arrays: Mapping[str, np.ndarray[Any, Any]]) -> dict[str, bool] | None:
        if not self.any:
            return None
        key = tuple(arrays[name].shape for name in input_names)
        plan = self._plans.get(key)
        if plan is None:
            folded = self._fold({name: arrays[name].shape for name in input_names})
            plan = self._plans.put(key, run_conditions(folded, input_names))
        return dict(zip(plan.names, plan.values(arrays), strict=True))


def run_conditions(model: onnx.ModelProto, input_names: Sequence[str], open_shapes: bool = False) -> RunConditions:
    """The conditions of ``model``'s If nodes (folded for its shapes: the ones the shapes decide are gone), each
    computed from graph inputs' values; NodeRefused for one that depends on anything else, naming it and why. With
    ``open_shapes`` (prepare's stand-in shapes), the shape of a computed value is taken as the first run's to fold,
    and no evaluator is made."""
    graph = model.graph
    ifs = [node for node in graph.node if node.op_type == "If"]
    if not ifs:
        return NO_CONDITIONS
    producer = {output: node for node in graph.node for output in node.output}
    small = {t.name for t in graph.initializer if int(np.prod(t.dims, dtype=np.int64)) <= SMALL}
    needed: list[onnx.NodeProto] = []
    seen: set[int] = set()
    read_inputs: set[str] = set()
    names = tuple(node.input[0] for node in ifs)
    for if_node, cond in zip(ifs, names, strict=True):
        stack = [cond]
        while stack:
            name = stack.pop()
            if not name or name in small:
                continue
            if name in input_names:
                read_inputs.add(name)
                continue
            node = producer.get(name)
            if node is None:
                raise NodeRefused(
                    f"{_shown(if_node)}: its condition reads {name!r}, a weight of more than {SMALL} elements that "
                    "dmlpy keeps on the device only; dmlpy decides an If on the host, from graph inputs' values and "
                    "shapes and small initializers, when run is called"
                )
            if node.op_type in _UNDECIDABLE or node.domain not in ("", "ai.onnx"):
                raise NodeRefused(
                    f"{_shown(if_node)}: its condition {cond!r} depends on {name!r}, an output of a node of op "
                    f"type {node.op_type}, which the host cannot compute before the device's graph is built; "
                    "dmlpy decides an If from graph inputs' values and shapes and small initializers only "
                    "(DirectML's graphs have no control flow)"
                )
            if node.op_type in _SHAPES and node.input[0] not in input_names:
                if open_shapes:
                    continue  # the first run's shapes may fold it
                raise NodeRefused(
                    f"{_shown(if_node)}: its condition {cond!r} reads the shape of {node.input[0]!r}, which ONNX's "
                    "shape inference cannot follow for these input shapes; dmlpy decides an If on the host before "
                    "the device computes anything"
                )
            if id(node) not in seen:
                seen.add(id(node))
                needed.append(node)
                stack.extend(node.input)
    if open_shapes:
        return RunConditions(names, (), None)
    order = {id(node): index for index, node in enumerate(graph.node)}
    needed.sort(key=lambda node: order[id(node)])
    inputs = tuple(value for value in graph.input if value.name in read_inputs)
    initializers = [t for t in graph.initializer if t.name in small and _read_by(t.name, needed)]
    outputs = [onnx.helper.make_tensor_value_info(name, onnx.TensorProto.BOOL, None) for name in names]
    sub = onnx.helper.make_graph(needed, "conditions", list(inputs), outputs, initializer=initializers)
    sub_model = onnx.helper.make_model(sub, opset_imports=list(model.opset_import))
    sub_model.ir_version = model.ir_version
    return RunConditions(names, tuple(value.name for value in inputs), ReferenceEvaluator(sub_model))


def _read_by(name: str, nodes: Sequence[onnx.NodeProto]) -> bool:
    return any(name in node.input for node in nodes)


def _shown(node: onnx.NodeProto) -> str:
    return f"ONNX node{' ' + repr(node.name) if node.name else ''} (If)"
