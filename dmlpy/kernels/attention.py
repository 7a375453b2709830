"""The lowering of MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 (dmlpy/ops/multihead_attention.py): a plan of launches
on kernels that run already, every head split and transpose a stride, never a copy of its own.

Every tensor is seen as a 4-D view (batch, head, position, element) of its binding (``View``): a [batch, length,
heads * size] tensor steps heads by size times its last stride, a stacked [batch, length, heads, k, size] tensor
gives role r at an element shift of r times its fourth stride. The steps, each only where it is needed:

1. the query plus its part of BiasTensor into a packed temporary (the element-wise template's add);
2. the key and the value, each where a past, a bias or a present output asks for it, written whole once: the past
   copied (Identity's strided copy) and the new keys (plus their bias) after it, into OutputPresentKeyTensor
   (OutputPresentValueTensor) where given, else into a packed temporary;
3. scores = Scale * Query x Key^T + RelativePositionBias, gemm.cl's GEMM (Alpha = Scale, C the bias with Beta 1)
   over the domain (batch, key-value head, sequence, totalSequence, headSize), into a packed temporary in the
   tensors' DataType;
4. the softmax over the keys of each score row, MaskFilterValue added to the masked scores first
   (``opencl/attention.cl``, one work-item per row, in place);
5. Output = probabilities x Value, gemm.cl's GEMM again, written straight into OutputTensor's [batch, sequence,
   heads * valueHeadSize] through its strides.

Grouped-query attention (KeyValueHeadCount < QueryHeadCount): query head h reads key and value head h // group,
group = QueryHeadCount / KeyValueHeadCount. The contraction's batch is (batch, key-value head), and each of the
group's members r is one launch over query heads kv * group + r for kv = 0, 1, ... (4 query heads on 2: heads
{0, 2}, then {1, 3}): the query, the scores and the output read at a head stride of group heads from an element
shift of r heads. One launch where group is 1.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from dmlpy.dtypes import AnyDataType
from dmlpy.enums import TensorDataType
from dmlpy.kernels.coalescing import coalesce
from dmlpy.kernels.contraction import ABSENT, Domain, contraction_kernel
from dmlpy.kernels.elementwise import Statement, elementwise_kernel, value_type
from dmlpy.kernels.launch import KernelParameter, LaunchProfile
from dmlpy.kernels.movement import strided_copy
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.reduction import reduction_kernel, reduction_layout
from dmlpy.tensor import BufferTensorDesc, packed_strides

Strides4 = tuple[int, int, int, int]


@dataclass(frozen=True)
class View:
    """A tensor seen as (batch, head, position, element): what it is bound to (with the shift to its first element)
    and a stride along each of the four."""

    ref: PlanRef
    strides: Strides4

    def shifted(self, elements: int) -> View:
        """The view from ``elements`` further into its binding."""
        return View(PlanRef(self.ref.kind, self.ref.index, self.ref.shift + elements), self.strides)

    def member(self, group: int, r: int) -> tuple[PlanRef, int]:
        """Grouped-query member r's heads (r, r + group, ...): the ref shifted r heads, and the head stride."""
        return self.shifted(r * self.strides[1]).ref, group * self.strides[1]


@dataclass(frozen=True)
class AttentionShape:
    """The numbers of one attention (dmlpy/ops/_attention.AttentionSizes, without where each came from)."""

    batch: int
    sequence: int
    kv_sequence: int
    past: int
    head_size: int
    value_head_size: int
    query_heads: int
    kv_heads: int

    @property
    def total(self) -> int:
        return self.past + self.kv_sequence

    @property
    def group(self) -> int:
        """Query heads per key-value head."""
        return self.query_heads // self.kv_heads


@dataclass(frozen=True)
class MaskViews:
    """MaskTensor as attention.cl reads it (MASK_TYPE, DML_MULTIHEAD_ATTENTION_MASK_TYPE's value): ``first`` the
    BOOLEAN mask over the scores, or the per-batch key lengths or ends; ``second`` the per-batch starts
    (KEY_SEQUENCE_END_START), else None."""

    mask_type: int
    first: View
    second: View | None = None


@dataclass(frozen=True)
class AttentionTensors:
    """What a plan binds: each source as a view (None where absent), BiasTensor as (ref, stride of its one axis)."""

    query: View
    key: View
    value: View
    bias: tuple[PlanRef, int] | None
    relative_position_bias: View | None
    mask: MaskViews | None
    past_key: View | None
    past_value: View | None
    output: View
    present_key: View | None
    present_value: View | None


