"""BATCH_NORMALIZATION, MEAN_VARIANCE_NORMALIZATION (1, 2) and LP_NORMALIZATION run, against the float64 formula of
docs/operators/normalization.md (NumPy, in cases.py), within the bound that page derives (``bound``): FLOAT32 and
FLOAT16, with and without ScaleTensor and BiasTensor, broadcast statistics, a FusedActivation, several axis sets,
strided tensors, and as graph nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.movement.cases import tensor
from tests.device.normalization.cases import (
    MVN_FORMS,
    SHAPE,
    bn_case,
    lp_case,
    mvn_case,
    mvn_reference,
    past_bound,
    values,
)
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType


def _check(got: Any, expected: Any, allowed: Any) -> None:
    wrong = past_bound(got, expected, allowed)
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)"


def _run_and_check(device: Any, case: Any) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    _check(got, case.expected, case.allowed)


@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("fused", [False, True], ids=["plain", "relu"])
def test_batch_normalization(device: Any, data_type: Any, fused: bool) -> None:
    _run_and_check(device, bn_case(data_type, fused, {"input_tensor": 2}))


@pytest.mark.parametrize("form", list(MVN_FORMS))
@pytest.mark.parametrize("data_type", [T.FLOAT32, T.FLOAT16], ids=lambda t: t.name)
@pytest.mark.parametrize("parameters", ["scale and bias", "none"])
def test_mean_variance_normalizations(device: Any, form: str, data_type: Any, parameters: str) -> None:
    given = parameters != "none"
    _run_and_check(device, mvn_case(form, data_type, given, given, True, {"output_tensor": 1}))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("axis", [0, 3])
def test_lp_normalization(device: Any, p: int, axis: int) -> None:
    _run_and_check(device, lp_case(p, axis, T.FLOAT32, {"input_tensor": 3}))


def test_layer_normalization_as_a_graph_node(device: Any) -> None:
    x = values(T.FLOAT32, SHAPE, 7)
    g = dml.Graph(device)
    gx = g.input(SHAPE, T.FLOAT32)
    normalized = g.add_operator(
        dml.MeanVarianceNormalization1OperatorDesc(
            input_tensor=tensor(T.FLOAT32, SHAPE), output_tensor=tensor(T.FLOAT32, SHAPE), axes=(3,),
            normalize_variance=True, epsilon=1e-5,
        ),
        [gx + 1],
    )  # fmt: skip
    got = np.asarray(g.compile([normalized * 2])(x))
    exact, allowed = mvn_reference(x.astype(np.float64) + 1, (3,), True, True, 1e-5)
    _check(got, 2 * exact, 2 * allowed)
