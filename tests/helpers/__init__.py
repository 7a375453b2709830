"""Helpers the test folders share: rounding-mode tuples (modes), stride tables and buffer images (layouts),
one trip through DirectML's object model (object_model), the Round descriptor factory (factory), the driver
the Oclgrind variant scripts have in common (oclgrind_driver), the NumPy references (references, round_reference,
quantize_oracle, ext_oracle), the command-line runner (cli) and the browser harness (browser).

Test modules import these as ``from tests.helpers.layouts import padded`` (the repository root is on
``sys.path`` under ``python -m pytest``); the Oclgrind scripts, run as subprocesses, put the repository root on
the path themselves.
"""
