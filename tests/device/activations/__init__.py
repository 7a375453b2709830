"""The activations on their own, beyond their rows in the operator table: the piecewise ones (RELU, LEAKY_RELU,
THRESHOLDED_RELU, LINEAR, HARD_SIGMOID, HARD_SWISH, SOFTSIGN, IDENTITY, PARAMETERIZED_RELU, RELU_GRAD;
tests/helpers/rows_activations.py) and the exponential ones (ELU, CELU, SCALED_ELU, SIGMOID, TANH, SCALED_TANH,
SOFTPLUS, PARAMETRIC_SOFTPLUS, GELU, SWISH; tests/helpers/rows_exponential.py): the edge values random values may
miss, the choices of docs/operators/activation_piecewise.md and activation_exponential.md, the builder's graphs and
defaults."""
