"""What the pooling tests share (test_pooling.py, oclgrind_pooling_variants.py): the descriptors, the inputs and an
independent reference written from DirectML's documented formula (docs/operators/pooling.md), in float64 NumPy for
the floats and exactly for MAX, with the bound that page derives for each float result (``bound``)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml
from tests.device.movement.cases import padded_strides, tensor
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType
U = 2.0**-24
"""FLOAT32's unit roundoff."""
HALF_U = 2.0**-11
"""FLOAT16's unit roundoff: a FLOAT16 output's one rounding."""

AVERAGE = (dml.AveragePoolingOperatorDesc, dml.AveragePooling1OperatorDesc)
LP = (dml.LpPoolingOperatorDesc, dml.LpPooling1OperatorDesc)
MAX = (dml.MaxPoolingOperatorDesc, dml.MaxPooling1OperatorDesc, dml.MaxPooling2OperatorDesc)
DILATED = (dml.AveragePooling1OperatorDesc, dml.LpPooling1OperatorDesc, dml.MaxPooling2OperatorDesc)
WITH_INDICES = (dml.MaxPooling1OperatorDesc, dml.MaxPooling2OperatorDesc)


@dataclass(frozen=True)
class Window:
    """The window fields along the spatial dimensions."""

    window_size: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    start_padding: tuple[int, ...] | None = None
    end_padding: tuple[int, ...] | None = None
    dilations: tuple[int, ...] | None = None

    def fields(self, desc_class: Any) -> dict[str, Any]:
        ones, zeros = (1,) * len(self.window_size), (0,) * len(self.window_size)
        fields = {
            "window_size": self.window_size,
            "strides": self.strides or ones,
            "start_padding": self.start_padding or zeros,
            "end_padding": self.end_padding or zeros,
        }
        if desc_class in DILATED:
            fields["dilations"] = self.dilations or ones
        return fields


@dataclass
class Case:
    """One run: the descriptor, its inputs, and per output the reference and the allowed error (0: exact)."""

    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: dict[str, Any] = field(default_factory=dict)
    allowed: dict[str, Any] = field(default_factory=dict)


def output_sizes(desc_class: Any, sizes: Sequence[int], window: Window) -> tuple[int, ...]:
    (shape, *_) = desc_class.output_shapes(
        {"input_tensor": dml.BufferTensorDesc(data_type=T.FLOAT32, sizes=tuple(sizes))}, window.fields(desc_class)
    )
    return tuple(shape.sizes)


