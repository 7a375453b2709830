"""ONNX's node tests of the op types of the operators that compute (dmlpy.onnx.matrix, pooling, resample): the ones
that run as shipped, the word the refusal of each other one holds, and the runner's tolerance for the float ones,
from each operator's stated bound (docs/operators/gemm.md, pooling.md, resample.md) evaluated on the case's own
inputs: ONNX's expected outputs are NumPy's float32 (matrix products, poolings) or float64 (Resize) results, which
lie within the same bound of the exact value, so the two lie within twice it of each other."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

COMPUTE_OPS = ("MatMul", "Gemm", "MatMulInteger", "QLinearMatMul", "AveragePool", "MaxPool", "LpPool")
COMPUTE_OPS += ("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "MaxUnpool", "Resize", "Upsample")
"""The op types of these families."""
U = 2.0**-24
"""float32's unit roundoff."""

MATRIX_RUNS = (
    *(
        f"gemm_{form}"
        for form in (
            "default_zero_bias",
            "default_no_bias",
            "default_scalar_bias",
            "default_single_elem_vector_bias",
            "default_vector_bias",
            "default_matrix_bias",
            "transposeA",
            "transposeB",
            "alpha",
            "beta",
            "all_attributes",
        )
    ),
    *(f"matmul_{form}" for form in ("2d", "3d", "4d", "bcast", "1d_3d", "4d_1d", "1d_1d")),
    "matmulinteger",
    *(f"qlinearmatmul_{n}D_{t}_float32" for n in (2, 3) for t in ("uint8", "int8")),
)
"""The matrix products' node tests that run as shipped."""
POOLING_RUNS = (
    *(f"averagepool_{form}" for form in ("1d_default", "2d_default", "3d_default", "2d_same_upper", "2d_same_lower")),
    *(f"averagepool_2d_{form}" for form in ("pads", "pads_count_include_pad", "strides", "ceil", "dilations")),
    *(f"averagepool_2d_precomputed_{form}" for form in ("pads", "pads_count_include_pad", "strides", "same_upper")),
    "averagepool_2d_ceil_last_window_starts_on_pad",
    "averagepool_3d_dilations_small",
    *(
        f"averagepool_3d_dilations_large_count_include_pad_is_{include}_ceil_mode_is_{ceil}"
        for include, ceil in (("0", "True"), ("0", "False"), ("1", "False"))
    ),
    *(f"{op}{form}" for op in ("globalaveragepool", "globalmaxpool") for form in ("", "_precomputed")),
    *(f"lppool_{form}" for form in ("1d_default", "2d_default", "3d_default", "2d_same_upper", "2d_same_lower")),
    *(f"lppool_2d_{form}" for form in ("pads", "strides", "dilations")),
    *(f"maxpool_{form}" for form in ("1d_default", "2d_default", "3d_default", "2d_same_upper", "2d_same_lower")),
    *(
        f"maxpool_2d_{form}"
        for form in ("uint8", "pads", "strides", "ceil", "dilations", "ceil_output_size_reduce_by_one")
    ),
    *(f"maxpool_2d_precomputed_{form}" for form in ("pads", "strides", "same_upper")),
    "maxpool_with_argmax_2d_precomputed_pads",
    *(f"maxpool_3d_dilations{form}" for form in ("", "_use_ref_impl", "_use_ref_impl_large")),
    "maxunpool_export_without_output_shape",
)
"""The poolings' node tests that run as shipped (GlobalLpPool has none in the installed onnx)."""
COMPUTE_RUNS = (*MATRIX_RUNS, *POOLING_RUNS)
REFUSED_AT_RUN = {"averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True": "count_include_pad"}
"""Node tests refused at their first run, where the input's shape decides (ceil_mode's extra end padding, counted by
IncludePadding where ONNX counts only its pads), rather than at prepare."""
POOLING_REFUSED = {
    "maxpool_with_argmax_2d_precomputed_strides": "storage_order",
    "maxunpool_export_with_output_shape": "initializer",
}
"""The poolings' node tests refused at prepare: column-major indices, MaxUnpool's output_shape a graph input (the
output's Sizes: an initializer)."""
POOLING_PREFIXES = ("averagepool", "maxpool", "lppool", "globalaveragepool", "globalmaxpool", "globallppool")
POOLING_PREFIXES += ("maxunpool",)
COMPUTE_PREFIXES = ("matmul", "gemm", "qlinearmatmul", *POOLING_PREFIXES, "resize", "upsample")
ROUNDED_EXPECTATIONS = {"averagepool_2d_ceil_last_window_starts_on_pad": 1e-4}
"""Node tests whose input and expected output are written in the test to 4 decimals (the output not computed from
the input): within one unit of the 4th."""
"""How the node tests of these op types begin (``test_`` left out)."""