SOFTMAX_SOURCE = "attention.cl"


class _Plan:
    """The steps and temporaries of one attention plan, gathered in order."""

    def __init__(self, data_type: AnyDataType, profile: LaunchProfile) -> None:
        self.data_type, self.profile = data_type, profile
        self.steps: list[PlannedStep] = []
        self.temporaries: list[BufferTensorDesc] = []

    def temporary(self, sizes: tuple[int, int, int, int]) -> View:
        """A packed temporary of (batch, head, position, element) ``sizes`` in the tensors' DataType."""
        self.temporaries.append(BufferTensorDesc(data_type=self.data_type, sizes=sizes))
        b, h, p, e = packed_strides(sizes)
        return View(PlanRef("temporary", len(self.temporaries) - 1), (b, h, p, e))

    def copy(self, sizes: tuple[int, ...], source: View, target: View, bias: View | None) -> None:
        """``target = source`` (+ ``bias``) over ``sizes``: Identity's strided copy, or the template's add."""
        if bias is None:
            lowered = strided_copy(self.data_type, sizes, source.strides, target.strides, self.profile)
            self.steps.append(PlannedStep(lowered, (source.ref, target.ref)))
            return
        held = value_type(self.data_type)
        assert held is not None  # FLOAT32 or FLOAT16
        layout = coalesce(sizes, [source.strides, bias.strides, target.strides])
        add = Statement("add_float(in0, in1)", held, "ELEMENT_WISE_ADD")
        lowered = elementwise_kernel(
            [held, held, held], [0, 1], [add], [(2, 0)], layout, self.profile, fused=False, may_alias=False
        )
        self.steps.append(PlannedStep(lowered, (source.ref, bias.ref, target.ref)))

    def gemm(
        self,
        domain: Domain,
        operands: tuple[tuple[PlanRef, tuple[int, ...]], tuple[PlanRef, tuple[int, ...]]],
        c: tuple[PlanRef, tuple[int, ...]] | None,
        out: tuple[PlanRef, tuple[int, ...]],
        alpha_bits: int,
    ) -> None:
        """gemm.cl's GEMM: out = Alpha * A x B (+ 1 * C) over ``domain``, each operand (ref, domain strides)."""
        half = self.data_type == TensorDataType.FLOAT16
        defines = (
            ("A_T", "ushort" if half else "float"),
            ("DML_FLOAT16", str(int(half))),
            ("HAS_C", str(int(c is not None))),
        )
        (a, a_strides), (b, b_strides) = operands
        strides = [a_strides, b_strides, ABSENT if c is None else c[1], out[1]]
        one = 0x3F800000  # Beta 1.0f: C (RelativePositionBias) added as it is
        lowered = contraction_kernel(
            "GEMM",
            defines,
            domain,
            strides,
            self.profile,
            parameters=(KernelParameter("uint8", (alpha_bits, one)),),
        )
        self.steps.append(PlannedStep(lowered, (a, b, None if c is None else c[0], out[0])))


def _head(view: View, group: int, r: int) -> tuple[PlanRef, int, int, int, int]:
    """A view's ref and strides for grouped-query member r: (ref, batch, head, position, element)."""
    ref, head = view.member(group, r)
    return ref, view.strides[0], head, view.strides[2], view.strides[3]


def _whole(
    plan: _Plan, shape: AttentionShape, new: View, past: View | None, present: View | None, size: int, bias: View | None
) -> View:
    """The keys (or values) the scores weigh, the past's and the new: read as they are where nothing is added and no
    present output is asked for, else written once, past then new (+ bias), into the present output or a
    temporary."""
    if past is None and bias is None and present is None:
        return new
    target = present or plan.temporary((shape.batch, shape.kv_heads, shape.total, size))
    if past is not None:
        plan.copy((shape.batch, shape.kv_heads, shape.past, size), past, target, None)
    after = target.shifted(shape.past * target.strides[2])
    plan.copy((shape.batch, shape.kv_heads, shape.kv_sequence, size), new, after, bias)
    return target


