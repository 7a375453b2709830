"""The recurrent networks' shared rules (docs/operators/recurrent.md): RNN, LSTM and GRU are one loop over the
sequence with a different cell, so their tensors share one layout and one arithmetic of Sizes, written here once.

Every tensor is 4-D, packed as the pages give it (``num_directions`` 2 under Direction BIDIRECTIONAL, else 1;
``gates`` 1 for RNN, 4 for LSTM (i, o, f, c), 3 for GRU (z, r, h)):

* InputTensor { 1, seq_length, batch_size, input_size }: seq_length, batch_size and input_size are read here;
* RecurrenceTensor { 1, num_directions, gates * hidden_size, hidden_size }: hidden_size is read here;
* WeightTensor { 1, num_directions, gates * hidden_size, input_size };
* BiasTensor { 1, 1, num_directions, 2 * gates * hidden_size } (the input weights' biases, then the recurrence's);
* HiddenInitTensor (and LSTM's CellMemInitTensor) { 1, num_directions, batch_size, hidden_size };
* SequenceLengthsTensor { 1, 1, 1, batch_size }; LSTM's PeepholeTensor { 1, 1, num_directions, 3 * hidden_size };
* OutputSequenceTensor { seq_length, num_directions, batch_size, hidden_size }; OutputSingleTensor (and LSTM's
  OutputCellSingleTensor) { 1, num_directions, batch_size, hidden_size }.

ActivationDescs is an array of DML_OPERATOR_DESC, ActivationDescCount long: the cell's activations (RNN f; LSTM f,
g, h; GRU f, g) for each direction, forward's first. Each is checked as its own operator, on a { 1, 1, batch_size,
hidden_size } tensor of InputTensor's DataType (the gates it runs on), at the level asked.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import Field, model_validator

from dmlpy.enums import FeatureLevel, OperatorType, RecurrentNetworkDirection, TensorDataType, TensorFlags
from dmlpy.errors import DescriptorProblems, DmlError, InvalidArgumentError, UnsupportedError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan, PlanRef
from dmlpy.kernels.recurrent import PRESENT_BITS, RECURRENT_TENSORS, RecurrentShape, recurrent_plan
from dmlpy.model import DmlModel
from dmlpy.ops._base import OutputShape
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._structured import StructuredDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc

_TENSORS = ("InputTensor", "OutputTensor", "input_tensor", "output_tensor")
D = RecurrentNetworkDirection


def _size(term: str, sizes: dict[str, int]) -> int:
    """One entry of a page's layout ("1", "hidden_size", "4 * hidden_size") in the named sizes."""
    factor, _, name = term.rpartition(" * ")
    value = int(name) if name.isdigit() else sizes[name]
    return value * int(factor) if factor else value


def direction_count(direction: Any) -> int:
    """num_directions: 2 under BIDIRECTIONAL, else 1."""
    return 2 if RecurrentNetworkDirection(direction) is D.BIDIRECTIONAL else 1


