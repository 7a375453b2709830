"""Graphs the binary builder functions make, run on a device against the rows' references applied to NumPy's
broadcasting: numbers and arrays as constant operands (either side), and a chain of every binary builder, which
runs as one fused kernel; and the examples of docs/operators/element_wise_arithmetic.md.
tests/unit/graph/test_binary_builder.py checks what they build and refuse."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

import dmlpy as dml
from dmlpy.graph.operators import BUILDERS
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from tests.device.binary.pairs import F32, Array, float_specials
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.operators import BINARY_FLOAT

SIZES = (4, 5, 6)
PAGE = Path(__file__).resolve().parents[3] / "docs" / "operators" / "element_wise_arithmetic.md"


def values(seed: int) -> Array:
    """FLOAT32 values of SIZES: the special values among ordinary ones of every sign and a few magnitudes."""
    rng = np.random.default_rng(seed)
    ordinary = (rng.uniform(-4, 4, np.prod(SIZES)) * 2.0 ** rng.integers(-8, 9, np.prod(SIZES))).astype(F32)
    specials = float_specials(F32)
    ordinary[rng.choice(ordinary.size, specials.size, replace=False)] = specials
    return ordinary.reshape(SIZES)


def reference(name: str, a: Array, b: Array) -> Array:
    """The row's reference of the operator ``name`` on ``a`` and ``b`` broadcast as NumPy does."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=F32), np.asarray(b, dtype=F32))
    with np.errstate(all="ignore"):
        return BINARY_FLOAT[name](a, b, F32)


def assert_exact(got: Array, want: Array, inputs: Array) -> None:
    wrong = mismatches(got, want, nan="any")
    assert wrong.size == 0, describe(wrong, inputs, got, want)


def test_numbers_and_arrays_are_constant_operands_on_either_side(device: Any) -> None:
    g = dml.Graph(device)
    x = g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES))
    column = np.array([0.5, -3.0, 0.0, np.inf, 7.0], dtype=F32).reshape(1, 5, 1)
    outputs = [dml.graph.add(x, 1.5), dml.graph.subtract(1.0, x), dml.graph.divide(x, column)]
    xs = values(1)
    added, subtracted, divided = g.compile(outputs)(xs)
    assert_exact(added, reference("ADD", xs, 1.5), xs)
    assert_exact(subtracted, reference("SUBTRACT", 1.0, xs), xs)
    assert_exact(divided, reference("DIVIDE", xs, column), xs)


def test_a_chain_of_every_binary_builder_is_one_fused_kernel(device: Any) -> None:
    g = dml.Graph(device)
    x, w = (g.input(dml.BufferTensorDesc(data_type="FLOAT32", sizes=SIZES)) for _ in range(2))
    xs, ws = values(2), values(3)
    y, want = x, xs
    for index, desc in enumerate(ARITHMETIC_OPERATORS):  # each node reads the one before and x or w in turn
        other, other_values = (w, ws) if index % 2 == 0 else (x, xs)
        y = BUILDERS[desc.BUILDER_NAME](y, other)
        want = reference(desc.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_"), want, other_values)
    compiled = g.compile([y])
    assert compiled.kernel_count == 1
    assert_exact(compiled(xs, ws), want, xs)


def test_the_docs_page_examples_run(capsys: Any) -> None:
    """Each ```python block of the page runs (on the default device), and what it prints is the output the page
    shows in the comment lines after the print."""
    sources = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE)
    assert len(sources) == 2, "the page has lost an example"
    for index, source in enumerate(sources):
        exec(compile(source, f"{PAGE.name} python block {index + 1}", "exec"), {"__name__": PAGE.stem})
    shown = sources[-1].split("print(", 1)[1].splitlines()[1:]
    assert capsys.readouterr().out.splitlines() == [line.removeprefix("# ") for line in shown if line]
