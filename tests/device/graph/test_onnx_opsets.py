"""The opset sweep (issue 46: models run at the opset they are written at, 11 to 21): for each op type dmlpy runs
and each version of its schema in force at opsets 11 to 21, a one-node model at that opset (built from the schema:
tests/helpers/onnx_opsets.py) runs as onnx.reference computes it (Softmax, LogSoftmax and Hardmax before opset 13
as ONNX defines them, the input coerced to 2-D: onnx.reference computes the opset-13 form at every opset).
Integers and bools exactly; floats within the operator's FLOAT32_ULPS plus NumPy's (the runner's rtol) and 64
float32 ULPs of 1 more, relative and absolute, for the sums of the reductions and normalizations (120 terms, each
order its own). A sample of the versions whose semantics changed runs by default; every case with --run-slow."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.reference import ReferenceEvaluator  # noqa: E402

from dmlpy.onnx import SUPPORTED_OPS, DmlBackend  # noqa: E402
from dmlpy.onnx.nodes import LOWERED_TO  # noqa: E402
from dmlpy.onnx.softmax import ONE_AXIS_OPSET, SOFTMAX_OPS  # noqa: E402
from tests.helpers.onnx_opsets import (  # noqa: E402
    CASES,
    FIRST_OPSET,
    coerced_reference,
    one_node_case,
    unbuilt,
    versions,
)
from tests.helpers.ulps import NUMPY_FLOAT32_ULPS  # noqa: E402

CHANGED = {
    ("Softmax", 11),  # the input coerced to 2-D at axis
    ("Softmax", 13),  # along one axis
    ("LogSoftmax", 11),
    ("Hardmax", 13),
    ("Relu", 14),  # integer types
    ("ReduceSum", 13),  # axes an input
    ("ReduceMean", 18),
    ("Clip", 13),
    ("Pow", 15),
    ("Max", 13),
    ("Where", 16),
    ("MeanVarianceNormalization", 13),
    ("GlobalAveragePool", 1),
    ("ArgMax", 13),
}
"""The default part: versions whose semantics or types changed between opsets 11 and 21."""


def _params() -> list[Any]:
    return [
        pytest.param(op, version, id=f"{op}-{version}", marks=() if (op, version) in CHANGED else (pytest.mark.slow,))
        for op, version in CASES
    ]


def _bound(op_type: str) -> tuple[float, float]:
    ulps = LOWERED_TO[op_type].FLOAT32_ULPS if op_type in LOWERED_TO else 0
    return (ulps + NUMPY_FLOAT32_ULPS + 64) * 2.0**-23, 64 * 2.0**-23


@pytest.mark.parametrize(("op_type", "version"), _params())
def test_each_schema_version_runs_as_onnx_reference(op_type: str, version: int) -> None:
    model, feeds = one_node_case(op_type, max(version, FIRST_OPSET))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if op_type in SOFTMAX_OPS and version < ONE_AXIS_OPSET:
            want = coerced_reference(op_type, feeds["x0"])
        else:
            (want,) = ReferenceEvaluator(model).run(None, feeds)
    (got,) = DmlBackend.prepare(model).run(list(feeds.values()))
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if np.issubdtype(want.dtype, np.floating):
        rtol, atol = _bound(op_type)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got, want)


def test_the_sweep_covers_every_op_type_or_says_why_not() -> None:
    """Each op type dmlpy runs is swept at each of its versions, or left to its own tests for a stated reason; the
    default part's versions are versions of their op types."""
    for op_type in SUPPORTED_OPS:
        for version in versions(op_type):
            built = (op_type, version) in CASES
            assert built or unbuilt(op_type, max(version, FIRST_OPSET)), (op_type, version)
    assert set(CHANGED) <= set(CASES), set(CHANGED) - set(CASES)
    assert len(CASES) > 150
