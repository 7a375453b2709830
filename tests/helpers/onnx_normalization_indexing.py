"""ONNX's node tests of the normalization and indexing op types (dmlpy.onnx.normalization, dmlpy.onnx.indexing):
the names the runner (tests/device/graph/test_onnx_backend.py) matches them by, and the outcome it expects of each
one that does not run as shipped (the word its refusal holds). TopK's K, CumSum's axis and OneHot's depth are graph
inputs in every node test; dmlpy takes them from initializers (descriptor fields), so
tests/device/graph/test_onnx_normalization_indexing.py runs those again with them as initializers."""

from __future__ import annotations

from collections.abc import Iterable

FAMILY_TEST_NAMES = ("batchnorm", "instancenorm", "l1normalization", "l2normalization", "mvn")
"""The node tests' spellings that are not their op type's (test_batchnorm_example, test_mvn, ...)."""
GROUP_NORMALIZATION_RUNS = ("group_normalization_example", "group_normalization_epsilon")
FIELD_GIVEN_AS_INPUT = {"top_k": "K", "cumsum": "axis", "onehot": "depth"}
"""The node tests whose descriptor field is a graph input: their name's start -> the input."""


def family_refusal(form: str) -> str | None:
    """The word the refusal of the node test ``form`` (its name without ``test_``) holds, None where it runs."""
    if "_expanded" in form:
        return "Constant"  # the op type's function body: Constant nodes (and Reshape, ...) dmlpy does not map
    if form.startswith("layer_normalization"):
        return "InvStdDev"  # every node test asks for the Mean and InvStdDev outputs
    if form.startswith("batchnorm") and form.endswith("training_mode"):
        return "training_mode"
    if form.startswith(("scatter_elements_with_reduction", "scatternd_")) or form.endswith("duplicate_indices"):
        return "reduction"
    if form == "onehot_with_bfloat16_values":
        return "BFLOAT16"
    if form.startswith(tuple(FIELD_GIVEN_AS_INPUT)):
        return "initializer"
    return None


FAMILY_PREFIXES = (
    *FAMILY_TEST_NAMES,
    *("layer_normalization", "group_normalization", "lpnormalization", "lrn", "top_k", "cumsum", "onehot"),
    *("gather", "scatter_elements", "scatternd"),
)
"""How the node tests of these op types begin (``test_`` left out)."""


def family_refusals(forms: Iterable[str]) -> dict[str, str]:
    """The refused node tests of these op types among ``forms`` -> their word."""
    ours = (form for form in forms if form.startswith(FAMILY_PREFIXES))
    return {form: word for form in ours for word in (family_refusal(form),) if word is not None}


FAMILY_RUNS = (
    *(f"batchnorm_{form}" for form in ("example", "epsilon")),
    *(f"instancenorm_{form}" for form in ("example", "epsilon")),
    *(f"l{p}normalization_axis_{axis}" for p in (1, 2) for axis in ("0", "1")),
    "l1normalization_axis_last",
    "lpnormalization_default",
    "lrn",
    "lrn_default",
    "mvn",
    *(f"gather_{form}" for form in ("0", "1", "2d_indices", "negative_indices")),
    *(f"gather_elements_{form}" for form in ("0", "1", "negative_indices")),
    *(f"gathernd_example_{form}" for form in ("int32", "float32", "int32_batch_dim1")),
    *(f"scatter_elements_{form}" for form in ("without_axis", "with_axis", "with_negative_indices")),
    "scatternd",
    *GROUP_NORMALIZATION_RUNS,
)
"""The node tests of these op types that run as shipped (the others are refused: ``family_refusal``)."""
NORMALIZED_ULPS = 64
"""The runner's bound for a normalization's float32 result, relative and absolute in float32 ULPs of 1 (rtol = atol
= 64 * 2**-23): ONNX's expected outputs are NumPy's float32 results and dmlpy's are compensated float sums, each
within a few ULPs of the exact statistics of these few dozen terms; a normalized value is of order 1 (an
element's distance from the mean in standard deviations, then scaled), so an absolute term carries the error of
the subtraction x - mean where the output is near 0."""
