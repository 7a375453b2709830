"""Write the operator list of docs/operators/index.md from the operator table (dmlpy.ops.OPERATORS), so the docs
list exactly the operators dmlpy implements, with what each declares: its descriptor, the feature level it
arrived at, its data types, in-place execution, its graph-builder function and the ONNX op types it lowers.

    python scripts/operator_list.py            # rewrite the list between the markers
    python scripts/operator_list.py --check    # exit 1 when the page differs from the table

tests/device/artefacts/test_docs.py checks that the page matches the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dmlpy.ops import OPERATORS
from dmlpy.ops.activation_exponential import EXPONENTIAL_ACTIVATIONS
from dmlpy.ops.activation_piecewise import PIECEWISE_ACTIVATIONS
from dmlpy.ops.activation_softmax import SOFTMAX_ACTIVATIONS
from dmlpy.ops.batch_normalization import BATCH_NORMALIZATION_OPERATORS
from dmlpy.ops.convolution import ConvolutionOperatorDesc
from dmlpy.ops.convolution_integer import INTEGER_CONVOLUTION_OPERATORS
from dmlpy.ops.cumulative import CUMULATIVE_OPERATORS
from dmlpy.ops.depth_space import DEPTH_SPACE_OPERATORS
from dmlpy.ops.element_wise_arithmetic import ARITHMETIC_OPERATORS
from dmlpy.ops.element_wise_bits import BIT_OPERATORS
from dmlpy.ops.element_wise_clip import CLIP_OPERATORS
from dmlpy.ops.element_wise_is import TEST_OPERATORS
from dmlpy.ops.element_wise_logical import LOGICAL_OPERATORS
from dmlpy.ops.element_wise_math import MATH_OPERATORS
from dmlpy.ops.element_wise_modulus import MODULUS_OPERATORS
from dmlpy.ops.element_wise_signs import SIGN_OPERATORS
from dmlpy.ops.fold import FOLD_OPERATORS
from dmlpy.ops.gather import GATHER_OPERATORS
from dmlpy.ops.gemm import GemmOperatorDesc
from dmlpy.ops.generators import GENERATOR_OPERATORS
from dmlpy.ops.join_split import JOIN_SPLIT_OPERATORS
from dmlpy.ops.local_response_normalization import LOCAL_RESPONSE_OPERATORS
from dmlpy.ops.lp_normalization import LpNormalizationOperatorDesc
from dmlpy.ops.matrix_multiply_integer import INTEGER_MATRIX_OPERATORS
from dmlpy.ops.mean_variance_normalization import MEAN_VARIANCE_OPERATORS
from dmlpy.ops.padding import PADDING_OPERATORS
from dmlpy.ops.pooling import POOLING_OPERATORS
from dmlpy.ops.pooling_grad import POOLING_BACKWARD_OPERATORS
from dmlpy.ops.recurrent import RECURRENT_OPERATORS
from dmlpy.ops.reduction import REDUCTION_OPERATORS
from dmlpy.ops.resample import RESAMPLE_OPERATORS
from dmlpy.ops.resample_grad import RESAMPLE_GRAD_OPERATORS
from dmlpy.ops.roi import ROI_OPERATORS
from dmlpy.ops.scatter import SCATTER_OPERATORS
from dmlpy.ops.sequences import SEQUENCE_OPERATORS
from dmlpy.ops.slice import SLICE_OPERATORS
from dmlpy.ops.tile import TileOperatorDesc
from dmlpy.ops.top_k import TOP_K_OPERATORS

PAGE = Path(__file__).resolve().parents[1] / "docs" / "operators" / "index.md"
BEGIN = "<!-- operator list: written by scripts/operator_list.py from dmlpy.ops.OPERATORS -->"
END = "<!-- end of the operator list -->"


SHARED_PAGES = {
    "DML_OPERATOR_QUANTIZE": "../quantization.md",
    "DML_OPERATOR_DEQUANTIZE": "../quantization.md",
    **{desc.OPERATOR_TYPE.c_name: "element_wise_math.md" for desc in MATH_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_is.md" for desc in TEST_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_arithmetic.md" for desc in ARITHMETIC_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_signs.md" for desc in SIGN_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_clip.md" for desc in CLIP_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_logical.md" for desc in LOGICAL_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_bits.md" for desc in BIT_OPERATORS},
    **{desc.OPERATOR_TYPE.c_name: "element_wise_modulus.md" for desc in MODULUS_OPERATORS},
    "DML_OPERATOR_ELEMENT_WISE_ATAN_YX": "element_wise_math.md",
    "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD": "element_wise_clip.md",
    "DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1": "element_wise_clip.md",
    **{desc.OPERATOR_TYPE.c_name: "activation_piecewise.md" for desc in PIECEWISE_ACTIVATIONS},
    **{desc.OPERATOR_TYPE.c_name: "activation_softmax.md" for desc in SOFTMAX_ACTIVATIONS},
    **{desc.OPERATOR_TYPE.c_name: "activation_exponential.md" for desc in EXPONENTIAL_ACTIVATIONS},
    "DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW": "element_wise_pow.md",
    "DML_OPERATOR_MULTIHEAD_ATTENTION1": "multihead_attention.md",
    **{desc.OPERATOR_TYPE.c_name: "gemm.md" for desc in (GemmOperatorDesc, *INTEGER_MATRIX_OPERATORS)},
    **{
        desc.OPERATOR_TYPE.c_name: "convolution.md"
        for desc in (ConvolutionOperatorDesc, *INTEGER_CONVOLUTION_OPERATORS)
    },
    **{
        desc.OPERATOR_TYPE.c_name: "normalization.md"
        for desc in (
            *BATCH_NORMALIZATION_OPERATORS,
            *MEAN_VARIANCE_OPERATORS,
            *LOCAL_RESPONSE_OPERATORS,
            LpNormalizationOperatorDesc,
        )
    },
    **{desc.OPERATOR_TYPE.c_name: "pooling.md" for desc in (*POOLING_OPERATORS, *POOLING_BACKWARD_OPERATORS)},
    **{desc.OPERATOR_TYPE.c_name: "recurrent.md" for desc in RECURRENT_OPERATORS},
    **{
        desc.OPERATOR_TYPE.c_name: "slice.md"
        for desc in (*SLICE_OPERATORS, *JOIN_SPLIT_OPERATORS, *PADDING_OPERATORS, TileOperatorDesc)
    },
    **{
        desc.OPERATOR_TYPE.c_name: "reduction.md"
        for desc in (*REDUCTION_OPERATORS, *TOP_K_OPERATORS, *CUMULATIVE_OPERATORS)
    },
    **{
        desc.OPERATOR_TYPE.c_name: "gather_scatter.md"
        for desc in (*GATHER_OPERATORS, *SCATTER_OPERATORS, *GENERATOR_OPERATORS)
    },
    **{desc.OPERATOR_TYPE.c_name: "resample.md" for desc in (*RESAMPLE_OPERATORS, *RESAMPLE_GRAD_OPERATORS)},
    **{desc.OPERATOR_TYPE.c_name: "roi.md" for desc in ROI_OPERATORS},
    **{
        desc.OPERATOR_TYPE.c_name: "rearranging.md"
        for desc in (*DEPTH_SPACE_OPERATORS, *SEQUENCE_OPERATORS, *FOLD_OPERATORS)
    },
}
"""Operators documented on a page they share: FL 6_3's pair on the 4-bit page outside docs/operators/, and in
docs/operators/ one page per family (the unary math operators with ATAN_YX, IS_NAN and IS_INFINITY, the binary
arithmetic operators, the sign operators, the clamps and their gradients, the comparisons and logical operators,
the bit operators, the remainders, the piecewise and the exponential activations, the softmax family, POW with
CONSTANT_POW, GEMM with the integer matrix products, CONVOLUTION with the integer convolutions)."""


def _page_link(c_name: str, text: str) -> str:
    """The operator's own docs page, where it has one (docs/operators/element_wise_identity.md, ...)."""
    page = SHARED_PAGES.get(c_name, c_name.removeprefix("DML_OPERATOR_").lower() + ".md")
    return f"[{text}]({page})" if (PAGE.parent / page).exists() else text


