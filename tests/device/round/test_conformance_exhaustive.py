"""Exhaustive float16 (all 65,536 bit patterns, every mode, packed and strided kernels) and a float32 sample
in the default suite. All 2^32 float32 patterns: ``scripts/exhaustive_float32.py`` (docs/conformance.md)."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.modes import DML_ROUNDING_MODES as MODES
from tests.helpers.references import assert_rounded

ALL_FLOAT16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_every_float16_pattern_packed(mode: dml.RoundingMode, tally: Counter[str]) -> None:
    tally["cases compared"] += assert_rounded(ALL_FLOAT16, dml.round(ALL_FLOAT16, mode=mode), mode)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_every_float16_pattern_strided_in_place(mode: dml.RoundingMode, tally: Counter[str]) -> None:
    # A transposed view, rounded in place: the strided (RANK=2) kernel sees every pattern too.
    square = ALL_FLOAT16.copy().reshape(256, 256).T
    original = square.copy()
    dml.round(square, mode=mode, out=square)
    # NaN payloads on this path are checked by test_float16_nan_payload_kept_by_scalar_path.
    tally["cases compared"] += assert_rounded(original, square, mode, nan="sign")


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_every_float16_pattern_transposed(mode: dml.RoundingMode, tally: Counter[str]) -> None:
    # A transposed view into a new packed array: the tiled kernel (dmlpy.kernels.tile_order) sees every pattern.
    transposed = ALL_FLOAT16.reshape(256, 256).T
    tally["cases compared"] += assert_rounded(transposed, dml.round(transposed, mode=mode), mode)


FLOAT16_NANS = np.array([0x7E00, 0x7C01, 0xFE01, 0x7D00], np.uint16).view(np.float16)


@pytest.mark.parametrize("layout", ["packed_tail", "strided"])
def test_float16_nan_payload_kept_by_scalar_path(layout: str) -> None:
    x = FLOAT16_NANS if layout == "packed_tail" else FLOAT16_NANS.reshape(2, 2).T
    got = dml.round(x)
    assert [hex(v) for v in got.view(np.uint16).ravel()] == [hex(v | 0x200) for v in x.view(np.uint16).ravel()]


def test_float16_nan_payload_kept_by_vector_path() -> None:
    x = np.tile(FLOAT16_NANS, 2)  # 8 elements: one full vector
    assert dml.round(x).view(np.uint16).tolist() == (x.view(np.uint16) | 0x200).tolist()


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_every_float16_pattern_object_model_with_offsets(
    mode: dml.RoundingMode, device: Any, tally: Counter[str]
) -> None:
    td = dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT16, sizes=(1, 1, 256, 256))
    size = td.total_tensor_size_in_bytes
    compiled = device.compile_operator(
        device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=td, output_tensor=td, rounding_mode=mode))
    )
    recorder = device.create_command_recorder()
    initializer = device.create_operator_initializer([compiled])
    recorder.record_dispatch(device.queue, initializer, device.create_binding_table(initializer)).wait()
    buffer = device.create_buffer(48 + 2 * size)
    buffer.write(ALL_FLOAT16, offset=16)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer, 16, size)])
    table.bind_outputs([dml.BufferBinding(buffer, 32 + size, size)])
    recorder.record_dispatch(device.queue, compiled, table).wait()
    tally["cases compared"] += assert_rounded(ALL_FLOAT16, buffer.read(np.float16, 1 << 16, 32 + size), mode)
    assert buffer.read(np.float16, 1 << 16, 16).tobytes() == ALL_FLOAT16.tobytes(), "the input was modified"


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_float32_sample(mode: dml.RoundingMode, tally: Counter[str]) -> None:
    """2^20 float32 patterns: a stride through the whole space plus every pattern around 0.5, 2^23 and 2^24."""
    stride = np.arange(0, 1 << 32, 4099, dtype=np.uint64)[: 1 << 19].astype(np.uint32)
    anchors = np.array([0.5, 1.5, 2.0**23, 2.0**24], np.float32).view(np.uint32).astype(np.int64)
    around = (anchors[:, None] + np.arange(-(1 << 15), 1 << 15)[None, :]).ravel().astype(np.uint32)
    patterns = np.concatenate([stride, around, around | np.uint32(0x8000_0000)])
    x = patterns.view(np.float32)
    tally["cases compared"] += assert_rounded(x, dml.round(x, mode=mode), mode)


def test_exhaustive_float32_script_runs_and_resumes(tmp_path: Path) -> None:
    """The script's resumable chunk loop, on two 2^16 chunks: run one, run it again, the state moves on."""
    path = Path(__file__).resolve().parents[3] / "scripts" / "exhaustive_float32.py"
    spec = importlib.util.spec_from_file_location("exhaustive_float32", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules["exhaustive_float32"] = script
    spec.loader.exec_module(script)
    state = tmp_path / "state.json"
    args = ["--chunk-bits", "16", "--state", str(state), "--chunks", "1"]
    assert script.main(args) == 2  # partial, no mismatches
    assert script.load_state(state, 16)["next_chunk"] == 1
    assert script.main(args) == 2
    loaded = script.load_state(state, 16)
    assert loaded["next_chunk"] == 2 and loaded["mismatches"] == 0 and loaded["compared"] == 2 * 3 * (1 << 16)
    # The script's comparison catches a wrong result (the reference is not vacuous).
    bits = np.arange(0x3F000000, 0x3F000010, dtype=np.uint32)  # 0.5 and just above
    wrong = dml.round(bits.view(np.float32), mode="TOWARD_ZERO") + np.float32(1)
    assert script.compare(bits, wrong, dml.RoundingMode.TOWARD_ZERO)[0] == bits.size
