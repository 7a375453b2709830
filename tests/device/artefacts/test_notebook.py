"""docs/tour.ipynb, the notebook tour, runs from top to bottom on the default device (so it never goes stale), and
shows what it says: a picture wherever a cell ends with a descriptor, a binding table, a refused binding's
picture, a DML_GRAPH_DESC or a compiled graph, and NumPy's agreement wherever it compares. The notebook is
executed in memory with nbclient and never written back: the file stays without outputs."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.tools import missing_tool

REPO = Path(__file__).resolve().parents[3]
NOTEBOOK = REPO / "docs" / "tour.ipynb"
SVG_ROOT = "{http://www.w3.org/2000/svg}svg"

PICTURES: dict[str, dict[str, int]] = {
    "packed": {"element": 8, "slot used": 8},
    "padded": {"element": 6, "slot used": 6, "slot padding": 1},
    "broadcast": {"element": 6, "slot used": 3, "link broadcast": 6},
    "five_bytes": {"element": 5, "slot used": 5, "slot rounding": 3},
    "large": {"elided": 1},
    "table": {"buffer": 1, "range input": 1, "range output": 1, "in-place": 2, "conflict": 0},
    "picture": {"buffer": 1, "range input": 1, "range output": 1, "conflict": 1},
    "g.desc": {"graph-input": 3, "node": 3, "graph-output": 1, "edge input": 5, "edge intermediate": 2, "kernel": 0},
    "compiled": {"graph-input": 3, "node": 3, "graph-output": 1, "kernel fused": 1},
}
"""The last line of each cell that should show a picture (the expression Jupyter displays), and how many parts
of each class (dmlpy.drawing's documented classes) its SVG has."""


@pytest.fixture(scope="module")
def executed() -> Any:
    """The notebook after running every cell in a python3 kernel whose working directory is the repository."""
    for module in ("nbformat", "nbclient", "ipykernel"):
        if importlib.util.find_spec(module) is None:
            missing_tool(f"{module} is not installed (pip install -e '.[dev]')")
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook, timeout=120, kernel_name="python3", allow_errors=False, resources={"metadata": {"path": str(REPO)}}
    )
    client.execute()  # CellExecutionError, naming the cell and its traceback, if any cell raises
    return notebook


def code_cell(notebook: Any, last_line: str) -> Any:
    """The one code cell whose source ends with ``last_line``."""
    found = [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source.strip().splitlines()[-1].strip() == last_line
    ]
    assert len(found) == 1, f"{len(found)} code cells end with {last_line!r}"
    return found[0]


def cell_containing(notebook: Any, fragment: str) -> Any:
    """The one code cell whose source contains ``fragment``."""
    found = [cell for cell in notebook.cells if cell.cell_type == "code" and fragment in cell.source]
    assert len(found) == 1, f"{len(found)} code cells contain {fragment!r}"
    return found[0]


def stdout(cell: Any) -> str:
    return "".join(output.text for output in cell.outputs if output.output_type == "stream" and output.name == "stdout")


def test_the_stored_notebook_has_no_outputs() -> None:
    stored = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    assert stored["nbformat"] == 4 and stored["metadata"]["kernelspec"]["name"] == "python3"
    code = [cell for cell in stored["cells"] if cell["cell_type"] == "code"]
    assert code and all(cell["outputs"] == [] and cell["execution_count"] is None for cell in code)


def svg_of(cell: Any) -> ET.Element:
    shown = [output for output in cell.outputs if output.output_type in ("execute_result", "display_data")]
    assert len(shown) == 1, f"the cell displayed {len(shown)} results"
    svg = shown[0].data.get("image/svg+xml")
    assert svg, f"the cell shows {sorted(shown[0].data)}, no image/svg+xml"
    root = ET.fromstring(svg)
    assert root.tag == SVG_ROOT
    return root


def parts(root: ET.Element, wanted: str) -> int:
    """How many elements carry every class in ``wanted`` ("slot padding": classes slot and padding)."""
    return sum(1 for element in root.iter() if set(wanted.split()) <= set(element.get("class", "").split()))


@pytest.mark.parametrize("last_line", PICTURES)
def test_picture_cells_show_an_svg(executed: Any, last_line: str) -> None:
    root = svg_of(code_cell(executed, last_line))
    counts = {wanted: parts(root, wanted) for wanted in PICTURES[last_line]}
    assert counts == PICTURES[last_line]


def test_descriptor_cells_print_dmlcalcbuffertensorsize(executed: Any) -> None:
    sizes = {"packed": 32, "padded": 28, "broadcast": 12, "five_bytes": 8, "large": 3 * 40 * 50 * 4}
    for name, size in sizes.items():
        assert stdout(code_cell(executed, name)) == f"TotalTensorSizeInBytes {size}\n", name


def test_the_large_picture_elides(executed: Any) -> None:
    root = svg_of(code_cell(executed, "large"))
    assert 0 < parts(root, "element") <= 200 < 3 * 40 * 50  # a few rows and columns of the 6,000 elements
    assert parts(root, "gap") > 0  # each elided run marked


def test_feature_levels_cell_prints_the_refusal(executed: Any) -> None:
    lines = stdout(cell_containing(executed, "dml.validate(round_5d, level)"))
    assert lines.splitlines() == [
        "2_1 InvalidArgumentError (0x80070057): ELEMENT_WISE_ROUND.InputTensor.DimensionCount is 5; "
        "DML_FEATURE_LEVEL_2_1 allows exactly 4 (1 to 8 from DML_FEATURE_LEVEL_3_0)",
        "3_0 valid",
    ]


def test_dispatch_matches_numpy(executed: Any) -> None:
    printed = stdout(code_cell(executed, "print(np.array_equal(result, expected))")).splitlines()
    assert printed == ["[-5. -2. -2.  1.  1.  2.  2.  3.]", "True"]


def test_in_place_binding_runs_and_partial_overlap_is_refused(executed: Any) -> None:
    in_place = stdout(cell_containing(executed, "# the rest untouched"))
    assert in_place.splitlines() == ["True", "True"]
    refused = stdout(cell_containing(executed, "picture = error.picture"))
    assert "share memory but are not the same tensor" in refused and "in-place execution" in refused


def test_graph_is_one_kernel_and_matches_numpy(executed: Any) -> None:
    printed = stdout(code_cell(executed, "compiled")).splitlines()
    assert printed == ["1 0"]  # one fused kernel, no temporary resource
    printed = stdout(code_cell(executed, "print(np.array_equal(got, expected))")).splitlines()
    assert printed == ["[-59 -49 -39 -29 -20 -10   0  10  18  28  38  48]", "True"]


def test_gemm_runs_and_a_convolution_is_validated(executed: Any) -> None:
    printed = stdout(cell_containing(executed, "dml.GemmOperatorDesc(")).splitlines()
    assert len(printed) == 2
    # The forward window rule, computed here: floor((5 + 1 + 1 - (3 - 1) * 1 - 1) / 2) + 1 = 3 per spatial dimension.
    side = (5 + 1 + 1 - (3 - 1) * 1 - 1) // 2 + 1
    assert printed[0].startswith(f"CONVOLUTION.OutputTensor.Sizes is [1, 4, 5, 5]; it must be [1, 4, {side}, {side}]")
    assert printed[1] == "CompiledOperator"
