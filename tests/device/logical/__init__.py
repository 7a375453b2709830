"""The comparisons and logical operators (LOGICAL_EQUALS ... LESS_THAN_OR_EQUAL, LOGICAL_AND, OR, XOR, NOT) beyond
their operator rows: every pair of special values and integer edges, and the graph builder's functions on a
device."""
