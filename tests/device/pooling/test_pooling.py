"""AVERAGE_POOLING(1), LP_POOLING(1) and MAX_POOLING(1, 2) run, against cases.py's reference from DirectML's formula
(and onnx.reference's AveragePool, MaxPool and LpPool where the semantics coincide): every data type of each
support table at its highest level, strides, dilations, asymmetric padding, IncludePadding, global windows, 4-D and
5-D tensors (a 1-D window as H = 1), strided tensors at byte offsets, MAX's indices (UINT32, UINT64; ties, NaN),
windows wholly in the padding, both launch profiles, and a graph node between element-wise nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from tests.device.pooling.cases import (
    AVERAGE,
    LP,
    MAX,
    WITH_INDICES,
    Case,
    T,
    Window,
    mismatch,
    pooling_case,
    pooling_desc,
    values,
)
from tests.helpers.structured_runs import run_structured

STRIDED = {"input_tensor": 3, "output_tensor": 1, "output_indices_tensor": 2}
"""Every tensor strided: its rows padded by that many elements."""
OFFSETS = {"input_tensor": 48, "output_tensor": 16, "output_indices_tensor": 32}
ASYMMETRIC = Window((3, 2), (2, 1), (1, 0), (2, 1))
"""A 2-D window, strides 2 and 1, padding 1 before and 2 after along H, 1 after along W."""
DILATED_3D = Window((2, 2, 3), (1, 2, 1), (0, 1, 2), (1, 0, 1), (2, 1, 2))
"""A 3-D window, dilated 2 along D and W, every padding kind."""


def _run(device: Any, case: Case, offsets: dict[str, int] | None = None) -> dict[str, Any]:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)
    wrong = mismatch(case, got)
    assert wrong is None, wrong
    return got


@pytest.mark.parametrize("desc_class", AVERAGE, ids=lambda c: c.OPERATOR_TYPE.name)
@pytest.mark.parametrize("include_padding", [False, True], ids=["padding left out", "padding counted"])
def test_average_pooling(device: Any, desc_class: Any, include_padding: bool) -> None:
    window, sizes = (DILATED_3D, (2, 3, 5, 4, 7)) if desc_class is AVERAGE[1] else (ASYMMETRIC, (2, 3, 7, 6))
    case = pooling_case(desc_class, T.FLOAT32, sizes, window, gaps=STRIDED, include_padding=include_padding)
    _run(device, case, OFFSETS)


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pooling(device: Any, p: int) -> None:
    """P 1 and 2 take their exact paths, 3 pown and powr; LP_POOLING1 dilated and 5-D, LP_POOLING 4-D."""
    desc_class = LP[p % 2]
    window, sizes = (DILATED_3D, (2, 3, 5, 4, 7)) if desc_class is LP[1] else (ASYMMETRIC, (2, 3, 7, 6))
    _run(device, pooling_case(desc_class, T.FLOAT32, sizes, window, gaps=STRIDED, p=p), OFFSETS)


@pytest.mark.parametrize(
    ("desc_class", "index_type"),
    [(MAX[0], None), (MAX[1], T.UINT32), (MAX[1], None), (MAX[2], T.UINT64)],
    ids=["MAX_POOLING", "MAX_POOLING1 UINT32", "MAX_POOLING1 no indices", "MAX_POOLING2 UINT64"],
)
def test_max_pooling(device: Any, desc_class: Any, index_type: Any) -> None:
    window, sizes = (DILATED_3D, (2, 3, 5, 4, 7)) if desc_class is MAX[2] else (ASYMMETRIC, (2, 3, 7, 6))
    case = pooling_case(desc_class, T.FLOAT32, sizes, window, gaps=STRIDED, index_type=index_type)
    _run(device, case, OFFSETS)


def _every_type() -> list[tuple[Any, Any]]:
    classes = (*AVERAGE, *LP, *MAX)
    return [(c, t) for c in classes for t in sorted(c.SUPPORT.rows[-1].data_types["InputTensor"], key=int)]


@pytest.mark.one_profile
@pytest.mark.parametrize(("desc_class", "data_type"), _every_type(), ids=lambda v: getattr(v, "OPERATOR_TYPE", v).name)
def test_every_type_of_the_tables(device: Any, desc_class: Any, data_type: Any) -> None:
    """Each type of the operator's table at its highest level; MAX_POOLING1 and 2 write UINT64 indices."""
    options: dict[str, Any] = {"include_padding": True} if desc_class in AVERAGE else {}
    options.update({"p": 2} if desc_class in LP else {})
    index_type = T.UINT64 if desc_class in WITH_INDICES else None
    window = Window((2, 3), (1, 2), (1, 1), (0, 1), (2, 1) if "dilations" in desc_class.model_fields else None)
    _run(device, pooling_case(desc_class, data_type, (1, 2, 5, 6), window, index_type=index_type, **options))


@pytest.mark.parametrize("desc_class", [AVERAGE[0], LP[0], MAX[1]], ids=lambda c: c.OPERATOR_TYPE.name)
def test_global_pooling_is_a_full_window(device: Any, desc_class: Any) -> None:
    """GlobalAveragePool, GlobalLpPool and GlobalMaxPool: the window every spatial element (4096 here, one compensated
    sum per channel), FLOAT16 for the floats' rounding once."""
    sizes = (2, 3, 64, 64)
    options: dict[str, Any] = {"include_padding": False} if desc_class in AVERAGE else {}
    options.update({"p": 2} if desc_class in LP else {})
    index_type = T.UINT32 if desc_class in WITH_INDICES else None
    case = pooling_case(desc_class, T.FLOAT16, sizes, Window((64, 64)), index_type=index_type, **options)
    got = _run(device, case)
    assert got["output_tensor"].shape == (2, 3, 1, 1)


