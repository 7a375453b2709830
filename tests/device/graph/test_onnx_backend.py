"""ONNX's own backend test runner (onnx.backend.test.BackendTest) with dmlpy's backend, for the node tests of
every ONNX op type dmlpy runs (``SUPPORTED_OPS``, from the operator table: Round, QuantizeLinear, Sqrt, Exp, ...):
the cases come from the installed onnx, built in memory by its loader, and are compared exactly (rtol 0, atol 0)
rather than with the runner's default tolerance (rtol 1e-3), which would let a float off by thousands of ULPs
pass, except the op types whose operator is bounded rather than exact (Exp, Sin, Erf, ...: ``rtol_of``). Every
other test is dropped; the forms DirectML cannot express are excluded by name, each with the reason, and checked
to be refused with that reason. The runner runs on dmlpy's default device (``DMLPY_DEVICE`` picks another); the
math node tests' float64 check and the fused tree take the ``device`` fixture (``DMLPY_TEST_DEVICES``)."""

from __future__ import annotations

import functools
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from onnx.backend.test import BackendTest  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402

import dmlpy as dml  # noqa: E402
from dmlpy.onnx import SUPPORTED_OPS, DmlBackend, NodeRefused  # noqa: E402
from dmlpy.onnx.nodes import LOWERED_TO  # noqa: E402
from dmlpy.onnx.normalization import NORMALIZATION_OPS  # noqa: E402
from dmlpy.ops.element_wise_math import MATH_OPERATORS  # noqa: E402
from tests.helpers.onnx_attention import ATTENTION_RUNS, attention_refusals, attention_tolerance  # noqa: E402
from tests.helpers.onnx_compute import (  # noqa: E402
    COMPUTE_RUNS,
    REFUSED_AT_RUN,
    compute_refusals,
    compute_tolerance,
)
from tests.helpers.onnx_convolution import (  # noqa: E402
    CONVOLUTION_RUNS,
    CONVOLUTION_TEST_NAMES,
    convolution_tolerance,
)
from tests.helpers.onnx_folding import EXPANDED_RUN_BY_FOLDING, RESHAPED_BY_A_COMPUTED_SHAPE  # noqa: E402
from tests.helpers.onnx_generators import GENERATOR_RUNS, GENERATOR_TEST_NAMES, generator_refusals  # noqa: E402
from tests.helpers.onnx_movement import MOVEMENT_GIVEN_AS_INPUTS  # noqa: E402
from tests.helpers.onnx_normalization_indexing import (  # noqa: E402
    FAMILY_RUNS,
    FAMILY_TEST_NAMES,
    NORMALIZED_ULPS,
    family_refusals,
)
from tests.helpers.onnx_recurrent import RECURRENT_RUNS, RECURRENT_TEST_NAMES, RECURRENT_TOLERANCE  # noqa: E402
from tests.helpers.onnx_reduction import axes_given_as_inputs  # noqa: E402
from tests.helpers.onnx_regions import REGION_DIFFERS, REGION_RUNS, REGION_TOLERANCE  # noqa: E402
from tests.helpers.onnx_views import VIEWS_GIVEN_AS_INPUTS  # noqa: E402
from tests.helpers.operators import MATH_FUNCTIONS, ROWS, row_of  # noqa: E402
from tests.helpers.row_model import F32, Case  # noqa: E402
from tests.helpers.row_runs import assert_same  # noqa: E402
from tests.helpers.ulps import NUMPY_FLOAT32_ULPS  # noqa: E402

TEST_NAMES = sorted(
    {spelling for op in SUPPORTED_OPS for spelling in (op.lower(), re.sub(r"(?<=[a-z])(?=[A-Z])", "_", op).lower())}
)
"""The op types as ONNX's node tests spell them: run together (test_round, test_bitshift_...) or in snake case
(test_bitwise_and_...); Cast's name their types in capitals
(test_cast_FLOAT_to_FLOAT16); Pad's name the mode first (test_reflect_pad)."""
TEST_NAMES += [f"{mode}_pad" for mode in ("constant", "edge", "reflect", "wrap")]
TEST_NAMES += FAMILY_TEST_NAMES
TEST_NAMES += GENERATOR_TEST_NAMES  # NonZero: refused, saying why
TEST_NAMES += CONVOLUTION_TEST_NAMES  # test_basic_conv_...
TEST_NAMES += RECURRENT_TEST_NAMES  # test_simple_rnn_...
OPS = rf"^test_({'|'.join(TEST_NAMES)})(_[A-Za-z0-9_]+)?_(cpu|cuda)$"
"""ONNX's node tests of every op type the operator table declares (Round, QuantizeLinear, ...)."""

CLIP_BOUNDS_GIVEN = (
    "",
    "_example",
    "_inbounds",
    "_outbounds",
    "_splitbounds",
    "_min_greater_than_max",
    "_default_min",
    "_default_max",
    "_default_int8_min",
    "_default_int8_max",
)
"""Clip's node tests whose min or max is a graph input (each has an ``_expanded`` twin of Less and Where nodes, which
runs)."""
SIGNED_SHIFTS = (
    *(f"bitshift_{direction}_{t}" for direction in ("left", "right") for t in ("int8", "int16", "int32", "int64")),
    *(
        f"bitshift_left_{t}_{form}"
        for t in ("int8", "int32")
        for form in ("negative_shift", "overflow", "shift_ge_width")
    ),
    *(
        f"bitshift_right_{t}_{form}"
        for t in ("int8", "int32")
        for form in ("negative_input", "negative_shift", "shift_ge_width")
    ),
)
"""BitShift's node tests of signed types (Mod-28's BitShift takes them; DirectML's shifts take unsigned types)."""

ACTIVATIONS_EXPANDED = (
    ("relu", "_ver18"),
    *((f"leakyrelu{form}", "") for form in ("", "_example", "_default")),
    *((f"thresholdedrelu{form}", "_ver18") for form in ("", "_example", "_default")),
    *((f"hardsigmoid{form}", "_ver18") for form in ("", "_example", "_default")),
    *((f"softsign{form}", "_ver18") for form in ("", "_example")),
    *((f"prelu{form}", "") for form in ("_example", "_broadcast")),
    *((f"shrink{form}", "_ver18") for form in ("_hard", "_soft")),
    *((f"{op}{form}", "_ver18") for op in ("elu", "selu") for form in ("", "_example", "_default")),
    *((f"softplus{form}", "_ver18") for form in ("", "_example")),
    ("celu", ""),
    ("celu_float16", ""),
    ("gelu_default_1", ""),
    ("gelu_default_2", ""),
)
"""The activations' node tests whose ``_expanded`` twin is the op type's function body, which begins with
Constant nodes (the 0, alpha and beta; not mapped); HardSwish's, a HardSigmoid and a Mul, runs."""
SOFTMAX_FORMS = ("_example", "_large_number", "_axis_0", "_axis_1", "_axis_2", "_negative_axis", "_default_axis")
"""The node tests of Softmax and LogSoftmax (their names: softmax_example, logsoftmax_example_1, ...); Hardmax's
are its own (HARDMAX_FORMS)."""
SOFTMAX_CASES = tuple(
    f"{op}{'_example_1' if op == 'logsoftmax' and form == '_example' else form}"
    for op in ("softmax", "logsoftmax")
    for form in SOFTMAX_FORMS
)
HARDMAX_FORMS = ("_example", "_one_hot", "_axis_0", "_axis_1", "_axis_2", "_negative_axis", "_default_axis")

DEPTH_SPACE_FORMS = {
    "depthtospace": ("_crd_mode_example", "_example"),
    "spacetodepth": ("", "_example", "_crd_mode_example", "_dcr_mode_example"),
}
"""DepthToSpace's and SpaceToDepth's node tests with an ``_expanded`` twin (Constant, Shape, Reshape, Transpose)."""

