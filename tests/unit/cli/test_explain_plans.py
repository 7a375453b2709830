"""`dmlpy explain` of an operator that runs as a plan of launches (JOIN: one per part), as one launch of
opencl/movement.cl with kernel parameters (PADDING), and of one dmlpy validates but does not run (GEMM: refused,
its picture still written with --svg)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dmlpy as dml
from tests.helpers.cli import REPO, Run, assert_one_line_error

T = dml.TensorDataType


def tensor(sizes: tuple[int, ...], data_type: dml.TensorDataType = T.FLOAT32) -> dml.TensorDesc:
    return dml.TensorDesc(desc=dml.BufferTensorDesc(data_type=data_type, sizes=sizes))


def as_json(desc: dml.OperatorDescBase) -> object:
    return json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json())


def test_a_join_of_three_parts_shows_three_kernels_each_at_its_part_of_the_output(
    run: Run, write_json: Callable[..., Path]
) -> None:
    parts, output = [(1, 1, 3, 4), (1, 3, 3, 4), (1, 2, 3, 4)], (1, 6, 3, 4)
    join = dml.JoinOperatorDesc(inputs=[tensor(s) for s in parts], output_tensor=tensor(output), axis=1)
    result = run("explain", str(write_json(as_json(join))))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "// DML_OPERATOR_JOIN, validated at DML_FEATURE_LEVEL_6_4"
    assert "// 3 kernels, TemporaryResourceSize 0" in lines
    headers = [line for line in lines if line.startswith("// ==== kernel ")]
    assert headers == [f"// ==== kernel {k} of 3: elementwise in opencl/elementwise.cl" for k in (1, 2, 3)]
    # Part k begins where NumPy's concatenation puts its first element: out[0, first row of part k, 0, 0].
    elements = np.arange(np.prod(output)).reshape(output)
    firsts = np.cumsum([0] + [s[1] for s in parts])[:-1]
    shifts = [int(elements[0, first, 0, 0]) for first in firsts]
    assert shifts == [0, 12, 48]
    bound = [line for line in lines if line.startswith("// tensors bound, in argument order: ")]
    assert bound == [
        f"// tensors bound, in argument order: input {k}, output 0" + (f" +{shift} elements" if shift else "")
        for k, shift in enumerate(shifts)
    ]
    assert lines[-1].startswith("// left out: the source of opencl/elementwise.cl")


def test_a_padding_shows_movement_cl_and_its_kernel_parameters(run: Run, write_json: Callable[..., Path]) -> None:
    sizes, start, end = (2, 3, 4, 3), (1, 0, 2, 4), (0, 2, 3, 5)
    padding = dml.PaddingOperatorDesc(
        input_tensor=tensor(sizes),
        output_tensor=tensor(tuple(s + a + b for s, a, b in zip(sizes, start, end, strict=True))),
        padding_mode=dml.PaddingMode.CONSTANT,
        start_padding=start,
        end_padding=end,
        padding_value=1.5,
    )
    result = run("explain", str(write_json(as_json(padding))))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "// kernel: movement in opencl/movement.cl" in lines
    # Output coordinate o reads input o - StartPadding, step 1, over the input's Sizes and packed strides; outside
    # it, the constant's float32 bits.
    strides = [s // 4 for s in np.empty(sizes, np.float32).strides]
    fill = int(np.float32(1.5).view(np.uint32))
    expected = f"int8 {[-a for a in start]}, int8 [1, 1, 1, 1], uint8 {list(sizes)}, uint8 {strides}, ulong [{fill}]"
    assert f"// kernel parameters, after the tensors and layout: {expected}" in lines
    assert not any(line.startswith("// ==== kernel") for line in lines)  # one launch: the operator's own output
    assert lines[-1].startswith("// left out: the source of opencl/movement.cl")


def test_a_refused_operator_still_gets_its_picture_written(
    run: Run, write_json: Callable[..., Path], tmp_path: Path
) -> None:
    """An operator that validates and does not run (here UNFOLD): --svg writes its picture all the same."""
    unfold = dml.UnfoldOperatorDesc(
        input_tensor=tensor((1, 1, 3, 3), "FLOAT32"),
        output_tensor=tensor((1, 4, 4), "FLOAT32"),
        window_sizes=(2, 2),
        strides=(1, 1),
        dilations=(1, 1),
        start_padding=(0, 0),
        end_padding=(0, 0),
    )
    path, svg = write_json(as_json(unfold)), tmp_path / "unfold.svg"
    refusal = "dmlpy validates UNFOLD but does not run it"
    assert_one_line_error(run("explain", str(path)), 1, "UnsupportedError", refusal)
    result = run("explain", str(path), "--svg", str(svg))
    assert_one_line_error(result, 1, "UnsupportedError", refusal)
    assert result.stdout == f"// picture written to {svg}\n"
    picture = svg.read_text(encoding="utf-8")
    assert picture.startswith("<svg") and picture == unfold.picture().svg


def test_the_join_shown_in_docs_cli_md_is_what_the_command_prints(run: Run) -> None:
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    command = "$ dmlpy explain examples/descriptors/join.json\n"
    shown = page[page.index(command) + len(command) :].partition("```")[0]
    result = run("explain", "examples/descriptors/join.json")
    assert result.returncode == 0, result.stderr
    assert shown == result.stdout
    assert "// tensors bound, in argument order: input 1, output 0 +6 elements\n" in shown  # 1 x 2 x 3 before it
