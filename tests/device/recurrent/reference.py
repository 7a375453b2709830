"""A float64 reference of DirectML's RNN, LSTM and GRU, written from ONNX's equations (onnx.ai/onnx/operators
onnx__RNN, onnx__LSTM, onnx__GRU; DirectML's pages name them as the cells) and not from dmlpy's kernel: each
direction, batch item and time step a plain NumPy loop over whole gate vectors.

Decisions the pages leave open, as onnxruntime's CPU provider takes them: past a batch item's sequence length the
output sequence holds 0 and the states stop changing (the single outputs are the states after the item's last
step); the backward direction starts at the item's own last step; LSTM's clip bounds the inputs of f() and g() (the
gates), not h()'s (the cell state)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.ops._base import OperatorDescBase
from tests.helpers import rows_activations, rows_exponential

Array = npt.NDArray[Any]
FORMULAS: Mapping[type[OperatorDescBase], Callable[..., Array]] = {
    **rows_activations.FORMULAS,
    **rows_exponential.FORMULAS,
}
"""Every one-input activation's formula (the operator rows' own references)."""


@dataclass(frozen=True)
class Activation:
    """An ActivationDescs entry: the activation's descriptor class and its fields."""

    desc: type[OperatorDescBase]
    parameters: Mapping[str, float] = field(default_factory=dict)

    def entry(self) -> dict[str, Any]:
        """The DML_OPERATOR_DESC as the descriptor takes it."""
        return {"Type": self.desc.OPERATOR_TYPE, "Desc": dict(self.parameters)}

    def __call__(self, v: Array) -> Array:
        rounded = {name: float(np.float32(value)) for name, value in self.parameters.items()}
        with np.errstate(all="ignore"):
            return np.asarray(FORMULAS[self.desc](np.asarray(v, np.float64), **rounded), np.float64)


@dataclass(frozen=True)
class Cell:
    """What one cell computes besides the tensors: its kind, its activations per direction, its own fields."""

    kind: str  # "RNN", "LSTM", "GRU"
    activations: tuple[tuple[Activation, ...], ...]  # per direction: (f,), (f, g, h) or (f, g)
    clip: float | None = None
    couple: bool = False
    linear_before_reset: bool = False


GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}


def run(cell: Cell, tensors: Mapping[str, Array], direction: str) -> dict[str, Array]:
    """The outputs (OutputSequenceTensor, OutputSingleTensor, OutputCellSingleTensor) from the inputs by field name
    (absent ones missing), in float64."""
    x = tensors["input_tensor"][0].astype(np.float64)  # (T, B, I)
    seq_length, batch, _ = x.shape
    r_all = tensors["recurrence_tensor"][0].astype(np.float64)  # (D, G*H, H)
    directions, hidden = r_all.shape[0], r_all.shape[2]
    gates = GATES[cell.kind]
    zeros = np.zeros((1, directions, batch, hidden))
    bias = tensors.get("bias_tensor", np.zeros((1, 1, directions, 2 * gates * hidden)))[0, 0].astype(np.float64)
    h_init = tensors.get("hidden_init_tensor", zeros)[0].astype(np.float64)
    c_init = tensors.get("cell_mem_init_tensor", zeros)[0].astype(np.float64)
    peephole = tensors.get("peephole_tensor", np.zeros((1, 1, directions, 3 * hidden)))[0, 0].astype(np.float64)
    lengths = tensors.get("sequence_lengths_tensor", np.full((1, 1, 1, batch), seq_length))[0, 0, 0]
    sequence = np.zeros((seq_length, directions, batch, hidden))
    single, cell_single = np.zeros((1, directions, batch, hidden)), np.zeros((1, directions, batch, hidden))
    for d in range(directions):
        backward = direction == "BACKWARD" or (direction == "BIDIRECTIONAL" and d == 1)
        w, r = tensors["weight_tensor"][0, d].astype(np.float64), r_all[d]
        wb, rb = bias[d, : gates * hidden], bias[d, gates * hidden :]
        for b in range(batch):
            length = min(int(lengths[b]), seq_length)
            h, c = h_init[d, b].copy(), c_init[d, b].copy()
            for step in range(length):
                t = length - 1 - step if backward else step
                h, c = _step(cell, cell.activations[d], x[t, b], h, c, w, r, wb, rb, peephole[d], hidden)
                sequence[t, d, b] = h
            single[0, d, b], cell_single[0, d, b] = h, c
    return {
        "output_sequence_tensor": sequence,
        "output_single_tensor": single,
        "output_cell_single_tensor": cell_single,
    }


def _step(
    cell: Cell,
    activations: tuple[Activation, ...],
    x: Array,
    h: Array,
    c: Array,
    w: Array,
    r: Array,
    wb: Array,
    rb: Array,
    peephole: Array,
    hidden: int,
) -> tuple[Array, Array]:
    def part(matrix_or_bias: Array, k: int) -> Array:
        return matrix_or_bias[k * hidden : (k + 1) * hidden]

    if cell.kind == "RNN":
        return activations[0](x @ w.T + h @ r.T + wb + rb), c
    if cell.kind == "LSTM":
        f, g, h_act = activations
        limit = np.inf if cell.clip is None else cell.clip
        pre = [x @ part(w, k).T + h @ part(r, k).T + part(wb, k) + part(rb, k) for k in range(4)]
        clip = lambda v: np.clip(v, -limit, limit)  # noqa: E731
        i = f(clip(pre[0] + part(peephole, 0) * c))
        forget = 1 - i if cell.couple else f(clip(pre[2] + part(peephole, 2) * c))
        c_new = forget * c + i * g(clip(pre[3]))
        o = f(clip(pre[1] + part(peephole, 1) * c_new))
        return o * h_act(c_new), c_new
    f, g = activations
    z = f(x @ part(w, 0).T + h @ part(r, 0).T + part(wb, 0) + part(rb, 0))
    reset = f(x @ part(w, 1).T + h @ part(r, 1).T + part(wb, 1) + part(rb, 1))
    if cell.linear_before_reset:
        candidate = g(x @ part(w, 2).T + part(wb, 2) + reset * (h @ part(r, 2).T + part(rb, 2)))
    else:
        candidate = g(x @ part(w, 2).T + part(wb, 2) + (reset * h) @ part(r, 2).T + part(rb, 2))
    return (1 - z) * candidate + z * h, c