NOT_EXPRESSIBLE: dict[str, str] = {
    "quantizelinear_blocked_symmetric": "INT16",
    "quantizelinear_e4m3fn": "FLOAT8E4M3FN",
    "quantizelinear_e5m2": "FLOAT8E5M2",
    "dequantizelinear_e4m3fn": "FLOAT8E4M3FN",
    "dequantizelinear_e4m3fn_float16": "FLOAT8E4M3FN",
    "dequantizelinear_e4m3fn_zero_point": "FLOAT8E4M3FN",
    "dequantizelinear_e5m2": "FLOAT8E5M2",
    "quantizelinear_uint2": "UINT2",
    "quantizelinear_int2": "INT2",
    "dequantizelinear_uint2": "UINT2",
    "dequantizelinear_int2": "INT2",
    "quantizelinear_float4e2m1": "FLOAT4E2M1",
    "dequantizelinear_float4e2m1": "FLOAT4E2M1",
    "quantizelinear_uint16": "UINT16",
    "quantizelinear_int16": "INT16",
    "identity_sequence": "sequence",
    "identity_opt": "optional",
    "max_float64": "FLOAT64",
    "min_float64": "FLOAT64",
    "mod_mixed_sign_float64": "FLOAT64",
    "mod_float64_mixed_sign_fmod_0": "FLOAT64",
    "mod_float_edge_cases_fmod_0_float64": "FLOAT64",
    **dict.fromkeys(SIGNED_SHIFTS, "unsigned"),
    "equal_string": "STRING",
    "equal_string_broadcast": "STRING",
    **{f"clip{form}": "graph input" for form in CLIP_BOUNDS_GIVEN},
    **{f"{case}_expanded{version}": "Constant" for case, version in ACTIVATIONS_EXPANDED},
    **{f"{case}_expanded{version}": "Constant" for case in SOFTMAX_CASES for version in ("", "_ver18")},
    **{f"gelu_tanh_{n}": "tanh" for n in (1, 2)},
    **{f"gelu_tanh_{n}_expanded": "Constant" for n in (1, 2)},
    "celu_bfloat16": "BFLOAT16",
    "celu_bfloat16_expanded": "BFLOAT16",
    "pow_types_float32_int64": "INT64",
    "pow_types_float32_uint64": "UINT64",
    "pow_types_int64_float32": "INT64",
    "pow_types_int64_int64": "INT64",
    **dict.fromkeys(MOVEMENT_GIVEN_AS_INPUTS, "initializer"),
    **dict.fromkeys(VIEWS_GIVEN_AS_INPUTS, "initializer"),
    **{f"{op}{form}_expanded": "Constant" for op, forms in DEPTH_SPACE_FORMS.items() for form in forms},
    **{f"split_to_sequence_{form}": "SplitToSequence" for form in ("1", "2", "nokeepdims")},
}
"""ONNX node tests DirectML cannot express -> a word the refusal must contain: float8, 2-bit and float4 types (no
DirectML tensor type; 4-bit ones run through FL 6_3's QUANTIZE and DEQUANTIZE), 16-bit quantized outputs (the
blocked symmetric case's output_dtype is INT16; DirectML's quantization outputs 8- and 4-bit integers),
sequences and optionals (DirectML has tensors only), Max, Min and Mod of DOUBLE (no table of MAX, MIN or the
MODULUS operators has FLOAT64), Equal of strings, Clip with a bound given as a graph input (CLIP1's Min and Max are
descriptor fields, fixed when the graph is built: a bound must be an initializer), BitShift of signed types
(DirectML's BIT_SHIFT_LEFT and BIT_SHIFT_RIGHT take unsigned types, shifted logically; ONNX's right shift of a signed
type is arithmetic), the expanded activation, Softmax and LogSoftmax tests (Constant, not mapped; then ReduceMax,
Exp, ReduceSum), Gelu's tanh approximation (DirectML's GELU is the erf form), Celu of BFLOAT16 (no DirectML
tensor type), Pow with a 64-bit base or exponent (no table of ELEMENT_WISE_POW has one), and the casts from or to
a type DirectML has none for, added below."""


def rtol_of(op_types: Iterable[str]) -> float:
    """The relative tolerance that compares dmlpy's result of nodes of ``op_types`` with NumPy's float32 result.

    0 where every operator they lower to is exact (``FLOAT32_ULPS`` 0: Sqrt, Reciprocal, Round, ...). Otherwise
    dmlpy's result lies within its operator's ``FLOAT32_ULPS`` of the exact value and NumPy's within
    ``NUMPY_FLOAT32_ULPS`` (ONNX's expected outputs are NumPy's float32 results, computed by the installed
    NumPy when the loader builds the cases), so the two lie within their sum of each other; one ULP of a normal
    float32 y is at most 2**-23 * |y|, hence rtol = (FLOAT32_ULPS + NUMPY_FLOAT32_ULPS) * 2**-23, atol staying 0
    (a 0 or an infinity must match exactly, and NaN matches NaN only)."""
    ulps = max((LOWERED_TO[op].FLOAT32_ULPS for op in op_types if op in LOWERED_TO), default=0)
    return (ulps + NUMPY_FLOAT32_ULPS) * 2.0**-23 if ulps else 0.0


