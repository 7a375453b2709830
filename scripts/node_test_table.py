"""The ONNX node-test table of the op types that are not element-wise: per op type, how many of the installed onnx's
node tests (``onnx.backend.test``'s cases, ``_expanded`` function bodies included) pass, fail or are refused with
their reason, read from what the test suite itself ran (tests/device/graph/test_onnx_backend.py), so the table says
what the tests assert and nothing a script decided on its own.

    python scripts/node_test_table.py                    # runs test_onnx_backend.py (a few minutes), prints the table
    python scripts/node_test_table.py --junit run.xml    # from a run's JUnit XML (pytest --junitxml=run.xml)

A node test counts as passed or failed by its case in the runner (``test_<name>_cpu``); a test the runner excludes
counts as refused when its refusal test passed (the refusal must name the reason, which the table gives), and as
"not run" otherwise: an op type with node tests that nothing ran shows them there, never as a pass.
docs/conformance.md carries the table.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.helpers and the test module, as pytest's rootdir makes them importable

OP_TYPES = (
    # issue 44: movement, indexing, reductions, normalizations
    *("Slice", "Concat", "Split", "Pad", "Tile", "Gather", "GatherElements", "GatherND", "ScatterElements"),
    *("ScatterND", "DepthToSpace", "SpaceToDepth", "OneHot", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"),
    *("ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax"),
    *("ArgMin", "TopK", "CumSum", "BatchNormalization", "InstanceNormalization", "LayerNormalization"),
    *("GroupNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization", "Transpose", "Expand", "Range"),
    *("EyeLike", "NonZero"),
    # issue 45: the operators that compute
    *("Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MatMul", "MatMulInteger", "QLinearMatMul", "Gemm"),
    *("AveragePool", "MaxPool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "MaxUnpool"),
    *("MaxRoiPool", "RoiAlign", "Resize", "Upsample", "RNN", "LSTM", "GRU", "Attention", "DynamicQuantizeLinear"),
)
"""The op types issues 44 and 45 name, in their order."""
RUNNER = "test_onnx_backend.py"


def _spellings(op_type: str) -> tuple[str, str]:
    return op_type.lower(), re.sub(r"(?<=[a-z])(?=[A-Z])", "_", op_type).lower()


def _op_type_of(name: str, node_types: list[str]) -> str | None:
    """The op type a node test is about: the one of its nodes its name begins with (``test_maxpool_2d_pads`` is
    MaxPool's; an ``_expanded`` body's nodes are others, so its name decides), the longest spelling first."""
    form = name.removeprefix("test_")
    candidates = sorted(OP_TYPES, key=lambda op: -max(len(s) for s in _spellings(op)))
    for op_type in candidates:
        if any(form == s or form.startswith(f"{s}_") for s in _spellings(op_type)):
            return op_type
    return next((t for t in node_types if t in OP_TYPES), None) if len(set(node_types)) == 1 else None


def _why_not_run(form: str, differs: Iterable[str]) -> str:
    """Why the runner leaves a node test out though dmlpy does not refuse it: the runner's own exclusions."""
    if form in differs:
        return "onnx.reference's definition differs from DirectML's; tests/device/regions runs it against DirectML's"
    if form.startswith("attention_") and "_expanded" in form:
        return "Attention's function body (MatMul, Softmax, ...), no Attention node"
    return "nothing ran it"


def _outcomes(junit: Path) -> dict[str, str]:
    """Test name (the function and its parameter) -> passed, failed or skipped."""
    outcomes = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        outcomes[case.get("name", "")] = (
            "failed" if failed else "skipped" if case.find("skipped") is not None else "passed"
        )
    return outcomes


def _run_suite(junit: Path) -> None:
    test = ROOT / "tests" / "device" / "graph" / RUNNER
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test), f"--junitxml={junit}"]
    subprocess.run(command, cwd=ROOT, check=False)


def table(junit: Path) -> str:
    from tests.device.graph import test_onnx_backend as runner
    from tests.helpers.onnx_compute import REFUSED_AT_RUN
    from tests.helpers.onnx_regions import REGION_DIFFERS

    outcomes = _outcomes(junit)
    refused_reason = {**runner.NOT_EXPRESSIBLE, **REFUSED_AT_RUN}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = runner._node_cases()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    unrun: dict[str, Counter[str]] = defaultdict(Counter)
    for name, case in cases.items():
        op_type = _op_type_of(name, [node.op_type for node in case.model.graph.node])
        if op_type is None:
            continue
        form = name.removeprefix("test_")
        ran = outcomes.get(f"{name}_cpu")
        refusal = [
            outcomes.get(f"test_inexpressible_cases_are_refused_at_prepare_saying_why[{form}]"),
            outcomes.get(f"test_cases_whose_shapes_decide_are_refused_at_their_first_run_saying_why[{form}]"),
        ]
        if ran in ("passed", "failed"):
            counts[op_type][ran] += 1
        elif "passed" in refusal:
            counts[op_type]["refused"] += 1
            reasons[op_type][refused_reason[form]] += 1
        else:
            counts[op_type]["not run"] += 1
            unrun[op_type][_why_not_run(form, REGION_DIFFERS)] += 1
        counts[op_type]["node tests"] += 1
    lines = [
        "| ONNX op type | node tests | passed | failed | refused (the word each refusal must name) | not run |",
        "|---|---|---|---|---|---|",
    ]
    for op_type in OP_TYPES:
        count = counts[op_type]
        why = ", ".join(f"{reason} ({n})" for reason, n in reasons[op_type].most_common())
        refused = f"{count['refused']}: {why}" if count["refused"] else "0"
        left = ", ".join(f"{reason} ({n})" for reason, n in unrun[op_type].most_common())
        not_run = f"{count['not run']}: {left}" if count["not run"] else "0"
        lines.append(
            f"| {op_type} | {count['node tests']} | {count['passed']} | {count['failed']} | {refused} | {not_run} |"
        )
    total = sum((counts[op] for op in OP_TYPES), Counter())
    lines.append(
        f"| **all** | {total['node tests']} | {total['passed']} | {total['failed']} | {total['refused']} | "
        f"{total['not run']} |"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--junit", type=Path, help="a JUnit XML of a test_onnx_backend.py run (else one is run)")
    args = parser.parse_args()
    if args.junit is not None:
        print(table(args.junit))
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        junit = Path(scratch) / "node-tests.xml"
        _run_suite(junit)
        print(table(junit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