def test_max_ties_nan_and_signed_zeros(device: Any) -> None:
    """Ties give the first in the window's row-major order (its index); a NaN is the largest, the first NaN with its
    payload; -0 and 0 tie (the first kept, its sign too)."""
    x = np.zeros((1, 1, 2, 4), np.float32)
    x[0, 0] = [[-0.0, 0.0, 5, 5], [np.nan, 1, 5, -np.inf]]
    x.view(np.uint32)[0, 0, 1, 0] |= 0x1234  # a payload
    case = pooling_case(MAX[1], T.FLOAT32, x.shape, Window((2, 2), (1, 2)), index_type=T.UINT32, x=x)
    got = _run(device, case)
    assert got["output_indices_tensor"].ravel().tolist() == [4, 2]
    assert got["output_tensor"].view(np.uint32).ravel()[0] == x.view(np.uint32)[0, 0, 1, 0]
    zeros = pooling_case(MAX[1], T.FLOAT32, x.shape, Window((1, 2), (1, 2)), index_type=T.UINT32, x=x)
    got = _run(device, zeros)
    assert np.signbit(got["output_tensor"][0, 0, 0, 0]) and got["output_indices_tensor"][0, 0, 0, 0] == 0


def test_windows_wholly_in_the_padding(device: Any) -> None:
    """docs/operators/pooling.md's decision for a window with no input element: AVERAGE without IncludePadding 0 / 0
    (NaN), with it 0; MAX -inf and the index all ones; LP 0."""
    window = Window((1, 2), (1, 1), (0, 3), (0, 0))  # W: outputs 0 and 1 read only padding
    x = values(T.FLOAT32, (1, 1, 1, 3), 3) + 5
    expected = {
        (AVERAGE[0], False): [np.nan, np.nan],
        (AVERAGE[0], True): [0.0, 0.0],
        (LP[0], None): [0.0, 0.0],
        (MAX[1], None): [-np.inf, -np.inf],
    }
    for (desc_class, include), first in expected.items():
        options: dict[str, Any] = {} if include is None else {"include_padding": include}
        options.update({"p": 2} if desc_class in LP else {})
        index_type = T.UINT32 if desc_class in WITH_INDICES else None
        desc = pooling_desc(desc_class, T.FLOAT32, x.shape, window, index_type=index_type, **options)
        got = run_structured(device, desc, {"input_tensor": x})
        np.testing.assert_array_equal(got["output_tensor"].ravel()[:2], first)
        if index_type is not None:
            assert got["output_indices_tensor"].ravel()[:2].tolist() == [2**32 - 1] * 2


def _onnx(op_type: str, x: Any, **attributes: Any) -> list[Any]:
    outputs = ["y", "i"] if op_type == "MaxPool" else ["y"]
    node = helper.make_node(op_type, ["x"], outputs, **attributes)
    return list(ReferenceEvaluator(node).run(None, {"x": x}))


@pytest.mark.one_profile
def test_onnx_reference_agrees(device: Any) -> None:
    """onnx.reference's AveragePool (count_include_pad 0 and 1), MaxPool (dilations, its Indices) and LpPool, where
    ONNX's semantics are DirectML's: float32, the bounds of cases.py (MAX exact)."""
    x = values(T.FLOAT32, (2, 3, 7, 6), 5)
    pads = {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 2, 1]}
    window = ASYMMETRIC
    for include in (0, 1):
        case = pooling_case(AVERAGE[0], T.FLOAT32, x.shape, window, x=x, include_padding=bool(include))
        (onnx_y,) = _onnx("AveragePool", x, count_include_pad=include, **pads)
        got = run_structured(device, case.desc, case.inputs)["output_tensor"]
        assert np.all(np.abs(got - onnx_y) <= case.allowed["output_tensor"] + 2**-23 * np.abs(onnx_y))
    case = pooling_case(LP[0], T.FLOAT32, x.shape, window, x=x, p=2)
    (onnx_y,) = _onnx("LpPool", x, p=2, **pads)
    got = run_structured(device, case.desc, case.inputs)["output_tensor"]
    assert np.all(np.abs(got - onnx_y) <= case.allowed["output_tensor"] + 2**-22 * np.abs(onnx_y))
    dilated = Window((3, 2), (2, 1), (1, 0), (2, 1), (2, 2))
    x = values(T.FLOAT32, (2, 3, 9, 6), 6) + np.arange(54, dtype=np.float32).reshape(9, 6)  # no ties: ONNX's order
    case = pooling_case(MAX[2], T.FLOAT32, x.shape, dilated, x=x, index_type=T.UINT64)
    onnx_y, onnx_i = _onnx("MaxPool", x, dilations=[2, 2], **pads)
    got = run_structured(device, case.desc, case.inputs)
    np.testing.assert_array_equal(got["output_tensor"], onnx_y)
    np.testing.assert_array_equal(got["output_indices_tensor"], onnx_i)


def test_a_graph_node_between_element_wise_nodes(device: Any) -> None:
    sizes = (1, 2, 6, 6)
    x = values(T.FLOAT32, sizes, 9)
    g = dml.Graph(device)
    gx = g.input(sizes, T.FLOAT32)
    desc = pooling_desc(AVERAGE[0], T.FLOAT32, sizes, ASYMMETRIC, include_padding=True)
    pooled = g.add_operator(desc, [gx * 2])
    got = np.asarray(g.compile([pooled + 1])(x))
    case = pooling_case(AVERAGE[0], T.FLOAT32, sizes, ASYMMETRIC, x=x * 2, include_padding=True)
    assert np.all(np.abs(got - (case.expected["output_tensor"] + 1)) <= case.allowed["output_tensor"] + 2**-23 * 4)