@functools.cache
def _node_cases() -> dict[str, Any]:
    """The installed onnx's node test cases by name (``test_round``, ...), built once by its loader."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # loading every operator's cases warns about their NumPy arithmetic
        return {case.name: case for case in load_model_tests(kind="node")}


CAST_TYPES_NOT_EXPRESSIBLE = (
    "BFLOAT16",
    "FLOAT8E4M3FNUZ",
    "FLOAT8E4M3FN",
    "FLOAT8E5M2FNUZ",
    "FLOAT8E5M2",
    "FLOAT8E8M0",
    "FLOAT4E2M1",
    "UINT4",
    "INT4",
    "UINT2",
    "INT2",
)
"""The types of Cast's and CastLike's node tests that no DML_OPERATOR_CAST table has (4-bit ones: only QUANTIZE and
DEQUANTIZE take them), longest names first, so that a name containing another is found first."""


def _cast_refusal(form: str) -> str | None:
    """The word the refusal of the Cast or CastLike node test ``form`` must contain, None where it runs: the type
    DirectML has no CAST of (the first it meets: a graph input's, else the target's); Cast to FLOAT8E8M0 is refused
    for its STRING attribute round_mode first."""
    if form.startswith("cast_e8m0_") and form.endswith("_to_FLOAT8E8M0"):
        return "round_mode"
    source, _, target = form.removeprefix("castlike_").removeprefix("cast_").partition("_to_")
    for side in (source, target):
        word = next((name for name in CAST_TYPES_NOT_EXPRESSIBLE if name in side), None)
        if word is not None:
            return word
    return None


NOT_EXPRESSIBLE |= {
    form: word
    for form in (name.removeprefix("test_") for name in _node_cases())
    if form.startswith(("cast_", "castlike_"))
    for word in (_cast_refusal(form),)
    if word is not None
}


NOT_EXPRESSIBLE |= family_refusals(name.removeprefix("test_") for name in _node_cases() if re.match(OPS, f"{name}_cpu"))
"""The normalization and indexing node tests refused (tests/helpers/onnx_normalization_indexing.py: function
bodies of Constant nodes, GroupNormalization, LayerNormalization's statistics outputs, training, scatter
reductions, TopK's K, CumSum's axis and OneHot's depth as graph inputs)."""
NOT_EXPRESSIBLE |= axes_given_as_inputs(_node_cases())
"""The reductions' node tests whose axes are a graph input (REDUCE's Axes is a descriptor field: an initializer;
test_onnx_reduction.py runs them so)."""
NOT_EXPRESSIBLE |= generator_refusals(
    name.removeprefix("test_") for name in _node_cases() if re.match(OPS, f"{name}_cpu")
)
"""Range's node tests (start, limit and delta are graph inputs; their expansions' Loop), the BFLOAT16 ones and
NonZero (tests/helpers/onnx_generators.py)."""
NOT_EXPRESSIBLE |= compute_refusals(
    name.removeprefix("test_") for name in _node_cases() if re.match(OPS, f"{name}_cpu")
)
"""The matrix products', poolings' and resampling op types' node tests refused (tests/helpers/onnx_compute.py)."""
NOT_EXPRESSIBLE |= attention_refusals(
    name.removeprefix("test_") for name in _node_cases() if re.match(OPS, f"{name}_cpu")
)
"""Attention's node tests refused (tests/helpers/onnx_attention.py: softcap, qk_matmul_output, nonpad_kv_seqlen,
the sliding window, BFLOAT16)."""
for _name in EXPANDED_RUN_BY_FOLDING:
    del NOT_EXPRESSIBLE[_name]  # their Constant nodes fold on the host now: the runner runs them
NOT_EXPRESSIBLE |= dict.fromkeys(RESHAPED_BY_A_COMPUTED_SHAPE, "computed by a node")
NOT_EXPRESSIBLE |= {
    f"dynamicquantizelinear{form}_expanded": "computed by a node" for form in ("", "_max_adjusted", "_min_adjusted")
}
"""DynamicQuantizeLinear written out: its QuantizeLinear's scale is computed in the graph, and ELEMENT_WISE_QUANTIZE_
LINEAR takes a scale from an input (DYNAMIC_QUANTIZE_LINEAR itself runs the three unexpanded tests)."""


def _op_types(case: Any) -> set[str]:
    return {node.op_type for node in case.model.graph.node}


NORMALIZED = {"rtol": NORMALIZED_ULPS * 2.0**-23, "atol": NORMALIZED_ULPS * 2.0**-23}
TOLERANCES = {
    name: NORMALIZED if _op_types(case) & set(NORMALIZATION_OPS) else {"rtol": rtol_of(_op_types(case)), "atol": 0}
    for name, case in _node_cases().items()
}
TOLERANCES |= {
    name: tolerance
    for name, case in _node_cases().items()
    if case.data_sets
    for tolerance in (compute_tolerance(name, case.model, list(case.data_sets[0][0])),)
    if tolerance is not None
}
TOLERANCES |= {
    name: tolerance
    for name, case in _node_cases().items()
    if case.data_sets and re.match(OPS, f"{name}_cpu")
    for tolerance in (convolution_tolerance(case.model, list(case.data_sets[0][0])),)
    if tolerance is not None
}
TOLERANCES |= {f"test_{name}": RECURRENT_TOLERANCE for name in RECURRENT_RUNS}
TOLERANCES |= {
    name: tolerance
    for name, case in _node_cases().items()
    if case.data_sets and name.removeprefix("test_") in ATTENTION_RUNS
    for tolerance in (attention_tolerance(name, case.model, list(case.data_sets[0][0])),)
    if tolerance is not None
}
TOLERANCES |= {f"test_{name}": REGION_TOLERANCE for name in REGION_RUNS}
"""Each node test's comparison, by the case's full name (test_round): the name the runner looks its keyword
arguments up by (it passes them to ``prepare`` too, which takes rtol and atol and ignores them)."""
TOLERANCES |= {
    f"test_{name}": NORMALIZED
    for name in EXPANDED_RUN_BY_FOLDING
    if any(op_type.startswith("Reduce") for op_type in _op_types(_node_cases()[f"test_{name}"]))
}
"""The expanded normalizations (ReduceMean, Sub, Pow, ReduceMean, ...): their means summed in another order than
NumPy's, within the normalizations' bound."""
TOLERANCES |= {
    f"test_{name}": {"rtol": bound["rtol"], "atol": 4 * bound["rtol"]}
    for name in EXPANDED_RUN_BY_FOLDING
    if "Exp" in _op_types(_node_cases()[f"test_{name}"])
    for bound in (TOLERANCES[f"test_{name}"],)
}
"""The expanded exponential activations (Selu, Elu, Celu: alpha * (Exp(x) - 1)): Exp's relative bound holds for
exp(x), near 1 where x is small, so the difference carries it as an absolute error (times SELU's gamma and alpha,
under 4) where it is small itself."""


def _backend_test() -> Any:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # the runner builds every operator's cases again, warning the same
        backend_test = BackendTest(DmlBackend, __name__, test_kwargs=TOLERANCES)
    backend_test.include(OPS)
    # Attention's _expanded twins are its function body (MatMul, Softmax, Where, ...), not Attention nodes.
    backend_test.exclude(r"^test_attention_.*_expanded_(cpu|cuda)$")
    for name in (*NOT_EXPRESSIBLE, *REFUSED_AT_RUN, *REGION_DIFFERS):
        backend_test.exclude(rf"^test_{name}_(cpu|cuda)$")
    return backend_test


_BACKEND_TEST = _backend_test()
_NODE_TESTS = _BACKEND_TEST.test_cases["OnnxBackendNodeModelTest"]
for _attribute in [name for name in vars(_NODE_TESTS) if name.startswith("test_")]:
    # The runner keeps every test it does not include as a skip; only the included ones belong here.
    why = getattr(getattr(_NODE_TESTS, _attribute), "__unittest_skip_why__", "")
    # ..._cuda: ONNX's CUDA device, which dmlpy's backend does not claim (supports_device("CUDA") is False).
    if why == "no matched include pattern" or why.startswith("matched exclude pattern") or _attribute.endswith("_cuda"):
        delattr(_NODE_TESTS, _attribute)
OnnxBackendNodeModelTest = _NODE_TESTS  # pytest collects a TestCase under each name that holds it: keep one
del _NODE_TESTS


MATH_OPS_WITH_EXAMPLES = tuple(
    op_type.lower() for desc in MATH_OPERATORS for op_type in desc.ONNX_OPS if op_type != "Erf"
)
"""The unary math op types whose node tests come as a random case and an example (Erf has a random case only)."""


INTEGERS = ("_int8", "_int16", "_uint8", "_uint16", "_uint32", "_uint64")
VARIADIC = ("_example", "_one_input", "_two_inputs")
ARITHMETIC_FORMS = {
    "add": ("", "_bcast", *INTEGERS),
    "sub": ("", "_example", "_bcast", *INTEGERS),
    "mul": ("", "_example", "_bcast", *INTEGERS),
    "div": ("", "_example", "_bcast", "_int32_trunc", *INTEGERS),
    "max": (*VARIADIC, *INTEGERS, "_int32", "_int64", "_float16", "_float32"),
    "min": (*VARIADIC, *INTEGERS, "_int32", "_int64", "_float16", "_float32"),
    "sum": VARIADIC,
    "mean": VARIADIC,
}
"""The arithmetic node tests the runner runs (every one the installed onnx ships but Max's and Min's float64)."""
COMPARISON_FORMS = ("", "_bcast", "_int8", "_int16", "_uint8", "_uint16", "_uint32", "_uint64")
LOGICAL_FORMS = {
    **{op: COMPARISON_FORMS for op in ("equal", "greater", "less")},
    **{
        op: tuple(f"{form}{expanded}" for form in COMPARISON_FORMS for expanded in ("", "_expanded"))
        for op in (
            "greater_equal",
            "less_equal",
        )
    },
    **{op: ("_bcast3v1d", "_bcast3v2d", "_bcast4v2d", "_bcast4v3d", "_bcast4v4d") for op in ("and", "or", "xor")},
    "not": ("_2d", "_3d", "_4d"),
}
"""The comparison and logical node tests the runner runs (every one the installed onnx ships but Equal's of
strings): GreaterOrEqual and LessOrEqual come expanded too (Greater or Less, Equal and Or nodes)."""
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
SELECTION_AND_BITS_FORMS = {
    "mod": (
        "_broadcast",
        "_int64_fmod",
        *(f"_mixed_sign_{t}" for t in ("float16", "float32", "int8", "int16", "int32", "int64")),
        *(f"_{t}" for t in UNSIGNED),
        "_float16_mixed_sign_fmod_0",
        "_float32_mixed_sign_fmod_0",
        "_float_edge_cases_fmod_0_float16",
        "_float_edge_cases_fmod_0_float32",
    ),
    "where": ("_example", "_long_example"),
    "bitshift": tuple(f"_{direction}_{t}" for direction in ("left", "right") for t in UNSIGNED),
    **{
        f"bitwise_{op}": ("_i16_3d" if op != "or" else "_i16_4d", "_i32_2d", "_ui64_bcast_3v1d", "_ui8_bcast_4v3d")
        for op in ("and", "or", "xor")
    },
    "bitwise_not": ("_2d", "_3d", "_4d"),
    "shrink": ("_hard", "_soft"),
}
"""The node tests of Mod (fmod 0 and 1; float64 refused), Where, BitShift (unsigned; signed refused), BitwiseAnd, Or,
Xor and Not, and Shrink that the runner runs."""


POW_FORMS = (
    "",
    "_example",
    "_bcast_scalar",
    "_bcast_array",
    *(f"_types_{t}" for t in ("float32_int32", "float32_uint32", "int32_float32", "int32_int32")),
)
"""Pow's node tests the runner runs: every one but those of a 64-bit base or exponent."""
CAST_FLOATS = ("FLOAT", "FLOAT16", "DOUBLE")
CAST_FORMS = tuple(
    (op, f"{a}_to_{b}{expanded}")
    for op, expansions in (("cast", ("",)), ("castlike", ("", "_expanded")))
    for a in CAST_FLOATS
    for b in CAST_FLOATS
    if a != b
    for expanded in expansions
)
"""Cast's and CastLike's node tests the runner runs: between FLOAT, FLOAT16 and DOUBLE (CastLike's expansion, a Cast
node, too)."""


CONCAT_FORMS = (
    *(f"1d_axis_{axis}" for axis in ("0", "negative_1")),
    *(f"2d_axis_{axis}" for axis in ("0", "1", "negative_1", "negative_2")),
    *(f"3d_axis_{axis}" for axis in ("0", "1", "2", "negative_1", "negative_2", "negative_3")),
)
SPLIT_FORMS = (
    *(f"{form}_opset18" for form in ("1d_uneven_split", "2d_uneven_split")),
    *(f"{form}_opset{opset}" for form in ("equal_parts_1d", "equal_parts_default_axis") for opset in (13, 18)),
    "equal_parts_2d",
    "equal_parts_2d_opset13",
)
"""Concat's and Split's node tests the runner runs: Concat's every one; Split's whose parts are attributes or equal
(those of a split input: MOVEMENT_GIVEN_AS_INPUTS)."""


ARG_FORMS = tuple(
    f"{form}_{data}{last}"
    for form in ("default_axis", "keepdims", "negative_axis_keepdims", "no_keepdims")
    for data in ("example", "random")
    for last in ("", "_select_last_index")
)
"""ArgMax's and ArgMin's node tests: every one (the first of equal extremes, or the last: AxisDirection DECREASING);
the Reduce op types' that run here are those of no axes input (every axis: ReduceMax, ReduceMin, ReduceProd)."""


def test_the_runner_runs_the_expressible_node_tests() -> None:
    names = sorted(name for name in vars(OnnxBackendNodeModelTest) if name.endswith("_cpu"))
    # Round, Identity, Ceil, Floor, QuantizeLinear (per tensor, per axis, blocked, 4-bit) and DequantizeLinear
    # (per tensor, per axis, blocked, 4- and 16-bit inputs), and the unary math operators (a random case and an
    # example each, Erf a random case only), IsNaN and IsInf (float32 and float16, IsInf's three modes), the
    # arithmetic op types (ARITHMETIC_FORMS), Abs, Neg, Sign, Clip without bounds given as inputs, the comparisons and
    # logical op types (LOGICAL_FORMS), the piecewise activations (Relu, LeakyRelu, ThresholdedRelu, HardSigmoid,
    # Softsign, PRelu, HardSwish and its expansion, Shrink), the exponential ones (Elu, Selu, Celu, Sigmoid,
    # Softplus, Gelu without approximation), Mod, Where (Clip's expansions of Less and Where too), BitShift,
    # BitwiseAnd, Or, Xor and Not, Softmax, LogSoftmax and Hardmax (one axis, opset 13): what the installed onnx
    # ships for them, less the excluded forms.
    expected = {
        *(f"test_{form}_cpu" for form in GENERATOR_RUNS),
        *(f"test_{form}_cpu" for form in COMPUTE_RUNS),
        *(f"test_{form}_cpu" for form in CONVOLUTION_RUNS),
        *(f"test_{form}_cpu" for form in RECURRENT_RUNS),
        *(f"test_{form}_cpu" for form in ATTENTION_RUNS),
        *(f"test_{form}_cpu" for form in REGION_RUNS),
        "test_round_cpu",
        "test_identity_cpu",
        "test_ceil_cpu",
        "test_ceil_example_cpu",
        "test_floor_cpu",
        "test_floor_example_cpu",
        "test_quantizelinear_cpu",
        "test_quantizelinear_axis_cpu",
        "test_quantizelinear_int4_cpu",
        "test_quantizelinear_uint4_cpu",
        "test_dequantizelinear_cpu",
        "test_dequantizelinear_axis_cpu",
        "test_dequantizelinear_int4_cpu",
        "test_dequantizelinear_uint4_cpu",
        "test_dequantizelinear_int16_cpu",
        "test_dequantizelinear_uint16_cpu",
        "test_quantizelinear_blocked_asymmetric_cpu",
        "test_dequantizelinear_blocked_cpu",
        "test_erf_cpu",
        *(f"test_{op}{form}_cpu" for op in MATH_OPS_WITH_EXAMPLES for form in ("", "_example")),
        "test_isnan_cpu",
        "test_isnan_float16_cpu",
        "test_isinf_cpu",
        "test_isinf_float16_cpu",
        "test_isinf_negative_cpu",
        "test_isinf_positive_cpu",
        *(f"test_{op}{form}_cpu" for op, forms in ARITHMETIC_FORMS.items() for form in forms),
        "test_abs_cpu",
        "test_neg_cpu",
        "test_neg_example_cpu",
        "test_sign_cpu",
        "test_clip_default_inbounds_cpu",
        "test_clip_default_inbounds_expanded_cpu",
        "test_clip_default_int8_inbounds_cpu",
        "test_clip_default_int8_inbounds_expanded_cpu",
        *(f"test_clip{form}_expanded_cpu" for form in CLIP_BOUNDS_GIVEN),
        *(f"test_{op}{form}_cpu" for op, forms in SELECTION_AND_BITS_FORMS.items() for form in forms),
        *(f"test_{op}{form}_cpu" for op, forms in LOGICAL_FORMS.items() for form in forms),
        *(f"test_{case}_cpu" for case, _ in ACTIVATIONS_EXPANDED),
        "test_hardswish_cpu",
        "test_hardswish_expanded_cpu",
        *(f"test_{case}_cpu" for case in SOFTMAX_CASES),
        *(f"test_hardmax{form}_cpu" for form in HARDMAX_FORMS),
        "test_sigmoid_cpu",
        "test_sigmoid_example_cpu",
        *(f"test_pow{form}_cpu" for form in POW_FORMS),
        *(f"test_{op}_{pair}_cpu" for op, pair in CAST_FORMS),
        *(f"test_concat_{form}_cpu" for form in CONCAT_FORMS),
        *(f"test_split_{form}_cpu" for form in SPLIT_FORMS),
        *(f"test_{op}{form}_cpu" for op, forms in DEPTH_SPACE_FORMS.items() for form in forms),
        *(f"test_{op}_{form}_cpu" for op in ("argmax", "argmin") for form in ARG_FORMS),
        *(f"test_reduce_{op}_default_axes_keepdims_random_cpu" for op in ("max", "min", "prod")),
        *(f"test_reduce_{op}_default_axes_keepdims_example_cpu" for op in ("min", "prod")),
        "test_reduce_max_default_axes_keepdim_example_cpu",
        *(f"test_{form}_cpu" for form in FAMILY_RUNS),
    }
    assert expected <= set(names), names
    assert all(re.match(OPS, name) for name in names)
    assert all(name.removesuffix("_cpu") in TOLERANCES for name in names)


def test_exact_operators_are_compared_exactly_and_bounded_ones_within_their_bound() -> None:
    """The runner's comparison of a Sqrt case fails a result one ULP off; that of an Exp case passes one
    FLOAT32_ULPS + NUMPY_FLOAT32_ULPS off and fails one a ULP further, or a 0 that is not 0 (the values are
    powers of two, where one ULP is 2**-23 times the value)."""
    exp_ulps = dml.ElementWiseExpOperatorDesc.FLOAT32_ULPS + NUMPY_FLOAT32_ULPS
    assert TOLERANCES["test_sqrt"] == TOLERANCES["test_round"] == {"rtol": 0.0, "atol": 0}
    assert TOLERANCES["test_exp"] == {"rtol": exp_ulps * 2.0**-23, "atol": 0}
    want = np.array([1.0, 0.5, 2.0**-100, 2.0**100, np.inf, -np.inf, 0.0, np.nan], np.float32)
    finite = np.isfinite(want) & (want != 0)

    def similar(name: str, got: Any) -> bool:
        try:
            BackendTest.assert_similar_outputs([want], [got.astype(np.float32)], **TOLERANCES[name])
        except AssertionError:
            return False
        return True

    def off(ulps: int) -> Any:
        return np.where(finite, (want.view(np.int32) + ulps).view(np.float32), want)

    assert similar("test_sqrt", off(0)) and not similar("test_sqrt", off(1))
    assert similar("test_exp", off(exp_ulps)) and not similar("test_exp", off(exp_ulps + 1))
    assert not similar("test_exp", np.where(want == 0, 2.0**-149, want))


def _node_case(name: str) -> Any:
    return _node_cases()[f"test_{name}"]


MATH_ROWS = {op_type: row for row in ROWS if row.desc in MATH_FUNCTIONS for op_type in row.desc.ONNX_OPS}
"""The unary math op types (Sqrt, Exp, ...) -> their operators' rows in the operator table (tests/helpers/
operators.py): the float64 reference and the ULP bound the operator tests hold them to."""
MATH_NODE_TESTS = sorted(
    name for name, case in _node_cases().items() if re.match(OPS, f"{name}_cpu") and _op_types(case) <= set(MATH_ROWS)
)


@pytest.mark.parametrize("name", MATH_NODE_TESTS)
def test_math_node_tests_lie_within_their_operators_bound_of_float64(device: Any, name: str) -> None:
    """The runner judges against ONNX's expected outputs, NumPy's float32 results, so only within both errors;
    judged against the operator table's reference (the float64 function rounded to float32) the same inputs hold
    the operator's own bound, FLOAT32_ULPS: bit for bit for Sqrt and Reciprocal."""
    case = _node_cases()[name]
    (op_type,) = _op_types(case)
    row = MATH_ROWS[op_type]
    (float32,) = [c for c in row.cases if c.dtypes["input_tensor"] == np.float32 and not c.options.get("scale_bias")]
    rep = DmlBackend.prepare(case.model, dml_device=device)
    for (x,), _ in case.data_sets:
        (got,) = rep.run([x])
        x, got = x.reshape(-1), got.reshape(-1)
        assert_same(row, got, row.reference({"input_tensor": x}, float32), x, float32)


@pytest.mark.parametrize("name", sorted(NOT_EXPRESSIBLE))
def test_inexpressible_cases_are_refused_at_prepare_saying_why(name: str) -> None:
    # At prepare, as the module says, not at the first run (the 16-bit outputs were refused only then).
    with pytest.raises(NodeRefused) as raised:
        DmlBackend.prepare(_node_case(name).model)
    message = str(raised.value)
    assert NOT_EXPRESSIBLE[name] in message, message
    assert "opset" in message or "graph input" in message, message


@pytest.mark.parametrize("name", sorted(REFUSED_AT_RUN))
def test_cases_whose_shapes_decide_are_refused_at_their_first_run_saying_why(name: str) -> None:
    (inputs, _), *_ = _node_case(name).data_sets
    rep = DmlBackend.prepare(_node_case(name).model)
    with pytest.raises(NodeRefused, match=REFUSED_AT_RUN[name]):
        rep.run(inputs)


def test_the_op_types_dmlpy_does_not_run_are_named_in_a_few_lines_with_counts_and_first_nodes() -> None:
    """Issue 42: a model with unmapped nodes got 2,300 characters (every mapped op type and every DirectML
    operator) naming only the first unmapped node. Now one NodeRefused (an UnsupportedError) names each unmapped
    op type (another domain's with its domain) with its count and first node (index in graph.node, name), in the
    order they appear, in under 600 characters, and points to docs/api/onnx.md for the list of the ones it runs.
    The counts are checked against the model's own tally of the op types SUPPORTED_OPS lacks."""
    floats = onnx.TensorProto.FLOAT
    spec = [
        ("Det", "det1"),
        ("Relu", "relu1"),
        ("Unique", "unique1"),
        ("Det", "det2"),
        ("Relu", ""),
        ("Unique", ""),
        ("Det", "det3"),
        ("Trilu", ""),
    ]
    nodes, value = [], "x"
    for index, (op_type, name) in enumerate(spec):
        nodes.append(onnx.helper.make_node(op_type, [value], [f"t{index}"], name=name))
        value = f"t{index}"
    nodes.append(onnx.helper.make_node("FusedMatMul", [value, value], ["y"], name="fused", domain="com.microsoft"))
    graph = onnx.helper.make_graph(nodes, "g", [_tensor("x", floats, [1, 1, 4, 4])], [_tensor("y", floats, [1, 1])])
    opsets = [onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid("com.microsoft", 1)]
    model = onnx.helper.make_model(graph, opset_imports=opsets)
    tally = Counter(node.op_type for node in nodes if node.op_type not in SUPPORTED_OPS or node.domain)
    assert tally == {"Det": 3, "Unique": 2, "Trilu": 1, "FusedMatMul": 1}
    with pytest.raises(NodeRefused) as refused:
        DmlBackend.prepare(model)
    message = str(refused.value)
    assert message.splitlines()[:5] == [
        "ONNX model (opset 21): 7 of its 9 nodes are of op types dmlpy does not run:",
        '  Det: 3 nodes, the first graph.node[0] "det1"',
        '  Unique: 2 nodes, the first graph.node[2] "unique1"',
        "  Trilu: 1 node, graph.node[7] (unnamed)",
        '  FusedMatMul (domain com.microsoft): 1 node, graph.node[8] "fused"',
    ], message
    assert "docs/api/onnx.md" in message and len(message) < 600, (len(message), message)
    assert "Round" not in message and "ELEMENT_WISE" not in message, message
    assert isinstance(refused.value, dml.UnsupportedError)


def test_the_op_types_dmlpy_runs_are_listed_in_the_docs_with_their_operators() -> None:
    """docs/api/onnx.md's table, to which the refusal of an unmapped op type points, lists every op type of
    SUPPORTED_OPS once, in order, with the operator the operator table lowers it to (Mod and BitShift with the
    second operator their attribute chooses)."""
    page = Path(__file__).parents[3] / "docs" / "api" / "onnx.md"
    rows = re.findall(r"^\| `(\w+)` \| (.+) \|$", page.read_text(encoding="utf-8"), re.MULTILINE)
    assert [op_type for op_type, _ in rows] == list(SUPPORTED_OPS)
    second = {"Mod": "ELEMENT_WISE_MODULUS_TRUNCATE", "BitShift": "ELEMENT_WISE_BIT_SHIFT_RIGHT"}
    for op_type, cell in rows:
        operators = re.findall(r"`(\w+)`", cell)
        assert operators == [LOWERED_TO[op_type].OPERATOR_TYPE.name, *([second[op_type]] if op_type in second else [])]


def test_is_inf_detecting_nothing_is_refused_and_the_others_map_to_their_modes() -> None:
    """IsInf's (detect_negative, detect_positive): (1, 1), (0, 1) and (1, 0) are DML_IS_INFINITY_MODE's EITHER,
    POSITIVE and NEGATIVE, a bool output each time; (0, 0), all false, has no mode and is refused saying so."""
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -3e38, 65504.0], np.float32)
    for (negative, positive), want in (((1, 1), np.isinf), ((0, 1), np.isposinf), ((1, 0), np.isneginf)):
        node = onnx.helper.make_node("IsInf", ["x"], ["y"], detect_negative=negative, detect_positive=positive)
        (y,) = DmlBackend.run_node(node, [x])
        assert y.dtype == np.bool_ and np.array_equal(y, want(x)), (negative, positive, y)
    node = onnx.helper.make_node("IsInf", ["x"], ["y"], name="none", detect_negative=0, detect_positive=0)
    with pytest.raises(
        NodeRefused, match=r"'none' \(IsInf, opset \d+\): detect_negative 0 and detect_positive 0 .* no such mode"
    ):
        DmlBackend.run_node(node, [x])


