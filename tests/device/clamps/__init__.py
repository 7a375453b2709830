"""The sign operators (ABS, NEGATE, SIGN) and the clamps (CLIP, CLIP1, THRESHOLD) on their own, beyond their rows
in the operator table (tests/helpers/rows_clamps.py): the edge cases random values may miss, the choices of
docs/operators/element_wise_signs.md and element_wise_clip.md, the builder's graphs."""