class RecurrentActivation(DmlModel):
    """DML_OPERATOR_DESC of one of a recurrent network's activations (an entry of ActivationDescs): Type, a one-input
    element-wise activation, and Desc, that activation's DML_*_OPERATOR_DESC with InputTensor and OutputTensor null
    and its other fields (C or snake_case names)."""

    C_STRUCT = "DML_OPERATOR_DESC"
    ACTIVATIONS: ClassVar[dict[OperatorType, builtins.type[ElementwiseDesc]]] = {}  # `type` is a field here
    """The activations an ActivationDescs entry may name, by type: bound by ops/table.py from the operator table
    (every one-input element-wise ACTIVATION_* operator)."""

    type: OperatorType = Field(alias="Type")
    """Type: a one-input element-wise activation (ACTIVATION_SIGMOID, ACTIVATION_TANH, ACTIVATION_RELU, ...)."""
    desc: dict[str, Any] = Field(default_factory=dict, alias="Desc")
    """Desc: the activation's fields; InputTensor and OutputTensor null (the operator supplies its gates)."""

    @model_validator(mode="after")
    def _activation_with_null_tensors(self) -> Self:
        if self.ACTIVATIONS and self.type not in self.ACTIVATIONS:
            names = ", ".join(t.name for t in self.ACTIVATIONS)
            raise ValueError(
                f"Type {self.type.c_name} cannot be a recurrent network's activation: RNN, LSTM and GRU apply "
                f"each activation element by element to their gates, so it is one of the one-input activations "
                f"{names} (the softmax family works along an axis, PARAMETERIZED_RELU needs a SlopeTensor the "
                "operator does not bind, RELU_GRAD is a gradient)"
            )
        for name in _TENSORS:
            if self.desc.get(name) is not None:
                raise ValueError(
                    f"Desc.{name} is given; an ActivationDescs entry's InputTensor and OutputTensor must be null: "
                    "it reads and writes the operator's gates"
                )
        return self

    def __str__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.desc.items() if k not in _TENSORS)
        return f"{self.type.name}({fields})"

    def __hash__(self) -> int:  # Desc is a dict; descriptors are hashed as cache keys
        return hash((self.type, self.model_dump_json()))

    def bound_to(self, tensor: TensorDesc, where: str) -> ElementwiseDesc:
        """The activation as a descriptor of its own class on ``tensor`` (input and output), its fields Desc's;
        ``where`` names the entry in messages."""
        activation = self.ACTIVATIONS.get(self.type)
        if activation is None:
            raise UnsupportedError(f"{where}.Type is {self.type.c_name}, which dmlpy does not implement")
        fields = {k: v for k, v in self.desc.items() if k not in _TENSORS}
        try:
            return activation.model_validate({**fields, "InputTensor": tensor, "OutputTensor": tensor})
        except DescriptorProblems as problems:
            raise InvalidArgumentError(f"{where}.Desc: {problems}") from None