def test_a_bool_result_is_read_only_by_op_types_that_take_bools() -> None:
    """IsNaN's bool (UINT8 1 and 0 in DirectML) passes through Identity as a bool, and a node that takes no bool
    (DequantizeLinear's x, which onnx.checker does not type-check) is refused naming the value, not run on 1s and
    0s (the logical op types that take bools: test_onnx_signs_and_logic.py)."""
    tensor, floats = onnx.helper.make_tensor_value_info, onnx.TensorProto.FLOAT
    x = np.array([np.nan, 1.0, -np.nan], np.float32)
    nodes = [onnx.helper.make_node("IsNaN", ["x"], ["t"]), onnx.helper.make_node("Identity", ["t"], ["y"])]
    passed = _model(nodes, [tensor("x", floats, [3])], [tensor("y", onnx.TensorProto.BOOL, [3])])
    (y,) = DmlBackend.prepare(passed).run([x])
    assert y.dtype == np.bool_ and y.tolist() == [True, False, True]
    nodes[1] = onnx.helper.make_node("DequantizeLinear", ["t", "s"], ["y"], name="dq")
    scale = onnx.helper.make_tensor("s", floats, [], [2.0])
    read = _model(nodes, [tensor("x", floats, [3])], [tensor("y", floats, [3])], [scale])
    with pytest.raises(NodeRefused, match=r"'dq' \(DequantizeLinear, opset 21\): its input 't' is an ONNX bool"):
        DmlBackend.prepare(read)


