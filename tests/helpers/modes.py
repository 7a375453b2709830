"""Rounding-mode tuples, written out here once (not taken from dmlpy, whose mode tables are code under test)."""

from __future__ import annotations

import dmlpy as dml

DML_ROUNDING_MODES = (
    dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    dml.RoundingMode.TOWARD_ZERO,
    dml.RoundingMode.TOWARD_INFINITY,
)
"""DirectML's three DML_ROUNDING_MODE values, in DirectML's order (0, 1, 2)."""
DML_MODE_IDS = [mode.name for mode in DML_ROUNDING_MODES]

ONE_LINER_MODE_NAMES = {
    "half_to_even": dml.RoundingMode.HALVES_TO_NEAREST_EVEN,
    "toward_zero": dml.RoundingMode.TOWARD_ZERO,
    "half_away_from_zero": dml.RoundingMode.TOWARD_INFINITY,
}
"""The names ``dml.round`` accepts besides DirectML's (DESIGN §2), and the DirectML mode each one means."""
ONE_LINER_MODES = tuple(ONE_LINER_MODE_NAMES)

NGRAPH_MODES = (
    "NEAREST_TOWARD_INFINITY",
    "NEAREST_TOWARD_ZERO",
    "NEAREST_UPWARD",
    "NEAREST_DOWNWARD",
    "NEAREST_TOWARD_EVEN",
    "TOWARD_INFINITY",
    "TOWARD_ZERO",
    "UP",
    "DOWN",
)
"""nGraph's nine modes (Quantize's ``round_mode``) without their ROUND_ prefix, in nGraph's order; also the member
names of dmlpy.extensions.ExtRoundingMode. Strings, so the oracles do not depend on the code under test."""
