"""What an ONNX model becomes in DirectML (``explain_model``; ``dmlpy explain model.onnx``): the DML_GRAPH_DESC
dmlpy.onnx lowers it to for a set of input shapes, the DirectML operators of its nodes with their counts, the
kernels compile_graph would launch (fused groups among them), the operator nodes that cost no kernel (views their
readers read in place, dmlpy.graph.views) and the ONNX nodes that became no node at all (Transpose, Reshape, ...:
a reader's own tensor desc, dmlpy.onnx.views); and a picture of the graph with its kernels outlined."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dmlpy.drawing import Picture
from dmlpy.drawing.graph import DrawnKernel
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Graph
from dmlpy.graph.desc import GraphDesc, OperatorGraphNodeDesc
from dmlpy.graph.fusion import GraphPlan, plan_graph
from dmlpy.onnx.backend import lower_for
from dmlpy.onnx.views import VIEW_OPS


@dataclass(frozen=True)
class ModelExplained:
    """An ONNX model as DirectML runs it, for one set of input shapes."""

    shapes: dict[str, tuple[int, ...]]
    desc: GraphDesc
    plan: GraphPlan
    onnx_nodes: Counter[str]
    """The model's nodes by op type."""

    @property
    def operators(self) -> Counter[str]:
        """The graph's operator nodes by DirectML operator (DML_OPERATOR_ less)."""
        return Counter(
            node.desc.op.operator_name() for node in self.desc.nodes if isinstance(node.desc, OperatorGraphNodeDesc)
        )

    @property
    def in_place(self) -> list[int]:
        """The operator nodes no kernel launches: views their readers read through strides."""
        launched = {node for step in self.plan.steps for node in step.nodes}
        return [
            index
            for index, node in enumerate(self.desc.nodes)
            if isinstance(node.desc, OperatorGraphNodeDesc) and index not in launched
        ]

    def lines(self) -> list[str]:
        """The report ``dmlpy explain model.onnx`` prints."""
        shapes = ", ".join(f"{name} {list(shape)}" for name, shape in self.shapes.items())
        fused = [step for step in self.plan.steps if step.fused]
        views = sum(count for op_type, count in self.onnx_nodes.items() if op_type in VIEW_OPS)
        lines = [
            f"// ONNX model of {sum(self.onnx_nodes.values())} nodes, for inputs {shapes}:",
            f"// a DML_GRAPH_DESC of {sum(self.operators.values())} operator nodes, {len(self.plan.steps)} kernels "
            f"({len(fused)} fused, of {sum(len(step.nodes) for step in fused)} nodes), TemporaryResourceSize "
            f"{self.plan.temporary_size}",
            "",
            "DirectML operators (nodes):",
            *(f"  {name}: {count}" for name, count in self.operators.most_common()),
            "",
            f"ONNX nodes that became views, no node at all: {views}"
            + (f" ({_listed(Counter({t: c for t, c in self.onnx_nodes.items() if t in VIEW_OPS}))})" if views else ""),
            f"operator nodes read in place, no kernel: {len(self.in_place)}"
            + (f" ({', '.join(self.desc.node_label(n) for n in self.in_place)})" if self.in_place else ""),
            "",
            "kernels in launch order:",
        ]
        for index, step in enumerate(self.plan.steps):
            nodes = " -> ".join(self.desc.node_label(node) for node in step.nodes)
            lines.append(f"  {index + 1}. {nodes}{' (fused)' if step.fused else ''}")
        return lines

    def picture(self) -> Picture:
        kernels = [DrawnKernel(step.nodes, step.fused) for step in self.plan.steps]
        return self.desc.picture(kernels, title=f"what the ONNX model becomes: {self.desc.describe()}")


def explain_model(rep: Any, shapes: Mapping[str, tuple[int, ...]] | None = None) -> ModelExplained:
    """``rep`` (a prepared model, ``dmlpy.onnx.prepare``) lowered for graph inputs of ``shapes`` (by name; left
    out, each input's declared shape, which must then be fixed), planned as its device's compile_graph would."""
    given = dict(shapes or {})
    for name in rep.input_names:
        if name in given:
            continue
        declared = rep.input_shapes.get(name)
        if declared is None or not all(isinstance(size, int) for size in declared):
            raise InvalidArgumentError(
                f"ONNX graph input {name!r} is declared of shape {declared}; give its shape "
                f"(dmlpy explain model.onnx --shape {name}=1,3,224,224, or shapes={{{name!r}: (...)}})"
            )
        given[name] = tuple(int(size) for size in declared)
    unknown = sorted(set(given) - set(rep.input_names))
    if unknown:
        raise InvalidArgumentError(f"shapes names {unknown}, which are not the model's graph inputs {rep.input_names}")
    desc = lower_for(rep, Graph(rep.device.feature_level), given).desc  # what a run compiles, folding included
    plan = plan_graph(desc, desc.validate_on(rep.device.feature_level, extensions=True), rep.device.launch_profile)
    return ModelExplained(given, desc, plan, Counter(node.op_type for node in rep.model.graph.node))


def _listed(counts: Counter[str]) -> str:
    return ", ".join(f"{op_type} {count}" for op_type, count in counts.most_common())
