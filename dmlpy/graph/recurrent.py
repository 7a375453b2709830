"""The builder functions of the recurrent networks: DirectMLX's ``dml::Rnn``, ``dml::Lstm`` and ``dml::Gru``
(DML_OPERATOR_RNN, LSTM, GRU), their arguments the descriptors' fields in C order, the optional inputs None by
default, the activations ONNX's defaults where left out (RNN tanh; LSTM sigmoid, tanh, tanh; GRU sigmoid, tanh; the
same for the backward direction). Every output is bound and returned, in binding order (OutputSequenceTensor,
OutputSingleTensor, then LSTM's OutputCellSingleTensor), packed with the Sizes and DataType the operator's rule
gives (``RecurrentDesc.output_shapes``); one the caller does not read costs its writes only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import OperatorType, RecurrentNetworkDirection
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph.arguments import optional_operand
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node
from dmlpy.graph.values import c_float
from dmlpy.ops import GruOperatorDesc, LstmOperatorDesc, RnnOperatorDesc
from dmlpy.ops._recurrent import RecurrentDesc, direction_count
from dmlpy.tensor import BufferTensorDesc

_SIGMOID, _TANH = {"Type": OperatorType.ACTIVATION_SIGMOID}, {"Type": OperatorType.ACTIVATION_TANH}
_DEFAULTS: dict[type[RecurrentDesc], tuple[dict[str, Any], ...]] = {
    RnnOperatorDesc: (_TANH,),
    LstmOperatorDesc: (_SIGMOID, _TANH, _TANH),
    GruOperatorDesc: (_SIGMOID, _TANH),
}


def _node(
    desc_class: type[RecurrentDesc],
    inputs: dict[str, Expression | None],
    activations: Sequence[Any] | None,
    direction: Any,
    where: str,
    **fields: Any,
) -> list[Expression]:
    try:
        parsed = RecurrentNetworkDirection.parse(direction)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: direction: {error}") from None
    if activations is None:
        activations = _DEFAULTS[desc_class] * direction_count(parsed)
    descs = {name: None if value is None else value.desc for name, value in inputs.items()}
    shapes = desc_class.output_shapes(descs, {"direction": parsed})
    outputs = {
        name: BufferTensorDesc(data_type=shape.data_type, sizes=shape.sizes)
        for name, shape in zip(desc_class.OUTPUTS, shapes, strict=True)
    }
    fields |= {"activation_descs": tuple(activations), "direction": parsed}
    return add_node(desc_class, inputs, outputs, fields)


def rnn(
    input: Expression,
    weight: Expression,
    recurrence: Expression,
    bias: Expression | None = None,
    hidden_init: Expression | None = None,
    sequence_lengths: Expression | None = None,
    activation_descs: Sequence[Any] | None = None,
    direction: RecurrentNetworkDirection | str | int = RecurrentNetworkDirection.FORWARD,
) -> list[Expression]:
    """``dml::Rnn``: DML_OPERATOR_RNN, ``[sequence, single]``: H_t = f(X_t W^T + H_(t-1) R^T + Wb + Rb) at every step
    and the last; ``activation_descs`` one ``{"Type": ..., "Desc": {...}}`` per direction (tanh by default)."""
    where = "dml.graph.rnn"
    inputs = {
        "input_tensor": operand(input, where, "input"),
        "weight_tensor": operand(weight, where, "weight"),
        "recurrence_tensor": operand(recurrence, where, "recurrence"),
        "bias_tensor": optional_operand(bias, where, "bias"),
        "hidden_init_tensor": optional_operand(hidden_init, where, "hidden_init"),
        "sequence_lengths_tensor": optional_operand(sequence_lengths, where, "sequence_lengths"),
    }
    return _node(RnnOperatorDesc, inputs, activation_descs, direction, where)


def lstm(
    input: Expression,
    weight: Expression,
    recurrence: Expression,
    bias: Expression | None = None,
    hidden_init: Expression | None = None,
    cell_mem_init: Expression | None = None,
    sequence_lengths: Expression | None = None,
    peephole: Expression | None = None,
    activation_descs: Sequence[Any] | None = None,
    direction: RecurrentNetworkDirection | str | int = RecurrentNetworkDirection.FORWARD,
    clip_threshold: float = 0.0,
    use_clip_threshold: bool = False,
    couple_input_forget: bool = False,
) -> list[Expression]:
    """``dml::Lstm``: DML_OPERATOR_LSTM, ``[sequence, single, cell_single]``: ONNX's LSTM (gates i, o, f, c; f, g,
    h per direction, sigmoid, tanh, tanh by default), clipping the gates' inputs to ``clip_threshold`` where
    ``use_clip_threshold``, f = 1 - i where ``couple_input_forget``."""
    where = "dml.graph.lstm"
    inputs = {
        "input_tensor": operand(input, where, "input"),
        "weight_tensor": operand(weight, where, "weight"),
        "recurrence_tensor": operand(recurrence, where, "recurrence"),
        "bias_tensor": optional_operand(bias, where, "bias"),
        "hidden_init_tensor": optional_operand(hidden_init, where, "hidden_init"),
        "cell_mem_init_tensor": optional_operand(cell_mem_init, where, "cell_mem_init"),
        "sequence_lengths_tensor": optional_operand(sequence_lengths, where, "sequence_lengths"),
        "peephole_tensor": optional_operand(peephole, where, "peephole"),
    }
    return _node(
        LstmOperatorDesc,
        inputs,
        activation_descs,
        direction,
        where,
        clip_threshold=c_float(clip_threshold, where, "clip_threshold", "LSTM.ClipThreshold"),
        use_clip_threshold=use_clip_threshold,
        couple_input_forget=couple_input_forget,
    )


def gru(
    input: Expression,
    weight: Expression,
    recurrence: Expression,
    bias: Expression | None = None,
    hidden_init: Expression | None = None,
    sequence_lengths: Expression | None = None,
    activation_descs: Sequence[Any] | None = None,
    direction: RecurrentNetworkDirection | str | int = RecurrentNetworkDirection.FORWARD,
    linear_before_reset: bool = False,
) -> list[Expression]:
    """``dml::Gru``: DML_OPERATOR_GRU, ``[sequence, single]``: ONNX's GRU (gates z, r, h; f, g per direction,
    sigmoid and tanh by default), the reset gate applied after the hidden gate's recurrence where
    ``linear_before_reset``."""
    where = "dml.graph.gru"
    inputs = {
        "input_tensor": operand(input, where, "input"),
        "weight_tensor": operand(weight, where, "weight"),
        "recurrence_tensor": operand(recurrence, where, "recurrence"),
        "bias_tensor": optional_operand(bias, where, "bias"),
        "hidden_init_tensor": optional_operand(hidden_init, where, "hidden_init"),
        "sequence_lengths_tensor": optional_operand(sequence_lengths, where, "sequence_lengths"),
    }
    return _node(GruOperatorDesc, inputs, activation_descs, direction, where, linear_before_reset=linear_before_reset)
