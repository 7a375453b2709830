"""A single operator as a plan of kernel launches: one launch for most operators, several with temporary regions
between them for one that needs more than one pass (a two-pass reduction, JOIN, MEAN_VARIANCE_NORMALIZATION).
A single operator is then a graph of one: its compiled operator reports the temporary resource the regions need
(DML_BINDING_PROPERTIES.TemporaryResourceSize) and launches the steps in order, as a compiled graph does, and a
graph node running it becomes those steps (dmlpy/graph/fusion.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, DML_TEMPORARY_BUFFER_ALIGNMENT
from dmlpy.kernels.launch import LoweredOperator
from dmlpy.tensor import BufferTensorDesc


@dataclass(frozen=True)
class PlanRef:
    """What one tensor of a planned launch is bound to."""

    kind: Literal["input", "output", "temporary"]
    index: int
    """The operator's input or output slot in binding order (absent ones counted), or the plan's temporary region."""
    shift: int = 0
    """Elements past the bound tensor's start where this launch's view of it begins: JOIN's input k is a piece of
    its output, at that input's offset along the axis."""


@dataclass(frozen=True)
class InputView:
    """An operator whose output 0 is its input 0 read through other strides: ``output[c] = input[shift + sum(c[d] *
    strides[d])]`` over the output's Sizes (SLICE's window at non-negative steps, Identity's plain copy). A graph
    reader of such an output can read the input that way instead, and the operator then costs no launch
    (dmlpy/graph/views.py)."""

    strides: tuple[int, ...]
    shift: int = 0


@dataclass(frozen=True)
class PlannedStep:
    """One kernel launch of an operator's plan."""

    lowered: LoweredOperator
    tensors: tuple[PlanRef | None, ...]
    """Per kernel tensor in the kernel's binding order, what it is bound to (None for an absent optional one)."""


@dataclass(frozen=True)
class OperatorPlan:
    """The launches that compute one operator, in order, and the temporary regions between them."""

    steps: tuple[PlannedStep, ...]
    temporaries: tuple[BufferTensorDesc, ...] = ()
    """Each temporary region as the tensor it holds (its TotalTensorSizeInBytes is the region's size)."""

    @classmethod
    def single(cls, lowered: LoweredOperator, present: Sequence[bool], inputs: int) -> OperatorPlan:
        """One launch binding the operator's tensors in binding order: ``present`` per slot (inputs, then outputs),
        the first ``inputs`` of them inputs."""
        return cls((PlannedStep(lowered, cls.single_refs(present, inputs)),))

    @staticmethod
    def single_refs(present: Sequence[bool], inputs: int) -> tuple[PlanRef | None, ...]:
        """The operator's tensors in binding order, as one launch binds them (``single``)."""
        return tuple(
            None if not given else PlanRef("input", k) if k < inputs else PlanRef("output", k - inputs)
            for k, given in enumerate(present)
        )

    def temporary_regions(self) -> TemporaryRegions:
        """The temporary resource's layout: a region for each of ``temporaries``."""
        regions = TemporaryRegions()
        for desc in self.temporaries:
            regions.add(desc.total_tensor_size_in_bytes)
        return regions


@dataclass
class TemporaryRegions:
    """Regions laid out one after another in one temporary resource: the first at DirectML's temporary-buffer
    alignment, each next at a buffer tensor's minimum alignment, so that every region binds as a tensor."""

    offsets: list[int] = field(default_factory=list)
    size: int = 0
    """The bytes every region needs: DML_BINDING_PROPERTIES.TemporaryResourceSize (0 with no region)."""

    def add(self, size: int) -> int:
        """A region of ``size`` bytes after the others; its index."""
        alignment = DML_TEMPORARY_BUFFER_ALIGNMENT if not self.offsets else DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
        self.offsets.append(-(-self.size // alignment) * alignment)
        self.size = self.offsets[-1] + size
        return len(self.offsets) - 1
