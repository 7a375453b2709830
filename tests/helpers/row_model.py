"""The operator test table's model: ``Case`` (one call of an operator), ``OperatorRow`` (one operator: its cases,
its reference, its parameters, how its results compare), the value sets every row draws from and the unary
reference. tests/helpers/operators.py holds the rows (``ROWS``); the family modules beside it (rows_clamps.py) write
theirs with what is here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

from dmlpy.ops._base import OperatorDescBase
from tests.helpers.ext_cases import all_patterns, edge_values, random_values
from tests.helpers.ext_oracle import format_of

F16, F32 = np.dtype(np.float16), np.dtype(np.float32)
I8, U8, U32 = np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.uint32)
Array = npt.NDArray[Any]


@dataclass(frozen=True)
class Case:
    """One call of an operator: the NumPy dtype of each tensor by field name (an optional tensor that is left
    out is absent) and the descriptor's other fields."""

    dtypes: Mapping[str, np.dtype[Any]]
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        types = "-".join(f"{name.removesuffix('_tensor')}={dtype.name}" for name, dtype in self.dtypes.items())
        options = "-".join(getattr(value, "name", str(value)) for value in self.options.values())
        return f"{types}-{options}" if options else types


Reference = Callable[[Mapping[str, Array], Case], Array]
"""``reference(inputs, case)``: the expected output for ``inputs`` (1-D arrays by field name, all one length; for a
``Reduction`` row, arrays in the tensor's shape)."""
Parameter = Callable[[np.dtype[Any], int, np.random.Generator], Array]
"""``values(dtype, count, rng)``: values for a tensor other than InputTensor (a scale, a zero point)."""


@dataclass(frozen=True)
class PerRank:
    """A descriptor field whose value depends on the tensor's rank (the softmax family's Axes: the last axis, the
    first, ...): ``descriptor`` resolves it for the shape each test runs; ``name`` is what the case's id shows."""

    name: str
    pick: Callable[[int], Any]


