"""The recurrent networks (docs/operators/recurrent.md): DML_RNN_OPERATOR_DESC, DML_LSTM_OPERATOR_DESC and
DML_GRU_OPERATOR_DESC (all DML_FEATURE_LEVEL_1_0), one layer each, looped over the sequence in the Direction given
(MicrosoftDocs/sdk-api ns-directml-dml_rnn_operator_desc.md, ..._lstm_..., ..._gru_...; the cells are ONNX's RNN,
LSTM and GRU).

Every tensor is 4-D and FLOAT32 or FLOAT16, one DataType for all but SequenceLengthsTensor (UINT32); their layouts
are ``_recurrent``'s. Where the pages and the header disagree: LSTM's and GRU's pages (and the RNN page at some
commits) type Direction as ``const DML_RECURRENT_NETWORK_DIRECTION*``; DirectML.h has the plain enum, which dmlpy
follows. RNN's page calls RecurrenceTensor "optional"; the header (no ``_Maybenull_``) and the page's own table
(kind Input) make it required, which dmlpy follows.

They run as ``opencl/recurrent.cl``, one launch per time step (``RecurrentDesc.plan``, dmlpy/kernels/recurrent.py):
a work-item per direction, batch item and hidden unit sums its gates' rows over X_t W^T and H_(t-1) R^T in float and
applies the ActivationDescs' own expressions; the states are carried in float in a temporary region. Past a batch
item's sequence length the output sequence holds 0 and the states stop (onnxruntime's choice; the pages are silent).
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, RecurrentNetworkDirection, TensorDataType
from dmlpy.model import Bool, UInt32
from dmlpy.ops._recurrent import RecurrentActivation, RecurrentDesc
from dmlpy.ops._typed_values import value_bits
from dmlpy.ops._types import FLOATS
from dmlpy.support import SupportTable, TensorRow
from dmlpy.tensor import TensorDesc

L, T = FeatureLevel, TensorDataType
_RNN = (
    "InputTensor",
    "WeightTensor",
    "RecurrenceTensor",
    "BiasTensor",
    "HiddenInitTensor",
    "SequenceLengthsTensor",
    "OutputSequenceTensor",
    "OutputSingleTensor",
)
_LSTM = (*_RNN[:5], "CellMemInitTensor", "SequenceLengthsTensor", "PeepholeTensor", *_RNN[6:], "OutputCellSingleTensor")
_OPTIONAL = frozenset(
    {"BiasTensor", "HiddenInitTensor", "CellMemInitTensor", "SequenceLengthsTensor", "PeepholeTensor"}
    | {"OutputSequenceTensor", "OutputSingleTensor", "OutputCellSingleTensor"}
)
_UINT32 = frozenset({T.UINT32})


def _table(operator: OperatorType, tensors: tuple[str, ...]) -> SupportTable:
    """The pages' one table (FL 1_0): every tensor 4-D, FLOAT32 or FLOAT16, SequenceLengthsTensor UINT32."""
    row: TensorRow = (
        L.FL_1_0,
        {name: ((4, 4), _UINT32 if name == "SequenceLengthsTensor" else FLOATS) for name in tensors},
    )
    return SupportTable.per_tensor(operator, _OPTIONAL & set(tensors), (row,))


