"""Run every row of the operator test table (tests/helpers/operators.py) on Oclgrind's simulated device: each
case of each row in a few small layouts (packed, padded, broadcast, transposed, in place where the operator's
SUPPORTS_IN_PLACE allows it; one of them for a sampled row; ``--every-layout``: every layout class of
helpers.layouts but the large one) through the object model, each buffer exactly as large as its binding needs
and the output left unwritten (tests/helpers/oclgrind_driver.py), and for a DirectML operator the fused chain
(neighbour -> operator -> neighbour, tests/helpers/row_runs.py) against the operator alone.

Results are compared with the row's reference as tests/device/test_operator_rows_*.py compare them (the value
sets are the same, drawn by the same seeds: NaNs, infinities, subnormals, every integer).

Started by test_operator_rows_oclgrind.py in a subprocess whose only OpenCL platform is Oclgrind. Prints one
line ``OCLGRIND_SUMMARY {json}``: the runs (``row case layout`` labels) and those skipped, the kernel specs
covered, the fused chains, and the failures.

    python oclgrind_operator_rows.py [--launch-profile cpu|gpu] [--every-layout] [--share K/N] [--negative-control]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root, for tests.helpers
import dmlpy as dml
from tests.helpers.layouts import LAYOUTS, padded, permuted
from tests.helpers.object_model import run_operator
from tests.helpers.oclgrind_driver import Tally, main
from tests.helpers.oclgrind_sweep import without_zero_fill
from tests.helpers.operators import ROWS, Case, OperatorRow, descriptor, sampled_layout
from tests.helpers.row_runs import (
    assert_fused_equals_alone,
    assert_same,
    fills,
    keeps_its_own_kernel,
    layout_strides,
    run_fused_chain,
)

S3 = (2, 3, 5)
SMALL_LAYOUTS: dict[str, dict[str, Any]] = {
    "packed": {"sizes": (37,), "output_offset": 16},
    "padded": {"sizes": S3, "input_strides": padded(S3, 2), "output_strides": padded(S3), "input_offset": 32},
    "broadcast": {"sizes": S3, "input_strides": (0, 5, 1), "output_offset": 16},
    "transposed": {"sizes": S3, "input_strides": permuted(S3, (2, 1, 0)), "input_offset": 16},
    "in_place": {"sizes": S3, "input_strides": padded(S3, 2), "output_strides": padded(S3, 2), "input_offset": 16,
                 "output_offset": 16, "in_place": True},
}  # fmt: skip
"""The default run's layouts (helpers.layouts' keyword form): an odd packed count with a vector tail, padded rows
in and out, a broadcast outer dimension, a transposed input, padded in place; binding offsets throughout."""
CHAIN_SIZES = (37,)
"""The fused chain's tensors: packed, so that a scale or zero point is one value broadcast (stride 0)."""
TOO_LARGE = ("packed_large",)
"""99,330 elements: minutes on Oclgrind, and no access pattern the other layouts lack."""


def layouts(every_layout: bool) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in LAYOUTS.items() if k not in TOO_LARGE} if every_layout else SMALL_LAYOUTS


def planned(row: OperatorRow, case: Case, every_layout: bool) -> list[str]:
    """The run labels of one case: its layouts (in place where the operator allows it), then the fused chain
    for a DirectML operator."""
    names = [name for name, layout in layouts(every_layout).items() if row.runs_layout(name, layout)]
    if not every_layout:
        names = sampled_layout(row, case, names)
    chain = [] if row.desc.is_extension() else ["fused_chain"]
    return [f"{row.name} {case.id} {name}" for name in [*names, *chain]]


Share = tuple[int, int] | None
"""(k, n): the k-th of n shares (by default of the sampled rows, those whose turn is k modulo n; with
--every-layout of every row's cases, those whose place in EVERY_CASE is k modulo n), or None for all of them."""
EVERY_CASE = {
    key: place for place, key in enumerate((row.name, case.id) for row in ROWS for case in row.cases_run(True))
}
"""Every case of the table and its place in the table's order, as --every-layout's shares count them."""


