"""Lowering's vocabulary, pure (no OpenCL): which kernel source and -D specialisation runs (``KernelSpec``), how
the tensors' layouts coalesce, and how a launch spreads elements over work-items (``LaunchProfile``)."""

from dmlpy.kernels.spec import CPU_PROFILE as CPU_PROFILE
from dmlpy.kernels.spec import LAUNCH_PROFILE_NAMES as LAUNCH_PROFILE_NAMES
from dmlpy.kernels.spec import MAX_RANK as MAX_RANK
from dmlpy.kernels.spec import PACKED_RUN as PACKED_RUN
from dmlpy.kernels.spec import ElementwiseLayout as ElementwiseLayout
from dmlpy.kernels.spec import KernelSpec as KernelSpec
from dmlpy.kernels.spec import LaunchProfile as LaunchProfile
from dmlpy.kernels.spec import LaunchProfileName as LaunchProfileName
from dmlpy.kernels.spec import LoweredOperator as LoweredOperator
from dmlpy.kernels.spec import coalesce as coalesce
from dmlpy.kernels.spec import kernel_source as kernel_source
from dmlpy.kernels.spec import opencl_source_dir as opencl_source_dir
from dmlpy.kernels.spec import tile_order as tile_order