def test_run_node_runs_one_node() -> None:
    node = onnx.helper.make_node("Round", ["x"], ["y"])
    x = np.array([0.5, 1.5, -2.5, 2.4999998, np.inf, -0.0], np.float32)
    (y,) = DmlBackend.run_node(node, [x])
    assert y.tobytes() == np.rint(x).tobytes()


@dataclass(frozen=True)
class _Seen:
    """A device as ``dml.devices()`` lists it, as far as supports_device reads it."""

    kind: str
    compiler_error: str | None = None

    def describe(self) -> str:
        return f"[0] seen ({self.kind}, test)"


SEEN = {
    "a GPU that builds, a CPU that does not": ([_Seen("GPU"), _Seen("CPU", "unknown target CPU")], {"GPU"}),
    "a CPU that builds": ([_Seen("CPU")], {"CPU"}),
    "both": ([_Seen("CPU"), _Seen("GPU")], {"CPU", "GPU"}),
    "a GPU that does not build, an accelerator": ([_Seen("GPU", "no compiler"), _Seen("ACCELERATOR")], set()),
    "none": ([], set()),
}
"""Device lists -> the names supports_device answers True for: the kinds with a device whose compiler builds."""


@pytest.mark.parametrize("case", sorted(SEEN))
def test_supports_device_answers_from_the_devices_dmlpy_sees(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """Issue 42: supports_device("GPU") was False even where the default device is a GPU. It answers from
    ``dml.devices()`` (here a monkeypatched list, so the test does not depend on this machine): "CPU" where a CPU
    device builds kernels, "GPU" where a GPU does, case aside; never ONNX's "CUDA" or another name. prepare checks
    a device given by name against it and names the usable devices when it refuses; left out, nothing is
    checked, and the model runs on dmlpy's default device."""
    import dmlpy.runtime.device_choice

    seen, supported = SEEN[case]
    monkeypatch.setattr(dmlpy.runtime.device_choice, "list_devices", lambda: list(seen))
    for name in ("CPU", "GPU", "cpu", " gpu ", "CUDA", "ACCELERATOR", "OTHER", ""):
        assert DmlBackend.supports_device(name) == (name.strip().upper() in supported), name
    model = _model(
        [onnx.helper.make_node("Neg", ["x"], ["y"])],
        [_tensor("x", onnx.TensorProto.FLOAT, [2])],
        [_tensor("y", onnx.TensorProto.FLOAT, [2])],
    )
    x = np.array([1.5, -0.0], np.float32)
    for name in ("CPU", "GPU"):
        if name in supported:
            assert DmlBackend.prepare(model, name).device is dml.default_device()
            continue
        usable = ", ".join(entry.describe() for entry in seen if entry.compiler_error is None) or "none"
        with pytest.raises(dml.UnsupportedError) as refused:
            DmlBackend.prepare(model, name)
        assert str(refused.value).startswith(
            f"prepare: device '{name}': dmlpy sees no OpenCL {name} device that builds kernels (usable: {usable}"
        ), str(refused.value)
    (y,) = DmlBackend.run_model(model, [x])
    assert y.tobytes() == (-x).tobytes()
    with pytest.raises(dml.UnsupportedError, match="prepare: device 'CUDA': the backend answers for 'CPU' and 'GPU'"):
        DmlBackend.prepare(model, "CUDA")


def test_the_default_devices_kind_is_supported_and_dml_device_picks_the_device(device: Any) -> None:
    """On this machine, whatever it has: the default device's kind is one supports_device claims (the default is
    a device whose compiler builds), and prepare(model, dml_device=device) runs on that device; a dml_device that
    is no dml.Device is refused naming it."""
    import pyopencl as cl

    kind = "GPU" if dml.default_device().cl_device.type & cl.device_type.GPU else "CPU"
    assert DmlBackend.supports_device(kind)
    model = _model(
        [onnx.helper.make_node("Neg", ["x"], ["y"])],
        [_tensor("x", onnx.TensorProto.FLOAT, [2])],
        [_tensor("y", onnx.TensorProto.FLOAT, [2])],
    )
    rep = DmlBackend.prepare(model, dml_device=device)
    assert rep.device is device
    (y,) = rep.run([np.array([1.5, -0.0], np.float32)])
    assert y.tobytes() == np.array([-1.5, 0.0], np.float32).tobytes()
    with pytest.raises(dml.InvalidArgumentError, match=r"prepare: dml_device is 'GPU'; it must be a dml\.Device"):
        DmlBackend.prepare(model, dml_device="GPU")


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: list[Any] | None = None) -> Any:
    graph = onnx.helper.make_graph(nodes, "g", inputs, outputs, initializer=initializers or [])
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 21)])


