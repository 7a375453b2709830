"""The operator test table: one row per operator dmlpy implements, each with the calls its value tests make,
its one independent NumPy reference and the values its tensors other than InputTensor take.

The rows drive tests/unit/test_operator_table.py (the support tables against Microsoft's, through
``tests/data/directml-elementwise``) and tests/device/test_operator_rows_values.py, _layouts.py (in place too)
and _graphs.py (alone against one-node and fused graphs). Adding an operator means adding its row here (and its
reference, where no oracle has it yet); tests/unit/test_operator_table.py fails while an operator of
``dmlpy.ops.OPERATORS`` has none. A unary operator with an optional ScaleBias, such as ELEMENT_WISE_CEIL, is one row::

    OperatorRow(dml.ElementWiseCeilOperatorDesc, float_cases(), unary_reference(np.ceil))

(``unary_reference`` applies ``scale_bias`` the way the operator's page says, before the function, when a case
gives one.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import ml_dtypes
import numpy as np

import dmlpy as dml
from dmlpy.extensions import ExtRoundingMode
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from tests.helpers import quantize_oracle
from tests.helpers.dtypes import DATA_TYPE, NUMPY_DTYPE
from tests.helpers.ext_oracle import round_values
from tests.helpers.references import round_reference
from tests.helpers.row_model import (
    F16,
    F32,
    I8,
    U8,
    U32,
    Array,
    Case,
    OperatorRow,
    Parameter,
    PerRank,
    Reference,
    other_values,
    quieted,
    scales,
    unary_reference,
    zero_points,
)
from tests.helpers.rows_activations import ROWS_ACTIVATIONS
from tests.helpers.rows_add1 import ROW_ADD1
from tests.helpers.rows_bits import ROWS_BITS
from tests.helpers.rows_cast import ROWS_CAST
from tests.helpers.rows_clamps import ROWS_SIGNS_CLAMPS
from tests.helpers.rows_exponential import ROWS_EXPONENTIAL
from tests.helpers.rows_logical import ROWS_LOGICAL
from tests.helpers.rows_pow import ROWS_POW
from tests.helpers.rows_quantized import ROW_QUANTIZED_LINEAR_ADD
from tests.helpers.rows_select import ROWS_SELECT
from tests.helpers.rows_softmax import ROWS_SOFTMAX


def descriptor(
    row: OperatorRow,
    sizes: tuple[int, ...],
    dtypes: Mapping[str, np.dtype[Any] | dml.TensorDataType | None],
    strides: Mapping[str, tuple[int, ...] | None] | None = None,
    **options: Any,
) -> OperatorDescBase:
    """The operator's descriptor: each tensor of ``dtypes`` (by field name, a NumPy dtype or a TensorDataType;
    None or absent leaves an optional tensor out) with ``sizes`` and its ``strides`` (packed when absent; the
    row's ``per_tensor`` ones 0 everywhere); an option that is a ``PerRank`` takes its value for ``sizes``' rank."""
    fields: dict[str, Any] = {k: v.pick(len(sizes)) if isinstance(v, PerRank) else v for k, v in options.items()}
    for name in row.tensors():
        dtype = dtypes.get(name)
        if dtype is None:
            continue
        data_type = dtype if isinstance(dtype, dml.TensorDataType) else DATA_TYPE[np.dtype(dtype)]
        tensor_strides = (0,) * len(sizes) if name in row.per_tensor else (strides or {}).get(name)
        fields[name] = dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=tensor_strides)
    return row.desc(**fields)


def unary_descriptor(
    desc: type[OperatorDescBase],
    sizes: tuple[int, ...],
    dtype: np.dtype[Any] | type | dml.TensorDataType,
    *,
    input_strides: tuple[int, ...] | None = None,
    output_strides: tuple[int, ...] | None = None,
    **options: Any,
) -> OperatorDescBase:
    """``descriptor`` for a unary operator whose input and output share ``dtype`` and ``sizes``."""
    data_type = dtype if isinstance(dtype, dml.TensorDataType) else np.dtype(dtype)
    strides = {"input_tensor": input_strides, "output_tensor": output_strides}
    return descriptor(
        row_of(desc), tuple(sizes), {"input_tensor": data_type, "output_tensor": data_type}, strides, **options
    )


def math_reference(function: Callable[[Array], Array], exact: bool) -> Reference:
    """A unary math operator's reference: ``x * Scale + Bias`` in float32 as ``unary_reference`` computes it,
    then ``function`` in float64. For an ``exact`` operator (FLOAT32_ULPS 0), rounded to float32 (the correctly
    rounded float result: 53 >= 2 * 24 + 2 bits make the double rounding innocuous for a root or quotient of
    floats), then to the output's type as the kernel stores a float, to be matched bit for bit. (A FLOAT16 result
    is the correctly rounded half only without ScaleBias: 1 / 15455.75, a float quotient, rounds to a float
    halfway between two halves, which the store rounds to even, away from the exact quotient's half.) For a
    bounded one, the float64 value itself, which a result must lie within its bound of (ulps.ulp_error)."""
    if exact:
        return unary_reference(lambda x: function(x.astype(np.float64)).astype(F32))
    return unary_reference(lambda x: function(x.astype(np.float64)), rounded=False)


def erf(x: Array) -> Array:
    """The Gauss error function of float64 values (NumPy has none): C's erf through Python's math.erf."""
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


def _round(inputs: Mapping[str, Array], case: Case) -> Array:
    return round_reference(inputs["input_tensor"], case.options["rounding_mode"])


def _ext_round(inputs: Mapping[str, Array], case: Case) -> Array:
    x = inputs["input_tensor"]
    return x.copy() if x.dtype.kind in "iu" else round_values(x, case.options["rounding_mode"].name)


def _quantize(inputs: Mapping[str, Array], case: Case) -> Array:
    mode = case.options.get("rounding_mode", ExtRoundingMode.NEAREST_TOWARD_EVEN)
    return quantize_oracle.quantize(
        inputs["input_tensor"],
        inputs["scale_tensor"],
        inputs.get("zero_point_tensor"),
        out_dtype=case.dtypes["output_tensor"],
        mode=mode.name,
    )


def _dequantize(inputs: Mapping[str, Array], case: Case) -> Array:
    return quantize_oracle.dequantize(
        inputs["input_tensor"],
        inputs["scale_tensor"],
        inputs.get("zero_point_tensor"),
        out_dtype=case.dtypes["output_tensor"],
    )


# ---------------------------------------------------------------------------------------------------- the rows


def unary_cases(dtypes: tuple[np.dtype[Any], ...], option: str = "", values: tuple[Any, ...] = ()) -> tuple[Case, ...]:
    """Input and output of each dtype, once per value of ``option`` when one is named."""
    if not option:
        return tuple(Case({"input_tensor": d, "output_tensor": d}) for d in dtypes)
    return tuple(Case({"input_tensor": d, "output_tensor": d}, {option: v}) for d in dtypes for v in values)


def float_cases() -> tuple[Case, ...]:
    """FLOAT32 and FLOAT16 in and out, without and with a ScaleBias: the cases of a unary math operator such as
    CEIL."""
    return unary_cases((F32, F16), "scale_bias", (None, dml.ScaleBias(scale=1.5, bias=-0.25)))


def math_row(desc: type[OperatorDescBase], function: Callable[[Array], Array]) -> OperatorRow:
    """A unary math operator's row: FLOAT32 without and FLOAT16 with a ScaleBias (CEIL's row runs all four
    combinations of the shared lowering), against ``function`` in float64, sampled layouts, any NaN."""
    cases = (
        Case({"input_tensor": F32, "output_tensor": F32}, {"scale_bias": None}),
        Case({"input_tensor": F16, "output_tensor": F16}, {"scale_bias": dml.ScaleBias(scale=1.5, bias=-0.25)}),
    )
    exact = not desc.FLOAT32_ULPS
    return OperatorRow(desc, cases, math_reference(function, exact), sampled=True, nan="any")


MATH_FUNCTIONS: Mapping[type[OperatorDescBase], Callable[[Array], Array]] = {
    dml.ElementWiseSqrtOperatorDesc: np.sqrt,
    dml.ElementWiseRecipOperatorDesc: np.reciprocal,
    dml.ElementWiseExpOperatorDesc: np.exp,
    dml.ElementWiseLogOperatorDesc: np.log,
    dml.ElementWiseSinOperatorDesc: np.sin,
    dml.ElementWiseCosOperatorDesc: np.cos,
    dml.ElementWiseTanOperatorDesc: np.tan,
    dml.ElementWiseAsinOperatorDesc: np.arcsin,
    dml.ElementWiseAcosOperatorDesc: np.arccos,
    dml.ElementWiseAtanOperatorDesc: np.arctan,
    dml.ElementWiseSinhOperatorDesc: np.sinh,
    dml.ElementWiseCoshOperatorDesc: np.cosh,
    dml.ElementWiseTanhOperatorDesc: np.tanh,
    dml.ElementWiseAsinhOperatorDesc: np.arcsinh,
    dml.ElementWiseAcoshOperatorDesc: np.arccosh,
    dml.ElementWiseAtanhOperatorDesc: np.arctanh,
    dml.ElementWiseErfOperatorDesc: erf,
}
"""The unary math operators' independent references: NumPy's float64 functions (C's libm), Python's erf."""


INFINITIES = {"EITHER": np.isinf, "POSITIVE": np.isposinf, "NEGATIVE": np.isneginf}
"""IS_INFINITY's references by mode: NumPy's own tests of the float's class and sign."""


def _is_infinity(inputs: Mapping[str, Array], case: Case) -> Array:
    test = INFINITIES[case.options["infinity_mode"].name]
    return test(inputs["input_tensor"]).astype(case.dtypes["output_tensor"])


# ------------------------------------------------------------------------------------------ binary arithmetic


def _float_exactly(function: Callable[[Array, Array], Array]) -> Callable[[Array, Array, np.dtype[Any]], Array]:
    """A float operation computed exactly in float64 (a sum, difference, product, half-sum of two floats is exact
    there; a quotient correctly rounded, which 53 >= 2 * 24 + 2 bits make as good) and rounded once to ``out``."""

    def compute(a: Array, b: Array, out: np.dtype[Any]) -> Array:
        return function(a.astype(np.float64), b.astype(np.float64)).astype(out)

    return compute


def _divide_integers(a: Array, b: Array) -> Array:
    """Integer division truncated toward zero; a zero divisor gives all bits set, MIN / -1 wraps to MIN
    (docs/operators/element_wise_arithmetic.md)."""
    signed = a.dtype.kind == "i"
    negates = (b == -1) if signed else np.zeros(b.shape, bool)
    divisor = np.where((b == 0) | negates, np.ones_like(b), b)
    quotient = a // divisor
    quotient += ((a % divisor != 0) & ((a < 0) != (divisor < 0))).astype(a.dtype)  # floor to truncation
    all_ones = np.array(-1 if signed else np.iinfo(a.dtype).max, dtype=a.dtype)
    return np.where(b == 0, all_ones, np.where(negates, -a, quotient))


def _mean_integers(a: Array, b: Array) -> Array:
    """The exact sum (in Python's integers) halved toward zero."""
    total = a.astype(object) + b.astype(object)
    return np.array([s // 2 if s >= 0 else -((-s) // 2) for s in total], dtype=a.dtype)


def _min_max(numpy_function: Callable[[Array, Array], Array], zero_from: str) -> Callable[..., Array]:
    """MIN or MAX: NumPy's fmin or fmax (a NaN operand gives the other, as D3D's min and max do) on operands whose
    NaNs are quieted first (``quieted``: NumPy 2.4's fmin and fmax give a NaN for a signalling one in their scalar
    loop, as IEEE 754-2008's minNum does, and the other operand in their vector loop), and of two zeros BTensor's
    for MIN, ATensor's for MAX, which fmin and fmax leave open."""

    def compute(a: Array, b: Array, out: np.dtype[Any]) -> Array:
        if a.dtype.kind != "f":
            return numpy_function(a, b)
        zeros = (a == 0) & (b == 0)
        return np.where(zeros, a if zero_from == "a" else b, numpy_function(quieted(a), quieted(b))).astype(out)

    return compute


def _difference_square_floats(a: Array, b: Array, out: np.dtype[Any]) -> Array:
    """(a - b) * (a - b) as dmlpy computes a FLOAT16 operator: each step in float32, rounded once to ``out``."""
    difference = a.astype(F32) - b.astype(F32)
    return (difference * difference).astype(out)


BINARY_FLOAT = {
    "ADD": _float_exactly(np.add),
    "SUBTRACT": _float_exactly(np.subtract),
    "MULTIPLY": _float_exactly(np.multiply),
    "DIVIDE": _float_exactly(np.divide),
    "MIN": _min_max(np.fmin, "b"),
    "MAX": _min_max(np.fmax, "a"),
    "MEAN": _float_exactly(lambda a, b: (a + b) / 2),
    "DIFFERENCE_SQUARE": _difference_square_floats,
}
"""Each binary operator's float reference, by DirectML name."""
BINARY_INTEGER: Mapping[str, Callable[[Array, Array], Array]] = {
    "ADD": np.add,
    "SUBTRACT": np.subtract,
    "MULTIPLY": np.multiply,
    "DIVIDE": _divide_integers,
    "MIN": np.minimum,
    "MAX": np.maximum,
    "MEAN": _mean_integers,
    "DIFFERENCE_SQUARE": lambda a, b: np.subtract(a, b) * np.subtract(a, b),
}
"""Each binary operator's integer reference (NumPy's integers wrap, as DirectML's do here)."""


def binary_reference(operator: str) -> Reference:
    def reference(inputs: Mapping[str, Array], case: Case) -> Array:
        a, b = inputs["a_tensor"], inputs["b_tensor"]
        with np.errstate(all="ignore"):  # overflow wraps, NaN and infinities are inputs
            if a.dtype.kind == "f":
                return BINARY_FLOAT[operator](a, b, case.dtypes["output_tensor"])
            return BINARY_INTEGER[operator](a, b).astype(a.dtype)

    return reference


DEFAULT_INTEGER_ROTATION = tuple(np.dtype(t) for t in ("i1", "u1", "i2", "u2", "i8", "u8", "i4", "u4"))
"""The integer type a default run gives each binary operator, in ARITHMETIC_OPERATORS' order: every width once
(MEAN and DIFFERENCE_SQUARE take INT32 and UINT32 only)."""


def binary_row(desc: type[OperatorDescBase]) -> OperatorRow:
    """A binary operator's row: every type of its newest support table, ATensor the value set and BTensor the same
    set in another order (``other_values``), broadcast along axis 1 in the layouts. A default run takes the floats
    and one integer type, another for each operator in turn (ADD INT8, SUBTRACT UINT8, ...): with --run-slow,
    every type."""
    types = desc.SUPPORT.rows[-1].data_types["ATensor"]
    dtypes = sorted((NUMPY_DTYPE[t] for t in types), key=lambda d: (d.kind != "f", d.itemsize, d.kind))
    cases = tuple(Case({"a_tensor": d, "b_tensor": d, "output_tensor": d}) for d in dtypes)
    turn = DEFAULT_INTEGER_ROTATION[ARITHMETIC_OPERATORS.index(desc)]  # type: ignore[arg-type]
    default = {case.id for case in cases if case.dtypes["a_tensor"] in (F32, F16, turn)}
    name = desc.OPERATOR_TYPE.name.removeprefix("ELEMENT_WISE_")
    # A NaN result is arithmetic's: IEEE 754 fixes neither which operand's payload it keeps nor its sign (x86 keeps
    # the first NaN's, NVIDIA returns one canonical NaN), nor does D3D's min of two NaNs.
    return OperatorRow(
        desc,
        cases,
        binary_reference(name),
        {"b_tensor": other_values},
        sampled=True,
        slow_cases=frozenset(c.id for c in cases) - default,
        nan="any",
    )


def _linear(x: np.dtype[Any], scale: np.dtype[Any], out: np.dtype[Any], zero: bool, **options: Any) -> Case:
    dtypes = {"input_tensor": x, "scale_tensor": scale}
    if zero:
        dtypes["zero_point_tensor"] = out if out.kind in "iu" else x
    return Case({**dtypes, "output_tensor": out}, options)


EVERY_TYPE = tuple(np.dtype(t) for t in ("f8", "f4", "f2", "i8", "i4", "i2", "i1", "u8", "u4", "u2", "u1"))
"""DirectML's 11 tensor types (Identity copies each from DML_FEATURE_LEVEL_4_1)."""
EXT_ROUND_KINDS = (
    (F32, "NEAREST_UPWARD"),
    (F32, "DOWN"),
    (F16, "NEAREST_DOWNWARD"),
    (F16, "TOWARD_INFINITY"),
    (np.dtype(ml_dtypes.bfloat16), "NEAREST_TOWARD_ZERO"),
    (np.dtype(ml_dtypes.bfloat16), "UP"),
    (np.dtype(np.float64), "NEAREST_TOWARD_EVEN"),
    (np.dtype(np.float64), "NEAREST_TOWARD_INFINITY"),
    (np.dtype(np.int16), "TOWARD_ZERO"),
    (np.dtype(np.uint64), "NEAREST_UPWARD"),
)
"""The extension Round's cases: every storage class of its kernel, the floats in two modes each."""
EXT_ROUND_CASES = tuple(
    Case({"input_tensor": dtype, "output_tensor": dtype}, {"rounding_mode": ExtRoundingMode[mode]})
    for dtype, mode in EXT_ROUND_KINDS
)
ROUND_CASES = unary_cases((F32, F16), "rounding_mode", tuple(dml.RoundingMode))


def first_of_each_type(cases: tuple[Case, ...]) -> frozenset[str]:
    """The first case of each input type: a row's ``every_layout_cases`` where its modes are compiled into one
    walk per storage class (tests/device/round and tests/device/extensions test every mode's values)."""
    firsts: dict[np.dtype[Any], str] = {}
    for case in cases:
        firsts.setdefault(case.dtypes["input_tensor"], case.id)
    return frozenset(firsts.values())


FRACTION_ORACLE_SLOW = ("packed_large",)
"""99,330 elements take the Fraction oracle about 5 s; the value tests already run 65,536+ packed elements."""
QUANTIZE_PARAMETERS: Mapping[str, Parameter] = {"scale_tensor": scales, "zero_point_tensor": zero_points}

ROWS: tuple[OperatorRow, ...] = (
    OperatorRow(dml.ElementWiseIdentityOperatorDesc, unary_cases(EVERY_TYPE), unary_reference(np.copy)),
    OperatorRow(dml.ElementWiseCeilOperatorDesc, float_cases(), unary_reference(np.ceil), sampled=True),
    OperatorRow(dml.ElementWiseFloorOperatorDesc, float_cases(), unary_reference(np.floor), sampled=True),
    OperatorRow(
        dml.ElementWiseRoundOperatorDesc,
        ROUND_CASES,
        _round,
        every_layout_cases=first_of_each_type(ROUND_CASES),
    ),
    *(math_row(desc, function) for desc, function in MATH_FUNCTIONS.items()),
    OperatorRow(
        dml.ElementWiseIsNanOperatorDesc,
        tuple(Case({"input_tensor": x, "output_tensor": out}) for x in (F32, F16) for out in (U8, U32)),
        unary_reference(np.isnan),  # True and False as the output's 1 and 0
        sampled=True,
    ),
    OperatorRow(
        dml.ElementWiseIsInfinityOperatorDesc,
        tuple(
            Case({"input_tensor": x, "output_tensor": U8}, {"infinity_mode": mode})
            for x in (F32, F16)
            for mode in dml.IsInfinityMode
        ),
        _is_infinity,
        sampled=True,
    ),
    *(binary_row(desc) for desc in ARITHMETIC_OPERATORS),
    ROW_ADD1,
    *ROWS_SIGNS_CLAMPS,
    *ROWS_LOGICAL,
    *ROWS_BITS,
    *ROWS_SELECT,
    *ROWS_POW,
    *ROWS_ACTIVATIONS,
    *ROWS_SOFTMAX,
    *ROWS_EXPONENTIAL,
    *ROWS_CAST,
    OperatorRow(
        dml.ElementWiseQuantizeLinearOperatorDesc,
        (_linear(F32, F32, I8, True), _linear(F16, F16, U8, True), _linear(F32, F32, U8, False)),
        _quantize,
        QUANTIZE_PARAMETERS,
        FRACTION_ORACLE_SLOW,
        sampled=True,
    ),
    OperatorRow(
        dml.ElementWiseDequantizeLinearOperatorDesc,
        (_linear(I8, F32, F32, True), _linear(U8, F16, F16, True), _linear(I8, F16, F16, False)),
        _dequantize,
        QUANTIZE_PARAMETERS,
        FRACTION_ORACLE_SLOW,
        sampled=True,
    ),
    ROW_QUANTIZED_LINEAR_ADD,
    OperatorRow(
        dml.extensions.ExtElementWiseRoundOperatorDesc,
        EXT_ROUND_CASES,
        _ext_round,
        every_layout_cases=first_of_each_type(EXT_ROUND_CASES),
    ),
    OperatorRow(
        dml.extensions.ExtElementWiseQuantizeLinearOperatorDesc,
        (
            _linear(F32, F32, I8, True, rounding_mode=ExtRoundingMode.NEAREST_TOWARD_ZERO),
            _linear(F16, F16, U8, False, rounding_mode=ExtRoundingMode.UP),
        ),
        _quantize,
        QUANTIZE_PARAMETERS,
        FRACTION_ORACLE_SLOW,
    ),
)
"""Every operator dmlpy implements, one row each (tests/unit/test_operator_table.py checks none is missing). Every
layout runs by default for the rows that are not ``sampled``: IDENTITY (the element-wise template's walk at every
type) and the operators with kernels of their own (of ROUND and the extension Round, each storage class in every
layout and their other modes one layout per case: ``every_layout_cases``); the other rows, the template with another
expression, are ``sampled``."""


def row_of(desc: type[OperatorDescBase]) -> OperatorRow:
    return next(row for row in ROWS if row.desc is desc)


SAMPLED_CASES = [(row.name, case.id) for row in ROWS if row.sampled for case in row.cases]


def sampled_turn(row: OperatorRow, case: Case) -> int:
    """A sampled case's place among every sampled case of the table: the turn that picks its one launch profile
    (tests/helpers/row_params.py) and its one layout (``sampled_layout``) in a default run."""
    return SAMPLED_CASES.index((row.name, case.id))


def sampled_layout(row: OperatorRow, case: Case, names: list[str]) -> list[str]:
    """The layouts of ``names`` a default run gives ``case``: all of them, or for a sampled row the one its turn
    in the rotation picks (so that the sampled rows together cover every layout)."""
    if not row.sampled:
        return names
    return [names[sampled_turn(row, case) % len(names)]]


def default_layouts(row: OperatorRow, case: Case, names: list[str]) -> list[str]:
    """The layouts of ``names`` the default run of the device tests gives ``case``: ``sampled_layout``'s, but
    for a row with ``every_layout_cases`` one per case outside them, spread over ``names`` (the Oclgrind pass
    runs few small layouts, and keeps ``sampled_layout``'s)."""
    if row.every_layout_cases is None or case.id in row.every_layout_cases:
        return sampled_layout(row, case, names)
    others = [c.id for c in row.cases if c.id not in row.every_layout_cases]
    return [names[others.index(case.id) * len(names) // len(others)]]
