"""The three DirectML rounding modes on DirectML's own test vectors, with the names other systems use.

Run: python examples/round_modes.py
"""

from __future__ import annotations

import numpy as np

import dmlpy as dml

VECTORS = np.array([-2.5, -1.75, -1.5, -1.25, 0, 1.25, 1.5, 1.75, 2.5], dtype=np.float32)

# DirectML mode -> (ONNX, OpenVINO Round-5, nGraph, the results DirectML's documentation gives)
MODES = {
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN: (
        "Round",
        "half_to_even",
        "ROUND_NEAREST_TOWARD_EVEN",
        [-2, -2, -2, -1, 0, 1, 2, 2, 2],
    ),
    dml.RoundingMode.TOWARD_ZERO: ("-", "-", "ROUND_TOWARD_ZERO", [-2, -1, -1, -1, 0, 1, 1, 1, 2]),
    dml.RoundingMode.TOWARD_INFINITY: (
        "-",
        "half_away_from_zero",
        "ROUND_NEAREST_TOWARD_INFINITY",
        [-3, -2, -2, -1, 0, 1, 2, 2, 3],
    ),
}


def main() -> None:
    print(f"{'DirectML':<24}{'ONNX':<7}{'OpenVINO':<21}{'nGraph':<31}" + " ".join(f"{v:>5}" for v in VECTORS))
    for mode, (onnx, openvino, ngraph, expected) in MODES.items():
        result = dml.round(VECTORS, mode=mode)
        assert result.tolist() == expected, (mode, result)
        if openvino != "-":
            assert dml.round(VECTORS, mode=openvino).tolist() == expected
        print(f"{mode.name:<24}{onnx:<7}{openvino:<21}{ngraph:<31}" + " ".join(f"{v:>5g}" for v in result))
    ceil = np.ceil(VECTORS)
    print(f"{'(ceil, not DirectML)':<83}" + " ".join(f"{v:>5g}" for v in ceil))
    assert not np.array_equal(ceil, dml.round(VECTORS, mode=dml.RoundingMode.TOWARD_INFINITY))  # the naming trap


if __name__ == "__main__":
    main()
