"""The pictures of what the operators that are not element-wise mean (dmlpy.drawing.matrices, windows, axes), read
back from their SVG as XML and checked against independent references: M, K and N against NumPy's matmul, the
convolution's output plane against ONNX's reference Conv and its window's drawn extent against the dilated filter,
the reduced axes against NumPy's keepdims reduction, JOIN's and SPLIT's offsets against NumPy's cumulative sum and
np.split; a refused descriptor still draws (its K in red), and ``dmlpy validate --svg`` writes a GEMM's picture."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from tests.helpers.cli import Run
from tests.helpers.structured import tensor
from tests.helpers.svg_geometry import rect_of

SVG = "{http://www.w3.org/2000/svg}"
T = dml.TensorDataType
F32 = T.FLOAT32


def parsed(desc: Any, problem: str | None = None) -> ET.Element:
    """The operator's shape picture, parsed, after checking the operator's picture holds it above its tensors."""
    shape = desc.drawn_shape().picture().svg
    whole = desc.picture(problem).svg
    assert shape[shape.index(">") + 1 : shape.rindex("</svg>")] in whole
    root = ET.fromstring(shape)
    assert root.tag == f"{SVG}svg" and ET.fromstring(whole).tag == f"{SVG}svg"
    return root


def texts(root: ET.Element, cls: str) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text") if t.get("class") == cls]


def elements(root: ET.Element, cls: str) -> list[ET.Element]:
    return [element for element in root.iter() if element.get("class") == cls]


def classes(root: ET.Element) -> Counter[str]:
    return Counter(element.get("class") or "" for element in root.iter() if element.get("class"))


def gemm(a: tuple[int, ...], b: tuple[int, ...], out: tuple[int, ...], **fields: Any) -> dml.GemmOperatorDesc:
    return dml.GemmOperatorDesc.model_validate(
        {
            "ATensor": tensor(F32, a),
            "BTensor": tensor(F32, b),
            "OutputTensor": tensor(F32, out),
            "TransA": "NONE",
            "TransB": "NONE",
            "Alpha": 1.0,
            "Beta": 1.0,
            **fields,
        }
    )


@pytest.mark.parametrize(
    ("a", "b", "trans_a", "trans_b"),
    [
        ((1, 1, 4, 3), (1, 1, 3, 6), False, False),
        ((2, 3, 5, 4), (2, 3, 6, 5), True, True),  # A stored {.., K, M}, B {.., N, K}
        ((7, 12), (12, 2), False, False),  # sides longer than the 8 drawn
    ],
)
def test_a_gemm_picture_labels_m_k_n_as_numpy_multiplies(
    a: tuple[int, ...], b: tuple[int, ...], trans_a: bool, trans_b: bool
) -> None:
    op_a, op_b = np.zeros(a), np.zeros(b)
    op_a, op_b = (op_a.swapaxes(-1, -2) if trans_a else op_a), (op_b.swapaxes(-1, -2) if trans_b else op_b)
    product = np.matmul(op_a, op_b).shape
    m, k, n = op_a.shape[-2], op_a.shape[-1], op_b.shape[-1]
    desc = gemm(
        a, b, product, c_tensor=tensor(F32, product), TransA="TRANSPOSE" if trans_a else "NONE",
        TransB="TRANSPOSE" if trans_b else "NONE",
    )  # fmt: skip
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc)
    labels = Counter(texts(root, "dimension"))
    # M on A's rows, C's and the output's; K on A's columns and B's rows; N on B's, C's and the output's columns
    assert labels == Counter({f"M = {m}": 3, f"K = {k}": 2, f"N = {n}": 3})
    operands = texts(root, "operand")
    assert ("op(A) = ATensorᵀ" in operands) is trans_a and ("op(B) = BTensorᵀ" in operands) is trans_b
    assert f"Sizes {list(a)}; TransA {'TRANSPOSE' if trans_a else 'NONE'}" in operands
    assert any(line.startswith(f"OutputTensor.Sizes {list(product)}:") for line in texts(root, "rule"))
    found = classes(root)
    assert [found[f"matrix {name}"] for name in ("a", "b", "addend", "output")] == [1, 1, 1, 1]
    batches = int(np.prod(product[:-2]))
    assert found["batch"] == (8 if batches > 1 else 0)  # two sheets behind each of the four matrices
    drawn = rect_of(elements(root, "matrix a")[0])
    assert drawn[2] - drawn[0] == 14 * min(k, 8) and drawn[3] - drawn[1] == 14 * min(m, 8)
    assert bool(texts(root, "elided")) is (max(m, k, n) > 8)


def test_an_integer_product_draws_its_bias_and_no_transform() -> None:
    desc = dml.MatrixMultiplyIntegerOperatorDesc.model_validate(
        {
            "ATensor": tensor(T.UINT8, (4, 3)),
            "BTensor": tensor(T.UINT8, (3, 2)),
            "OutputTensor": tensor(T.INT32, (4, 2)),
        }
    )
    root = parsed(desc)
    assert Counter(texts(root, "dimension")) == Counter({"M = 4": 2, "K = 3": 2, "N = 2": 2})
    assert "Sizes [4, 3]" in texts(root, "operand") and classes(root)["matrix addend"] == 0


def test_a_refused_gemm_draws_b_s_k_in_red() -> None:
    desc = gemm((1, 1, 4, 3), (1, 1, 5, 6), (1, 1, 4, 6))
    with pytest.raises(dml.InvalidArgumentError, match=r"BTensor.Sizes\[2\] is 5"):
        desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc, "GEMM.BTensor.Sizes[2] is 5; it must equal K")
    assert texts(root, "dimension problem") == ["K = 5"]
    assert any("K differs" in line for line in texts(root, "problem"))


def conv(x: tuple[int, ...], w: tuple[int, ...], **fields: Any) -> dml.ConvolutionOperatorDesc:
    spatial = len(x) - 2
    given = {"Strides": [1] * spatial, "Dilations": [1] * spatial, "StartPadding": [0] * spatial, **fields}
    given.setdefault("EndPadding", given["StartPadding"])
    onnx_pads = [*given["StartPadding"], *given["EndPadding"]]
    node = helper.make_node(
        "Conv", ["x", "w"], ["y"], strides=given["Strides"], dilations=given["Dilations"], pads=onnx_pads
    )
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, sizes) for name, sizes in (("x", x), ("w", w))]
    graph = helper.make_graph([node], "conv", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    (y,) = ReferenceEvaluator(helper.make_model(graph)).run(
        None, {"x": np.zeros(x, np.float32), "w": np.zeros(w, np.float32)}
    )
    assert isinstance(y, np.ndarray)
    return dml.ConvolutionOperatorDesc.model_validate(
        {
            "InputTensor": tensor(F32, x),
            "FilterTensor": tensor(F32, w),
            "OutputTensor": tensor(F32, y.shape),
            "Mode": "CROSS_CORRELATION",
            "Direction": "FORWARD",
            "OutputPadding": [0] * spatial,
            "GroupCount": 1,
            **given,
        }
    )


@pytest.mark.parametrize(
    ("x", "w", "fields"),
    [
        ((1, 3, 5, 7), (8, 3, 3, 3), {"Strides": [2, 2], "Dilations": [1, 2], "StartPadding": [1, 1]}),
        ((1, 1, 9), (2, 1, 4), {"Strides": [3], "StartPadding": [2], "EndPadding": [0]}),
        ((1, 2, 4, 6, 6), (1, 2, 2, 3, 3), {"Dilations": [1, 2, 1], "StartPadding": [0, 1, 2]}),
        ((1, 1, 40, 60), (1, 1, 5, 5), {"Strides": [4, 4], "StartPadding": [2, 2]}),  # cells too small for lines
    ],
)
def test_a_convolution_picture_draws_the_window_and_onnx_s_output(
    x: tuple[int, ...], w: tuple[int, ...], fields: dict[str, Any]
) -> None:
    desc = conv(x, w, **fields)
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    output = desc.output_tensor.desc.sizes  # ONNX's reference Conv made it
    root = parsed(desc)
    rows, columns = (output[-2] if len(x) > 3 else 1), output[-1]
    assert f"OutputTensor's plane: {rows} x {columns}" in texts(root, "dimension")
    arithmetic = texts(root, "arithmetic")
    assert [int(line.rsplit("= ", 1)[1]) for line in arithmetic] == list(output[2:])
    axes = [re.findall(r"Sizes\[(\d+)\]", line) for line in arithmetic]
    assert axes == [[str(2 + i)] for i in range(len(x) - 2)]
    start, end, dilations = desc.start_padding, desc.end_padding, desc.dilations
    padded, inner = rect_of(elements(root, "padding")[0]), rect_of(elements(root, "input")[0])
    pitch = (padded[2] - padded[0]) / (start[-1] + x[-1] + end[-1])
    assert inner[0] - padded[0] == pytest.approx(start[-1] * pitch)  # the start padding's border, left
    window = rect_of(elements(root, "window")[0])
    assert (window[2] - window[0]) / pitch == pytest.approx(dilations[-1] * (w[-1] - 1) + 1)
    assert len(elements(root, "tap")) == w[-1] * (w[-2] if len(w) > 3 else 1)
    assert len(elements(root, "first")) == 1
    inside = [line for line in elements(root, "grid") if float(line.get("x1", "0")) < padded[2]]
    assert bool(inside) is (pitch >= 6)  # grid lines only where cells are large enough to count


def test_a_backward_convolution_draws_no_window_over_the_input() -> None:
    desc = dml.ConvolutionOperatorDesc.model_validate(
        {
            "InputTensor": tensor(F32, (1, 1, 3, 3)),
            "FilterTensor": tensor(F32, (1, 2, 3, 3)),
            "OutputTensor": tensor(F32, (1, 2, 5, 5)),
            "Mode": "CROSS_CORRELATION",
            "Direction": "BACKWARD",
            "Strides": [1, 1], "Dilations": [1, 1], "StartPadding": [0, 0], "EndPadding": [0, 0],
            "OutputPadding": [0, 0],
            "GroupCount": 1,
        }
    )  # fmt: skip
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc)
    assert "OutputTensor's plane: 5 x 5" in texts(root, "dimension")  # ONNX ConvTranspose: (3 - 1) * 1 + 3 = 5
    assert not elements(root, "window") and not elements(root, "tap")


@pytest.mark.parametrize(("sizes", "axes"), [((2, 3, 4, 5), (1, 2)), ((6,), (0,)), ((2, 3, 4), (2, 0))])
def test_a_reduce_picture_marks_the_axes_numpy_reduces(sizes: tuple[int, ...], axes: tuple[int, ...]) -> None:
    reduced = np.sum(np.zeros(sizes), axis=axes, keepdims=True).shape
    desc = dml.ReduceOperatorDesc.model_validate(
        {"Function": "L2", "InputTensor": tensor(F32, sizes), "OutputTensor": tensor(F32, reduced), "Axes": list(axes)}
    )
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc)
    numbers = [int(t) for t in texts(root, "size")]
    assert numbers == [*sizes, *reduced]
    boxes = [element.get("class") for element in root.iter(f"{SVG}rect") if "axis" in (element.get("class") or "")]
    marked = ["axis reduced" if dim in axes else "axis kept" for dim in range(len(sizes))]
    assert boxes == marked * 2
    group = int(np.prod([sizes[axis] for axis in axes]))
    assert any(f"L2 of the {group} " in line for line in texts(root, "rule"))


def test_an_argmax_picture_says_the_output_holds_indices() -> None:
    desc = dml.ArgMaxOperatorDesc.model_validate(
        {"InputTensor": tensor(F32, (3, 4)), "OutputTensor": tensor(T.UINT32, (3, 1)), "Axes": [1],
         "AxisDirection": "INCREASING"}
    )  # fmt: skip
    root = parsed(desc)
    assert any("the index (0 to 3) of the ARGMAX element among the 4" in line for line in texts(root, "rule"))


def part_offsets(root: ET.Element) -> list[tuple[int, int]]:
    """Each part's (size, offset) along Axis, as the picture writes them."""
    found = [re.search(r"Sizes\[\d+\] = (\d+) at offset (\d+)", line) for line in texts(root, "offset")]
    return [(int(match[1]), int(match[2])) for match in found if match]