def _tensor(name: str, elem: int, shape: list[int]) -> Any:
    return onnx.helper.make_tensor_value_info(name, elem, shape)


def _reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    from onnx.reference import ReferenceEvaluator

    return list(ReferenceEvaluator(model).run(None, feeds))


def test_models_dmlpy_rewrites_into_graphs_directml_accepts() -> None:
    """A node nothing reads (pruned), a scale shared by nodes of different shapes (bound twice, read two ways),
    one value listed as two outputs and an input passed straight out (Identity nodes): all match onnx.reference."""
    F, U8 = onnx.TensorProto.FLOAT, onnx.TensorProto.UINT8
    scale = onnx.numpy_helper.from_array(np.array(0.5, np.float32), "s")
    nodes = [
        onnx.helper.make_node("QuantizeLinear", ["a", "s"], ["qa"]),
        onnx.helper.make_node("QuantizeLinear", ["b", "s"], ["qb"]),
        onnx.helper.make_node("Round", ["a"], ["unused"]),
    ]
    model = _model(
        nodes,
        [_tensor("a", F, [2, 3]), _tensor("b", F, [5])],
        [_tensor("qa", U8, [2, 3]), _tensor("qb", U8, [5]), _tensor("qb", U8, [5]), _tensor("a", F, [2, 3])],
        [scale],
    )
    a = np.array([[0.2, 1.3, -4.0], [7.75, 100.0, 3.25]], np.float32)
    b = np.array([0.0, 0.25, 0.75, 1.25, 300.0], np.float32)
    got = DmlBackend.prepare(model).run([a, b])
    expected = _reference(model, {"a": a, "b": b})
    assert len(got) == 4
    for result, want in zip(got, expected, strict=True):
        assert result.dtype == want.dtype and result.tobytes() == want.tobytes()


