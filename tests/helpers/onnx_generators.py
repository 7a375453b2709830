"""ONNX's node tests of Range, EyeLike, ReverseSequence (dmlpy.onnx.generators) and NonZero (refused): the names a
runner matches them by, the ones that run as shipped and the word the refusal of each other one holds. Range's
start, limit and delta are graph inputs in every node test; dmlpy takes them from initializers (descriptor fields
and the output's Sizes), so tests/device/graph/test_onnx_generators.py runs those again with them as initializers."""

from __future__ import annotations

from collections.abc import Iterable

GENERATOR_TEST_NAMES = ("nonzero",)
"""The node tests' spellings of the op types SUPPORTED_OPS lacks but whose refusal is checked (NonZero's)."""
GENERATOR_PREFIXES = ("range", "eyelike", "reversesequence", "nonzero")
"""How the node tests of these op types begin (``test_`` left out)."""
GENERATOR_RUNS = (
    "eyelike_without_dtype",
    "eyelike_with_dtype",
    "eyelike_populate_off_main_diagonal",
    "reversesequence_time",
    "reversesequence_batch",
)
"""The node tests of these op types that run as shipped (the others are refused: ``generator_refusal``)."""


def generator_refusal(form: str) -> str | None:
    """The word the refusal of the node test ``form`` (its name without ``test_``) holds, None where it runs."""
    if "bfloat16" in form:
        return "BFLOAT16"  # no DirectML tensor type
    if form.startswith("range_") and form.endswith("_expanded"):
        return "Loop"  # Range's function body: a Loop node, which dmlpy does not map
    if form.startswith("range_"):
        return "initializer"
    if form.startswith("nonzero"):
        return "fixed when it is built"
    return None


def generator_refusals(forms: Iterable[str]) -> dict[str, str]:
    """The refused node tests of these op types among ``forms`` -> their word."""
    ours = (form for form in forms if form.startswith(GENERATOR_PREFIXES))
    return {form: word for form in ours for word in (generator_refusal(form),) if word is not None}
