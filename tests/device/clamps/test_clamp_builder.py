"""The builder functions of the sign operators and the clamps (dml.graph.abs, negate, sign, clip, clip1,
threshold; docs/operators/element_wise_clip.md, "The builder"): a chain of all six fuses into one kernel and equals
NumPy step by step; clip1's INT64 bounds beyond 2^53 stay exact through a fused chain; clip's and threshold's
bounds come before scale_bias, positionally too; the docs pages' examples (the signs', the clamps', the piecewise
activations') run and print what they say."""

from __future__ import annotations

import contextlib
import inspect
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dmlpy as dml

T = dml.TensorDataType
PAGES = Path(__file__).resolve().parents[3] / "docs" / "operators"


def test_the_bounds_come_before_scale_bias() -> None:
    """The bounds before the ScaleBias, as DirectMLX orders dml::Clip's and dml::Threshold's parameters."""
    names = {name: list(inspect.signature(getattr(dml.graph, name)).parameters) for name in ("clip", "clip1")}
    assert names == {"clip": ["x", "min", "max", "scale_bias"], "clip1": ["x", "min", "max", "scale_bias"]}
    assert list(inspect.signature(dml.graph.threshold).parameters) == ["x", "min", "scale_bias"]
    assert list(inspect.signature(dml.graph.abs).parameters) == ["x", "scale_bias"]


def test_six_operators_fuse_into_one_kernel_and_equal_numpy(device: Any) -> None:
    rng = np.random.default_rng(4)
    x = np.concatenate([rng.uniform(-9.0, 9.0, 2000), [-4.0, -3.5, -1.5, 0.0, -0.0, 3.0, 5.75]]).astype(np.float32)
    g = dml.Graph(device)
    xi = g.input(dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=x.shape))
    lifted = dml.graph.threshold(xi, -4.0)
    clipped = dml.graph.clip(lifted, -1.5, 3.0, (0.5, 0.25))  # positional: min, max, then scale_bias
    magnitude = dml.graph.abs(clipped, scale_bias=(2.0, -1.0))
    banded = dml.graph.clip1(dml.graph.negate(magnitude), min=-2.5, max=-0.5)
    signs = dml.graph.sign(banded)
    compiled = g.compile([banded, signs])
    assert compiled.kernel_count == 1
    got_banded, got_signs = compiled(x)
    f = np.float32
    r = np.maximum(x, f(-4.0))
    r = np.minimum(f(3.0), np.maximum(f(-1.5), r * f(0.5) + f(0.25)))
    r = -np.abs(r * f(2.0) - f(1.0))
    r = np.maximum(f(-2.5), np.minimum(r, f(-0.5)))
    assert got_banded.tobytes() == r.tobytes()
    assert got_signs.tobytes() == np.sign(r).tobytes()
    assert set(np.unique(got_banded)) >= {f(-2.5), f(-0.5)} and np.unique(got_signs).tolist() == [-1.0]


def test_clip1_int64_bounds_beyond_2_53_stay_exact_fused(device: Any) -> None:
    low, high = -(2**53) - 1, 2**53 + 1  # neither is a double: (double)(2^53 + 1) is 2^53
    values = [-(2**63), -(2**53) - 2, low, -1, 0, 2**53, high, 2**53 + 2, 2**63 - 1]
    n = np.array(values, np.int64)
    g = dml.Graph(device)
    ni = g.input(dml.BufferTensorDesc(data_type=T.INT64, sizes=n.shape))
    bounded = dml.graph.clip1(ni, low, high)
    folded = dml.graph.negate(dml.graph.abs(bounded))
    signs = dml.graph.sign(dml.graph.clip(folded, -1e30, -5.0))  # FLOAT bounds: -1e30 saturates to INT64's MIN
    compiled = g.compile([bounded, folded, signs])
    assert compiled.kernel_count == 1
    got_bounded, got_folded, got_signs = (a.tolist() for a in compiled(n))
    want = [min(max(v, low), high) for v in values]
    assert got_bounded == want
    assert got_folded == [-abs(v) for v in want]
    assert got_signs == [-1] * len(values)  # min(-5, -|v|) is negative for every v


@pytest.mark.parametrize(
    "page", ["element_wise_signs.md", "element_wise_clip.md", "activation_piecewise.md", "activation_exponential.md"]
)
def test_the_pages_examples_print_what_they_say(device: Any, page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each ```python block of the page runs (on the test's device); every value its comments show after a print
    (``# [[0.  0. ...]]: why``, or ``print(y)  # [...]``) is what it printed."""
    monkeypatch.setattr(dml, "create_device", lambda *args, **kwargs: device)
    blocks = re.findall(r"```python\n(.*?)```", (PAGES / page).read_text(encoding="utf-8"), re.S)
    shown_in_all = 0
    for block in blocks:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(block, page, "exec"), {})
        shown = re.findall(r"#\s*(\[[^:]*\])", block)
        shown_in_all += len(shown)
        assert [" ".join(line.split()) for line in shown] == [
            " ".join(line.split()) for line in printed.getvalue().splitlines()
        ]
    assert shown_in_all >= 2
