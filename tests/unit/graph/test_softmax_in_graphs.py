"""An axis-reducing activation in a graph (docs/operators/activation_softmax.md): never element-wise, so the
element-wise nodes before and after it fuse among themselves and it runs its own lowering as a step of its own
(graph/fusion.py), which the graph's picture outlines. Planning is pure: no device. The values, bit for bit
against the operator alone, are the operator rows' graph test (tests/device/test_operator_rows_graphs.py)."""

from __future__ import annotations

import dmlpy as dml
from dmlpy.graph.fusion import plan_graph
from dmlpy.kernels import CPU_PROFILE

FL = dml.FeatureLevel


def test_a_softmax_node_is_a_step_of_its_own_between_fused_element_wise_groups() -> None:
    g = dml.Graph(FL.FL_6_2)
    x = g.input(dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=(3, 5, 7)))
    before = dml.graph.exp(dml.graph.identity(x, (2.0, 0.0)))  # a scaled copy computes: a node of the group
    y = dml.graph.activation_softmax1(before, axes=(0, 2))
    after = dml.graph.sqrt(dml.graph.activation_relu(y))
    desc = g.desc_for([after])
    plan = plan_graph(desc, desc.validate_on(FL.FL_6_2), CPU_PROFILE)
    assert [len(step.nodes) for step in plan.steps] == [2, 1, 2]
    middle = plan.steps[1]
    assert not middle.fused and middle.lowered.kernel.source_name == "softmax.cl"
    assert ("KEPT_RANK", "1") in middle.lowered.kernel.defines and (
        "REDUCED_RANK",
        "2",
    ) in middle.lowered.kernel.defines
    assert middle.lowered.global_size == 5, "one work-item per group: the kept dimension's 5"
    assert [ref.kind for ref in middle.tensors] == ["temporary", "temporary"]
    assert "ACTIVATION_SOFTMAX1" in g.picture().svg