def operator_list() -> str:
    """The Markdown table of every operator of the table, in the table's order."""
    lines = [
        "| Operator | Descriptor | Since | InputTensor data types (newest level) | In place | `dml.graph` | ONNX |",
        "|---|---|---|---|---|---|---|",
    ]
    for operator_type, desc in OPERATORS.items():
        if desc.is_extension():
            since, types = "extension (not DirectML)", "see `dmlpy.extensions`"
        else:
            newest = desc.SUPPORT.rows[-1]
            since = desc.SUPPORT.introduced.c_name
            first = (*desc.INPUTS, *desc.OUTPUTS)[0]  # a generator (FILL_VALUE_CONSTANT) has no input: its output's
            types = ", ".join(sorted(t.name for t in newest.data_types[desc.c_field(first)]))
        builder = f"`{desc.BUILDER_NAME}`" if desc.BUILDER_NAME else "-"
        onnx = ", ".join(desc.ONNX_OPS) or "-"
        lines.append(
            f"| {_page_link(operator_type.c_name, f'`{operator_type.c_name}`')} | `{desc.__name__}` | {since} | "
            f"{types} | {'yes' if desc.SUPPORTS_IN_PLACE else 'no'} | {builder} | {onnx} |"
        )
    return "\n".join(lines)


def with_list(page: str) -> str:
    """``page`` with the text between the markers replaced by the list."""
    before, rest = page.split(BEGIN, 1)
    _, after = rest.split(END, 1)
    return f"{before}{BEGIN}\n{operator_list()}\n{END}{after}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page differs from the table")
    args = parser.parse_args()
    page = PAGE.read_text(encoding="utf-8")
    wanted = with_list(page)
    if args.check:
        if wanted != page:
            print(f"{PAGE} differs from dmlpy.ops.OPERATORS: run python scripts/operator_list.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
