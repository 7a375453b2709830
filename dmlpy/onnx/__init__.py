"""An ONNX backend (``onnx.backend.base.Backend``) that runs ONNX graphs through dmlpy's graphs, the way
onnxruntime's DirectML execution provider turns ONNX graphs into DirectML graphs.

    import dmlpy.onnx
    rep = dmlpy.onnx.DmlBackend.prepare(model)          # or dmlpy.onnx.prepare("model.onnx")
    (y,) = rep.run([x])                                  # NumPy in, NumPy out

It lowers graphs of the ONNX operators whose semantics DirectML expresses exactly, ``SUPPORTED_OPS``, which the
operator table declares (each operator's ``ONNX_OPS``; docs/operators/index.md lists them). A unary operator lowers
through one generic path (Round is DirectML's HALVES_TO_NEAREST_EVEN, Ceil and Floor are exact, Identity copies
tensors, Abs, Neg, Sign and Not are exact, Abs of an unsigned type an Identity copy; Relu, LeakyRelu,
ThresholdedRelu, HardSigmoid, HardSwish, Softsign and Shrink are the piecewise activations, their FLOAT attributes the
descriptors' fields; BitwiseNot is BIT_NOT); Add, Sub, Mul, Div, Max, Min, Sum and Mean lower to the binary
arithmetic operators, Mod to MODULUS_FLOOR or MODULUS_TRUNCATE (fmod), Equal, Greater, Less, GreaterOrEqual,
LessOrEqual, And, Or and Xor to the comparisons and logical operators, BitwiseAnd, Or, Xor and BitShift to the bit
operators (direction), with ONNX's multidirectional broadcasting (``dmlpy.onnx.arithmetic``), Where to
ELEMENT_WISE_IF, its three inputs broadcast together, and PRelu to PARAMETERIZED_RELU, its slope broadcast to X's
shape; an ONNX bool (a comparison's output, a bool graph input or initializer) is a UINT8 tensor of
1s and 0s, read only by the op types that take bools; Clip lowers to ELEMENT_WISE_CLIP1, its bounds read from
attributes or initializers (``dmlpy.onnx.clip``); QuantizeLinear and DequantizeLinear take per-tensor, per-axis and
blocked scales (opset 21's ``block_size``: the axis read split into equal blocks, the scale broadcast over each with
a 0 stride), 8-bit outputs, and INT4 and UINT4 through FL 6_3's QUANTIZE and DEQUANTIZE (a missing zero point is
ONNX's 0); Slice, Split, Concat, Pad, Tile, SpaceToDepth and DepthToSpace lower to SLICE1, SPLIT, JOIN, PADDING1, TILE
and the *1 forms of SPACE_TO_DEPTH and DEPTH_TO_SPACE, their fields (starts, split, pads, repeats, ...) read from
initializers (``dmlpy.onnx.movement``; an empty output and a negative pad are refused). An If whose condition the input
shapes or values decide takes its branch (``dmlpy.onnx.branches``); a type an operator lacks goes through operators
computing the same values (``dmlpy.onnx.equivalents``: Relu of INT64 as MAX with 0). Any other node (the op types dmlpy
does not run are named in one message, each with its count and first node), and any form DirectML cannot express (float8
and 2-bit types, 16-bit quantized outputs, sequences, a Clip of INT4 or UINT4 or with a bound given as a graph input),
is refused at ``prepare``, and a form one DirectML graph cannot express (a split output read another way, which would
need a Reshape node) at the first ``run`` of those shapes, with a message naming the node, its operator and opset, and
why; so is a model that contradicts itself (an output declared of a type its node does not compute, an ``output_dtype``
its zero point contradicts), and every malformed model (a dml.DmlError, the original exception as its ``__cause__``).
Initializers are graph inputs uploaded once at ``prepare``; dmlpy keeps no host copy of them. The graph is compiled
(fused where it can be) on the first ``run`` for each set of input shapes, then reused: a prepared model keeps the
``max_compiled_graphs`` (64) most recently used; ``run`` may be called from several threads at once. ``run`` takes NumPy
arrays (host memory): a pyopencl array and whatever NumPy holds only as Python objects are refused, saying what to pass;
a masked array's mask reaches the outputs it reaches.

External data (initializers stored in files beside the model) is read only from the model's folder: the folder
of the .onnx file given to ``prepare``, or the one named by ``prepare(model, base_dir=...)``; a location that
is absolute, goes through ``..`` or through a symbolic link out of that folder, or names a missing file, a folder's
form (``w.bin/``) or no regular file, is refused, and so is a ModelProto with external data and no folder: the
working directory is never read. The file is opened one component at a time from the folder, never following a
link by name, so nothing swapped in meanwhile is read; a hard link in the folder is the folder's file. Only the
graph's initializers are read from external data: a tensor stored externally anywhere else (a Constant's value, a
subgraph) is refused.

Devices: ``prepare(model, dml_device=device)`` runs the model on a dml.Device (``dml.create_device(cl_device=
dml.devices()[i].cl_device)``), by default on dmlpy's default device (a GPU where one builds kernels). onnx.backend's
``device`` argument chooses nothing: ``supports_device("CPU")`` and ``("GPU")`` say whether dmlpy sees such an
OpenCL device that builds kernels, and ``prepare(model, "GPU")`` checks it, as onnxruntime's backend checks its
device (docs/api/onnx.md). This module needs the ``onnx`` package (``pip install dmlpy[onnx]``).
"""

