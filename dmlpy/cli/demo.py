"""``dmlpy demo``: describe and validate Round descriptors, then run the seed example in every mode."""

from __future__ import annotations

import argparse

import numpy as np

from dmlpy.cli.common import EXIT_OK, say
from dmlpy.enums import FeatureLevel, RoundingMode, TensorDataType
from dmlpy.errors import DmlError
from dmlpy.modes import ALIAS_OF
from dmlpy.ops import validate
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.tensor import BufferTensorDesc

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """demo takes no arguments."""


def _validation_line(desc: ElementWiseRoundOperatorDesc, level: FeatureLevel) -> str:
    try:
        validate(desc, level)
    except DmlError as error:
        return f"   {level.c_name:<24} refused: {type(error).__name__}: {error}"
    return f"   {level.c_name:<24} valid"


def run(args: argparse.Namespace) -> int:
    """Describe, validate at two feature levels, then run Round in every mode on the default device."""
    from dmlpy.arrays import round
    from dmlpy.runtime import default_device

    say("1. Describe a 4-D and a 5-D FLOAT32 tensor and a Round operator for each, then validate them")
    for sizes in ((1, 1, 2, 4), (1, 1, 1, 2, 4)):
        tensor = BufferTensorDesc(data_type=TensorDataType.FLOAT32, sizes=sizes)
        desc = ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
        say(f"   Sizes {sizes}: TotalTensorSizeInBytes {tensor.total_tensor_size_in_bytes}")
        for level in (FeatureLevel.FL_2_1, FeatureLevel.FL_3_0):
            say(_validation_line(desc, level))
    device = default_device()
    say(f"2. Round the seed example in every mode on {device.name}, {device.feature_level.c_name}")
    modes = list(RoundingMode)
    width = max(len(mode.name) for mode in modes) + 2
    say(f"   {'input':>8}" + "".join(f"{mode.name:>{width}}" for mode in modes))
    say(f"   {'':>8}" + "".join(f"{'(' + ALIAS_OF[mode] + ')':>{width}}" for mode in modes))
    results = {mode: round(SEED, mode=mode) for mode in modes}
    for index, value in enumerate(SEED):
        say(f"   {value!s:>8}" + "".join(f"{results[mode][index]!s:>{width}}" for mode in modes))
    say("   TOWARD_INFINITY rounds halves away from zero (OpenVINO's half_away_from_zero): it is not ceil.")
    return EXIT_OK