def compute_refusal(form: str) -> str | None:
    """The word the refusal of the node test ``form`` (its name without ``test_``) holds, None where it runs."""
    if form in POOLING_REFUSED:
        return POOLING_REFUSED[form]
    if form.startswith(("resize", "upsample")):
        if "cubic" in form:
            return "cubic"  # no DirectML resampling interpolates cubically
        if form.endswith(("not_larger", "not_smaller")):
            return "keep_aspect_ratio_policy"
        return "initializer"  # scales, sizes and roi are graph inputs: test_onnx_resample.py runs them as initializers
    if form.startswith("qlinearmatmul") and form.endswith("float16"):
        return "FLOAT16"  # QUANTIZED_LINEAR_MATRIX_MULTIPLY's scales are FLOAT32
    return None


def compute_refusals(forms: Iterable[str]) -> dict[str, str]:
    """The refused node tests of these op types among ``forms`` -> their word."""
    ours = (form for form in forms if form.startswith(COMPUTE_PREFIXES))
    return {form: word for form in ours for word in (compute_refusal(form),) if word is not None}


def gamma(n: int) -> float:
    return n * U / (1 - n * U)


def product_bound(a: Any, b: Any, c: Any = None, alpha: float = 1.0, beta: float = 1.0) -> Any:
    """GEMM's bound per output element, gamma_(K+2) (|alpha| sum|a||b| + |beta||c|) (docs/operators/gemm.md), for
    NumPy's matmul of ``a`` and ``b`` (already transposed as the node reads them)."""
    a64, b64 = np.abs(np.asarray(a, np.float64)), np.abs(np.asarray(b, np.float64))
    k = a64.shape[-1]
    magnitude = abs(alpha) * np.matmul(a64, b64)
    if c is not None:
        magnitude = magnitude + abs(beta) * np.abs(np.asarray(c, np.float64))
    return gamma(k + 2) * magnitude


def pooling_bound(node: Any, x: Any) -> float:
    """AVERAGE's and LP's bound (P 1 or 2) over a window of n elements, and NumPy's float32 error on the same
    window, together at most (n + 6) u n max|x| (docs/operators/pooling.md: 3u|y| + 2nu^2 sum|x| for AVERAGE, |y| <=
    max|x|; LP's 2.5u|y| + 2nu^2 sum x^P, |y| <= n max|x|; NumPy's sum of n terms (n - 1)u of its magnitude)."""
    kernel = next((list(a.ints) for a in node.attribute if a.name == "kernel_shape"), list(x.shape[2:]))
    n = int(np.prod(kernel))
    return float((n + 6) * U * n * np.max(np.abs(x)))


def resample_bound(x: Any, scales: Any, antialiased: bool) -> float:
    """LINEAR's bound (docs/operators/resample.md), (4R + 8 + T) u sum|v| over the T taps read, sum|v| <= T max|x|,
    R the rank; T per dimension 2 (plain) or 2 ceil(max(1, 1 / scale)) + 1 (antialiased: the stretched filter)."""
    taps = int(np.prod([2 * math.ceil(max(1.0, 1.0 / s)) + 1 if antialiased else 2 for s in scales]))
    return float((4 * x.ndim + 8 + taps) * U * taps * np.max(np.abs(x)))


def compute_tolerance(name: str, model: Any, inputs: list[Any]) -> dict[str, float] | None:
    """The runner's tolerance of a float node test of these op types: atol twice the operator's bound, largest over
    the output (rtol 0); None for the others (exact: MaxPool, the integer products)."""
    form = name.removeprefix("test_")
    if form in ROUNDED_EXPECTATIONS:
        return {"rtol": 0.0, "atol": ROUNDED_EXPECTATIONS[form]}
    (node,) = model.graph.node[:1] if form.startswith(COMPUTE_PREFIXES) else (None,)
    if node is not None and node.op_type in ("AveragePool", "GlobalAveragePool", "LpPool", "GlobalLpPool"):
        return {"rtol": 0.0, "atol": 2 * pooling_bound(node, inputs[0])}
    if node is None or node.op_type not in ("Gemm", "MatMul"):
        return None
    if node.op_type == "MatMul":
        return {"rtol": 0.0, "atol": 2 * float(np.max(product_bound(*inputs)))}
    given = {attribute.name: attribute for attribute in node.attribute}
    a = inputs[0].T if "transA" in given and given["transA"].i else inputs[0]
    b = inputs[1].T if "transB" in given and given["transB"].i else inputs[1]
    alpha = given["alpha"].f if "alpha" in given else 1.0
    beta = given["beta"].f if "beta" in given else 1.0
    c = inputs[2] if len(inputs) > 2 else None
    return {"rtol": 0.0, "atol": 2 * float(np.max(product_bound(a, b, c, alpha, beta)))}