# onnx is an optional dependency: without it, this message rather than the first submodule's bare ImportError.
try:
    import onnx  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError("dmlpy.onnx needs the onnx package: pip install 'dmlpy[onnx]'") from error

from dmlpy.onnx.backend import MAX_COMPILED_GRAPHS, DmlBackend, DmlBackendRep

# MAX_DIMENSIONS and SUPPORTED_OPS: public names that were never in __all__, importable by name, as they were
# from dmlpy/onnx.py.
from dmlpy.onnx.elements import MAX_DIMENSIONS as MAX_DIMENSIONS
from dmlpy.onnx.elements import NodeRefused
from dmlpy.onnx.nodes import SUPPORTED_OPS as SUPPORTED_OPS

prepare = DmlBackend.prepare
"""``prepare(model, device=None, *, dml_device=None, base_dir=None)``: ``DmlBackend.prepare``, onnx.backend's entry
point (not DirectML). Checks and lowers ``model`` (a ModelProto, a .onnx path or its bytes) and uploads its
initializers to ``dml_device`` (a dml.Device; None: dmlpy's default device); the ``DmlBackendRep`` it returns runs
the model with ``rep.run([x, ...])``. ``device`` ("CPU" or "GPU") chooses nothing: given, ``supports_device`` must
say True for it. ``base_dir``: the folder of the model's external data."""
run_model = DmlBackend.run_model
"""``run_model(model, inputs, device=None, **options)``: onnx.backend's one-shot run (not DirectML),
``prepare(model, device, **options).run(inputs)``; the outputs as a tuple of NumPy arrays."""
run_node = DmlBackend.run_node
"""``run_node(node, inputs, device=None, **options)``: ``DmlBackend.run_node`` (not DirectML), one ONNX node run
on NumPy arrays in the node's input order, as a model of that node alone."""
supports_device = DmlBackend.supports_device
"""``supports_device(device)``: ``DmlBackend.supports_device`` (not DirectML), whether dmlpy sees an OpenCL device of
the kind ``device`` names, ``"CPU"`` or ``"GPU"``, whose compiler builds kernels (False for any other name: ONNX's
``"CUDA"``). It does not choose the device ``prepare`` runs on: ``dml_device=`` does."""

__all__ = [
    "MAX_COMPILED_GRAPHS",
    "DmlBackend",
    "DmlBackendRep",
    "NodeRefused",
    "prepare",
    "run_model",
    "run_node",
    "supports_device",
]
