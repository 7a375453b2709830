"""Lowering's vocabulary, pure (no OpenCL): which kernel source and -D specialisation runs (``KernelSpec``,
dmlpy/kernels/source.py), how the tensors' layouts coalesce (coalescing.py), how a launch spreads elements over
work-items (``LaunchProfile``, launch.py), the element-wise template's specialisation (elementwise.py), and an
operator as a plan of launches with temporary regions between them (plan.py)."""

from dmlpy.kernels.coalescing import MAX_RANK as MAX_RANK
from dmlpy.kernels.coalescing import ElementwiseLayout as ElementwiseLayout
from dmlpy.kernels.coalescing import block_counts as block_counts
from dmlpy.kernels.coalescing import blocked_layout as blocked_layout
from dmlpy.kernels.coalescing import coalesce as coalesce
from dmlpy.kernels.coalescing import tile_order as tile_order
from dmlpy.kernels.launch import CPU_PROFILE as CPU_PROFILE
from dmlpy.kernels.launch import LAUNCH_PROFILE_NAMES as LAUNCH_PROFILE_NAMES
from dmlpy.kernels.launch import PACKED_RUN as PACKED_RUN
from dmlpy.kernels.launch import KernelParameter as KernelParameter
from dmlpy.kernels.launch import LaunchProfile as LaunchProfile
from dmlpy.kernels.launch import LaunchProfileName as LaunchProfileName
from dmlpy.kernels.launch import LoweredOperator as LoweredOperator
from dmlpy.kernels.launch import ParameterKind as ParameterKind
from dmlpy.kernels.plan import InputView as InputView
from dmlpy.kernels.plan import OperatorPlan as OperatorPlan
from dmlpy.kernels.plan import PlannedStep as PlannedStep
from dmlpy.kernels.plan import PlanRef as PlanRef
from dmlpy.kernels.plan import TemporaryRegions as TemporaryRegions
from dmlpy.kernels.source import KernelSpec as KernelSpec
from dmlpy.kernels.source import kernel_source as kernel_source
from dmlpy.kernels.source import opencl_source_dir as opencl_source_dir