def test_a_join_picture_places_each_input_at_numpy_s_offset() -> None:
    parts = [np.zeros((1, size, 3, 4)) for size in (2, 5, 1)]
    joined = np.concatenate(parts, axis=1)
    desc = dml.JoinOperatorDesc.model_validate(
        {"InputTensors": [tensor(F32, p.shape) for p in parts], "OutputTensor": tensor(F32, joined.shape), "Axis": 1}
    )
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc)
    starts = np.cumsum([0] + [p.shape[1] for p in parts])[:-1]
    assert part_offsets(root) == [(p.shape[1], int(s)) for p, s in zip(parts, starts, strict=True)]
    assert f"OutputTensor.Sizes[1] = {joined.shape[1]}" in texts(root, "dimension")
    whole, segments = rect_of(elements(root, "whole")[0]), [rect_of(e) for e in elements(root, "part")]
    scale = (whole[2] - whole[0]) / joined.shape[1]
    assert [round((segment[0] - whole[0]) / scale) for segment in segments] == list(starts)
    assert len(elements(root, "part apart")) == 3


def test_a_split_picture_is_the_mirror() -> None:
    whole = np.zeros((2, 9))
    cuts = [4, 6]
    pieces = np.split(whole, cuts, axis=1)
    desc = dml.SplitOperatorDesc.model_validate(
        {"InputTensor": tensor(F32, whole.shape), "OutputTensors": [tensor(F32, p.shape) for p in pieces], "Axis": 1}
    )
    desc.validate_on(dml.FeatureLevel.FL_4_0)
    root = parsed(desc)
    assert part_offsets(root) == [(p.shape[1], at) for p, at in zip(pieces, [0, *cuts], strict=True)]
    assert any(line.startswith("Axis 1: InputTensor split") for line in texts(root, "rule"))