class RnnOperatorDesc(RecurrentDesc):
    """DML_RNN_OPERATOR_DESC: for each step t of the sequence (backward: from the last), H_t = f(X_t W^T + H_(t-1)
    R^T + Wb + Rb), H_(-1) HiddenInitTensor; OutputSequenceTensor gets every H_t, OutputSingleTensor the last."""

    OPERATOR_TYPE = OperatorType.RNN
    CELL = "RNN"
    BUILDER_NAME = "rnn"
    ONNX_OPS = ("RNN",)
    SUPPORT = _table(OPERATOR_TYPE, _RNN)
    INPUTS = (
        "input_tensor",
        "weight_tensor",
        "recurrence_tensor",
        "bias_tensor",
        "hidden_init_tensor",
        "sequence_lengths_tensor",
    )
    OUTPUTS = ("output_sequence_tensor", "output_single_tensor")
    SAME_DATA_TYPE = ((*INPUTS[:5], *OUTPUTS),)
    GATES = 1
    ACTIVATIONS_PER_DIRECTION = ("f",)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: X, { 1, seq_length, batch_size, input_size }."""
    weight_tensor: TensorDesc = Field(alias="WeightTensor")
    """WeightTensor: W (forward's, then backward's), { 1, num_directions, hidden_size, input_size }."""
    recurrence_tensor: TensorDesc = Field(alias="RecurrenceTensor")
    """RecurrenceTensor: R, { 1, num_directions, hidden_size, hidden_size }; required (the header and the table),
    though the page's text calls it optional."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: Wb then Rb per direction, { 1, 1, num_directions, 2 * hidden_size }; null is 0."""
    hidden_init_tensor: TensorDesc | None = Field(default=None, alias="HiddenInitTensor")
    """HiddenInitTensor: H before the first step, { 1, num_directions, batch_size, hidden_size }; null is 0."""
    sequence_lengths_tensor: TensorDesc | None = Field(default=None, alias="SequenceLengthsTensor")
    """SequenceLengthsTensor (UINT32): each batch item's own sequence length, { 1, 1, 1, batch_size }; null: every
    item has seq_length."""
    output_sequence_tensor: TensorDesc | None = Field(default=None, alias="OutputSequenceTensor")
    """OutputSequenceTensor: every step's H, { seq_length, num_directions, batch_size, hidden_size }, or null."""
    output_single_tensor: TensorDesc | None = Field(default=None, alias="OutputSingleTensor")
    """OutputSingleTensor: the last step's H, { 1, num_directions, batch_size, hidden_size }, or null."""
    # Left out, ActivationDescCount is derived from ActivationDescs (COUNTED_ARRAYS), so it is an int afterwards.
    activation_desc_count: UInt32 = Field(default=None, alias="ActivationDescCount")  # type: ignore[assignment]
    """ActivationDescCount: the entries of ActivationDescs, 1 per direction (2 under BIDIRECTIONAL); derived when
    left out, checked when given."""
    activation_descs: tuple[RecurrentActivation, ...] = Field(alias="ActivationDescs")
    """ActivationDescs: f, the activation of H_t, per direction (forward's first), each a DML_OPERATOR_DESC of a
    one-input activation with null tensors."""
    direction: RecurrentNetworkDirection = Field(alias="Direction")
    """Direction (DML_RECURRENT_NETWORK_DIRECTION): FORWARD, BACKWARD or BIDIRECTIONAL."""


