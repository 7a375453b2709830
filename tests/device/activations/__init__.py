"""The piecewise activations (RELU, LEAKY_RELU, THRESHOLDED_RELU, LINEAR, HARD_SIGMOID, HARD_SWISH, SOFTSIGN,
IDENTITY, PARAMETERIZED_RELU, RELU_GRAD) on their own, beyond their rows in the operator table
(tests/helpers/rows_activations.py): the edge values random values may miss, the choices of
docs/operators/activation_piecewise.md, the builder's graphs and defaults."""
