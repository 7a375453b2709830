"""The unary float math operators (SQRT, RECIP, EXP, LOG, the trigonometric and hyperbolic functions and their
inverses, ERF): C99's special values, float32 sweeps within each operator's FLOAT32_ULPS, and the sweeps'
inputs, which scripts/measure_ulps.py reuses. Not named ``math``: Python starts the scripts in tests/device
(oclgrind_operator_rows.py, ...) with that folder first on its path, where a package ``math`` would hide the
standard library's."""
