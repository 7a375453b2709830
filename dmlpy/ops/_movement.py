"""What the operators that move data share when they run: a plan of copies, each a window of one tensor into
another (dmlpy/kernels/movement.py decides whether a copy is Identity's strided copy or movement.cl's mapped one).
"""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.dtypes import DATA_TYPES
from dmlpy.kernels import InputView, LaunchProfile, OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.movement import Window, strided_copy, window_copy
from dmlpy.tensor import TensorDesc


def window_plan(source: TensorDesc, target: TensorDesc, window: Window, profile: LaunchProfile) -> OperatorPlan:
    """One launch copying ``window`` of the operator's input 0 (``source``) into its output 0 (``target``)."""
    lowered, shift = window_copy(
        source.desc.data_type,
        window,
        source.desc.effective_strides,
        target.desc.sizes,
        target.desc.effective_strides,
        profile,
    )
    return OperatorPlan((PlannedStep(lowered, (PlanRef("input", 0, shift), PlanRef("output", 0))),))


def window_view(source: TensorDesc, target: TensorDesc, window: Window) -> InputView | None:
    """``window`` of input 0 (``source``) as a strided read of it, where it is one and the elements are whole
    bytes or more (a 4-bit view may start mid-byte, which only the copy's own pairing handles)."""
    if DATA_TYPES[source.desc.data_type].bits < 8:
        return None
    return window.view(source.desc.effective_strides, target.desc.sizes)


def view_plan(
    source: TensorDesc,
    target: TensorDesc,
    sizes: Sequence[int],
    source_strides: Sequence[int],
    target_strides: Sequence[int],
    profile: LaunchProfile,
) -> OperatorPlan:
    """One launch copying input 0 into output 0 over a shared index space of ``sizes``, each tensor read through
    its own strides there (a rearrangement such as DEPTH_TO_SPACE: both tensors' elements, in another order)."""
    lowered = strided_copy(source.desc.data_type, sizes, source_strides, target_strides, profile)
    return OperatorPlan((PlannedStep(lowered, (PlanRef("input", 0), PlanRef("output", 0))),))