def test_a_join_whose_axis_is_past_its_parts_draws_only_its_tensors() -> None:
    desc = dml.JoinOperatorDesc.model_validate(
        {"InputTensors": [tensor(F32, (2, 3))], "OutputTensor": tensor(F32, (2, 3)), "Axis": 2}
    )
    assert desc.drawn_shape() is None
    assert 'class="whole"' not in desc.picture("JOIN.Axis is 2").svg


def test_an_element_wise_picture_draws_no_shape() -> None:
    x = tensor(F32, (1, 1, 2, 4))
    desc = dml.ElementWiseRoundOperatorDesc(input_tensor=x, output_tensor=x)
    assert desc.drawn_shape() is None and 'class="rule"' not in desc.picture().svg


def test_dmlpy_validate_svg_writes_a_gemm_s_picture(run: Run, write_json: Any, tmp_path: Any) -> None:
    desc = gemm((1, 1, 4, 3), (1, 1, 3, 6), (1, 1, 4, 6))
    path = write_json(json.loads(dml.OperatorDesc(type=dml.OperatorType.GEMM, desc=desc).model_dump_json()))
    target = tmp_path / "gemm.svg"
    result = run("validate", str(path), "--svg", str(target))
    assert result.returncode == 0, result.stderr
    root = ET.fromstring(target.read_text(encoding="utf-8"))
    assert Counter(texts(root, "dimension")) == Counter({"M = 4": 2, "K = 3": 2, "N = 6": 2})


