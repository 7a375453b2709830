"""The recurrent networks' test cases: a descriptor of RNN, LSTM or GRU from a few choices, random inputs for it, and
the check of a run against the float64 reference (reference.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.tensor import BufferTensorDesc, TensorDesc
from tests.device.recurrent.reference import GATES, Activation, Array, Cell, run
from tests.helpers.structured_runs import run_structured

CLASSES = {"RNN": dml.RnnOperatorDesc, "LSTM": dml.LstmOperatorDesc, "GRU": dml.GruOperatorDesc}
SIGMOID, TANH = Activation(dml.ActivationSigmoidOperatorDesc), Activation(dml.ActivationTanhOperatorDesc)
DEFAULTS = {"RNN": (TANH,), "LSTM": (SIGMOID, TANH, TANH), "GRU": (SIGMOID, TANH)}
"""ONNX's default activations per cell."""
BOUND = {np.float32: 2e-6, np.float16: 6e-4}
"""The largest |result - reference| accepted, per data type (the outputs lie in [-1, 1] under tanh and sigmoid): each
gate row one float fma chain of input_size + hidden_size terms, a few roundings in the activations, carried over the
steps. Measured at most 3.5e-7 at float32 (sizes to 16, 8 steps, PoCL and Intel) and 4.1e-4 at FLOAT16 (one rounding
of the output to half, 2^-11 near 1, over the float32 error; the reference reads the same half inputs)."""


@dataclass(frozen=True)
class Network:
    """One case: the cell, its sizes and which optional tensors it binds."""

    kind: str = "LSTM"
    seq_length: int = 4
    batch: int = 2
    input_size: int = 3
    hidden: int = 5
    direction: str = "FORWARD"
    optional: frozenset[str] = frozenset({"bias_tensor", "hidden_init_tensor", "cell_mem_init_tensor"})
    outputs: tuple[str, ...] = ("output_sequence_tensor", "output_single_tensor", "output_cell_single_tensor")
    lengths: tuple[int, ...] | None = None
    activations: tuple[Activation, ...] | None = None  # forward's (the one direction's); None: ONNX's defaults
    backward: tuple[Activation, ...] | None = None  # BIDIRECTIONAL's backward ones; None: forward's reversed
    clip: float | None = None
    couple: bool = False
    linear_before_reset: bool = False
    dtype: Any = np.float32
    strided: frozenset[str] = field(default_factory=frozenset)
    """Tensors laid out with a gap after every innermost row (strides of their own)."""

    @property
    def directions(self) -> int:
        return 2 if self.direction == "BIDIRECTIONAL" else 1

    def cell(self) -> Cell:
        forward = self.activations or DEFAULTS[self.kind]
        backward = self.backward or tuple(reversed(forward))
        per = (forward, backward)[: self.directions]
        return Cell(self.kind, per, self.clip, self.couple, self.linear_before_reset)

    def sizes(self) -> dict[str, tuple[int, ...]]:
        g, d, h, b = GATES[self.kind], self.directions, self.hidden, self.batch
        return {
            "input_tensor": (1, self.seq_length, b, self.input_size),
            "weight_tensor": (1, d, g * h, self.input_size),
            "recurrence_tensor": (1, d, g * h, h),
            "bias_tensor": (1, 1, d, 2 * g * h),
            "hidden_init_tensor": (1, d, b, h),
            "cell_mem_init_tensor": (1, d, b, h),
            "sequence_lengths_tensor": (1, 1, 1, b),
            "peephole_tensor": (1, 1, d, 3 * h),
            "output_sequence_tensor": (self.seq_length, d, b, h),
            "output_single_tensor": (1, d, b, h),
            "output_cell_single_tensor": (1, d, b, h),
        }

    def tensor(self, name: str) -> TensorDesc:
        sizes = self.sizes()[name]
        data_type = dml.TensorDataType.UINT32 if name == "sequence_lengths_tensor" else _data_type(self.dtype)
        strides = None
        if name in self.strided:  # a gap of 2 elements after each innermost row
            row = sizes[3] + 2
            strides = (sizes[1] * sizes[2] * row, sizes[2] * row, row, 1)
        return TensorDesc(desc=BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides))

    def desc(self) -> Any:
        cls = CLASSES[self.kind]
        present = {"input_tensor", "weight_tensor", "recurrence_tensor", *self.optional, *self.outputs}
        if self.lengths is not None:
            present.add("sequence_lengths_tensor")
        fields: dict[str, Any] = {name: self.tensor(name) for name in present if name in (*cls.INPUTS, *cls.OUTPUTS)}
        activations = [a.entry() for per in self.cell().activations for a in per]
        fields |= {"activation_descs": activations, "direction": self.direction}
        if self.kind == "LSTM":
            fields |= {
                "clip_threshold": self.clip or 0.0,
                "use_clip_threshold": self.clip is not None,
                "couple_input_forget": self.couple,
            }
        if self.kind == "GRU":
            fields["linear_before_reset"] = self.linear_before_reset
        return cls(**fields)

    def inputs(self, desc: Any, seed: int = 0) -> dict[str, Array]:
        rng = np.random.default_rng(seed)
        arrays = {}
        for name in desc.INPUTS:
            if getattr(desc, name) is None:
                continue
            sizes = self.sizes()[name]
            if name == "sequence_lengths_tensor":
                assert self.lengths is not None
                arrays[name] = np.array(self.lengths, np.uint32).reshape(sizes)
            else:  # weights scaled so that the gates' inputs stay where the activations bend
                scale = 1.0 if name == "input_tensor" else 0.6
                arrays[name] = (rng.uniform(-1, 1, sizes) * scale).astype(self.dtype)
        return arrays


def _data_type(dtype: Any) -> dml.TensorDataType:
    return dml.TensorDataType.FLOAT16 if np.dtype(dtype) == np.float16 else dml.TensorDataType.FLOAT32


def reference(network: Network, inputs: Mapping[str, Array]) -> dict[str, Array]:
    return run(network.cell(), inputs, network.direction)


def check(device: Any, network: Network, seed: int = 0) -> float:
    """Run ``network`` on ``device`` and compare every bound output with the reference; the largest error."""
    desc = network.desc()
    inputs = network.inputs(desc, seed)
    got = run_structured(device, desc, inputs)
    wanted = reference(network, inputs)
    worst = 0.0
    for name in desc.OUTPUTS:
        if getattr(desc, name) is None:
            continue
        error = np.abs(got[name].astype(np.float64) - wanted[name])
        worst = max(worst, float(error.max()))
        assert worst <= BOUND[network.dtype], (name, worst, got[name], wanted[name])
    return worst


def variant(network: Network, **changes: Any) -> Network:
    return replace(network, **changes)