def cases_of(row: OperatorRow, every_layout: bool, share: Share = None) -> tuple[Case, ...]:
    """The cases a pass takes: with --every-layout every one or, with a ``share``, every ``n``-th of the table's
    cases from the ``k``-th (the sweep runs in pieces, each within a subprocess's timeout); by default a sampled
    row's one, its turn in the rotation of its default cases (a family's operators build one kernel shape, and
    each case run under Oclgrind takes seconds), and with a ``share`` only if the row is in it; a row that is not
    sampled all its default cases."""
    cases = row.cases_run(every_layout)
    if every_layout:
        if share is None:
            return cases
        k, n = share
        return tuple(case for case in cases if EVERY_CASE[(row.name, case.id)] % n == k)
    if not row.sampled:
        return cases
    turn = [r.name for r in ROWS if r.sampled].index(row.name)
    if share is None:
        return (cases[turn % len(cases)],)
    k, n = share
    return (cases[turn // n % len(cases)],) if turn % n == k else ()


def every_planned(every_layout: bool, share: Share = None) -> list[str]:
    return [
        label
        for row in ROWS
        for case in cases_of(row, every_layout, share)
        for label in planned(row, case, every_layout)
    ]


def parse_share(text: str | None) -> Share:
    if text is None:
        return None
    k, n = (int(part) for part in text.split("/"))
    return k, n


def check(tally: Tally, spec: Any, label: str, compare: Callable[..., None], *args: Any) -> None:
    """``compare(*args)`` (assertions) counted as one run of ``spec``; a failure recorded with its message."""
    try:
        compare(*args)
    except AssertionError as error:
        tally.add(spec, 1, f"{label}: {str(error)[:400]}")
        return
    tally.add(spec, 0, label)


UNINITIALIZED_PLUGIN = os.environ.get("OCLGRIND_UNINITIALIZED") == "1"
"""Whether Oclgrind's uninitialised-values plugin is on. It takes memory an earlier kernel wrote for never
written, so a chain that keeps several kernels (keeps_its_own_kernel) gets a report for every value its second
kernel stores; those chains run in the memory pass only (their values are right and in bounds there)."""


def run_case(
    device: Any, row: OperatorRow, case: Case, every_layout: bool, tally: Tally, ran: list[str], skipped: list[str]
) -> None:
    labels = planned(row, case, every_layout)
    for label in labels:
        name = label.rsplit(" ", 1)[1]
        if name == "fused_chain":
            continue
        layout = layouts(every_layout)[name]
        desc = descriptor(row, layout["sizes"], case.dtypes, layout_strides(row, case, layout), **case.options)
        offsets = {row.first: layout.get("input_offset", 0), row.output: layout.get("output_offset", 0)}
        run = run_operator(
            device, desc, fills(row, case), offsets=offsets, in_place=bool(layout.get("in_place")), slack=0,
            fill_output=False,
        )  # fmt: skip
        want = row.reference_in_shape(run.inputs, case)
        check(tally, run.kernel, label, assert_same, row, run.got, want, run.inputs[row.first], case)
        ran.append(label)
    if not row.desc.is_extension() and UNINITIALIZED_PLUGIN and keeps_its_own_kernel(row, case):
        skipped.append(labels[-1])
    elif not row.desc.is_extension():
        desc = descriptor(row, CHAIN_SIZES, case.dtypes, **case.options)
        alone = run_operator(device, desc, fills(row, case), slack=0, fill_output=False)
        arrays = [alone.inputs[name] for name in desc.INPUTS if name in alone.inputs]
        fused, compiled = run_fused_chain(device, desc, arrays, copies=row.nan == "bits")

        def compare() -> None:
            if not keeps_its_own_kernel(row, case):
                assert compiled.kernel_count == 1, f"the chain ran {compiled.kernel_count} kernels, not 1"
            assert_fused_equals_alone(row, fused, alone.got, case)

        step = compiled.plan.steps[len(compiled.plan.steps) // 2]
        check(tally, step.lowered.kernel, labels[-1], compare)
        ran.append(labels[-1])


def run_all(device: Any, args: argparse.Namespace) -> dict[str, Any]:
    ext_device = dml.create_device(
        cl_device=device.cl_device, extensions=True, launch_profile=device.launch_profile.name
    )
    if UNINITIALIZED_PLUGIN:
        # Buffers unfilled and kept: the plugin loses what a kernel writes to memory clEnqueueFillBuffer filled
        # (softmax.cl's rows walk reads back the terms it stored in its output: 37 reports with filled buffers).
        without_zero_fill(device, keep=True)
        without_zero_fill(ext_device, keep=True)
    fp64 = "cl_khr_fp64" in device.cl_device.extensions
    tally, ran, skipped = Tally(), [], []
    for row in ROWS:
        for case in cases_of(row, args.every_layout, parse_share(args.share)):
            if not fp64 and any(d == np.float64 for d in case.dtypes.values()):
                skipped += planned(row, case, args.every_layout)
                continue
            run_case(
                ext_device if row.desc.is_extension() else device, row, case, args.every_layout, tally, ran, skipped
            )
    return tally.summary("wrong", ran=ran, skipped=skipped)


if __name__ == "__main__":
    sys.exit(
        main(
            run_all,
            flags=[("--every-layout", "every layout class of helpers.layouts but the large one")],
            options=[("--share", "K/N: the K-th of N shares of the rows or cases (default: all of them)")],
        )
    )