class LstmOperatorDesc(RecurrentDesc):
    """DML_LSTM_OPERATOR_DESC: for each step t, the gates i, o, f (sigmoid-like f()), the cell candidate c (g()), C_t
    = f_t * C_(t-1) + i_t * c_t and H_t = o_t * h(C_t) (ONNX's LSTM, with peepholes, clipping and coupled input and
    forget gates as asked); OutputSingleTensor and OutputCellSingleTensor get the last H and C."""

    OPERATOR_TYPE = OperatorType.LSTM
    CELL = "LSTM"
    BUILDER_NAME = "lstm"
    ONNX_OPS = ("LSTM",)
    SUPPORT = _table(OPERATOR_TYPE, _LSTM)
    INPUTS = (
        "input_tensor",
        "weight_tensor",
        "recurrence_tensor",
        "bias_tensor",
        "hidden_init_tensor",
        "cell_mem_init_tensor",
        "sequence_lengths_tensor",
        "peephole_tensor",
    )
    OUTPUTS = ("output_sequence_tensor", "output_single_tensor", "output_cell_single_tensor")
    SAME_DATA_TYPE = ((*INPUTS[:6], "peephole_tensor", *OUTPUTS),)
    GATES = 4
    ACTIVATIONS_PER_DIRECTION = ("f", "g", "h")

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: X, { 1, seq_length, batch_size, input_size }."""
    weight_tensor: TensorDesc = Field(alias="WeightTensor")
    """WeightTensor: W of the gates i, o, f, c (forward's, then backward's), { 1, num_directions, 4 * hidden_size,
    input_size }."""
    recurrence_tensor: TensorDesc = Field(alias="RecurrenceTensor")
    """RecurrenceTensor: R of the gates i, o, f, c, { 1, num_directions, 4 * hidden_size, hidden_size }."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: Wb[iofc] then Rb[iofc] per direction, { 1, 1, num_directions, 8 * hidden_size }; null is 0."""
    hidden_init_tensor: TensorDesc | None = Field(default=None, alias="HiddenInitTensor")
    """HiddenInitTensor: H before the first step, { 1, num_directions, batch_size, hidden_size }; null is 0."""
    cell_mem_init_tensor: TensorDesc | None = Field(default=None, alias="CellMemInitTensor")
    """CellMemInitTensor: C before the first step, { 1, num_directions, batch_size, hidden_size }; null is 0."""
    sequence_lengths_tensor: TensorDesc | None = Field(default=None, alias="SequenceLengthsTensor")
    """SequenceLengthsTensor (UINT32): each batch item's own sequence length, { 1, 1, 1, batch_size }; null: every
    item has seq_length."""
    peephole_tensor: TensorDesc | None = Field(default=None, alias="PeepholeTensor")
    """PeepholeTensor: the peephole weights P[iof] per direction, { 1, 1, num_directions, 3 * hidden_size }; null
    is 0."""
    output_sequence_tensor: TensorDesc | None = Field(default=None, alias="OutputSequenceTensor")
    """OutputSequenceTensor: every step's H, { seq_length, num_directions, batch_size, hidden_size }, or null."""
    output_single_tensor: TensorDesc | None = Field(default=None, alias="OutputSingleTensor")
    """OutputSingleTensor: the last step's H, { 1, num_directions, batch_size, hidden_size }, or null."""
    output_cell_single_tensor: TensorDesc | None = Field(default=None, alias="OutputCellSingleTensor")
    """OutputCellSingleTensor: the last step's C, { 1, num_directions, batch_size, hidden_size }, or null."""
    activation_desc_count: UInt32 = Field(default=None, alias="ActivationDescCount")  # type: ignore[assignment]
    """ActivationDescCount: the entries of ActivationDescs, 3 per direction (6 under BIDIRECTIONAL); derived when
    left out, checked when given."""
    activation_descs: tuple[RecurrentActivation, ...] = Field(alias="ActivationDescs")
    """ActivationDescs: f (the gates), g (the cell candidate) and h (the cell's output) per direction, forward's
    three first; each a DML_OPERATOR_DESC of a one-input activation with null tensors."""
    direction: RecurrentNetworkDirection = Field(alias="Direction")
    """Direction (DML_RECURRENT_NETWORK_DIRECTION): FORWARD, BACKWARD or BIDIRECTIONAL."""
    clip_threshold: float = Field(alias="ClipThreshold")
    """ClipThreshold (FLOAT): the activations' inputs are clamped to [-ClipThreshold, +ClipThreshold] when
    UseClipThreshold is TRUE."""
    use_clip_threshold: Bool = Field(alias="UseClipThreshold")
    """UseClipThreshold (BOOL): TRUE clips with ClipThreshold; FALSE ignores it."""
    couple_input_forget: Bool = Field(alias="CoupleInputForget")
    """CoupleInputForget (BOOL): TRUE couples the input and forget gates (ONNX's input_forget): f = 1 - i."""

    def cell_defines(self) -> tuple[tuple[str, str], ...]:
        return (("COUPLE", str(int(self.couple_input_forget))),)

    def clip_fields(self) -> tuple[int, int]:
        return value_bits(self.clip_threshold, TensorDataType.FLOAT32), int(self.use_clip_threshold)


