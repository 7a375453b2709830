"""The softmax family's own rules (docs/operators/activation_softmax.md, "Tensors and rules"), each refusal naming
the field, the rule, the value and the way out; and their lowering's layout: kept dimensions then reduced ones,
each coalesced on its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

import dmlpy as dml

FL = dml.FeatureLevel


def tensor(sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=dml.TensorDataType.FLOAT32, sizes=sizes, strides=strides)


def softmax1(sizes: tuple[int, ...], **fields: Any) -> dml.ActivationSoftmax1OperatorDesc:
    return dml.ActivationSoftmax1OperatorDesc(input_tensor=tensor(sizes), output_tensor=tensor(sizes), **fields)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"axes": (1, 4)},
            "ACTIVATION_SOFTMAX1.Axes[1] is 4; each axis must be less than InputTensor.DimensionCount (4)",
        ),
        (
            {"axes": (2, 2)},
            "ACTIVATION_SOFTMAX1.Axes[1] is 2, which Axes [2, 2] holds already; each axis may appear once",
        ),
        ({"axes": ()}, "ACTIVATION_SOFTMAX1.Axes is empty; name at least one axis to reduce along"),
        (
            {"axes": (0, 1), "axis_count": 3},
            "ACTIVATION_SOFTMAX1.AxisCount is 3 but Axes has 2 entries; it must count them (leave it out and dmlpy "
            "derives it)",
        ),
    ],
)
def test_axes_are_refused_naming_the_rule(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match="^" + re.escape(message)):
        dml.validate(softmax1((2, 3, 4, 5), **fields), FL.FL_5_1)


def test_axis_count_is_derived_and_axes_in_any_order_are_one_reduction() -> None:
    desc = softmax1((2, 3, 4, 5), axes=(3, 1))
    dml.validate(desc, FL.FL_5_1)
    assert desc.axis_count == 2 and desc.reduced_axes() == (1, 3)
    with pytest.raises(dml.UnsupportedError):
        dml.validate(desc, FL.FL_5_0)


def test_the_older_forms_take_an_effective_rank_of_2_at_most() -> None:
    for sizes in ((1, 1, 6, 7), (1, 1, 1, 7)):
        dml.validate(
            dml.ActivationHardmaxOperatorDesc(input_tensor=tensor(sizes), output_tensor=tensor(sizes)), FL.FL_1_0
        )
    sizes = (1, 3, 1, 7)
    desc = dml.ActivationLogSoftmaxOperatorDesc(input_tensor=tensor(sizes), output_tensor=tensor(sizes))
    message = "ACTIVATION_LOG_SOFTMAX.InputTensor.Sizes is (1, 3, 1, 7): effective rank 3; "
    with pytest.raises(dml.InvalidArgumentError, match="^" + re.escape(message) + ".* reduces along any axes$"):
        dml.validate(desc, FL.FL_3_0)


def test_lowering_coalesces_the_kept_and_the_reduced_dimensions_apart() -> None:
    """(2, 3, 4, 5) packed, along axes 2 and 3: one kept dimension of 6 groups, one reduced of 20; along axes 0
    and 2: kept (3, 5) merge (contiguous), reduced (2, 4) stay two; a padded output keeps its own strides."""
    lowered = softmax1((2, 3, 4, 5), axes=(2, 3)).lower()
    assert lowered.layout.sizes == (6, 20) and lowered.layout.strides == ((20, 1), (20, 1))
    assert ("KEPT_RANK", "1") in lowered.kernel.defines and lowered.global_size == 6
    lowered = softmax1((2, 3, 4, 5), axes=(0, 2)).lower()
    assert lowered.layout.sizes == (3, 5, 2, 4) and lowered.layout.strides[0] == (20, 1, 60, 5)
    padded = dml.ActivationHardmax1OperatorDesc(
        input_tensor=tensor((2, 3)), output_tensor=tensor((2, 3), (4, 1)), axes=(0, 1)
    ).lower()
    assert padded.layout.sizes == (2, 3) and padded.layout.strides == ((3, 1), (4, 1))
    assert ("KEPT_RANK", "0") in padded.kernel.defines and padded.global_size == 1
