"""ONNX's Attention (opsets 23 to 25) as DirectML's MULTIHEAD_ATTENTION, or MULTIHEAD_ATTENTION1 where kv_num_heads
is fewer than q_num_heads (grouped-query attention), through ``dml.graph.multihead_attention``.

What maps, exactly as ONNX defines it (onnx.reference's Attention):

- Q, K and V of 3 dimensions, [batch, length, heads * size] with q_num_heads and kv_num_heads, are DirectML's
  QueryTensor, KeyTensor and ValueTensor as they are; of 4 dimensions, [batch, heads, length, size], each is copied
  once into DirectML's [batch, length, heads * size] (an Identity node reading it through strides), and Y is read
  back as [batch, heads, length, size] through strides.
- past_key and past_value, [batch, kv_heads, past, size], are PastKeyTensor and PastValueTensor, and present_key and
  present_value OutputPresentKeyTensor and OutputPresentValueTensor.
- scale is Scale (its default 1 / sqrt(head size) is DirectML's usual one); ONNX multiplies Q and K by sqrt(scale)
  each, the same product.
- a boolean attn_mask (true: attend) is a BOOLEAN MaskTensor (cast to INT32) with MaskFilterValue -inf, so a
  masked score is -inf as ONNX's; a float attn_mask is added to the scores: RelativePositionBiasTensor. Either is
  read broadcast to [batch, q_heads, q_length, total_length] (0 strides).
- is_causal: key j of query i is masked past i + past_length (ONNX's bottom-right alignment), a BOOLEAN MaskTensor
  constant, multiplied into a boolean attn_mask.

Refused, naming the attribute or input: softcap (DirectML has no cap of the scores), qk_matmul_output_mode other
than 0 and the qk_matmul_output output, softmax_precision other than FLOAT over FLOAT32 inputs (DirectML's
temporaries are the tensors' type), nonpad_kv_seqlen (opset 24), left_window_size and right_window_size (opset 25),
and an attn_mask shorter than the total length (ONNX pads it with -inf; DirectML's masks cover every key).

A query row whose every key is masked gives an output of 0, as onnx.reference's convention has it (attention.cl's
probabilities of a row of -inf scores are 0; docs/operators/multihead_attention.md)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx

from dmlpy.enums import MultiheadAttentionMaskType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.attention import multihead_attention
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.reinterpretation import reinterpret
from dmlpy.onnx.attributes import float_attribute
from dmlpy.onnx.elements import BOOL_HELD_AS, NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.tensor import BufferTensorDesc, packed_strides

ATTENTION_OPS = ("Attention",)
_FLOAT = onnx.TensorProto.FLOAT


def _input(node: onnx.NodeProto, index: int) -> str | None:
    return node.input[index] if index < len(node.input) and node.input[index] else None


def check_attention(node: onnx.NodeProto, opset: int, attributes: dict[str, int], where: str) -> None:
    """What is refused whatever the shapes: the attributes and inputs DirectML has no field for."""
    for name in ("left_window_size", "right_window_size"):
        if attributes.get(name, -1) != -1:
            raise NodeRefused(
                f"{where}: {name} is {attributes[name]}; DirectML's MULTIHEAD_ATTENTION has no sliding window: "
                "give the window as a boolean attn_mask instead"
            )
    softcap = float_attribute(node, opset, "softcap")
    if softcap != 0.0:
        raise NodeRefused(
            f"{where}: softcap is {softcap}; DirectML's MULTIHEAD_ATTENTION has no cap of the scores (softcap * "
            "tanh(scores / softcap)): leave it 0"
        )
    mode = attributes.get("qk_matmul_output_mode", 0)
    if mode != 0 or (len(node.output) > 3 and node.output[3]):
        raise NodeRefused(
            f"{where}: qk_matmul_output_mode is {mode} with outputs {list(node.output)}; DirectML's "
            "MULTIHEAD_ATTENTION gives no qk_matmul_output (the scores stay in its temporaries): leave that output "
            "out, mode 0"
        )
    if _input(node, 6) is not None:
        raise NodeRefused(
            f"{where}: nonpad_kv_seqlen is given; dmlpy does not map it to DirectML's KEY_SEQUENCE_LENGTH mask yet: "
            "give the padding as a boolean attn_mask instead"
        )


class _Shape:
    """An Attention node's numbers: batch, the query's and the key's lengths, the past's, the heads and sizes."""

    def __init__(self, node: onnx.NodeProto, attributes: dict[str, int], reads: Reads, prepare: bool, where: str):
        q_heads, kv_heads = attributes.get("q_num_heads"), attributes.get("kv_num_heads")
        past = _input(node, 4)
        if prepare:  # every value one element: the 3-D form of sizes 1, the heads the attributes give
            self.rank, self.batch, self.sequence, self.kv_sequence = 3, 1, 1, 1
            self.q_heads = q_heads or 1
            self.kv_heads = kv_heads or self.q_heads
            self.head_size = self.value_head_size = 1
            self.past = 0 if past is None else 1
            return
        q, k, v = (reads.known(node.input[index], where)[0] for index in range(3))
        if not len(q) == len(k) == len(v) or len(q) not in (3, 4):
            raise InvalidArgumentError(
                f"{where}: Q, K and V have shapes {list(q)}, {list(k)} and {list(v)}; Attention takes three 3-D or "
                "three 4-D ones"
            )
        self.rank, self.batch = len(q), q[0]
        if self.rank == 4:
            _, self.q_heads, self.sequence, self.head_size = q
            _, self.kv_heads, self.kv_sequence, _ = k
            self.value_head_size = v[3]
        else:
            if q_heads is None or kv_heads is None:
                raise InvalidArgumentError(
                    f"{where}: Q is 3-D ({list(q)}) and q_num_heads or kv_num_heads is missing; Attention needs both "
                    "to split 3-D inputs into heads"
                )
            self.q_heads, self.kv_heads, self.sequence, self.kv_sequence = q_heads, kv_heads, q[1], k[1]
            self.head_size, self.value_head_size = q[2] // q_heads, v[2] // kv_heads
        self.past = 0 if past is None else reads.known(past, where)[0][2]

    @property
    def total(self) -> int:
        return self.past + self.kv_sequence

    @property
    def scores(self) -> tuple[int, int, int, int]:
        return (self.batch, self.q_heads, self.sequence, self.total)


def attention_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its inputs' shapes; at prepare (every value one element) a 3-D attention of sizes 1 checks the
    types, the attributes and the refusals."""
    check_attention(node, opset, attributes, where)
    s = _Shape(node, attributes, reads, prepare, where)
    q_type = reads.known(node.input[0], where)[1]
    precision = attributes.get("softmax_precision")
    if precision is not None and (precision != _FLOAT or q_type != TensorDataType.FLOAT32):
        raise NodeRefused(
            f"{where}: softmax_precision is {precision} over {q_type.name} inputs; DirectML's MULTIHEAD_ATTENTION "
            "keeps its scores in the inputs' type: dmlpy takes softmax_precision only as FLOAT (1) over FLOAT32"
        )

    def read(index: int, heads: int, length: int, size: int) -> Expression:
        """Q, K or V as DirectML's [batch, length, heads * size]."""
        name, sizes = node.input[index], (s.batch, length, heads * size)
        if prepare:
            return reads.strided(name, sizes, (0, 0, 0))
        if s.rank == 3:
            return reads.strided(name, sizes, packed_strides(sizes))
        view = reads.strided(name, (s.batch, length, heads, size), (heads * length * size, size, length * size, 1))
        return expressed(where, reinterpret, expressed(where, BUILDERS["identity"], view), sizes)

    def read_past(index: int, size: int) -> Expression | None:
        name = _input(node, index)
        if name is None:
            return None
        sizes = (s.batch, s.kv_heads, s.past, size)
        return reads.strided(name, sizes, (0,) * 4 if prepare else packed_strides(sizes))

    query = read(0, s.q_heads, s.sequence, s.head_size)
    key = read(1, s.kv_heads, s.kv_sequence, s.head_size)
    value = read(2, s.kv_heads, s.kv_sequence, s.value_head_size)
    mask, bias = _masks(node, attributes, reads, prepare, s, query, where)
    given = {name for name in (a.name for a in node.attribute)}
    present = len(node.output) > 1 and any(node.output[1:3])
    made = expressed(
        where,
        _outputs_of,
        query,
        key,
        value,
        mask=mask,
        relative_position_bias=bias,
        past_key=read_past(4, s.head_size),
        past_value=read_past(5, s.value_head_size),
        head_count=s.q_heads,
        key_value_head_count=s.kv_heads,
        scale=float_attribute(node, opset, "scale") if "scale" in given else None,
        mask_filter_value=-math.inf,
        mask_type=MultiheadAttentionMaskType.NONE if mask is None else MultiheadAttentionMaskType.BOOLEAN,
        present=present,
    )
    count = min(len(node.output), 3)
    if prepare:
        return [(result, ()) for result in made[:count]]
    output = made[0]
    shape: tuple[int, ...] = (s.batch, s.sequence, s.q_heads * s.value_head_size)
    if s.rank == 4:
        shape = (s.batch, s.q_heads, s.sequence, s.value_head_size)
        strides = (s.sequence * s.q_heads * s.value_head_size, s.value_head_size, s.q_heads * s.value_head_size, 1)
        output = expressed(where, reinterpret, output, shape, strides)
    outputs: Outputs = [(output, shape)]
    sizes = ((s.batch, s.kv_heads, s.total, s.head_size), (s.batch, s.kv_heads, s.total, s.value_head_size))
    outputs += list(zip(made[1:count], sizes[: count - 1], strict=True))
    return outputs


