"""The real-model acceptance set against onnxruntime (issue 46; docs/models.md). Each model either runs and matches
onnxruntime within its stated tolerance, or is refused at ``prepare`` exactly as EXPECTED_REFUSALS says: when a
model starts to run, or is refused for other op types, its test fails until the table is updated (and with it the
table in docs/models.md). The models cheap to obtain in CI (``fast``: the magika package, a dev dependency) run
by default; the rest with --run-slow, each fetched or built once into the cache (tests/models/cache.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.helpers.tools import missing_tool
from tests.models.catalogue import FLOAT32, MODELS, Model, image
from tests.models.runner import Outcome, max_error, refused_op_counts, run_model

EXPECTED_REFUSALS: dict[str, dict[str, int]] = {
    # model: the op types dmlpy.onnx's refusal at prepare names, each with its node count (docs/models.md's table).
}

EXPECTED_OTHER_REFUSALS: dict[str, tuple[str, str]] = {
    # model: (stage, the start of its message): refusals of a form, not of op types at prepare.
}

REFUSAL_HEAD = re.compile(r"^ONNX model \(opset \d+\): (\d+) of its \d+ nodes are of op types dmlpy does not run:\n")


def _model_params(fast: bool) -> list[Any]:
    marks = () if fast else (pytest.mark.slow,)
    return [pytest.param(model, id=model.name, marks=marks) for model in MODELS if model.fast == fast]


def check(outcome: Outcome, model: Model) -> None:
    """What is true today: a refusal exactly as EXPECTED_REFUSALS says, in the refusal's form; else a match."""
    other = EXPECTED_OTHER_REFUSALS.get(model.name)
    if other is not None:
        assert (outcome.stage, outcome.message[: len(other[1])]) == other, f"{model.name}: {outcome.message}"
        return
    expected = EXPECTED_REFUSALS.get(model.name)
    if expected is None:
        assert outcome.stage == "matches", f"{model.name}: {outcome.stage}: {outcome.message or outcome.max_error}"
        return
    assert outcome.stage == "refused at prepare", (
        f"{model.name} now {outcome.stage} (max error {outcome.max_error}): update EXPECTED_REFUSALS and docs/models.md"
    )
    head = REFUSAL_HEAD.match(outcome.message)
    assert head is not None, outcome.message
    assert int(head.group(1)) == sum(expected.values()), outcome.message
    assert outcome.refused_ops == expected, (
        f"{model.name}'s refusal changed: update EXPECTED_REFUSALS\n{outcome.message}"
    )


@pytest.mark.parametrize("model", _model_params(fast=True))
def test_fast_model(model: Model) -> None:
    outcome = run_model(model)
    if outcome.stage == "unobtainable":
        missing_tool(f"{model.name}: {outcome.message} (pip install 'dmlpy[dev]' installs magika)")
    check(outcome, model)


@pytest.mark.parametrize("model", _model_params(fast=False))
def test_slow_model(model: Model) -> None:
    outcome = run_model(model)
    if outcome.stage == "unobtainable":
        pytest.skip(outcome.message)
    check(outcome, model)


def test_every_expected_refusal_names_a_model() -> None:
    assert {*EXPECTED_REFUSALS, *EXPECTED_OTHER_REFUSALS} <= {model.name for model in MODELS}


# --------------------------------------------------------------------------------- the harness can tell
def _relu_plus_one(path: Path) -> None:
    """y = Relu(x) + 1 over 1 x 3 x 4 x 4 float32: two ONNX nodes dmlpy runs, two DirectML operators."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 4, 4])
    one = helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "one"], ["y"])]
    graph = helper.make_graph(nodes, "relu_plus_one", [x], [y], [one])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_a_model_dmlpy_runs_matches_and_counts_its_operators(tmp_path: Path) -> None:
    path = tmp_path / "relu_plus_one.onnx"
    _relu_plus_one(path)
    model = Model("relu-plus-one", "test", "float32", "written here", lambda: path, image(4))
    outcome = run_model(model)
    assert outcome.stage == "matches", outcome.message
    assert outcome.max_error == 0.0  # Relu and one addition are exact in float32 in both runtimes
    assert outcome.directml_operators == {"ACTIVATION_RELU": 1, "ELEMENT_WISE_ADD": 1}
    assert outcome.ratio is not None and outcome.ratio > 0


def test_max_error_applies_the_tolerance_elementwise() -> None:
    model = Model("m", "test", "float32", "", lambda: Path(), image(1), tolerance=FLOAT32)
    want = [np.array([1000.0, 0.0], np.float32)]
    assert max_error([np.array([1000.09, 0.0])], want, model) == pytest.approx((0.09, True))  # 1e-4 + 1e-4 * 1000
    assert max_error([np.array([1000.0, 2e-4])], want, model) == pytest.approx((2e-4, False))  # 1e-4 at zero
    assert max_error([np.zeros(3)], want, model) == (float("inf"), False)  # another shape


def test_refused_op_counts_reads_the_refusal() -> None:
    message = (
        "ONNX model (opset 11): 362 of its 566 nodes are of op types dmlpy does not run:\n"
        '  Constant: 308 nodes, the first graph.node[0] (unnamed)\n  Shape: 1 node, graph.node[550] "Shape@0"\n'
        "dmlpy runs 126 ONNX op types (dmlpy.onnx.SUPPORTED_OPS): ..."
    )
    assert refused_op_counts(message) == {"Constant": 308, "Shape": 1}
