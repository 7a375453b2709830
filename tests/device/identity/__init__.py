"""ELEMENT_WISE_IDENTITY (DirectML's Identity, with and without ScaleBias): the support table at every feature
level, the operator's rules, values on the device against NumPy, JSON and the CLI, and its kernels under
Oclgrind."""