class GruOperatorDesc(RecurrentDesc):
    """DML_GRU_OPERATOR_DESC: for each step t, the update and reset gates z, r (f()), the hidden candidate h (g(),
    the reset applied before or after its recurrence's linear transform, LinearBeforeReset) and H_t = (1 - z_t) *
    h_t + z_t * H_(t-1) (ONNX's GRU)."""

    OPERATOR_TYPE = OperatorType.GRU
    CELL = "GRU"
    BUILDER_NAME = "gru"
    ONNX_OPS = ("GRU",)
    SUPPORT = _table(OPERATOR_TYPE, _RNN)
    INPUTS = RnnOperatorDesc.INPUTS
    OUTPUTS = RnnOperatorDesc.OUTPUTS
    SAME_DATA_TYPE = RnnOperatorDesc.SAME_DATA_TYPE
    GATES = 3
    ACTIVATIONS_PER_DIRECTION = ("f", "g")

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: X, { 1, seq_length, batch_size, input_size }."""
    weight_tensor: TensorDesc = Field(alias="WeightTensor")
    """WeightTensor: W of the gates z, r, h (forward's, then backward's), { 1, num_directions, 3 * hidden_size,
    input_size }."""
    recurrence_tensor: TensorDesc = Field(alias="RecurrenceTensor")
    """RecurrenceTensor: R of the gates z, r, h, { 1, num_directions, 3 * hidden_size, hidden_size }."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: Wb[zrh] then Rb[zrh] per direction, { 1, 1, num_directions, 6 * hidden_size }, or null (the
    page does not say what null means; RNN's and LSTM's say 0)."""
    hidden_init_tensor: TensorDesc | None = Field(default=None, alias="HiddenInitTensor")
    """HiddenInitTensor: H before the first step, { 1, num_directions, batch_size, hidden_size }; null is 0."""
    sequence_lengths_tensor: TensorDesc | None = Field(default=None, alias="SequenceLengthsTensor")
    """SequenceLengthsTensor (UINT32): each batch item's own sequence length, { 1, 1, 1, batch_size }; null: every
    item has seq_length."""
    output_sequence_tensor: TensorDesc | None = Field(default=None, alias="OutputSequenceTensor")
    """OutputSequenceTensor: every step's H, { seq_length, num_directions, batch_size, hidden_size }, or null."""
    output_single_tensor: TensorDesc | None = Field(default=None, alias="OutputSingleTensor")
    """OutputSingleTensor: the last step's H, { 1, num_directions, batch_size, hidden_size }, or null."""
    activation_desc_count: UInt32 = Field(default=None, alias="ActivationDescCount")  # type: ignore[assignment]
    """ActivationDescCount: the entries of ActivationDescs, 2 per direction (4 under BIDIRECTIONAL); derived when
    left out, checked when given."""
    activation_descs: tuple[RecurrentActivation, ...] = Field(alias="ActivationDescs")
    """ActivationDescs: f (the gates z and r) and g (the hidden candidate) per direction, forward's two first;
    each a DML_OPERATOR_DESC of a one-input activation with null tensors."""
    direction: RecurrentNetworkDirection = Field(alias="Direction")
    """Direction (DML_RECURRENT_NETWORK_DIRECTION): FORWARD, BACKWARD or BIDIRECTIONAL."""
    linear_before_reset: Bool = Field(alias="LinearBeforeReset")
    """LinearBeforeReset (BOOL): TRUE applies the hidden gate's recurrence (R_h H_(t-1) + Rb_h) before multiplying
    by the reset gate r_t (ONNX's linear_before_reset 1); FALSE multiplies H_(t-1) by r_t first."""

    def cell_defines(self) -> tuple[tuple[str, str], ...]:
        return (("LINEAR_BEFORE_RESET", str(int(self.linear_before_reset))),)


RECURRENT_OPERATORS = (RnnOperatorDesc, LstmOperatorDesc, GruOperatorDesc)
"""The recurrent networks, in the operator table's order (by OperatorType value)."""
