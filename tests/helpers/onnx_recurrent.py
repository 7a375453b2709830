"""ONNX's node tests of the recurrent networks (dmlpy.onnx.recurrent: RNN, LSTM, GRU): every one the installed onnx
ships runs as shipped, and the runner compares them within the operators' stated bound (docs/operators/recurrent.md,
"Accuracy": 2e-6 absolute at FLOAT32, ONNX's expected outputs being NumPy's float32 results of the same equations);
none is refused."""

from __future__ import annotations

RECURRENT_TEST_NAMES = ("simple_rnn",)
"""The node tests of RNN whose names do not begin with an op type's (test_simple_rnn_...; test_rnn_seq_length
does)."""
RECURRENT_RUNS = (
    *(f"simple_rnn_{form}" for form in ("defaults", "with_initial_bias", "batchwise", "reverse", "bidirectional")),
    "rnn_seq_length",
    *(f"lstm_{form}" for form in ("defaults", "with_initial_bias", "with_peepholes", "batchwise", "reverse")),
    "lstm_bidirectional",
    *(f"gru_{form}" for form in ("defaults", "with_initial_bias", "seq_length", "batchwise", "reverse")),
    "gru_bidirectional",
)
"""The recurrent networks' node tests, all of which run as shipped."""
RECURRENT_BOUND = 2e-6
"""RNN's, LSTM's and GRU's stated absolute bound at FLOAT32 (docs/operators/recurrent.md)."""
RECURRENT_TOLERANCE = {"rtol": 0.0, "atol": RECURRENT_BOUND}
"""The runner's comparison of each of ``RECURRENT_RUNS``."""
