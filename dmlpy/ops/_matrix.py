"""The matrix-multiply family's one shape rule: GEMM, MATRIX_MULTIPLY_INTEGER, QUANTIZED_LINEAR_MATRIX_MULTIPLY and
MATRIX_MULTIPLY_INTEGER_TO_FLOAT multiply ATensor {[BatchCount], [ChannelCount], M, K} by BTensor {[BatchCount],
[ChannelCount], K, N} into {[BatchCount], [ChannelCount], M, N}, one product per batch index.

GEMM's TransA and TransB read A as {.., K, M} and B as {.., N, K} (``A_TRANSFORM``, ``B_TRANSFORM``); the integer
operators have no transform. The pages name A's and B's leading dimensions alike (BatchCount, ChannelCount) and do
not say they broadcast, so B's must equal A's, and the output has A's (DirectMLX's Gemm: output[N] = A[N],
output[C] = A[C]); a broadcast is a Stride of 0 with the Sizes in full, as for any DirectML tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dmlpy.drawing.matrices import MatrixProduct
from dmlpy.enums import FeatureLevel, MatrixTransform, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels.contraction import ABSENT, Axis, Domain, matrix_strides
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc


@dataclass(frozen=True)
class MatrixSizes:
    """M, K and N as A and B give them, each with where it comes from (``ATensor.Sizes[2]``)."""

    batch: tuple[int, ...]
    m: int
    n: int
    k_of_a: int
    k_of_b: int
    m_from: str
    n_from: str
    k_of_a_from: str
    k_of_b_from: str
    transforms: str
    """The transforms in words, for messages: ``TransA NONE, TransB TRANSPOSE``; empty without them."""


_MATRIX_AXES: dict[str, tuple[Axis, Axis]] = {"a_tensor": ("m", "k"), "b_tensor": ("k", "n")}
"""The domain axes of A's and B's last two dimensions as stored, untransposed (any other matrix: M and N)."""


def _last_two(rank: int, transposed: bool) -> tuple[int, int]:
    """The positions of (rows, columns) of a matrix operand, as stored or transposed."""
    rows, columns = rank - 2, rank - 1
    return (columns, rows) if transposed else (rows, columns)


class MatrixMultiplyDesc(StructuredDesc):
    """An operator that multiplies ATensor by BTensor, batch by batch: the rule for M, K, N and the batch."""

    A_TRANSFORM: ClassVar[str | None] = None
    """The field that transposes A (GEMM's ``trans_a``); None where the operator has none."""
    B_TRANSFORM: ClassVar[str | None] = None
    OUTPUT_TYPE_OF: ClassVar[str | None] = "a_tensor"
    """The input whose DataType the output has; None where the output's type is fixed (``OUTPUT_TYPE``) or,
    without it, the caller's choice."""
    OUTPUT_TYPE: ClassVar[TensorDataType | None] = None

    @classmethod
    def matrix_sizes(cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]) -> MatrixSizes:
        a, b = inputs["a_tensor"], inputs["b_tensor"]
        assert a is not None and b is not None
        transposed = {
            operand: transform is not None and fields.get(transform) == MatrixTransform.TRANSPOSE
            for operand, transform in (("A", cls.A_TRANSFORM), ("B", cls.B_TRANSFORM))
        }
        m_at, k_of_a_at = _last_two(len(a.sizes), transposed["A"])
        k_of_b_at, n_at = _last_two(len(b.sizes), transposed["B"])
        transforms = ", ".join(
            f"{cls.c_field(transform)} {MatrixTransform.TRANSPOSE.name if transposed[operand] else 'NONE'}"
            for operand, transform in (("A", cls.A_TRANSFORM), ("B", cls.B_TRANSFORM))
            if transform is not None
        )
        return MatrixSizes(
            batch=a.sizes[:-2],
            m=a.sizes[m_at],
            n=b.sizes[n_at],
            k_of_a=a.sizes[k_of_a_at],
            k_of_b=b.sizes[k_of_b_at],
            m_from=f"ATensor.Sizes[{m_at}]",
            n_from=f"BTensor.Sizes[{n_at}]",
            k_of_a_from=f"ATensor.Sizes[{k_of_a_at}]",
            k_of_b_from=f"BTensor.Sizes[{k_of_b_at}]",
            transforms=transforms,
        )

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """A's batch Sizes, then M rows by N columns; the DataType of ``OUTPUT_TYPE_OF`` or ``OUTPUT_TYPE``."""
        sizes = cls.matrix_sizes(inputs, fields)
        batch = f"ATensor's batch Sizes {list(sizes.batch)}, then " if sizes.batch else ""
        how = f" ({sizes.transforms})" if sizes.transforms else ""
        rule = f"{batch}M = {sizes.m_from} by N = {sizes.n_from}{how}"
        typed = inputs.get(cls.OUTPUT_TYPE_OF) if cls.OUTPUT_TYPE_OF is not None else None
        data_type = cls.OUTPUT_TYPE if typed is None else typed.data_type
        assert data_type is None or isinstance(data_type, TensorDataType)
        return (OutputShape((*sizes.batch, sizes.m, sizes.n), data_type, rule),)

    def operands(self) -> dict[str, BufferTensorDesc | None]:
        """This descriptor's inputs by field, as ``output_shapes`` takes them."""
        return {name: None if (tensor := getattr(self, name)) is None else tensor.desc for name in self.INPUTS}

    def domain(self) -> Domain:
        """The contraction's batch, M, N and K (gemm.cl's domain)."""
        sizes = self.matrix_sizes(self.operands(), self.transform_fields())
        return Domain(sizes.batch, sizes.m, sizes.n, sizes.k_of_a)

    def matrix_strides(self, field: str) -> tuple[int, ...]:
        """A matrix tensor's strides in the domain: A along (M, K), B along (K, N), swapped where TransA or TransB
        transposes them; C, a bias and the output along (M, N); absent, ``ABSENT``."""
        tensor: TensorDesc | None = getattr(self, field)
        if tensor is None:
            return ABSENT
        transform = {"a_tensor": self.A_TRANSFORM, "b_tensor": self.B_TRANSFORM}.get(field)
        transposed = transform is not None and getattr(self, transform) == MatrixTransform.TRANSPOSE
        axes = _MATRIX_AXES.get(field, ("m", "n"))
        last_two = (axes[1], axes[0]) if transposed else axes
        return matrix_strides(tensor.desc.sizes, tensor.desc.effective_strides, last_two)

    def transform_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in (self.A_TRANSFORM, self.B_TRANSFORM) if name is not None}

    def drawn_shape(self) -> MatrixProduct | None:
        """M, K and N, the batch, the transforms and the addend (GEMM's CTensor, a BiasTensor) for the picture;
        None where A or B has fewer than two dimensions (no matrix to draw)."""
        operands = self.operands()
        a, b = operands["a_tensor"], operands["b_tensor"]
        if a is None or b is None or len(a.sizes) < 2 or len(b.sizes) < 2:
            return None
        fields = self.transform_fields()
        sizes = self.matrix_sizes(operands, fields)
        (output,) = self.output_shapes(operands, fields)
        assert output.sizes is not None  # the rule gives every Size
        addend = next((name for name in ("c_tensor", "bias_tensor") if getattr(self, name, None) is not None), None)
        a_transform, b_transform = (
            None if name is None else fields[name] == MatrixTransform.TRANSPOSE
            for name in (self.A_TRANSFORM, self.B_TRANSFORM)
        )
        return MatrixProduct(
            batch=sizes.batch,
            m=sizes.m,
            k=sizes.k_of_a,
            k_of_b=sizes.k_of_b,
            n=sizes.n,
            a_sizes=a.sizes,
            b_sizes=b.sizes,
            a_transposed=a_transform,
            b_transposed=b_transform,
            addend=None if addend is None else self.c_field(addend),
            output_sizes=output.sizes,
            rule=output.rule,
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """K agrees between A and B; B's batch Sizes are A's; then the operator's own (``check_matrix_rules``)."""
        name, operands = self.operator_name(), self.operands()
        sizes = self.matrix_sizes(operands, self.transform_fields())
        if sizes.k_of_a != sizes.k_of_b:
            how = f" ({sizes.transforms})" if sizes.transforms else ""
            raise InvalidArgumentError(
                f"{name}.{sizes.k_of_b_from} is {sizes.k_of_b}; it must equal K = {sizes.k_of_a_from} "
                f"({sizes.k_of_a}){how}: A's columns are B's rows, A is {{.., M, K}} and B {{.., K, N}} as the "
                "transforms read them"
            )
        b = operands["b_tensor"]
        assert b is not None
        b_batch = b.sizes[:-2]
        for dim, (given, wanted) in enumerate(zip(b_batch, sizes.batch, strict=True)):
            if given != wanted:
                raise InvalidArgumentError(
                    f"{name}.BTensor.Sizes[{dim}] is {given}; it must equal ATensor.Sizes[{dim}] ({wanted}): A and B "
                    "have the same batch Sizes (BatchCount, ChannelCount); broadcast one with a Stride of 0, its "
                    "Sizes in full"
                )
        self.check_matrix_rules(level, sizes)

    def check_sized_like_output(self, field: str, sizes: MatrixSizes) -> None:
        """``field`` (GEMM's CTensor, a bias), when given, has the output's Sizes, as the pages say ("CTensor and
        OutputTensor must have the same Sizes"): a broadcast is a Stride of 0 with the Sizes in full."""
        tensor: TensorDesc | None = getattr(self, field)
        wanted = (*sizes.batch, sizes.m, sizes.n)
        if tensor is not None and tensor.desc.sizes != wanted:
            name = self.c_field(field)
            raise InvalidArgumentError(
                f"{self.operator_name()}.{name}.Sizes is {list(tensor.desc.sizes)}; it must be OutputTensor's, "
                f"{list(wanted)} (the page: {name} and OutputTensor must have the same Sizes): to broadcast it, give "
                "its Sizes in full with a Stride of 0 along the broadcast dimensions"
            )

    def check_matrix_rules(self, level: FeatureLevel, sizes: MatrixSizes) -> None:
        """The operator's own rules, given M, K and N (GEMM's C, the integer operators' zero points)."""
