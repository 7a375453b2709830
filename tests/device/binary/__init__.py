"""The binary arithmetic operators (ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MEAN, DIFFERENCE_SQUARE) beyond their
operator rows: every pair of special values of each float type and of edge values of each integer type, in place on
either input, 0-strides broadcasting either input, and the graph builder's functions run on a device."""
