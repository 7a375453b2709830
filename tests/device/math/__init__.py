"""The unary float math operators (SQRT, RECIP, EXP, LOG, the trigonometric and hyperbolic functions and their
inverses, ERF): C99's special values, float32 sweeps within each operator's FLOAT32_ULPS, and the sweeps'
inputs, which scripts/measure_ulps.py reuses."""
