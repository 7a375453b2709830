"""``dmlpy schema``: the JSON Schema (draft 2020-12) of the descriptors ``validate`` and ``explain`` read."""

from __future__ import annotations

import argparse
import json

from dmlpy.cli.common import EXIT_OK, say
from dmlpy.descriptors_json import descriptor_schema


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """schema takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """Print the JSON Schema of the descriptors dmlpy reads."""
    say(*json.dumps(descriptor_schema(), indent=2).split("\n"))
    return EXIT_OK
