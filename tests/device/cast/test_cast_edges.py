"""CAST's edges, one launch per type pair over a whole array of them (the row's own program; the pairs the row
leaves to --run-slow slow here too), against the row's reference (tests/helpers/rows_cast.py, the rules written out):

* every float16 pattern to each integer width: toward zero, saturated, NaN to 0;
* float32 and float64 edges to every type: signed zeros, subnormals, halfway points of each narrower type (the
  integers' x.5, float16's and float32's ties and their neighbours, a float64 tie with a sticky bit below float32's
  precision), the integer types' ends and the floats around them (2^31, 2^63, 2^64), the largest floats, the
  infinities and NaNs with payloads;
* integer edges to every type: each type's ends, -1, 0, 1, 2, and the integers where a float rounds (2^24 + 1,
  2^53 + 1, ties to even and their neighbours, float16's 65504 and 65520);
* a few conversions written out, so that the rules hold apart from the reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.binary.pairs import float_specials
from tests.helpers.ext_oracle import describe, mismatches
from tests.helpers.operators import row_of
from tests.helpers.row_model import F16, F32, Case
from tests.helpers.row_runs import run_on

pytestmark = pytest.mark.one_profile  # values, not launch shapes: the rows run both profiles

Array = np.ndarray[Any, Any]
ROW = row_of(dml.CastOperatorDesc)
F64 = np.dtype(np.float64)


def _pairs(source: tuple[np.dtype[Any], ...] | None = None, target_kind: str = "fiu") -> list[Any]:
    params = []
    for case in ROW.cases:
        x, out = case.dtypes["input_tensor"], case.dtypes["output_tensor"]
        if (source is None or x in source) and out.kind in target_kind:
            marks = pytest.mark.slow if case.id in ROW.slow_cases else ()
            params.append(pytest.param(case, id=case.id, marks=marks))
    return params


def _assert_reference(device: Any, case: Case, x: Array) -> Array:
    got, want = run_on(device, ROW, case, {"input_tensor": x})
    if want.dtype.kind == "f":
        wrong = mismatches(got, want, nan="payload")
        assert wrong.size == 0, describe(wrong, x, got, want)
    else:
        wrong = np.flatnonzero(got != want)
        assert wrong.size == 0, [(x[i], got[i], want[i]) for i in wrong[:12]]
    return got


@pytest.mark.parametrize("case", _pairs((F16,), "iu"))
def test_every_half_to_each_integer_width(device: Any, case: Case) -> None:
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    got = _assert_reference(device, case, halves)
    out = case.dtypes["output_tensor"]
    info = np.iinfo(out)
    info = np.iinfo(case.dtypes["output_tensor"])
    assert set(got[np.isnan(halves)].tolist()) == {0}
    assert got[halves == np.inf].tolist() == [info.max]
    assert got[halves == -np.inf].tolist() == [info.min]


def _float_edges(dtype: np.dtype[Any]) -> Array:
    ties = [0.5, 1.5, 2.5, 0.49999997, 127.5, 128.5, 255.5, 32767.5, 65535.5]
    ends = [2.0**7, 2.0**8, 2.0**15, 2.0**16, 2.0**31, 2.0**32, 2.0**63, 2.0**64, 2147483520.0, 4294967040.0]
    ends += [9223371487098961920.0, 18446742974197923840.0]  # the largest float32s below 2^63 and 2^64
    half = [1 + 2.0**-11, 1 + 3 * 2.0**-11, 2.0**-25, 3 * 2.0**-25, 2.0**-24, 65504.0, 65519.99, 65520.0, 2.0**-14]
    single = [1 + 2.0**-24, 1 + 3 * 2.0**-24, 2.0**-150, 3 * 2.0**-150, 2.0**-149, 2.0**128, 3.4028235677973366e38]
    sticky = [1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-24 + 2.0**-52, 2.0**-25 * (1 + 2.0**-40), 2.0**-1074]
    magnitudes = np.array(ties + ends + half + single + sticky, dtype=np.float64)
    with np.errstate(over="ignore"):
        values = magnitudes.astype(dtype)
    specials = float_specials(dtype) if dtype != F64 else _double_specials()
    return np.concatenate([specials, values, -values, np.nextafter(values, 0)])


def _double_specials() -> Array:
    """FLOAT64's special values, both signs: zero, the least subnormal, the largest subnormal, the least normal, 1,
    the largest finite, infinity; and NaNs: quiet, signalling, with payloads in the bits float32 keeps and drops."""
    magnitudes = np.array([0.0, 5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, 1.0, 1.7976931348623157e308])
    finite = np.concatenate([magnitudes, [np.inf]])
    nans = np.array(
        [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF4000020000000, 0xFFFFFFFFFFFFFFFF],
        dtype=np.uint64,
    ).view(np.float64)
    return np.concatenate([finite, -finite, nans])


@pytest.mark.parametrize("case", _pairs((F32, F64)))
def test_float_edges_to_every_type(device: Any, case: Case) -> None:
    _assert_reference(device, case, _float_edges(case.dtypes["input_tensor"]))


def _integer_edges(dtype: np.dtype[Any]) -> Array:
    info = np.iinfo(dtype)
    powers = [2**24, 2**53, 2**62, 2**63]
    near = [p + d for p in powers for d in (-1, 1, 2, 3)] + [2**63 - 2**39, 2**63 - 2**39 + 1, 2**64 - 1 - 2**10]
    near += [65504, 65519, 65520, 2**31 - 64, 2**31 - 65, 2**32 - 128, 2**32 - 129, 255, 256, 300, -129, -300]
    values = {int(info.min), int(info.min) + 1, -1, 0, 1, 2, int(info.max) - 1, int(info.max)}
    values |= {v * s for v in near for s in (1, -1)}
    return np.array(sorted(v for v in values if info.min <= v <= info.max), dtype=dtype)


@pytest.mark.parametrize("case", _pairs(tuple(np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"))))
def test_integer_edges_to_every_type(device: Any, case: Case) -> None:
    _assert_reference(device, case, _integer_edges(case.dtypes["input_tensor"]))


def _run(device: Any, source: str, target: str, values: list[Any]) -> list[Any]:
    """CAST from ``source`` to ``target`` of ``values``, as Python numbers."""
    x_dtype, out_dtype = (np.dtype(dml.dtypes.DATA_TYPES[dml.TensorDataType[t]].numpy) for t in (source, target))
    case = Case({"input_tensor": x_dtype, "output_tensor": out_dtype})
    got, _ = run_on(device, ROW, case, {"input_tensor": np.array(values, dtype=x_dtype)})
    result: list[Any] = got.tolist()
    return result


def test_conversions_written_out(device: Any) -> None:
    nan, inf = float("nan"), float("inf")
    assert _run(device, "FLOAT32", "INT8", [1.7, -1.7, 300, -300, nan, inf, -inf, -0.0]) == [
        1,
        -1,
        127,
        -128,
        0,
        127,
        -128,
        0,
    ]
    assert _run(device, "FLOAT32", "UINT32", [-0.9, -5.0, 4294967296.0, 3.99]) == [0, 0, 4294967295, 3]
    assert _run(device, "INT32", "INT8", [300, -129, 255, -128]) == [44, 127, -1, -128]
    assert _run(device, "INT8", "UINT32", [-1, -128]) == [4294967295, 4294967168]
    assert _run(device, "FLOAT32", "FLOAT16", [65519.99, 65520.0, 1 + 2.0**-11, 1 + 3 * 2.0**-11]) == [
        65504.0,
        inf,
        1.0,
        1 + 2.0**-9,
    ]
    assert _run(device, "INT32", "FLOAT32", [2**24 + 1, 2**24 + 3, -(2**31)]) == [2.0**24, 2.0**24 + 4, -(2.0**31)]
    assert _run(device, "INT64", "FLOAT32", [2**60 + 2**36, 2**60 + 2**36 + 1]) == [2.0**60, 2.0**60 + 2**37]
    assert _run(device, "UINT64", "FLOAT64", [2**64 - 1, 2**53 + 1, 2**53 + 3]) == [2.0**64, 2.0**53, 2.0**53 + 4]
    assert _run(device, "FLOAT64", "INT64", [2.0**63, -(2.0**63), -0.5, nan]) == [2**63 - 1, -(2**63), 0, 0]
    assert _run(device, "FLOAT64", "FLOAT16", [1 + 2.0**-11 + 2.0**-40, 2.0**-25 * (1 + 2.0**-40)]) == [
        1 + 2.0**-10,
        2.0**-24,
    ]