def _outputs_of(*args: Any, **kwargs: Any) -> list[Expression]:
    """``dml.graph.multihead_attention``'s outputs as a list: the output alone, or with the present key and value."""
    made = multihead_attention(*args, **kwargs)
    return made if isinstance(made, list) else [made]


def _masks(
    node: onnx.NodeProto,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    s: _Shape,
    query: Expression,
    where: str,
) -> tuple[Expression | None, Expression | None]:
    """The BOOLEAN MaskTensor (a boolean attn_mask, is_causal's, or both multiplied) and the additive
    RelativePositionBiasTensor (a float attn_mask), each None where the node has none."""
    name = _input(node, 3)
    boolean = additive = None
    if name is not None:
        shape, data_type = reads.known(name, where)
        if not prepare and (not shape or shape[-1] != s.total):
            raise NodeRefused(
                f"{where}: attn_mask has shape {list(shape)}; its last dimension must be total_sequence_length "
                f"({s.total}): ONNX pads a shorter one with -inf (false), and DirectML's masks cover every key: pad "
                "it before"
            )
        read = reads.strided(name, s.scores, (0,) * 4) if prepare else reads.broadcast(name, s.scores, where)
        if data_type == BOOL_HELD_AS:
            boolean = expressed(where, BUILDERS["cast"], read, TensorDataType.INT32)
        else:
            additive = read
    if attributes.get("is_causal", 0):
        rows = np.arange(s.sequence)[:, None] + s.past
        allowed = (np.arange(s.total)[None, :] <= rows).astype(np.int32)
        desc = BufferTensorDesc(data_type=TensorDataType.INT32, sizes=s.scores)
        causal = query.graph.constant(np.broadcast_to(allowed, s.scores), desc)
        boolean = causal if boolean is None else expressed(where, BUILDERS["multiply"], boolean, causal)
    return boolean, additive
