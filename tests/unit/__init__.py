"""Unit tests of the descriptor layer: enums, DMLCalcBufferTensorSize, the Pydantic models and validation.

Nothing here needs OpenCL; every test runs on any machine.
"""
