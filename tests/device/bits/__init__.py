"""The bit operators (BIT_AND, OR, XOR, NOT, COUNT, SHIFT_LEFT, SHIFT_RIGHT) beyond their operator rows: shift counts
around the element's width, every float's special encodings, and the graph builder's functions on a device."""
