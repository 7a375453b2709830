"""What the commands share: exit statuses, the error for unusable input, and the feature-level option."""

from __future__ import annotations

import argparse
import signal

from dmlpy.enums import FeatureLevel

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130

HIGHEST_LEVEL = max(FeatureLevel)


class CliError(Exception):
    """Input that cannot be read or used (file, JSON syntax, option value, device): exit status 2."""


class Terminated(KeyboardInterrupt):
    """A signal such as SIGTERM turned into an exception, so that cleanup code runs: exit status 128 + signum.

    A KeyboardInterrupt, so that ``except Exception`` does not swallow it and code that must outlast a Ctrl-C
    (the runtime waits for a running kernel before its arrays are freed) outlasts it too.
    """

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")


def add_descriptor_arguments(parser: argparse.ArgumentParser, level_help: str) -> None:
    parser.add_argument(
        "descriptor", metavar="DESC.json", help="descriptor as JSON, C or snake_case names ('-': stdin)"
    )
    parser.add_argument("--feature-level", metavar="LEVEL", help=level_help)


def feature_level(args: argparse.Namespace) -> FeatureLevel:
    """The --feature-level given, or the highest; CliError naming the levels for anything else."""
    if not args.feature_level:
        return HIGHEST_LEVEL
    try:
        return FeatureLevel.parse(args.feature_level)
    except ValueError:
        known = ", ".join(level.name.removeprefix("FL_") for level in FeatureLevel)
        raise CliError(
            f"--feature-level {args.feature_level!r} is not a DML_FEATURE_LEVEL; use one of {known}"
        ) from None