class RecurrentDesc(StructuredDesc):
    """RNN, LSTM and GRU: the 4-D layout of their tensors from InputTensor's and RecurrenceTensor's Sizes and the
    Direction, the count of ActivationDescs, each activation checked as its own operator."""

    GATES: ClassVar[int]
    """Gates stacked along WeightTensor's and RecurrenceTensor's third dimension: 1 (RNN), 4 (LSTM), 3 (GRU)."""
    ACTIVATIONS_PER_DIRECTION: ClassVar[tuple[str, ...]]
    """The activations the page names for one direction, in order: ("f",) for RNN, ("f", "g", "h") for LSTM."""
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"activation_desc_count": ("activation_descs",)}
    CELL: ClassVar[str]
    """recurrent.cl's cell: "RNN", "LSTM" or "GRU"."""

    if TYPE_CHECKING:  # every recurrent operator has these, each class declaring its fields in C order
        input_tensor: TensorDesc
        recurrence_tensor: TensorDesc
        activation_desc_count: int
        activation_descs: tuple[RecurrentActivation, ...]
        direction: RecurrentNetworkDirection

    @classmethod
    def layout(cls, x: BufferTensorDesc, r: BufferTensorDesc, direction: Any) -> dict[str, int]:
        """The named sizes the pages' layouts are written in, from InputTensor (x) and RecurrenceTensor (r)."""
        return {
            "seq_length": x.sizes[-3],
            "batch_size": x.sizes[-2],
            "input_size": x.sizes[-1],
            "hidden_size": r.sizes[-1],
            "num_directions": direction_count(direction),
        }

    @classmethod
    def derivation(cls, direction: Any) -> str:
        """Where each named size comes from, for messages."""
        return (
            "seq_length, batch_size and input_size InputTensor.Sizes[1], [2] and [3], hidden_size "
            f"RecurrenceTensor.Sizes[3], num_directions {direction_count(direction)} (Direction "
            f"{RecurrentNetworkDirection(direction).name})"
        )

    def input_layouts(self) -> dict[str, str]:
        """Each input tensor field (snake_case) -> its page's layout, in the names of :meth:`layout`."""
        gates = "" if self.GATES == 1 else f"{self.GATES} * "
        return {
            "input_tensor": "1, seq_length, batch_size, input_size",
            "recurrence_tensor": f"1, num_directions, {gates}hidden_size, hidden_size",
            "weight_tensor": f"1, num_directions, {gates}hidden_size, input_size",
            "bias_tensor": f"1, 1, num_directions, {2 * self.GATES} * hidden_size",
            "hidden_init_tensor": "1, num_directions, batch_size, hidden_size",
            "cell_mem_init_tensor": "1, num_directions, batch_size, hidden_size",
            "sequence_lengths_tensor": "1, 1, 1, batch_size",
            "peephole_tensor": "1, 1, num_directions, 3 * hidden_size",
        }

    def check_shape_rules(self, level: FeatureLevel) -> None:
        name = self.operator_name()
        for field in self.INPUTS:
            tensor: TensorDesc | None = getattr(self, field)
            if tensor is not None and TensorFlags.OWNED_BY_DML in tensor.desc.flags:
                raise InvalidArgumentError(
                    f"{name}.{self.c_field(field)}.Flags is {tensor.desc.flags}; the page: the tensor does not "
                    f"support DML_TENSOR_FLAG_OWNED_BY_DML ({name} reads its inputs as bound): bind it as an "
                    "ordinary input"
                )
        sizes = self.layout(self.input_tensor.desc, self.recurrence_tensor.desc, self.direction)
        layouts = self.input_layouts()
        # RecurrenceTensor first: hidden_size is read from it, so a wrong one is named before what it sizes.
        for field in sorted(self.INPUTS, key=lambda field: field != "recurrence_tensor"):
            tensor = getattr(self, field)
            if tensor is None:
                continue
            formula = layouts[field]
            wanted = [_size(term, sizes) for term in formula.split(", ")]
            if list(tensor.desc.sizes) != wanted:
                raise InvalidArgumentError(
                    f"{name}.{self.c_field(field)}.Sizes is {list(tensor.desc.sizes)}; it must be {wanted}: the "
                    f"page's {{ {formula} }}, with {self.derivation(self.direction)}"
                )
        self.check_activations(level, sizes)

    def check_activations(self, level: FeatureLevel, sizes: dict[str, int]) -> None:
        """ActivationDescCount against the Direction, then each activation as its own operator on the gates."""
        name, per = self.operator_name(), self.ACTIVATIONS_PER_DIRECTION
        wanted = len(per) * sizes["num_directions"]
        if self.activation_desc_count != wanted:
            listed = ", ".join(f"{f}()" for f in per)
            order = ", forward's first" if sizes["num_directions"] == 2 else ""
            raise InvalidArgumentError(
                f"{name}.ActivationDescCount is {self.activation_desc_count}; it must be {wanted}: the page asks "
                f"{len(per)} activation{'s' if len(per) > 1 else ''} ({listed}) per direction, and Direction "
                f"{self.direction.name} runs {sizes['num_directions']} (give {wanted} ActivationDescs{order})"
            )
        gates = TensorDesc(
            desc=BufferTensorDesc(
                data_type=self.input_tensor.desc.data_type, sizes=(1, 1, sizes["batch_size"], sizes["hidden_size"])
            )
        )
        for index, activation in enumerate(self.activation_descs):
            where = f"{name}.ActivationDescs[{index}]"
            bound = activation.bound_to(gates, where)
            try:
                bound.validate_on(level)
            except DmlError as error:
                role = f"{per[index % len(per)]}() of the {self.direction_of(index)}"
                kind = InvalidArgumentError if isinstance(error, DescriptorProblems) else type(error)
                raise kind(f"{where} ({role}): {error}") from None

    def direction_of(self, index: int) -> str:
        """Which direction an ActivationDescs entry belongs to, in words."""
        if self.direction is not D.BIDIRECTIONAL:
            return f"{self.direction.name.lower()} direction"
        return "forward direction" if index < len(self.ACTIVATIONS_PER_DIRECTION) else "backward direction"

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        x, r = inputs["input_tensor"], inputs["recurrence_tensor"]
        assert x is not None and r is not None, "InputTensor and RecurrenceTensor are required"
        sizes = cls.layout(x, r, fields["direction"])
        where = f"with {cls.derivation(fields['direction'])}; InputTensor's DataType"
        sequence = (sizes["seq_length"], sizes["num_directions"], sizes["batch_size"], sizes["hidden_size"])
        single = (1, *sequence[1:])
        data_type: Any = x.data_type
        shapes = {
            "output_sequence_tensor": OutputShape(
                sequence, data_type, f"{{ seq_length, num_directions, batch_size, hidden_size }} {where}"
            ),
            "single": OutputShape(single, data_type, f"{{ 1, num_directions, batch_size, hidden_size }} {where}"),
        }
        return tuple(shapes.get(name, shapes["single"]) for name in cls.OUTPUTS)

    def cell_defines(self) -> tuple[tuple[str, str], ...]:
        """recurrent.cl's defines for the cell's own BOOL fields (LSTM's CoupleInputForget, GRU's
        LinearBeforeReset)."""
        return ()

    def clip_fields(self) -> tuple[int, int]:
        """ClipThreshold's float bits and UseClipThreshold (LSTM's; the other cells do not clip)."""
        return 0, 0

    def activation_prelude(self) -> str:
        """recurrent.cl's F0, G0, H0 (forward's, or the one direction's) and F1, G1, H1 (backward's): each
        ActivationDescs entry's own expression from elementwise_ops.h, on a float, as the kernel computes (a FLOAT16
        network's gates are never rounded to half before their activations)."""
        gates = TensorDesc(desc=BufferTensorDesc(data_type=TensorDataType.FLOAT32, sizes=(1, 1, 1, 1)))
        per, lines = self.ACTIVATIONS_PER_DIRECTION, []
        for index, activation in enumerate(self.activation_descs):
            bound = activation.bound_to(gates, f"{self.operator_name()}.ActivationDescs[{index}]")
            expression = bound.expression(["(v)"]) or bound.bits_expression(["(v)"]) or "(v)"
            lines.append(f"#define {per[index % len(per)].upper()}{index // len(per)}(v) ({expression})\n")
        return "".join(lines)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """recurrent.cl, one launch per time step (GRU without LinearBeforeReset: two), over every tensor bound as
        given (its own strides) and the states' temporary region (dmlpy/kernels/recurrent.py)."""
        sizes = self.layout(self.input_tensor.desc, self.recurrence_tensor.desc, self.direction)
        slots = {name: PlanRef("input", k) for k, name in enumerate(self.INPUTS)}
        slots |= {name: PlanRef("output", k) for k, name in enumerate(self.OUTPUTS)}
        tensors: list[tuple[PlanRef | None, tuple[int, ...]]] = []
        present = 0
        for name in RECURRENT_TENSORS:
            tensor: TensorDesc | None = getattr(self, name) if name in type(self).model_fields else None
            if tensor is None:
                tensors.append((None, (0, 0, 0, 0)))
                continue
            tensors.append((slots[name], tensor.desc.effective_strides))
            present |= PRESENT_BITS.get(name, 0)
        return recurrent_plan(
            self.CELL,
            self.cell_defines(),
            self.activation_prelude(),
            RecurrentShape(**{name: sizes[name] for name in RecurrentShape.__dataclass_fields__}),
            tensors,
            (int(self.direction), present, *self.clip_fields()),
            profile,
            half=self.input_tensor.desc.data_type == TensorDataType.FLOAT16,
        )
