"""The lowering of the recurrent networks (RNN, LSTM, GRU: ``opencl/recurrent.cl``): one launch per time step, every
direction, batch item and hidden unit a work-item of it, the states carried between launches in one temporary region
of float rows (recurrent.cl's header says which).

The kernel takes the element-wise argument convention (dmlpy/kernels/source.py) over ``RECURRENT_TENSORS`` in that
order, an absent one bound as null: the layout's sizes are (seq_length, num_directions, batch_size, hidden_size,
input_size), its element count num_directions * batch_size * hidden_size (the units), each tensor's uint8 of strides
its four; then a uint8 of fields: the step, Direction, which optional tensors are bound
(``PRESENT_BITS``), ClipThreshold's float bits and UseClipThreshold. Only numbers vary per step, so every step of
every operator of one cell and activations shares one program."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.elementwise import TEMPLATE_OPTIONS
from dmlpy.kernels.launch import KernelParameter, LaunchProfile
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.source import KernelSpec
from dmlpy.tensor import BufferTensorDesc

RECURRENT_TENSORS = (
    "input_tensor",
    "weight_tensor",
    "recurrence_tensor",
    "bias_tensor",
    "hidden_init_tensor",
    "cell_mem_init_tensor",
    "sequence_lengths_tensor",
    "peephole_tensor",
    "output_sequence_tensor",
    "output_single_tensor",
    "output_cell_single_tensor",
)
"""recurrent.cl's tensors before the state region, by the descriptors' field names (RNN and GRU lack some)."""
PRESENT_BITS = {name: 1 << bit for bit, name in enumerate(RECURRENT_TENSORS[3:])}
"""recurrent.cl's HAS_* bits: which optional tensor is bound."""
CELLS = {"RNN": 0, "LSTM": 1, "GRU": 2}
"""recurrent.cl's CELL values."""
STATE_ROWS = 6
"""Rows of units in the state region: H twice (read, written), C twice, GRU's z and r * H_(t-1)."""
CPU_RUN = 32
"""Units per "cpu" work-item: a unit's work is (gates) x (input_size + hidden_size) fmas, so a few dozen units make a
work-item worth its launch without leaving small layers on one core."""


@dataclass(frozen=True)
class RecurrentShape:
    """The sizes one step works over, by the pages' names."""

    seq_length: int
    num_directions: int
    batch_size: int
    hidden_size: int
    input_size: int

    @property
    def units(self) -> int:
        return self.num_directions * self.batch_size * self.hidden_size


def recurrent_plan(
    cell: str,
    defines: Sequence[tuple[str, str]],
    prelude: str,
    shape: RecurrentShape,
    tensors: Sequence[tuple[PlanRef | None, tuple[int, ...]]],
    fields: tuple[int, int, int, int],
    profile: LaunchProfile,
    *,
    half: bool,
) -> OperatorPlan:
    """recurrent.cl's steps for ``cell`` (a ``CELLS`` name): ``tensors`` the (binding, four strides) of each of
    ``RECURRENT_TENSORS``, ``fields`` (Direction, the present bits, ClipThreshold's bits, UseClipThreshold);
    ``prelude`` defines the activations F0, G0, H0 (and F1, G1, H1 for the backward direction); GRU without
    LINEAR_BEFORE_RESET (``defines``) runs two phases a step."""
    two_phases = cell == "GRU" and ("LINEAR_BEFORE_RESET", "0") in defines
    state = BufferTensorDesc(data_type=TensorDataType.FLOAT32, sizes=(1, 1, STATE_ROWS, shape.units))
    refs = (*(ref for ref, _ in tensors), PlanRef("temporary", 0))
    strides = (*(strides for _, strides in tensors), (0, 0, 0, 1))
    sizes = (shape.seq_length, shape.num_directions, shape.batch_size, shape.hidden_size, shape.input_size)
    layout = ElementwiseLayout(shape.units, sizes, strides)
    direction, present, clip, use_clip = fields
    phases = []
    for phase in (0, 1) if two_phases else (1,):
        spec = KernelSpec(
            "recurrent.cl",
            "recurrent_step",
            (("CELL", str(CELLS[cell])), ("DML_FLOAT16", str(int(half))), ("PHASE", str(phase)), *defines),
            TEMPLATE_OPTIONS,  # the activations' divisions correctly rounded, as their element-wise kernels build
            prelude,
        )
        phases.append(spec)
    planned = [
        PlannedStep(
            profile.lowered(
                spec,
                layout,
                CPU_RUN,
                parameters=(KernelParameter("uint8", (step, direction, present, clip, use_clip, 0, 0, 0)),),
            ),
            refs,
        )
        for step in range(shape.seq_length)
        for spec in phases
    ]
    return OperatorPlan(tuple(planned), (state,))
