"""Where a model's run spends its time, per DirectML operator: one more run of a prepared model whose compiled graph
launches its kernels one at a time, each waited for and timed on the host (its launch included), the time of each
launch given to the operator it runs (a fused kernel to its anchor, the operator that is not element-wise, or to
"element-wise (fused)"). Used by benchmarks/bench_models.py's "where the time goes" column; never asserted."""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

_ELEMENT_WISE = ("ELEMENT_WISE_", "ACTIVATION_", "CAST")


def _label(types: list[str]) -> str:
    """A launch's operator: its one node's type; for a fused kernel, its anchor's, else element-wise."""
    if len(types) == 1:
        return types[0]
    anchors = [t for t in types if not t.startswith(_ELEMENT_WISE)]
    return f"{anchors[0]} (fused)" if anchors else "element-wise (fused)"


def time_by_operator(rep: Any, feeds: Any) -> dict[str, float]:
    """Seconds per operator of one ``rep.run(feeds)`` of the compiled graph its last run used (the same shapes),
    largest first."""
    from dmlpy.runtime import programs

    compiled = rep.compiled_graphs[-1]
    nodes = compiled.graph.nodes
    labels = {
        id(launchable): _label([nodes[n].desc.operator.type.name for n in step.nodes])
        for step, launchable in zip(compiled.plan.steps, compiled._launchables, strict=True)
    }
    seconds: defaultdict[str, float] = defaultdict(float)
    launch = programs.Launchable.launch

    def timed(self: Any, queue: Any, tensors: Any, wait_for: Any = None) -> Any:
        start = time.perf_counter()
        event = launch(self, queue, tensors, wait_for)
        event.wait()
        seconds[labels.get(id(self), self.lowered.kernel.kernel_name)] += time.perf_counter() - start
        return event

    programs.Launchable.launch = timed  # type: ignore[method-assign]
    try:
        rep.run(feeds)
    finally:
        programs.Launchable.launch = launch  # type: ignore[method-assign]
    return dict(sorted(seconds.items(), key=lambda item: -item[1]))
