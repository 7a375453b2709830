"""An operator that runs as several launches with a temporary resource between them (``OperatorDescBase.plan``):
alone, through compile_operator, the binding table's temporary resource and one dispatch; and as a graph node,
its steps among the graph's and its region in the graph's temporary resource. Today's operators each run as one
launch; this operator is the test's own: ELEMENT_WISE_IDENTITY planned as two (x * 2 into a temporary, then
t - 1 into the output), so that a result equal to 2x - 1 shows both launches ran, in order, through the region."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.kernels import CPU_PROFILE, InputView, LaunchProfile, OperatorPlan, PlannedStep, PlanRef
from tests.helpers.object_model import NUMPY_TYPE, compile_and_initialize, run_graph

T = dml.TensorDataType


class TwoLaunchIdentity(dml.ElementWiseIdentityOperatorDesc):
    """x * 2 - 1 in two launches, the middle value in a FLOAT32 temporary region; no expression, so that a graph
    runs it as a node of its own (as it will a reduction), never fused."""

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        return None

    def input_view(self) -> InputView | None:
        return None  # it computes: no view of its input, so a graph runs it (Identity's plain copy is a view)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        middle = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=self.input_tensor.desc.sizes)
        identity = dml.ElementWiseIdentityOperatorDesc
        double = identity(
            input_tensor=self.input_tensor, output_tensor=middle, scale_bias=dml.ScaleBias(scale=2.0, bias=0.0)
        )
        less_one = identity(
            input_tensor=middle, output_tensor=self.output_tensor, scale_bias=dml.ScaleBias(scale=1.0, bias=-1.0)
        )
        return OperatorPlan(
            (
                PlannedStep(double.lower(profile), (PlanRef("input", 0), PlanRef("temporary", 0))),
                PlannedStep(less_one.lower(profile), (PlanRef("temporary", 0), PlanRef("output", 0))),
            ),
            (middle,),
        )


def _desc(sizes: tuple[int, ...]) -> TwoLaunchIdentity:
    tensor = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes)
    return TwoLaunchIdentity(input_tensor=tensor, output_tensor=tensor)


def test_an_operator_of_two_launches_runs_through_its_temporary_resource(device: Any) -> None:
    x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(1, 2, 3, 4)
    compiled = compile_and_initialize(device, _desc(x.shape))
    assert compiled.kernel_count == 2
    properties = compiled.get_binding_properties()
    assert properties.temporary_resource_size == x.nbytes
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(device.upload(x))])
    output = device.create_buffer(x.nbytes)
    table.bind_outputs([dml.BufferBinding(output)])
    with np.testing.assert_raises(dml.DmlError):  # the plan's region must be bound before a dispatch
        device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    # An offset binding: the regions are placed from the binding's offset on.
    table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(256 + x.nbytes), offset=256))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    got = output.read(NUMPY_TYPE[T.FLOAT32], x.size).reshape(x.shape)
    np.testing.assert_array_equal(got, x * np.float32(2) - np.float32(1))
    assert "// ==== kernel 2 of 2" in compiled.source


def test_a_graph_node_of_two_launches_becomes_two_steps_and_a_region(device: Any) -> None:
    sizes = (1, 1, 4, 5)
    tensor = dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=sizes)
    g = dml.Graph(device)
    x = g.input(tensor)
    planned = g.add_operator(_desc(sizes), [dml.graph.abs(x)])
    y = dml.graph.negate(planned)
    desc = g.desc_for([y])
    values = np.linspace(-2, 2, 20, dtype=np.float32).reshape(sizes)
    (got,), compiled = run_graph(device, desc, [values])
    np.testing.assert_array_equal(got, -(np.abs(values) * np.float32(2) - np.float32(1)))
    steps = compiled.plan.steps
    assert [step.nodes for step in steps] == [(0,), (1,), (1,), (2,)]
    kinds = [[ref.kind if ref else None for ref in step.tensors] for step in steps]
    assert kinds == [
        ["input", "temporary"],
        ["temporary", "temporary"],
        ["temporary", "temporary"],
        ["temporary", "output"],
    ]
    # abs's output, the node's own region, its output: three regions, none shared.
    assert len({ref.index for step in steps for ref in step.tensors if ref and ref.kind == "temporary"}) == 3