@dataclass(frozen=True)
class Reduction:
    """How the table's tests run an operator whose outputs each read a group of elements (the softmax family)
    rather than one: its reference reads the inputs in the tensor's shape, and the values test runs ``count``
    elements of ``values`` as rows of ``row_length``."""

    values: Parameter
    """The input's values (``input_values`` would put a NaN into most groups)."""
    count: int = 4096
    row_length: int = 16
    max_effective_rank: int | None = None
    """The largest rank the operator takes, leading dimensions of size 1 aside (the older softmax forms' 2): the
    layout tests leave out the shapes beyond it."""

    @property
    def sizes(self) -> tuple[int, ...]:
        return (self.count // self.row_length, self.row_length)


@dataclass(frozen=True)
class OperatorRow:
    """One operator: its descriptor class, the calls the value tests make, its reference, its parameters."""

    desc: type[OperatorDescBase]
    cases: tuple[Case, ...]
    reference: Reference
    parameters: Mapping[str, Parameter] = field(default_factory=dict)
    slow_layouts: tuple[str, ...] = ()
    """Layouts (helpers.layouts.LAYOUTS) the layout test leaves out because the exact reference is slow on them;
    the value tests cover what they would (a large packed tensor)."""
    sampled: bool = False
    """Whether the layout tests sample this row: one layout per case by default, rotating through the layouts
    across the sampled rows, every layout with --run-slow. For a row that lowers as another does (the element-wise
    template with another expression, whose every layout IDENTITY's row runs at every type): its values and
    graphs are tested in full."""
    every_layout_cases: frozenset[str] | None = None
    """For a row with a kernel of its own whose cases differ by a compiled-in mode (ROUND, the extension Round):
    the cases (by id) whose layout tests run every layout by default, one per storage class of the kernel (the
    walk over a layout depends on the element's storage, not on the mode); the row's other cases take one layout
    each by default, every layout with --run-slow. None: every case runs every layout (one, for a ``sampled``
    row)."""
    slow_cases: frozenset[str] = frozenset()
    """Cases (by id) a default run leaves to --run-slow, values, layouts and graphs alike: where a family's cases
    are many (the binary operators at every integer width), each program costs a compile on every device, and the
    default run keeps a rotation of them."""
    per_tensor: frozenset[str] = frozenset()
    """Tensors that hold one element (QUANTIZED_LINEAR_ADD's scales and zero points): 0-strides along every
    dimension, in every test, where the other parameters are per-axis in the layouts."""
    nan: str = "payload"
    """How a NaN result is compared (ext_oracle.mismatches): "payload" for operators that pass a NaN through,
    "any" for those whose NaN is arithmetic's (IEEE 754 fixes no sign or payload)."""
    reduction: Reduction | None = None
    """For an operator that reduces groups of elements (not element-wise): how its tests shape them."""
    float32_ulps_of: Callable[[Case], int] | None = None
    """For an operator whose bound depends on the case (ADD1's is its fused activation's): that bound at FLOAT32,
    in place of the descriptor's FLOAT32_ULPS."""

    def cases_run(self, slow: bool) -> tuple[Case, ...]:
        """The cases a run takes: every one with --run-slow (``slow``), else those not in ``slow_cases``."""
        return self.cases if slow else tuple(case for case in self.cases if case.id not in self.slow_cases)

    def ulps(self, dtype: np.dtype[Any], case: Case | None = None) -> int:
        """How far from the reference a result of ``dtype`` may lie, in its ULPs: the operator's FLOAT32_ULPS
        (or ``float32_ulps_of`` ``case``) at FLOAT32; at FLOAT16, 0 where that is 0, else 1 (a float result within
        a few float ULPs, rounded once to half, lies within 0.5 + 2^-13 times those of the exact value); 0 for the
        rest."""
        float32_ulps = (
            self.desc.FLOAT32_ULPS if self.float32_ulps_of is None or case is None else self.float32_ulps_of(case)
        )
        if np.dtype(dtype) == F32:
            return float32_ulps
        return min(float32_ulps, 1) if np.dtype(dtype) == F16 else 0

    def runs_layout(self, name: str, layout: Mapping[str, Any]) -> bool:
        """Whether the layout tests run ``layout`` (helpers.layouts' keyword form) named ``name``: not one of
        ``slow_layouts``, in place only where the operator allows it, and of a shape the operator takes."""
        if name in self.slow_layouts or (layout.get("in_place") and not self.desc.SUPPORTS_IN_PLACE):
            return False
        most = None if self.reduction is None else self.reduction.max_effective_rank
        sizes = tuple(layout["sizes"])
        return most is None or len(sizes) - next((d for d, n in enumerate(sizes) if n != 1), len(sizes)) <= most

    def reference_in_shape(self, inputs: Mapping[str, Array], case: Case) -> Array:
        """The reference's output for ``inputs`` (arrays of the tensor's shape), in that shape: the reference
        reads them flattened, or as they are for a ``reduction`` row."""
        shape = inputs[self.first].shape
        if self.reduction is None:
            inputs = {name: np.ascontiguousarray(array).reshape(-1) for name, array in inputs.items()}
        return self.reference(inputs, case).reshape(shape)

    def value_sizes(self, case: Case) -> tuple[int, ...]:
        """The Sizes of the values test and the graph tests: every value of the input's set in one dimension, or
        a ``reduction`` row's rows."""
        if self.reduction is not None:
            return self.reduction.sizes
        return (int(input_values(case.dtypes[self.first], np.random.default_rng(0)).size),)

    @property
    def name(self) -> str:
        """The C name of the operator type (``DML_OPERATOR_ELEMENT_WISE_ROUND``, ``DMLPY_EXT_OPERATOR_...``)."""
        return str(self.desc.OPERATOR_TYPE.c_name)

    @property
    def directml_name(self) -> str | None:
        """support.json's name for a DirectML operator (``ELEMENT_WISE_ROUND``); None for an extension."""
        return None if self.desc.is_extension() else self.desc.OPERATOR_TYPE.name

    def tensors(self) -> tuple[str, ...]:
        return (*self.desc.INPUTS, *self.desc.OUTPUTS)

    @property
    def first(self) -> str:
        """The first input's field (``input_tensor``, ``a_tensor``): it takes the value set, the others the row's
        parameters."""
        return self.desc.INPUTS[0]

    @property
    def output(self) -> str:
        """The output's field."""
        (output,) = self.desc.OUTPUTS
        return output

    def alias(self, name: str) -> str:
        """The C name of a tensor field (``input_tensor`` -> ``InputTensor``)."""
        alias = self.desc.model_fields[name].alias
        assert alias is not None
        return alias


# ---------------------------------------------------------------------------------------------- input values


def input_values(dtype: np.dtype[Any], rng: np.random.Generator) -> Array:
    """The value tests' inputs, shuffled (so that a small tensor still gets every kind): a float format's edges
    (ties, the floats around them, subnormals, signed zeros, infinities, NaNs with payloads) and every pattern of
    a 16-bit float or random values of every kind for wider ones; every value of an 8- or 16-bit integer, the
    edges and random values of wider ones."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        fmt = format_of(dtype)
        rest = all_patterns(fmt) if fmt.width == 16 else random_values(fmt, 4096, int(rng.integers(1 << 30)))
        return rng.permutation(np.concatenate([edge_values(fmt), rest]))
    info = np.iinfo(dtype)
    if dtype.itemsize <= 2:
        return rng.permutation(np.arange(int(info.min), int(info.max) + 1).astype(dtype))
    edges = np.array([info.min, info.min + 1, -1 if info.min else 2, 0, 1, info.max - 1, info.max], dtype=dtype)
    every_kind = rng.integers(int(info.min), int(info.max), 4096, dtype=dtype, endpoint=True)
    return rng.permutation(np.concatenate([edges, every_kind]))


def other_values(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    """BTensor's values: the value set of ``input_values`` again, in another random order, so that the pairs mix
    every kind of value with every other."""
    return np.resize(input_values(dtype, rng), count)


def scales(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    """Positive finite scales (a scale of 0 is undefined behaviour on DirectML's pages), ties among them."""
    return rng.choice(np.array([0.0625, 0.37, 1.0, 2.5, 3.0, 1e-3], dtype=dtype), count)


def zero_points(dtype: np.dtype[Any], count: int, rng: np.random.Generator) -> Array:
    info = np.iinfo(dtype)
    return rng.integers(int(info.min), int(info.max), count, dtype=dtype, endpoint=True)


# ------------------------------------------------------------------------------------------------- references


def quieted(values: Array) -> Array:
    """``values`` with every NaN a quiet one: NumPy's fmin and fmax follow IEEE 754-2008 for a signalling NaN (a
    NaN result) in some loops and not in others (its SIMD and scalar paths differ), while DirectML's min and max
    (D3D's) give the other operand for any NaN."""
    return np.where(np.isnan(values), values.dtype.type(np.nan), values) if values.dtype.kind == "f" else values


def to_integer(values: Array, dtype: np.dtype[Any]) -> Array:
    """Float ``values`` as Direct3D converts them to the integer ``dtype`` (dmlpy's rule for an integer tensor's
    ScaleBias result and FLOAT bounds): toward zero, saturated to the type's range, NaN to 0."""
    info = np.iinfo(dtype)
    with np.errstate(invalid="ignore"):  # a signalling NaN widened: a quiet one, and 0 below
        truncated = np.trunc(np.nan_to_num(values.astype(np.float64), nan=0.0))
    # The range's ends as float64: the minimum (0 or -2^(w-1)) exactly, and the first value above the maximum (2^w or
    # 2^(w-1)), a power of two, exactly too; between them the truncated value converts exactly.
    low, above = float(info.min), float(int(info.max) + 1)
    inside = (truncated >= low) & (truncated < above)
    wide = np.where(inside, truncated, 0.0).astype(np.int64 if info.min else np.uint64)
    saturated = np.where(truncated < low, wide.dtype.type(info.min), wide.dtype.type(info.max))
    return np.where(inside, wide, saturated).astype(dtype)


def unary_reference(function: Callable[[Array], Array], *, rounded: bool = True) -> Reference:
    """A unary operator's reference: ``function`` on the input, after ``scale_bias`` when the case gives one
    (DirectML's pages apply it before the function): ``x * Scale + Bias`` in float32, each step rounded, the
    function on that float32 value and the result rounded once to the output's type, as dmlpy computes a FLOAT16
    operator (in float, one rounding to half at the store; docs/operators/element_wise_ceil.md); a float result for
    an integer output converted as ``to_integer`` says. Not ``rounded``: the function's result as it is (a bounded
    operator's exact float64 value)."""

    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        x = inputs["input_tensor"]
        scale_bias = case.options.get("scale_bias")
        with np.errstate(all="ignore"):  # NaN and infinities are inputs here; a float16 result may overflow
            if scale_bias is not None:
                x = x.astype(F32) * F32.type(scale_bias.scale) + F32.type(scale_bias.bias)
            result = function(x)
            out = case.dtypes["output_tensor"]
            if result.dtype.kind == "f" and out.kind in "iu":
                return to_integer(result, out)
            return result.astype(out) if rounded else result

    return reference
