"""Integer tensors through DMLPY_EXT_ELEMENT_WISE_ROUND come back unchanged in every mode (OpenVINO Round-5's
rule for integral element types), over each type's whole range."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.dtypes import INTEGER_DTYPES
from tests.helpers.ext_cases import MODE_IDS, run_ext_round
from tests.helpers.modes import NGRAPH_MODES as MODES


def integer_values(dtype: np.dtype, seed: int) -> np.ndarray:
    info = np.iinfo(dtype)
    ends = [info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2, 3]
    if info.min < 0:
        ends += [-1, -2, -3]
    rng = np.random.default_rng(seed)
    spread = rng.integers(int(info.min), int(info.max), 1000, dtype=dtype, endpoint=True)
    return np.concatenate([np.array(ends, dtype=dtype), spread])


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=[d.name for d in INTEGER_DTYPES])
def test_integers_come_back_unchanged(ext_device, dtype, mode):
    values = integer_values(dtype, seed=dtype.itemsize + MODES.index(mode))
    got = run_ext_round(ext_device, values, mode)
    assert got.dtype == dtype
    assert np.array_equal(got, values), np.flatnonzero(got != values)[:10]
