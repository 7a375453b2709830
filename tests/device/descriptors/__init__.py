"""Operator-independent tests of the descriptor layer: enums, DMLCalcBufferTensorSize, tensor descriptors and
their JSON round trip, the layering of dmlpy's modules, and lowering (coalescing, each operator's KernelSpec).

Nothing here needs OpenCL; every test runs on any machine.
"""
