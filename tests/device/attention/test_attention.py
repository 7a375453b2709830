"""MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 run (dmlpy/kernels/attention.py's plan: gemm.cl twice around
attention.cl's masked softmax) against DirectML's formula in float64 NumPy, within the bound tests/device/attention/
cases.py derives: every data type of the support table in every source form, each MaskType, the bias, the relative
position bias, a past with the present outputs, grouped-query heads, strided tensors at offsets, and as a graph
node."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.device.attention.cases import FORMS, MASKS, Case, attention_case
from tests.device.normalization.cases import past_bound
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType
TYPES = sorted(dml.MultiheadAttention1OperatorDesc.SUPPORT.rows[-1].data_types["QueryTensor"], key=lambda t: t.value)
assert set(TYPES) == dml.MultiheadAttentionOperatorDesc.SUPPORT.rows[-1].data_types["QueryTensor"]


def _run_and_check(device: Any, case: Case, offsets: dict[str, int] | None = None) -> None:
    case.desc.validate_on(device.feature_level)
    got = run_structured(device, case.desc, case.inputs, offsets=offsets)
    for slot, expected in case.expected.items():
        wrong = past_bound(got[slot], expected, case.allowed[slot])
        assert not wrong.size, f"{slot} past the bound at elements {wrong[:8].tolist()} ({wrong.size} in all)"


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("form", FORMS)
def test_every_type_in_every_source_form(device: Any, data_type: Any, form: str) -> None:
    """MULTIHEAD_ATTENTION1 with a bias and a key-length mask, its query, key and value from each form."""
    _run_and_check(device, attention_case(data_type, form, bias=True, mask="KEY_SEQUENCE_LENGTH"))


@pytest.mark.parametrize("mask", MASKS)
def test_each_mask_type(device: Any, mask: str) -> None:
    """MULTIHEAD_ATTENTION (HeadCount), each MaskType over a past, so that the masks count the past's keys too."""
    case = attention_case(T.FLOAT32, mask=mask, past=2, first_form=True, seed=MASKS.index(mask))
    _run_and_check(device, case)


@pytest.mark.parametrize("data_type", TYPES, ids=lambda t: t.name)
def test_grouped_query_with_everything(device: Any, data_type: Any) -> None:
    """4 query heads sharing 2 key-value heads, a bias, a relative position bias, a boolean mask, a past and both
    present outputs."""
    case = attention_case(
        data_type,
        heads=(4, 2),
        bias=True,
        mask="BOOLEAN",
        relative_position_bias=True,
        past=3,
        present=True,
    )
    _run_and_check(device, case)


def test_present_without_past_or_bias(device: Any) -> None:
    """The present outputs are then the key and value copied exactly; a single head, no mask."""
    case = attention_case(T.FLOAT32, heads=(1, 1), present=True, first_form=True, sequence=1, kv_sequence=7)
    _run_and_check(device, case)


def test_strided_tensors_at_offsets(device: Any) -> None:
    """Every tensor with unused elements after its rows, bound at byte offsets: the plan reads and writes each
    through its strides, and nothing outside the outputs changes (run_structured checks)."""
    slots = (
        "query_tensor",
        "key_tensor",
        "value_tensor",
        "bias_tensor",
        "mask_tensor",
        "relative_position_bias_tensor",
        "past_key_tensor",
        "past_value_tensor",
        "output_tensor",
        "output_present_key_tensor",
        "output_present_value_tensor",
    )
    gaps = {slot: 1 + k % 3 for k, slot in enumerate(slots)}
    case = attention_case(
        T.FLOAT32,
        heads=(4, 2),
        bias=True,
        mask="BOOLEAN",
        relative_position_bias=True,
        past=2,
        present=True,
        gaps=gaps,
    )
    _run_and_check(device, case, {slot: 16 * (1 + k % 4) for k, slot in enumerate(slots)})


def test_stacked_strided(device: Any) -> None:
    case = attention_case(T.FLOAT16, "stacked_query_key_value", gaps={"stacked_query_key_value_tensor": 3})
    _run_and_check(device, case, {"stacked_query_key_value_tensor": 32, "output_tensor": 16})


def test_past_sequence_lengths_is_refused_naming_it() -> None:
    case = attention_case(T.FLOAT32, heads=(2, 2))
    fields = case.desc.model_dump(by_alias=True)
    fields["PastSequenceLengthsTensor"] = {"Type": "BUFFER", "Desc": {"DataType": "FLOAT32", "Sizes": [2]}}
    desc = dml.MultiheadAttention1OperatorDesc.model_validate(fields)
    with pytest.raises(dml.UnsupportedError, match=r"PastSequenceLengthsTensor is given; .* Leave it null"):
        desc.plan()


def test_attention_as_a_graph_node(device: Any) -> None:
    """The query halved on the host and doubled by a node (exact), attention, then 1 added: MULTIHEAD_ATTENTION's
    launches between element-wise nodes (absent tensors None in binding order)."""
    case = attention_case(T.FLOAT32, heads=(2, 2), first_form=True)
    q, k, v = (case.inputs[slot] for slot in ("query_tensor", "key_tensor", "value_tensor"))
    g = dml.Graph(device)
    gq, gk, gv = (g.input(x.shape, T.FLOAT32) for x in (q, k, v))
    absent = [None] * (len(case.desc.input_fields()) - 3)
    out = g.add_operator(case.desc, [gq * 2, gk, gv, *absent])
    got = np.asarray(g.compile([out + 1])(q / 2, k, v))
    expected = case.expected["output_tensor"] + 1
    wrong = past_bound(got, expected, case.allowed["output_tensor"] + 2.0**-24 * np.abs(expected))
    assert not wrong.size, f"past the bound at elements {wrong[:8].tolist()}"
