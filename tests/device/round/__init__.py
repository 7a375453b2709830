"""ELEMENT_WISE_ROUND (DirectML's Round): descriptor validation, values on the device (packed, strided, the
object model, the ``dml.round`` one-liner), conformance with other engines' specifications and oracles, and its
kernels under Oclgrind."""