def test_softmax_before_opset_13_reduces_the_rows_of_the_coerced_2d_input() -> None:
    """Softmax, LogSoftmax and Hardmax of opset 11 (axis 1 by default) coerce the input to 2-D, [the dimensions
    before axis, those from it on], and reduce each row: the "1" forms along every axis from ``axis`` on, within the
    operator's bound of the rows' float64 reference of the coerced rows (Hardmax exactly: a row's first maximum is
    the first in row-major order of those axes). onnx.reference implements opset 13's one axis only, so it is no
    oracle here. An axis out of range is a malformed model (InvalidArgumentError, not a refusal)."""
    F = onnx.TensorProto.FLOAT
    x = np.round(np.random.default_rng(5).standard_normal((2, 3, 4)) * 4).astype(np.float32)  # ties for Hardmax
    case = Case({"input_tensor": F32, "output_tensor": F32})
    for desc in (
        dml.ActivationSoftmax1OperatorDesc,
        dml.ActivationLogSoftmax1OperatorDesc,
        dml.ActivationHardmax1OperatorDesc,
    ):
        for axis in (0, 1, 2, -1):
            node = onnx.helper.make_node(desc.ONNX_OPS[0], ["x"], ["y"], **({} if axis == 1 else {"axis": axis}))
            graph = onnx.helper.make_graph([node], "g", [_tensor("x", F, [2, 3, 4])], [_tensor("y", F, [2, 3, 4])])
            model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 11)])
            (got,) = DmlBackend.prepare(model).run([x])
            rows = x.reshape(int(np.prod(x.shape[: axis % 3])), -1)
            want = row_of(desc).reference({"input_tensor": rows}, case).reshape(x.shape)
            assert_same(row_of(desc), got, want, x, case)
    node = onnx.helper.make_node("Softmax", ["x"], ["y"], axis=3)
    graph = onnx.helper.make_graph([node], "g", [_tensor("x", F, [2, 3, 4])], [_tensor("y", F, [2, 3, 4])])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 11)])
    with pytest.raises(dml.InvalidArgumentError, match=r"axis 3 is out of range for an input of rank 3 \(-3 to 2\)"):
        DmlBackend.prepare(model).run([x])


def test_a_tree_of_math_nodes_runs_as_one_kernel_each_node_within_its_bound_of_onnx_reference(device: Any) -> None:
    """x -> Exp -> Log -> Sqrt -> Reciprocal -> Tanh, and Ceil of the Log, every node's output a graph output:
    one fused kernel, bit-identical to the nodes run one by one (each a kernel of its own), and each node's
    output within its op type's ``rtol_of`` of onnx.reference's node run on dmlpy's input of that node (so that
    one node's error is not charged to the next). The inputs reach the domains' edges: Sqrt of a negative (NaN),
    Log(0) = -inf (Exp(-104) is 0), infinities, -0, NaN, and Exp up to 5.5e34."""
    F, shape = onnx.TensorProto.FLOAT, [2, 3, 40]
    edges = [("Exp", "x", "e"), ("Log", "e", "l"), ("Ceil", "l", "c"), ("Sqrt", "l", "s")]
    edges += [("Reciprocal", "s", "r"), ("Tanh", "r", "t")]
    nodes = [onnx.helper.make_node(op, [source], [target]) for op, source, target in edges]
    model = _model(nodes, [_tensor("x", F, shape)], [_tensor(target, F, shape) for _, _, target in edges])
    x = np.random.default_rng(31).uniform(-10, 80, shape).astype(np.float32)
    x.reshape(-1)[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, -104.0]
    rep = DmlBackend.prepare(model, dml_device=device)
    values = {"x": x} | dict(zip([target for _, _, target in edges], rep.run([x]), strict=True))
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]
    for node in nodes:
        (source,), (target,) = node.input, node.output
        (alone,) = DmlBackend.run_node(node, [values[source]], dml_device=device)
        assert values[target].tobytes() == alone.tobytes(), node.op_type
        one_node = _model([node], [_tensor(source, F, shape)], [_tensor(target, F, shape)])
        with np.errstate(all="ignore"):  # onnx.reference's NumPy on Log(0), Sqrt(-1), ...
            (want,) = _reference(one_node, {source: values[source]})
        rtol = rtol_of([node.op_type])
        np.testing.assert_allclose(values[target], want, rtol=rtol, atol=0, err_msg=node.op_type)


def _assert_as_reference(model: Any, feeds: dict[str, Any], got: Sequence[Any]) -> None:
    """``got`` is onnx.reference's outputs of ``model`` for ``feeds``, bit for bit, dtype and shape too."""
    want = _reference(model, feeds)
    assert len(got) == len(want)
    for result, expected in zip(got, want, strict=True):
        assert result.dtype == expected.dtype and result.shape == expected.shape, (result, expected)
        assert result.tobytes() == expected.tobytes(), (result, expected)


def test_graph_inputs_and_initializers_broadcast_as_onnx_reference(device: Any) -> None:
    """ONNX's multidirectional broadcasting: an initializer of shape [3, 1] (one dimension fewer) and a rank-0
    one, a graph input of shape [2, 1, 4] given first to Mul (the smaller operand on the left), each read with
    the output's Sizes and 0-strides; the output [2, 3, 4] equals onnx.reference's, in one fused kernel."""
    F = onnx.TensorProto.FLOAT
    rng = np.random.default_rng(3)
    b = onnx.numpy_helper.from_array(rng.standard_normal((3, 1)).astype(np.float32), "b")
    s = onnx.numpy_helper.from_array(np.array(0.375, np.float32), "s")
    nodes = [
        onnx.helper.make_node("Add", ["x", "b"], ["t"]),
        onnx.helper.make_node("Mul", ["c", "t"], ["u"]),
        onnx.helper.make_node("Sub", ["u", "s"], ["y"]),
    ]
    model = _model(
        nodes, [_tensor("x", F, [2, 3, 4]), _tensor("c", F, [2, 1, 4])], [_tensor("y", F, [2, 3, 4])], [b, s]
    )
    feeds = {
        "x": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "c": rng.standard_normal((2, 1, 4)).astype(np.float32),
    }
    rep = DmlBackend.prepare(model, dml_device=device)
    _assert_as_reference(model, feeds, rep.run(feeds))
    assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]


def test_a_computed_value_read_broadcast_is_read_through_zero_strides() -> None:
    """A node's output read with other Sizes than it was written with (Sqrt's [4] broadcast over Add's [3, 4]) is
    read through a view of it, 0 Strides where it repeats (DirectML's reinterpretation of an edge); shapes that do
    not broadcast are refused naming both."""
    F = onnx.TensorProto.FLOAT
    nodes = [onnx.helper.make_node("Sqrt", ["v"], ["r"]), onnx.helper.make_node("Add", ["x", "r"], ["y"], name="add")]
    model = _model(nodes, [_tensor("x", F, [3, "N"]), _tensor("v", F, ["M"])], [_tensor("y", F, [3, "N"])])
    rep = DmlBackend.prepare(model)
    x, v = np.arange(12, dtype=np.float32).reshape(3, 4), np.float32([4.0, 9.0, 2.0, 0.25])
    (y,) = rep.run([x, v])
    np.testing.assert_array_equal(y, x + np.sqrt(v))
    with pytest.raises(
        dml.InvalidArgumentError, match=r"'add' \(Add, opset 21\): its inputs have shapes 'x' \[3, 4\], 'r' \[3\]"
    ):
        rep.run([x, v[:3]])