def broken(kind: str, rnd: random.Random) -> Any:
    """A descriptor of ``kind`` whose tensors have any Sizes (ranks 0 to 5, sizes 0 to 4) and fields any small
    values: what ``dmlpy validate --svg`` may be given to draw where it breaks."""

    def sizes() -> tuple[int, ...]:
        return tuple(rnd.randint(0, 4) for _ in range(rnd.randint(0, 5)))

    def values(count: int) -> list[int]:
        return [rnd.randint(0, 3) for _ in range(count)]

    if kind == "GEMM":
        return gemm(sizes(), sizes(), sizes(), TransA=rnd.choice(["NONE", "TRANSPOSE"]), TransB="TRANSPOSE")
    if kind == "CONVOLUTION":
        count = rnd.randint(0, 3)
        return dml.ConvolutionOperatorDesc.model_validate(
            {"InputTensor": tensor(F32, sizes()), "FilterTensor": tensor(F32, sizes()),
             "OutputTensor": tensor(F32, sizes()), "Mode": "CROSS_CORRELATION",
             "Direction": rnd.choice(["FORWARD", "BACKWARD"]), "Strides": values(count), "Dilations": values(count),
             "StartPadding": values(count), "EndPadding": values(count), "OutputPadding": values(count),
             "GroupCount": rnd.randint(0, 2)}
        )  # fmt: skip
    if kind == "REDUCE":
        return dml.ReduceOperatorDesc.model_validate(
            {"Function": "SUM", "InputTensor": tensor(F32, sizes()), "OutputTensor": tensor(F32, sizes()),
             "Axes": values(rnd.randint(0, 3))}
        )  # fmt: skip
    parts = [tensor(F32, sizes()) for _ in range(rnd.randint(0, 3))]
    if kind == "JOIN":
        return dml.JoinOperatorDesc.model_validate(
            {"InputTensors": parts, "OutputTensor": tensor(F32, sizes()), "Axis": rnd.randint(0, 4)}
        )
    return dml.SplitOperatorDesc.model_validate(
        {"OutputTensors": parts, "InputTensor": tensor(F32, sizes()), "Axis": rnd.randint(0, 4)}
    )


@pytest.mark.parametrize("kind", ["GEMM", "CONVOLUTION", "REDUCE", "JOIN", "SPLIT"])
def test_a_broken_descriptor_still_draws(kind: str) -> None:
    rnd = random.Random(kind)
    for _ in range(60):
        desc = broken(kind, rnd)
        root = ET.fromstring(desc.picture("refused").svg)
        assert all(float(e.get(a, "0")) >= 0 for e in root.iter() for a in ("width", "height")), desc
