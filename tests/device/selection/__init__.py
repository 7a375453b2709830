"""The remainders (MODULUS_TRUNCATE, MODULUS_FLOOR), IF and ATAN_YX beyond their operator rows: every pair of special
values and integer edges, IF choosing either side at every type, and the graph builder's functions on a device."""