def attention_plan(
    shape: AttentionShape,
    data_type: AnyDataType,
    tensors: AttentionTensors,
    scale_bits: int,
    mask_filter_bits: int,
    profile: LaunchProfile,
) -> OperatorPlan:
    """The launches of one attention (the module's docstring); ``scale_bits`` and ``mask_filter_bits`` the float32
    bits of Scale and MaskFilterValue."""
    s, t = shape, tensors
    plan = _Plan(data_type, profile)
    biases: list[View | None] = [None, None, None]
    if t.bias is not None:
        ref, stride = t.bias
        starts = (0, s.query_heads * s.head_size, (s.query_heads + s.kv_heads) * s.head_size)
        sizes = (s.head_size, s.head_size, s.value_head_size)
        biases = [
            View(PlanRef(ref.kind, ref.index, ref.shift + start * stride), (0, size * stride, 0, stride))
            for start, size in zip(starts, sizes, strict=True)
        ]
    query = t.query
    if biases[0] is not None:
        query = plan.temporary((s.batch, s.query_heads, s.sequence, s.head_size))
        plan.copy((s.batch, s.query_heads, s.sequence, s.head_size), t.query, query, biases[0])
    key = _whole(plan, s, t.key, t.past_key, t.present_key, s.head_size, biases[1])
    value = _whole(plan, s, t.value, t.past_value, t.present_value, s.value_head_size, biases[2])
    scores = plan.temporary((s.batch, s.query_heads, s.sequence, s.total))
    _scores(plan, s, query, key, t.relative_position_bias, scores, scale_bits)
    plan.steps.append(_softmax_step(s, data_type, scores, t.mask, mask_filter_bits, profile))
    _weighted(plan, s, scores, value, t.output)
    return OperatorPlan(tuple(plan.steps), tuple(plan.temporaries))


def _scores(
    plan: _Plan, s: AttentionShape, query: View, key: View, bias: View | None, scores: View, scale_bits: int
) -> None:
    """scores = Scale * Query x Key^T (+ RelativePositionBias), one launch per grouped-query member."""
    domain = Domain((s.batch, s.kv_heads), s.sequence, s.total, s.head_size)
    k_ref, kb, kh, kl, kd = _head(key, 1, 0)
    for r in range(s.group):
        q_ref, qb, qh, qi, qd = _head(query, s.group, r)
        o_ref, ob, oh, oi, oj = _head(scores, s.group, r)
        c = None
        if bias is not None:
            c_ref, cb, ch, ci, cj = _head(bias, s.group, r)
            c = (c_ref, (cb, ch, ci, cj, 0))
        plan.gemm(
            domain,
            ((q_ref, (qb, qh, qi, 0, qd)), (k_ref, (kb, kh, 0, kl, kd))),
            c,
            (o_ref, (ob, oh, oi, oj, 0)),
            scale_bits,
        )


def _weighted(plan: _Plan, s: AttentionShape, probabilities: View, value: View, output: View) -> None:
    """Output = probabilities x Value, one launch per grouped-query member."""
    domain = Domain((s.batch, s.kv_heads), s.sequence, s.value_head_size, s.total)
    v_ref, vb, vh, vl, vd = _head(value, 1, 0)
    for r in range(s.group):
        p_ref, pb, ph, pi, pj = _head(probabilities, s.group, r)
        o_ref, ob, oh, oi, od = _head(output, s.group, r)
        plan.gemm(
            domain,
            ((p_ref, (pb, ph, pi, 0, pj)), (v_ref, (vb, vh, 0, vd, vl))),
            None,
            (o_ref, (ob, oh, oi, od, 0)),
            0x3F800000,  # Alpha 1.0f
        )


def _softmax_step(
    s: AttentionShape,
    data_type: AnyDataType,
    scores: View,
    mask: MaskViews | None,
    mask_filter_bits: int,
    profile: LaunchProfile,
) -> PlannedStep:
    """attention.cl's masked softmax over each score row (the last axis), in place: the scores, the mask's two
    views (absent ones bound, never read) and the probabilities, MaskFilterValue's bits the kernel's argument."""
    sizes = (s.batch, s.query_heads, s.sequence, s.total)
    views = [scores, None if mask is None else mask.first, None if mask is None else mask.second, scores]
    strides = [(0, 0, 0, 0) if view is None else view.strides for view in views]
    layout, kept_rank = reduction_layout(sizes, strides, [3])
    defines = (
        ("DML_FLOAT16", str(int(data_type == TensorDataType.FLOAT16))),
        ("MASK_TYPE", str(0 if mask is None else mask.mask_type)),
        ("REDUCTION_TENSORS", "4"),
    )
    lowered = reduction_kernel(SOFTMAX_SOURCE, "masked_softmax", defines, layout, kept_rank, profile)
    lowered = dataclasses.replace(lowered, parameters=(KernelParameter("uint8", (mask_filter_bits,)),))
    return PlannedStep(lowered, tuple(None if view is None else view.ref for view in views))