def values(data_type: Any, sizes: Sequence[int], seed: int) -> npt.NDArray[Any]:
    """Inputs of ``data_type``: floats of both signs from -4 to 4 (a FLOAT16's exactly), integers over their whole
    range, with repeats, so that MAX meets ties."""
    rng = np.random.default_rng(seed)
    dtype = NUMPY_DTYPE[data_type]
    if dtype.kind == "f":
        return (rng.integers(-64, 65, size=sizes) / 16).astype(dtype)
    info = np.iinfo(dtype)
    choices = np.array([info.min, info.max, 0, 1, info.min + 1, info.max // 3], dtype=dtype)
    mixed = rng.integers(info.min, info.max, size=sizes, dtype=dtype, endpoint=True)
    return np.where(rng.random(size=sizes) < 0.3, rng.choice(choices, size=sizes), mixed).astype(dtype)


def windows(x: npt.NDArray[Any], desc_class: Any, window: Window) -> tuple[list[Any], list[Any], Any]:
    """Per output element (row-major over the spatial output), the window's inside elements of ``x`` (N, C, m) and
    their packed row-major indices into x, in the window's row-major order; and the whole window's element count."""
    fields = window.fields(desc_class)
    spatial = x.shape[2:]
    dilations = fields.get("dilations", (1,) * len(spatial))
    outs = output_sizes(desc_class, x.shape, window)[2:]
    flat = np.arange(x.size).reshape(x.shape)
    elements, indices = [], []
    for position in itertools.product(*(range(n) for n in outs)):
        coords = []
        for d, o in enumerate(position):
            first = o * fields["strides"][d] - fields["start_padding"][d]
            taken = [first + k * dilations[d] for k in range(fields["window_size"][d])]
            coords.append([i for i in taken if 0 <= i < spatial[d]])
        chosen = np.ix_(range(x.shape[0]), range(x.shape[1]), *coords)
        elements.append(x[chosen].reshape(x.shape[0], x.shape[1], -1))
        indices.append(flat[chosen].reshape(x.shape[0], x.shape[1], -1))
    return elements, indices, int(np.prod(fields["window_size"]))


def reference(desc_class: Any, x: npt.NDArray[Any], window: Window, **options: Any) -> dict[str, Any]:
    """Each output by slot: the exact value (float64 for AVERAGE and LP), MAX's element and index; for the floats,
    ``"magnitude"``, the sum of |term| the kernel's sum carries (the bound's cancellation term), and ``"count"``."""
    out_sizes = output_sizes(desc_class, x.shape, window)
    elements, indices, whole = windows(x, desc_class, window)
    result: dict[str, Any] = {}
    if desc_class in MAX:
        best = [_maximum(e, i) for e, i in zip(elements, indices, strict=True)]
        result["output_tensor"] = _spatial([b[0] for b in best], out_sizes)
        result["output_indices_tensor"] = _spatial([b[1] for b in best], out_sizes)
        return result
    wide = [e.astype(np.float64) for e in elements]
    if desc_class in AVERAGE:
        terms = wide
        divisors = [whole if options["include_padding"] else e.shape[2] for e in wide]
        exact = [t.sum(axis=2) / n for t, n in zip(terms, divisors, strict=True)]
    else:
        p = options["p"]
        terms = [np.abs(e) ** p for e in wide]
        exact = [t.sum(axis=2) ** (1 / p) for t in terms]
    result["output_tensor"] = _spatial(exact, out_sizes)
    result["magnitude"] = _spatial([np.abs(t).sum(axis=2) for t in terms], out_sizes)
    result["count"] = max(e.shape[2] for e in wide)
    return result


def _maximum(elements: npt.NDArray[Any], indices: npt.NDArray[Any]) -> tuple[Any, Any]:
    """The first maximum of each (N, C) window and its index: a NaN is the largest, the first NaN stays."""
    best, index = elements[:, :, 0].copy(), indices[:, :, 0].copy()
    nan = np.isnan if elements.dtype.kind == "f" else (lambda v: np.zeros(v.shape, bool))
    for k in range(1, elements.shape[2]):
        x = elements[:, :, k]
        with np.errstate(invalid="ignore"):
            replaces = ~nan(best) & (nan(x) | (x > best))
        best = np.where(replaces, x, best)
        index = np.where(replaces, indices[:, :, k], index)
    return best, index


def _spatial(per_position: list[Any], sizes: Sequence[int]) -> Any:
    """Per-position (N, C) arrays stacked into the output's Sizes."""
    stacked = np.stack(per_position, axis=-1)
    return stacked.reshape(tuple(sizes))


def bound(desc_class: Any, reference_values: dict[str, Any], p: int, half: bool) -> Any:
    """docs/operators/pooling.md's bound on |got - exact|: the compensated sum S of n terms is within 2u|S| +
    2nu^2 sum|t|; AVERAGE's correctly rounded division adds u|y|; LP's terms add u each for P 2 (x * x) and 16 ULPs
    for P >= 3 (pown), the root u (sqrt) or 16 ULPs (powr), the error of the sum divided by P; a FLOAT16 output
    adds its rounding, 2^-11 relative."""
    exact, magnitude, n = reference_values["output_tensor"], reference_values["magnitude"], reference_values["count"]
    y = np.abs(exact)
    if desc_class in AVERAGE:
        allowed = 3 * U * y + 2 * n * U * U * magnitude
    else:
        term_error = {1: 0, 2: U}.get(p, 16 * U)
        root_error = {1: 0, 2: U}.get(p, 16 * U)
        allowed = ((2 * U + term_error) / p + root_error) * y + 2 * n * U * U * magnitude
    return allowed + (HALF_U * y if half else 0)


def pooling_desc(
    desc_class: Any,
    data_type: Any,
    sizes: Sequence[int],
    window: Window,
    *,
    gaps: Mapping[str, int] | None = None,
    index_type: Any = None,
    **options: Any,
) -> Any:
    """A ``desc_class`` descriptor on an input of ``sizes``; ``gaps``: slots whose rows are padded by that many
    elements (strided tensors)."""
    gaps = gaps or {}
    out = output_sizes(desc_class, sizes, window)

    def described(slot: str, element: Any, shape: Sequence[int]) -> Any:
        return tensor(element, shape, padded_strides(shape, gaps[slot]) if slot in gaps else None)

    tensors = {"input_tensor": described("input_tensor", data_type, sizes)}
    tensors["output_tensor"] = described("output_tensor", data_type, out)
    if index_type is not None:
        tensors["output_indices_tensor"] = described("output_indices_tensor", index_type, out)
    return desc_class(**tensors, **window.fields(desc_class), **options)


def pooling_case(
    desc_class: Any,
    data_type: Any,
    sizes: Sequence[int],
    window: Window,
    *,
    seed: int = 1,
    gaps: Mapping[str, int] | None = None,
    index_type: Any = None,
    x: npt.NDArray[Any] | None = None,
    **options: Any,
) -> Case:
    """A run of ``desc_class`` with its reference and bounds (MAX and its indices exact)."""
    desc = pooling_desc(desc_class, data_type, sizes, window, gaps=gaps, index_type=index_type, **options)
    x = values(data_type, sizes, seed) if x is None else x
    expected = reference(desc_class, x, window, **{k: v for k, v in options.items() if k in ("include_padding", "p")})
    case = Case(desc, {"input_tensor": x})
    if desc_class in MAX:
        case.expected["output_tensor"] = expected["output_tensor"]
        if index_type is not None:
            case.expected["output_indices_tensor"] = expected["output_indices_tensor"]
        return case
    case.expected["output_tensor"] = expected["output_tensor"]
    case.allowed["output_tensor"] = bound(desc_class, expected, options.get("p", 1), data_type == T.FLOAT16)
    return case


def mismatch(case: Case, got: Mapping[str, npt.NDArray[Any]]) -> str | None:
    """What differs between ``got`` and the case's references (None: nothing): floats past their bound, MAX's values
    bit for bit (a NaN's bits too), indices exactly."""
    for slot, expected in case.expected.items():
        value = got[slot]
        if slot in case.allowed:
            error = np.abs(value.astype(np.float64) - expected)
            wrong = np.flatnonzero(~(error <= case.allowed[slot]))
        else:
            want = np.asarray(expected).astype(value.dtype)
            wrong = np.flatnonzero(want.view(f"u{value.itemsize}") != value.view(f"u{value.itemsize}"))
        if wrong.size:
            return f"{slot}: {wrong.size} elements wrong, first {wrong[:8].tolist()}"
    return None
