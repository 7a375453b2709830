"""The attention family's one shape rule (docs/operators/multihead_attention.md): MULTIHEAD_ATTENTION and
MULTIHEAD_ATTENTION1 read a query, a key and a value, each from exactly one tensor, stacked or not, and from them
batchSize, sequenceLength, keyValueSequenceLength, headSize and valueHeadSize, which size every other tensor.

The pages' shapes (MicrosoftDocs/windows-ai-docs ns-directml-dml_multihead_attention_operator_desc.md):

    QueryTensor                 [batchSize, sequenceLength, queryHeads * headSize]
    KeyTensor                   [batchSize, keyValueSequenceLength, keyValueHeads * headSize]
    ValueTensor                 [batchSize, keyValueSequenceLength, keyValueHeads * valueHeadSize]
    StackedQueryKeyTensor       [batchSize, sequenceLength, heads, 2, headSize]
    StackedKeyValueTensor       [batchSize, keyValueSequenceLength, heads, 2, headSize]
    StackedQueryKeyValueTensor  [batchSize, sequenceLength, heads, 3, headSize]
    BiasTensor                  [queryHeads * headSize + keyValueHeads * headSize + keyValueHeads * valueHeadSize]
    PastKeyTensor               [batchSize, keyValueHeads, pastSequenceLength, headSize]
    PastValueTensor             [batchSize, keyValueHeads, pastSequenceLength, valueHeadSize]
    OutputTensor                [batchSize, sequenceLength, queryHeads * valueHeadSize]
    OutputPresentKeyTensor      [batchSize, keyValueHeads, totalSequenceLength, headSize]
    OutputPresentValueTensor    [batchSize, keyValueHeads, totalSequenceLength, valueHeadSize]

totalSequenceLength = pastSequenceLength + keyValueSequenceLength (keyValueSequenceLength without the past). A
tensor "can also have 4 or 5 dimensions, as long as the leading dimensions are 1's" (the pages, of the query, key,
value and bias; dmlpy reads every shape so, outputs included). MULTIHEAD_ATTENTION has one HeadCount for both;
MULTIHEAD_ATTENTION1 a QueryHeadCount and a KeyValueHeadCount (grouped-query attention).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from dmlpy.enums import FeatureLevel, MultiheadAttentionMaskType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.tensor import BufferTensorDesc

Mask = MultiheadAttentionMaskType
QUERY_SOURCES = ("query_tensor", "stacked_query_key_tensor", "stacked_query_key_value_tensor")
KEY_SOURCES = ("key_tensor", "stacked_query_key_tensor", "stacked_key_value_tensor", "stacked_query_key_value_tensor")
VALUE_SOURCES = ("value_tensor", "stacked_key_value_tensor", "stacked_query_key_value_tensor")
STACKED = {  # the stacked tensors: how many they stack on the fourth dimension, and which roles they give
    "stacked_query_key_tensor": (2, ("query", "key")),
    "stacked_key_value_tensor": (2, ("key", "value")),
    "stacked_query_key_value_tensor": (3, ("query", "key", "value")),
}
_PAGE_SOURCES = (
    "the page: exactly one Query, Key and Value tensor must be present, whether or not they're stacked; if "
    "StackedQueryKey is provided, both the Query and Key tensors must be null"
)
Inputs = dict[str, BufferTensorDesc | None]


@dataclass(frozen=True)
class AttentionSizes:
    """What the query, key and value sources give, each with where it comes from (for the rule's text)."""

    batch: int
    sequence: int
    kv_sequence: int
    head_size: int
    value_head_size: int
    query_heads: int
    kv_heads: int
    past: int | None
    """pastSequenceLength, from PastKeyTensor; None without a past."""
    query_from: str
    value_from: str
    data_type: TensorDataType

    @property
    def total(self) -> int:
        """totalSequenceLength: the keys the query attends to, the past's and the new."""
        return (self.past or 0) + self.kv_sequence


class AttentionDesc(StructuredDesc):
    """MULTIHEAD_ATTENTION(1): exactly one source per role, then every tensor's Sizes from the sources'."""

    QUERY_HEADS: ClassVar[str]
    """The field giving the query's heads (``head_count``; MULTIHEAD_ATTENTION1's ``query_head_count``)."""
    KV_HEADS: ClassVar[str]
    """The field giving the key's and value's heads (``head_count``; ``key_value_head_count``)."""
    INPUTS: ClassVar[tuple[str, ...]] = (
        "query_tensor",
        "key_tensor",
        "value_tensor",
        "stacked_query_key_tensor",
        "stacked_key_value_tensor",
        "stacked_query_key_value_tensor",
        "bias_tensor",
        "mask_tensor",
        "relative_position_bias_tensor",
        "past_key_tensor",
        "past_value_tensor",
    )
    OUTPUTS = ("output_tensor", "output_present_key_tensor", "output_present_value_tensor")

    # ------------------------------------------------------------------------------------------------ refusals
    @classmethod
    def _refuse(cls, field: str, text: str) -> InvalidArgumentError:
        return InvalidArgumentError(f"{cls.operator_name()}.{cls.c_field(field)}{text}")

    @classmethod
    def core(cls, inputs: Inputs, field: str, shape: str, count: int) -> tuple[int, ...]:
        """The last ``count`` Sizes of tensor ``field``, whose page shape is ``shape``; every size before them 1."""
        tensor = inputs[field]
        assert tensor is not None
        sizes = tensor.sizes
        if len(sizes) < count:
            raise cls._refuse(
                field, f".DimensionCount is {len(sizes)}; {cls.c_field(field)} is {shape}: at least {count} dimensions"
            )
        for dim, size in enumerate(sizes[: len(sizes) - count]):
            if size != 1:
                raise cls._refuse(
                    field,
                    f".Sizes[{dim}] is {size}; it must be 1: {cls.c_field(field)} is {shape}, with more dimensions "
                    "only as leading 1s (the page: as long as the leading dimensions are 1's)",
                )
        return tuple(sizes[len(sizes) - count :])

    @classmethod
    def _last(cls, inputs: Inputs, field: str) -> int:
        tensor = inputs[field]
        assert tensor is not None
        return len(tensor.sizes) - 1

    @classmethod
    def _must_equal(cls, inputs: Inputs, field: str, dim: int, wanted: int, what: str) -> None:
        """Sizes[dim] of ``field`` (a negative ``dim`` counts from the last) is ``wanted``."""
        tensor = inputs[field]
        assert tensor is not None
        index = dim % len(tensor.sizes)
        given = tensor.sizes[index]
        if given != wanted:
            raise cls._refuse(field, f".Sizes[{index}] is {given}; it must equal {what} ({wanted})")

    # ------------------------------------------------------------------------------------------------ the sources
    @classmethod
    def source(cls, inputs: Inputs, role: str, names: tuple[str, ...]) -> str:
        """The one tensor giving ``role`` (query, key or value); InvalidArgumentError naming the others."""
        present = [name for name in names if inputs.get(name) is not None]
        listed = ", ".join(cls.c_field(name) for name in names)
        if not present:
            raise cls._refuse(
                names[0],
                f" is null, as are the other tensors that can give the {role} ({listed}); exactly one of them must "
                f"be given ({_PAGE_SOURCES})",
            )
        if len(present) > 1:
            first = cls.c_field(present[0])
            raise cls._refuse(
                present[1],
                f" is given with {first}: both give the {role}, and exactly one of {listed} may ({_PAGE_SOURCES}); "
                f"leave one of them null",
            )
        return present[0]

    @classmethod
    def head_counts(cls, fields: dict[str, Any]) -> tuple[int, int]:
        """The query's and the key's and value's heads, each at least 1; the query's a multiple of the other."""
        query_heads, kv_heads = fields[cls.QUERY_HEADS], fields[cls.KV_HEADS]
        for field, count in ((cls.QUERY_HEADS, query_heads), (cls.KV_HEADS, kv_heads)):
            if count < 1:
                raise cls._refuse(field, f" is {count}; it must be at least 1: the number of attention heads")
        if query_heads % kv_heads:
            raise cls._refuse(
                cls.QUERY_HEADS,
                f" is {query_heads}; it must be a multiple of {cls.c_field(cls.KV_HEADS)} ({kv_heads}): each key "
                "and value head serves QueryHeadCount / KeyValueHeadCount query heads (grouped-query attention)",
            )
        return query_heads, kv_heads

    @classmethod
    def _stacked(cls, inputs: Inputs, field: str, batch: int | None, heads: dict[str, int]) -> tuple[int, ...]:
        """A stacked tensor's [batchSize, length, heads, stacked, headSize], its heads and stack checked."""
        stack, roles = STACKED[field]
        shape = f"[batchSize, length, headCount, {stack}, headSize]"
        sizes = cls.core(inputs, field, shape, 5)
        if sizes[3] != stack:
            raise cls._refuse(field, f".Sizes[3] is {sizes[3]}; it must be {stack}: {shape}, stacked on the fourth")
        for role in roles:
            count_field = cls.QUERY_HEADS if role == "query" else cls.KV_HEADS
            cls._must_equal(inputs, field, 2, heads[role], f"{cls.c_field(count_field)}, the {role}'s heads")
        if batch is not None:
            cls._must_equal(inputs, field, 0, batch, "batchSize, the query's Sizes[0]")
        return sizes

    @classmethod
    def attention_sizes(cls, inputs: Inputs, fields: dict[str, Any]) -> AttentionSizes:
        """batchSize, the sequence lengths and the head sizes from the sources, every other input checked
        against them: the one rule behind every refusal of Sizes and every output's Sizes."""
        query, key, value = (
            cls.source(inputs, role, names)
            for role, names in (("query", QUERY_SOURCES), ("key", KEY_SOURCES), ("value", VALUE_SOURCES))
        )
        query_heads, kv_heads = cls.head_counts(fields)
        heads = {"query": query_heads, "key": kv_heads, "value": kv_heads}
        q_field, kv_field = cls.c_field(cls.QUERY_HEADS), cls.c_field(cls.KV_HEADS)
        if query == "query_tensor":
            batch, sequence, hidden = cls.core(inputs, query, "[batchSize, sequenceLength, hiddenSize]", 3)
            if hidden % query_heads:
                raise cls._refuse(
                    query,
                    f".Sizes[{cls._last(inputs, query)}] is {hidden}; it must be a multiple of {q_field} "
                    f"({query_heads}): hiddenSize = headCount * headSize",
                )
            head_size = hidden // query_heads
        else:
            batch, sequence, _, _, head_size = cls._stacked(inputs, query, None, heads)
        if key == "key_tensor":
            sizes = cls.core(inputs, key, "[batchSize, keyValueSequenceLength, hiddenSize]", 3)
            cls._must_equal(inputs, key, -3, batch, "batchSize, the query's")
            cls._must_equal(inputs, key, -1, kv_heads * head_size, f"{kv_field} * headSize ({head_size})")
            kv_sequence = sizes[1]
        elif key == "stacked_key_value_tensor":
            sizes = cls._stacked(inputs, key, batch, heads)
            cls._must_equal(inputs, key, 4, head_size, "headSize, the query's")
            kv_sequence = sizes[1]
        else:
            kv_sequence = sequence
        if value == "value_tensor":
            sizes = cls.core(inputs, value, "[batchSize, keyValueSequenceLength, valueHiddenSize]", 3)
            cls._must_equal(inputs, value, -3, batch, "batchSize, the query's")
            cls._must_equal(inputs, value, -2, kv_sequence, "keyValueSequenceLength, the key's")
            if sizes[2] % kv_heads:
                raise cls._refuse(
                    value,
                    f".Sizes[{cls._last(inputs, value)}] is {sizes[2]}; it must be a multiple of {kv_field} "
                    f"({kv_heads}): valueHiddenSize = headCount * valueHeadSize",
                )
            value_head_size = sizes[2] // kv_heads
        else:
            value_head_size = head_size
        typed = inputs[query]
        assert typed is not None
        past = cls._past(inputs, batch, kv_heads, head_size, value_head_size)
        found = AttentionSizes(
            batch,
            sequence,
            kv_sequence,
            head_size,
            value_head_size,
            query_heads,
            kv_heads,
            past,
            cls.c_field(query),
            cls.c_field(value),
            typed.data_type,  # type: ignore[arg-type]
        )
        cls._check_bias_and_mask(inputs, fields, found)
        return found

    @classmethod
    def _past(cls, inputs: Inputs, batch: int, kv_heads: int, head_size: int, value_head_size: int) -> int | None:
        """pastSequenceLength from PastKeyTensor and PastValueTensor, given together (the values must be as many
        as the keys the softmax weighs)."""
        key, value = inputs.get("past_key_tensor"), inputs.get("past_value_tensor")
        if (key is None) != (value is None):
            given, missing = (
                ("past_key_tensor", "past_value_tensor") if value is None else ("past_value_tensor", "past_key_tensor")
            )
            raise cls._refuse(
                missing,
                f" is null while {cls.c_field(given)} is given: give both or neither (the past keys and values are "
                "concatenated before the new ones, and the softmax weighs as many values as keys)",
            )
        if key is None:
            return None
        lengths = []
        kv_field = cls.c_field(cls.KV_HEADS)
        for field, size in (("past_key_tensor", head_size), ("past_value_tensor", value_head_size)):
            what = "headSize" if field == "past_key_tensor" else "valueHeadSize"
            sizes = cls.core(inputs, field, f"[batchSize, headCount, pastSequenceLength, {what}]", 4)
            cls._must_equal(inputs, field, -4, batch, "batchSize, the query's")
            cls._must_equal(inputs, field, -3, kv_heads, kv_field)
            cls._must_equal(inputs, field, -1, size, what)
            lengths.append(sizes[2])
        cls._must_equal(inputs, "past_value_tensor", -2, lengths[0], "pastSequenceLength, PastKeyTensor's")
        return lengths[0]

    @classmethod
    def _check_bias_and_mask(cls, inputs: Inputs, fields: dict[str, Any], found: AttentionSizes) -> None:
        b, q, kv = found.batch, found.query_heads, found.kv_heads
        if inputs.get("bias_tensor") is not None:
            hidden = q * found.head_size + kv * found.head_size + kv * found.value_head_size
            cls._check_sizes(inputs, "bias_tensor", "[hiddenSize + hiddenSize + valueHiddenSize]", (hidden,))
        if inputs.get("past_sequence_lengths_tensor") is not None:
            cls._check_sizes(inputs, "past_sequence_lengths_tensor", "[batchSize], one length per batch", (b,))
        scores = (b, q, found.sequence, found.total)
        scores_text = "[batchSize, headCount, sequenceLength, totalSequenceLength]"
        if inputs.get("relative_position_bias_tensor") is not None:
            cls._check_sizes(inputs, "relative_position_bias_tensor", scores_text, scores)
        mask_type = Mask(fields["mask_type"])
        if inputs.get("mask_tensor") is None:
            return
        shapes = {
            Mask.KEY_SEQUENCE_LENGTH: ("[1, batchSize]", (1, b)),
            Mask.KEY_SEQUENCE_END_START: ("[2, batchSize]", (2, b)),
            Mask.KEY_QUERY_SEQUENCE_LENGTH_START_END: ("[batchSize * 3 + 2]", (b * 3 + 2,)),
            Mask.BOOLEAN: (f"the scores' Sizes, {scores_text}", scores),
        }
        if mask_type not in shapes:
            raise cls._refuse(
                "mask_tensor",
                " is given while MaskType is DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE: MaskType says how the mask is "
                "read (BOOLEAN, KEY_SEQUENCE_LENGTH, ...); set it, or leave MaskTensor null",
            )
        text, wanted = shapes[mask_type]
        cls._check_sizes(inputs, "mask_tensor", f"{text} under MaskType {mask_type.name}", wanted)

    @classmethod
    def _check_sizes(cls, inputs: Inputs, field: str, shape: str, wanted: tuple[int, ...]) -> None:
        sizes = cls.core(inputs, field, shape, len(wanted))
        if sizes != wanted:
            raise cls._refuse(field, f".Sizes ends {list(sizes)}; it must be {list(wanted)}: {shape}")

    # ------------------------------------------------------------------------------------------------ the rules
    def operands(self) -> Inputs:
        return {name: None if (tensor := getattr(self, name)) is None else tensor.desc for name in self.INPUTS}

    def field_values(self) -> dict[str, Any]:
        tensors = {*self.INPUTS, *self.OUTPUTS}
        return {name: getattr(self, name) for name in type(self).model_fields if name not in tensors}

    def check_shape_rules(self, level: FeatureLevel) -> None:
        self.attention_sizes(self.operands(), self.field_values())

    @classmethod
    def output_shapes(cls, inputs: Inputs, fields: dict[str, Any]) -> tuple[OutputShape, ...]:
        """OutputTensor [batchSize, sequenceLength, queryHeads * valueHeadSize]; the present key and value
        [batchSize, keyValueHeads, totalSequenceLength, headSize or valueHeadSize]; the query's DataType. A given
        output may have leading 1s to 4 or 5 dimensions (``expected_outputs``)."""
        s = cls.attention_sizes(inputs, fields)
        q_field, kv_field = cls.c_field(cls.QUERY_HEADS), cls.c_field(cls.KV_HEADS)
        given = (
            f"batchSize {s.batch} and sequenceLength {s.sequence} from {s.query_from}, headSize {s.head_size}, "
            f"valueHeadSize {s.value_head_size} from {s.value_from}, keyValueSequenceLength {s.kv_sequence}"
            + ("" if s.past is None else f", pastSequenceLength {s.past} from PastKeyTensor")
        )
        total = "pastSequenceLength + keyValueSequenceLength" if s.past is not None else "keyValueSequenceLength"
        leading = "more dimensions only as leading 1s"
        output = OutputShape(
            (s.batch, s.sequence, s.query_heads * s.value_head_size),
            s.data_type,
            f"[batchSize, sequenceLength, {q_field} * valueHeadSize] = [{s.batch}, {s.sequence}, {s.query_heads} * "
            f"{s.value_head_size}] ({given}; {leading})",
        )
        present = [
            OutputShape(
                (s.batch, s.kv_heads, s.total, size),
                s.data_type,
                f"[batchSize, {kv_field}, {total}, {what}] = [{s.batch}, {s.kv_heads}, {s.total}, {size}] ({given}; "
                f"{leading})",
            )
            for size, what in ((s.head_size, "headSize"), (s.value_head_size, "valueHeadSize"))
        ]
        return (output, *present)

    def expected_outputs(self) -> tuple[OutputShape, ...]:
        """The rule's Sizes, with leading 1s where a given output has more dimensions than the rule's."""
        shapes = []
        for name, shape in zip(self.output_fields(), super().expected_outputs(), strict=True):
            tensor = getattr(self, name)
            if tensor is not None and shape.sizes is not None and len(tensor.desc.sizes) > len(shape.sizes):
                shape = replace(shape, sizes=(1,) * (len(tensor.desc.sizes) - len(shape.sizes)) + shape.sizes)
            shapes.append(shape)
        return tuple(shapes)
