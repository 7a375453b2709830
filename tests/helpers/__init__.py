"""Helpers the test folders share: rounding-mode tuples (modes), stride tables and buffer images (layouts),
one trip through DirectML's object model (object_model), the Round descriptor factory (factory) and the driver
the Oclgrind variant scripts have in common (oclgrind_driver).

``tests/`` is on ``sys.path`` under pytest (rootdir conftest, prepend import mode), so test modules import these
as ``from helpers.layouts import padded``; the Oclgrind scripts, run as subprocesses, put ``tests/`` on the
path themselves.
"""