def test_sum_and_mean_of_three_inputs_are_onnx_references_arithmetic_step_for_step() -> None:
    """Sum of a, b, c is (a + b) + c and Mean of them ((a + b) + c) / 3, each step rounded in the inputs' type,
    as onnx.reference computes them (Mean's divisor a constant node): bit for bit in float32 and float16, with a
    broadcast third input. Values near the top of float16 make the sum overflow to infinity where the mean of
    the exact sum would not (onnx.reference's answer too)."""
    rng = np.random.default_rng(31)
    for dtype, elem in ((np.float32, onnx.TensorProto.FLOAT), (np.float16, onnx.TensorProto.FLOAT16)):
        nodes = [
            onnx.helper.make_node("Sum", ["a", "b", "c"], ["s"]),
            onnx.helper.make_node("Mean", ["a", "b", "c"], ["m"]),
        ]
        inputs = [_tensor("a", elem, [4, 50]), _tensor("b", elem, [4, 50]), _tensor("c", elem, [50])]
        model = _model(nodes, inputs, [_tensor("s", elem, [4, 50]), _tensor("m", elem, [4, 50])])
        feeds = {name: rng.standard_normal(shape).astype(dtype) for name, shape in (("a", (4, 50)), ("b", (4, 50)))}
        feeds["c"] = rng.standard_normal(50).astype(dtype) * 1000
        feeds["a"][0, :3] = feeds["b"][0, :3] = np.finfo(dtype).max / dtype(1.5)
        with np.errstate(over="ignore"):  # onnx.reference's sums of the values near the top
            _assert_as_reference(model, feeds, DmlBackend.prepare(model).run(feeds))


def test_mean_of_two_is_directml_mean_and_of_three_needs_constant_nodes() -> None:
    """Mean of two inputs is ELEMENT_WISE_MEAN, correctly rounded without overflow of the sum (onnx.reference
    rounds the sum first: infinity for two values near the top); below DML_FEATURE_LEVEL_6_2, which brought
    constant nodes, a Mean of three is refused naming the input count."""
    node = onnx.helper.make_node("Mean", ["a", "b"], ["m"])
    top = np.array([np.finfo(np.float32).max] * 2, np.float32)
    (mean,) = DmlBackend.run_node(node, [top, top])
    assert mean.tobytes() == top.tobytes()
    with np.errstate(over="ignore"):
        assert np.isposinf(_reference(_one_node(node, top, top), {"a": top, "b": top})[0]).all()
    node = onnx.helper.make_node("Mean", ["a", "b", "c"], ["m"], name="mean3")
    old = dml.create_device(max_feature_level=dml.FeatureLevel.FL_6_1)
    with pytest.raises(NodeRefused, match=r"'mean3' \(Mean, opset \d+\): a Mean of 3 inputs is their sum divided by 3"):
        DmlBackend.run_node(node, [top, top, top], dml_device=old)


def test_a_chain_of_add_mul_and_max_runs_as_one_kernel_equal_to_onnx_reference(device: Any) -> None:
    """Add -> Mul -> Max of three inputs (two MAX nodes, left to right), every value of one shape: one fused
    kernel, bit for bit onnx.reference's, in float32 and in int32 (wrapping products)."""
    rng = np.random.default_rng(7)
    for dtype, elem in ((np.float32, onnx.TensorProto.FLOAT), (np.int32, onnx.TensorProto.INT32)):
        nodes = [
            onnx.helper.make_node("Add", ["x", "y"], ["a"]),
            onnx.helper.make_node("Mul", ["a", "z"], ["m"]),
            onnx.helper.make_node("Max", ["m", "x", "y"], ["out"]),
        ]
        shape = [3, 70]
        model = _model(nodes, [_tensor(name, elem, shape) for name in "xyz"], [_tensor("out", elem, shape)])
        if dtype == np.float32:
            feeds = {name: rng.uniform(-100, 100, shape).astype(dtype) for name in "xyz"}
        else:
            feeds = {name: rng.integers(-(2**31), 2**31, shape, dtype=dtype) for name in "xyz"}
        rep = DmlBackend.prepare(model, dml_device=device)
        with np.errstate(over="ignore"):
            _assert_as_reference(model, feeds, rep.run(feeds))
        assert [graph.kernel_count for graph in rep.compiled_graphs] == [1]


def test_where_directml_and_onnx_reference_differ_dmlpy_answers_as_directml() -> None:
    """docs/conformance.md's list: Max and Min of a NaN give the other operand (D3D's max and min; np.maximum
    propagates the NaN), of two zeros A's (Max) or B's (Min) by D3D's rule; an integer divided by 0 has all bits
    set (onnx.reference gives 0, NumPy's answer; ONNX leaves it undefined); Sum starts from the first input where
    onnx.reference's sum() starts from the integer 0, so Sum(-0, -0) is -0, not +0. Integer Div truncates toward
    zero, as onnx.reference does."""
    x = np.array([np.nan, 1.0, -2.0, -0.0, 0.0], np.float32)
    y = np.array([3.0, np.nan, np.nan, 0.0, -0.0], np.float32)
    # The zeros: max is a >= b ? a : b (A's zero), min a < b ? a : b (B's zero).
    for op_type, zeros in (("Max", [-0.0, 0.0]), ("Min", [0.0, -0.0])):
        node = onnx.helper.make_node(op_type, ["x", "y"], ["z"])
        (got,) = DmlBackend.run_node(node, [x, y])
        assert got.tobytes() == np.array([3.0, 1.0, -2.0, *zeros], np.float32).tobytes(), (op_type, got)
        assert np.isnan(_reference(_one_node(node, x, y), {"x": x, "y": y})[0][:3]).all()
    a = np.array([7, -7, 7, -7, -(2**31), 5], np.int32)
    b = np.array([2, 2, -2, -2, -1, 0], np.int32)
    div = onnx.helper.make_node("Div", ["x", "y"], ["z"])
    (got,) = DmlBackend.run_node(div, [a, b])
    assert got.tolist() == [3, -3, -3, 3, -(2**31), -1]
    with np.errstate(all="ignore"):
        (want,) = _reference(_one_node(div, a, b), {"x": a, "y": b})
    assert want.tolist() == [3, -3, -3, 3, -(2**31), 0]
    zeros = np.array([-0.0], np.float32)
    add = onnx.helper.make_node("Sum", ["x", "y"], ["z"])
    (got,) = DmlBackend.run_node(add, [zeros, zeros])
    (want,) = _reference(_one_node(add, zeros, zeros), {"x": zeros, "y": zeros})
    assert np.signbit(got).all() and not np.signbit(want).any()


def _one_node(node: Any, x: Any, y: Any) -> Any:
    types = [onnx.helper.np_dtype_to_tensor_dtype(v.dtype) for v in (x, y)]
    inputs = [_tensor(name, t, list(v.shape)) for name, t, v in zip(node.input, types, (x, y), strict=True)]
    return _model([node], inputs, [_tensor(node.output[0], types[0], list(x.shape))])


def test_arithmetic_nodes_refuse_mixed_types_and_types_outside_their_schema() -> None:
    """Add of FLOAT and INT32 (ONNX's T is one type) and a Mean of INT32 (which DirectML's MEAN would run, but
    ONNX's Mean takes floats only) are malformed models, refused at prepare naming the node and the types."""
    F, I32 = onnx.TensorProto.FLOAT, onnx.TensorProto.INT32
    add = onnx.helper.make_node("Add", ["x", "y"], ["z"], name="add")
    mixed = _model([add], [_tensor("x", F, [2]), _tensor("y", I32, [2])], [_tensor("z", F, [2])])
    with pytest.raises(dml.InvalidArgumentError, match=r"'add' \(Add, opset 21\): its inputs are 'x' FLOAT, 'y' INT32"):
        DmlBackend.prepare(mixed)
    mean = onnx.helper.make_node("Mean", ["x", "y"], ["z"], name="mean")
    integers = _model([mean], [_tensor("x", I32, [2]), _tensor("y", I32, [2])], [_tensor("z", I32, [2])])
    with pytest.raises(
        dml.InvalidArgumentError, match=r"'mean' \(Mean, opset 21\): its input 'x' is INT32; Mean's schema"
    ):
        DmlBackend.prepare(integers)
