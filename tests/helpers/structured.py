"""Descriptors of the operators that are not element-wise, built from what ``check_support.py`` varies: a data
type per tensor (C names; None leaves a nullable one out) and one DimensionCount for every tensor. Each builder
gives the tensors Sizes that agree with the operator's shape rules at that DimensionCount, so that only the
support table can refuse the case; None where no such descriptor exists (a matrix of fewer than 2 dimensions)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dmlpy as dml
from dmlpy.ops._base import OperatorDescBase

T = dml.TensorDataType
Types = dict[str, T | None]
Builder = Callable[[Types, int], OperatorDescBase | None]
M, K, N = 2, 3, 4


def tensor(data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def _matrix_roles(dims: int) -> dict[str, tuple[int, ...]]:
    """Sizes by role for a matrix product of ``dims`` dimensions: A {.., M, K}, B {.., K, N}, the output (and C,
    the bias) {.., M, N}, a scale or zero point with one value (every size 1)."""
    batch = (2, 1, 3, 1, 2, 1, 1)[: dims - 2]
    return {"a": (*batch, M, K), "b": (*batch, K, N), "out": (*batch, M, N), "one": (1,) * dims}


def _role(c_name: str) -> str:
    if c_name in ("ATensor", "BTensor"):
        return c_name[0].lower()
    if c_name in ("CTensor", "BiasTensor", "OutputTensor"):
        return "out"
    return "one"


def matrix_product(desc_class: type[OperatorDescBase], **fields: Any) -> Builder:
    """The builder of a matrix product of ``desc_class`` (its other ``fields`` as given)."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        if dims < 2:
            return None
        roles = _matrix_roles(dims)
        tensors = {name: None if t is None else tensor(t, roles[_role(name)]) for name, t in types.items()}
        return desc_class.model_validate({**tensors, **fields})

    return build


def normalization(desc_class: type[OperatorDescBase], per_channel: tuple[str, ...] = (), **fields: Any) -> Builder:
    """The builder of a normalization of ``desc_class``: the data {2, 3, 4, 5, ..} and, for the tensors named in
    ``per_channel`` (C names: statistics, scales, biases and their gradients), one value per channel {1, 3, 1, ..}
    (every dimension 1 or the data's, ChannelCount kept); its other ``fields`` as given."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        data = (2, 3, 4, 5, 2, 3, 2, 3, 2)[:dims]
        channel = tuple(size if dim == 1 else 1 for dim, size in enumerate(data))
        tensors = {
            name: None if t is None else tensor(t, channel if name in per_channel else data)
            for name, t in types.items()
        }
        return desc_class.model_validate({**tensors, **fields})

    return build


def along_axes(desc_class: type[OperatorDescBase], **fields: Any) -> Builder:
    """The builder of an operator of ``desc_class`` that works along axes of InputTensor {2, 3, 4, ..}: REDUCE,
    ARGMIN and ARGMAX reduce dimension 0 (Axes [0], the output {1, 3, 4, ..}), TOP_K and TOP_K1 keep K = 2 of the
    last (the outputs {2, 3, .., 2}), the cumulative operators run along dimension 0 (the output the input's). A
    ``variant`` (check_support.py's, for REDUCE: ``{"Function": "ARGMAX"}``) sets those fields."""

    def build(types: Types, dims: int, variant: dict[str, str] | None = None) -> OperatorDescBase | None:
        data = (2, 3, 4, 5, 2, 3, 2, 3, 2)[:dims]
        if "Axes" in fields:
            out = (1, *data[1:])
        elif "K" in fields:
            out = (*data[:-1], fields["K"])
        else:
            out = data
        tensors = {
            name: None if t is None else tensor(t, data if name == "InputTensor" else out) for name, t in types.items()
        }
        axis = {"Axis": dims - 1} if "K" in fields else {}
        return desc_class.model_validate({**tensors, **fields, **axis, **(variant or {})})

    return build


_STATISTICS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor")
_GRADIENTS = ("MeanTensor", "VarianceTensor", "ScaleTensor", "OutputScaleGradientTensor", "OutputBiasGradientTensor")
_WINDOW = {"CrossChannel": True, "LocalSize": 3, "Alpha": 0.0001, "Beta": 0.75, "Bias": 1.0}

_CONVOLUTION_ROLES = {"InputTensor": "input", "FilterTensor": "filter", "OutputTensor": "out"}
_PER_OUTPUT_CHANNEL = ("BiasTensor", "FilterScaleTensor", "FilterZeroPointTensor")


def convolution(desc_class: type[OperatorDescBase], **fields: Any) -> Builder:
    """The builder of a convolution of ``desc_class`` over ``dims - 2`` spatial dimensions: an input {1, 2, 3, ..},
    a filter {4, 2, 2, ..} (4 output channels), the output {1, 4, 2, ..}; the bias and the filter's scale and zero
    point one value per output channel {1, 4, 1, ..}, the other scales and zero points one value; strides and
    dilations 1, no padding; its other ``fields`` as given. None below 3 dimensions (no spatial dimension). One
    descriptor per DimensionCount is validated whole; the others are copies with their tensors replaced (frozen
    tensors, made once per type and Sizes), which keeps QUANTIZED_LINEAR_CONVOLUTION's ten tensors quick."""
    arrays = ("Strides", "Dilations", "StartPadding", "EndPadding", "OutputPadding")
    by_alias = {f.alias: name for name, f in desc_class.model_fields.items()}
    arrays = tuple(name for name in arrays if name in by_alias)
    made = functools.cache(lambda t, sizes: dml.TensorDesc(desc=tensor(t, sizes)))
    templates: dict[int, OperatorDescBase] = {}

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        if dims < 3:
            return None
        spatial = dims - 2
        roles = {
            "input": (1, 2, *(3,) * spatial),
            "filter": (4, 2, *(2,) * spatial),
            "out": (1, 4, *(2,) * spatial),
            "channel": (1, 4, *(1,) * spatial),
            "one": (1,) * dims,
        }

        def role(name: str) -> str:
            return _CONVOLUTION_ROLES.get(name, "channel" if name in _PER_OUTPUT_CHANNEL else "one")

        tensors = {name: None if t is None else made(t, roles[role(name)]) for name, t in types.items()}
        if dims not in templates:
            windows = {name: [1 if name in ("Strides", "Dilations") else 0] * spatial for name in arrays}
            templates[dims] = desc_class.model_validate({**tensors, **windows, "GroupCount": 1, **fields})
        return templates[dims].model_copy(update={by_alias[name]: value for name, value in tensors.items()})

    return build


_POOLING_ROLES = {
    "InputTensor": "input",
    "OutputTensor": "out",
    "OutputIndicesTensor": "out",
    "InputGradientTensor": "out",
    "OutputGradientTensor": "input",
}


def pooling(desc_class: type[OperatorDescBase], **fields: Any) -> Builder:
    """The builder of a pooling operator (or gradient) of ``desc_class`` over ``dims - 2`` spatial dimensions: the
    forward input {1, 2, 3, ..} (InputTensor, a gradient's OutputGradientTensor), a window of 2 with stride 1 and
    no padding, the forward output {1, 2, 2, ..} (OutputTensor, OutputIndicesTensor, InputGradientTensor); scales
    and zero points one value; its other ``fields`` as given. None below 3 dimensions (no spatial dimension)."""
    dilated = any(f.alias == "Dilations" for f in desc_class.model_fields.values())

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        if dims < 3:
            return None
        spatial = dims - 2
        roles = {"input": (1, 2, *(3,) * spatial), "out": (1, 2, *(2,) * spatial), "one": (1,) * dims}
        tensors = {
            name: None if t is None else tensor(t, roles[_POOLING_ROLES.get(name, "one")]) for name, t in types.items()
        }
        window = {"Strides": [1] * spatial, "WindowSize": [2] * spatial, "StartPadding": [0] * spatial}
        window |= {"EndPadding": [0] * spatial, **({"Dilations": [1] * spatial} if dilated else {})}
        return desc_class.model_validate({**tensors, **window, **fields})

    return build


def unpooling(types: Types, dims: int) -> OperatorDescBase | None:
    """MAX_UNPOOLING: values and indices {1, 2, 2, ..}, an output {1, 2, 3, ..} (its Sizes the caller's)."""
    roles = {"OutputTensor": (1, 2, *(3,) * (dims - 2))[:dims]}
    sizes = (1, 2, *(2,) * (dims - 2))[:dims]
    tensors = {name: None if t is None else tensor(t, roles.get(name, sizes)) for name, t in types.items()}
    return dml.MaxUnpoolingOperatorDesc.model_validate(tensors)


def reshaping(operator: str) -> Builder:
    """The builder of SLICE, SLICE1, SLICE_GRAD, JOIN, SPLIT, PADDING, PADDING1 or TILE over ``dims`` dimensions:
    sizes of 2 and 3, a window, two parts along Axis 0, a padding or a repeat that fit them."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        two, three = (2,) * dims, (3,) * dims
        zeros, ones = [0] * dims, [1] * dims

        def typed(name: str, sizes: tuple[int, ...]) -> dml.BufferTensorDesc:
            data_type = types[name]
            assert data_type is not None
            return tensor(data_type, sizes)

        doubled = (4, *two[1:])
        window = {"InputWindowOffsets": zeros, "InputWindowSizes": [3] * dims}
        fields: dict[str, Callable[[], dict[str, Any]]] = {
            "SLICE": lambda: {
                "InputTensor": typed("InputTensor", three), "OutputTensor": typed("OutputTensor", two),
                "Offsets": ones, "Sizes": [2] * dims, "Strides": ones,
            },
            "SLICE1": lambda: {
                "InputTensor": typed("InputTensor", three), "OutputTensor": typed("OutputTensor", three),
                **window, "InputWindowStrides": [(-1) ** d for d in range(dims)],
            },
            "SLICE_GRAD": lambda: {
                "InputGradientTensor": typed("InputGradientTensor", two),
                "OutputGradientTensor": typed("OutputGradientTensor", three),
                **window, "InputWindowStrides": [2] * dims,
            },
            "JOIN": lambda: {
                "InputTensors": [typed("InputTensors", two)] * 2, "OutputTensor": typed("OutputTensor", doubled),
                "Axis": 0,
            },
            "SPLIT": lambda: {
                "InputTensor": typed("InputTensor", doubled), "OutputTensors": [typed("OutputTensors", two)] * 2,
                "Axis": 0,
            },
            "PADDING": lambda: {
                "InputTensor": typed("InputTensor", two), "OutputTensor": typed("OutputTensor", three),
                "PaddingMode": "CONSTANT", "PaddingValue": 0.0, "StartPadding": ones, "EndPadding": zeros,
            },
            "PADDING1": lambda: {
                "InputTensor": typed("InputTensor", two), "OutputTensor": typed("OutputTensor", three),
                "PaddingMode": "REFLECTION", "PaddingValueDataType": types["OutputTensor"],
                "PaddingValue": {"Bytes": [0] * 8}, "StartPadding": ones, "EndPadding": zeros,
            },
            "TILE": lambda: {
                "InputTensor": typed("InputTensor", two), "OutputTensor": typed("OutputTensor", doubled),
                "Repeats": [2, *ones[1:]],
            },
        }  # fmt: skip
        return dml.OPERATORS[dml.OperatorType[operator]].model_validate(fields[operator]())

    return build


RESHAPING = ("SLICE", "SLICE1", "SLICE_GRAD", "JOIN", "SPLIT", "PADDING", "PADDING1", "TILE")


def _padded(dims: int, *last: int) -> tuple[int, ...]:
    """``last`` right-aligned in ``dims`` dimensions (leading 1s; the last sizes kept where ``dims`` is fewer)."""
    return ((1,) * dims + last)[-dims:]


def indexing(operator: str) -> Builder:
    """The builder of a gather, scatter, ONE_HOT or generator over ``dims`` dimensions: an input {.., 3} read along
    its last dimension by indices {.., 2} (GATHER_ND's and SCATTER_ND's {.., 2, 1}: two 1-coordinate tuples),
    ONE_HOT's indices {.., 1} into an output {.., 4} with values {.., 2}, a generator's output {.., 2, 3} (a Philox
    state {.., 6}), its ValueDataType the output's and its values zero Bytes."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        nd = dims >= 2
        tuples = _padded(dims, 2, 1) if nd else (1,)
        roles = {
            "InputTensor": _padded(dims, 3),
            "IndicesTensor": tuples if operator in ("GATHER_ND", "GATHER_ND1", "SCATTER_ND") else _padded(dims, 2),
            "UpdatesTensor": _padded(dims, 2) if nd or operator != "SCATTER_ND" else (1,),
            "OutputTensor": _padded(dims, 2),
            "ValuesTensor": _padded(dims, 2),
            "InputStateTensor": _padded(dims, 6),
            "OutputStateTensor": _padded(dims, 6),
        }
        if operator == "ONE_HOT":
            roles |= {"IndicesTensor": _padded(dims, 1), "OutputTensor": _padded(dims, 4)}
        elif operator in ("SCATTER_ELEMENTS", "SCATTER_ND"):
            roles["OutputTensor"] = roles["InputTensor"]
        elif operator in ("GATHER_ND", "GATHER_ND1"):
            roles["OutputTensor"] = _padded(dims, 2) if nd else (1,)
        elif operator.startswith(("FILL", "DIAGONAL")):
            roles["OutputTensor"] = roles["InputTensor"] = _padded(dims, 2, 3)
        tensors = {name: None if t is None else tensor(t, roles[name]) for name, t in types.items()}
        output = types.get("OutputTensor")
        zero = {"Bytes": [0] * 8}
        value = {"ValueDataType": output if output is not None else "FLOAT32", "Value": zero}
        counts = {"InputDimensionCount": 1, "IndicesDimensionCount": 2 if nd else 1}
        fields: dict[str, Any] = {
            "GATHER": {"Axis": dims - 1, "IndexDimensions": 1},
            "GATHER_ELEMENTS": {"Axis": dims - 1},
            "GATHER_ND": counts,
            "GATHER_ND1": {**counts, "BatchDimensionCount": 0},
            "SCATTER_ELEMENTS": {"Axis": dims - 1},
            "SCATTER_ND": counts,
            "ONE_HOT": {"Axis": dims - 1},
            "FILL_VALUE_CONSTANT": value,
            "FILL_VALUE_SEQUENCE": {"ValueDataType": value["ValueDataType"], "ValueStart": zero, "ValueDelta": zero},
            "DIAGONAL_MATRIX": {"Offset": 0, "Value": 1.0},
            "DIAGONAL_MATRIX1": {**value, "DiagonalFillBegin": 0, "DiagonalFillEnd": 1},
            "RANDOM_GENERATOR": {"Type": "PHILOX_4X32_10"},
        }[operator]
        desc_class = dml.OPERATORS[dml.OperatorType[operator]]
        return desc_class.model_validate({**tensors, **fields})

    return build


INDEXING = (
    "GATHER",
    "GATHER_ELEMENTS",
    "GATHER_ND",
    "GATHER_ND1",
    "SCATTER_ELEMENTS",
    "SCATTER_ND",
    "ONE_HOT",
    "FILL_VALUE_CONSTANT",
    "FILL_VALUE_SEQUENCE",
    "DIAGONAL_MATRIX",
    "DIAGONAL_MATRIX1",
    "RANDOM_GENERATOR",
)


def resampling(operator: str) -> Builder:
    """The builder of UPSAMPLE_2D, a RESAMPLE operator or a gradient over ``dims`` dimensions: UPSAMPLE_2D's input
    {2, .., 2, 3} doubled in Height (ScaleSize {Width 1, Height 2}; None below 2 dimensions), a RESAMPLE operator's
    {2, ..} to {4, ..} with Scales 2 (a gradient's InputGradientTensor {4, ..}, OutputGradientTensor {2, ..}), pixel
    offsets 0.5 and -0.5, LINEAR."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        small, large = {"InputTensor", "OutputGradientTensor"}, (4,) * dims
        fields: dict[str, Any] = {"InterpolationMode": "LINEAR"}
        if operator == "UPSAMPLE_2D":
            if dims < 2:
                return None
            roles = {"InputTensor": (*(2,) * (dims - 2), 2, 3), "OutputTensor": (*(2,) * (dims - 2), 4, 3)}
            fields["ScaleSize"] = {"Width": 1, "Height": 2}
        else:
            roles = {name: (2,) * dims if name in small else large for name in types}
            fields["Scales"] = [2.0] * dims
        if operator not in ("UPSAMPLE_2D", "RESAMPLE"):
            fields |= {"InputPixelOffsets": [0.5] * dims, "OutputPixelOffsets": [-0.5] * dims}
        if operator in ("RESAMPLE2", "RESAMPLE3", "RESAMPLE_GRAD1"):
            fields["RoundingDirection"] = "DECREASING"
        if operator == "RESAMPLE3":
            fields["Antialiased"] = True
        tensors = {name: None if t is None else tensor(t, roles[name]) for name, t in types.items()}
        return dml.OPERATORS[dml.OperatorType[operator]].model_validate({**tensors, **fields})

    return build


RESAMPLING = ("UPSAMPLE_2D", "RESAMPLE", "RESAMPLE1", "RESAMPLE2", "RESAMPLE3", "RESAMPLE_GRAD", "RESAMPLE_GRAD1")


def regions(operator: str) -> Builder:
    """The builder of ROI_POOLING, ROI_ALIGN, ROI_ALIGN1 or ROI_ALIGN_GRAD over ``dims`` dimensions (only 4 can pass
    the tables: the data tensors are exactly 4-D): an input {2, 3, 5, 5}, 3 regions ({.., 3, 5} for ROI_POOLING,
    {.., 3, 4} else) with batch indices {.., 3}, the output (a gradient's InputGradientTensor) {3, 3, 2, 2}, the
    gradients' outputs the input's and the regions' Sizes; PooledSize 2 x 2, AVERAGE, LINEAR, 1 to 2 samples."""
    width = 5 if operator == "ROI_POOLING" else 4
    fields: dict[str, Any] = (
        {"SpatialScale": 1.0, "PooledSize": {"Width": 2, "Height": 2}}
        if operator == "ROI_POOLING"
        else {
            "ReductionFunction": "AVERAGE", "InterpolationMode": "LINEAR", "SpatialScaleX": 1.0,
            "SpatialScaleY": 1.0, "MinimumSamplesPerOutput": 1, "MaximumSamplesPerOutput": 2,
        }
    )  # fmt: skip
    if operator in ("ROI_ALIGN", "ROI_ALIGN1"):
        fields["OutOfBoundsInputValue"] = 0.0
    if operator in ("ROI_ALIGN1", "ROI_ALIGN_GRAD"):
        fields |= {"InputPixelOffset": 0.5, "OutputPixelOffset": -0.5, "AlignRegionsToCorners": False}

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        roles = {
            "InputTensor": _padded(dims, 2, 3, 5, 5),
            "ROITensor": _padded(dims, 3, width),
            "BatchIndicesTensor": _padded(dims, 3),
            "OutputTensor": _padded(dims, 3, 3, 2, 2),
            "InputGradientTensor": _padded(dims, 3, 3, 2, 2),
            "OutputGradientTensor": _padded(dims, 2, 3, 5, 5),
            "OutputROIGradientTensor": _padded(dims, 3, width),
        }
        tensors = {name: None if t is None else tensor(t, roles[name]) for name, t in types.items()}
        return dml.OPERATORS[dml.OperatorType[operator]].model_validate({**tensors, **fields})

    return build


REGIONS = ("ROI_POOLING", "ROI_ALIGN", "ROI_ALIGN1", "ROI_ALIGN_GRAD")


def rearranging(operator: str) -> Builder:
    """The builder of SPACE_TO_DEPTH(1), DEPTH_TO_SPACE(1), VALUE_SCALE_2D, REVERSE_SUBSEQUENCES or
    NONZERO_COORDINATES over ``dims`` dimensions: the pages' {1, 2, 4, 6} <-> {1, 8, 2, 3} with BlockSize 2 and
    VALUE_SCALE_2D's {1, 3, 2, 2} (None but at 4 dimensions), the sequences {2, 3, 4, ..} along Axis 0 (their
    lengths {1, 3, 4, ..}), NONZERO_COORDINATES' count {1, ..} and coordinates {1, .., M, dims} (None at 1)."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        four_only = operator not in ("REVERSE_SUBSEQUENCES", "NONZERO_COORDINATES")
        if (four_only and dims != 4) or (operator == "NONZERO_COORDINATES" and dims < 2):
            return None
        data = (2, 3, 4, 5, 2, 3, 2, 3, 2)[:dims]
        space, depth = (1, 2, 4, 6), (1, 8, 2, 3)
        roles: dict[str, tuple[int, ...]]
        fields: dict[str, Any] = {"BlockSize": 2}
        if operator in ("SPACE_TO_DEPTH", "SPACE_TO_DEPTH1", "DEPTH_TO_SPACE", "DEPTH_TO_SPACE1"):
            to_depth = operator.startswith("SPACE")
            roles = {"InputTensor": space if to_depth else depth, "OutputTensor": depth if to_depth else space}
            fields |= {"Order": "COLUMN_ROW_DEPTH"} if operator.endswith("1") else {}
        elif operator == "VALUE_SCALE_2D":
            roles = dict.fromkeys(("InputTensor", "OutputTensor"), (1, 3, 2, 2))
            fields = {"Scale": 0.5, "Bias": [1.0, 2.0, 3.0]}
        elif operator == "REVERSE_SUBSEQUENCES":
            roles = {"InputTensor": data, "OutputTensor": data, "SequenceLengthsTensor": (1, *data[1:])}
            fields = {"Axis": 0}
        else:
            m = 1
            for size in data:
                m *= size
            roles = {"InputTensor": data, "OutputCountTensor": (1,) * dims,
                     "OutputCoordinatesTensor": (*(1,) * (dims - 2), m, dims)}  # fmt: skip
            fields = {}
        tensors = {name: None if t is None else tensor(t, roles[name]) for name, t in types.items()}
        return dml.OPERATORS[dml.OperatorType[operator]].model_validate({**tensors, **fields})

    return build


REARRANGING = (
    "VALUE_SCALE_2D",
    "SPACE_TO_DEPTH",
    "DEPTH_TO_SPACE",
    "REVERSE_SUBSEQUENCES",
    "DEPTH_TO_SPACE1",
    "SPACE_TO_DEPTH1",
    "NONZERO_COORDINATES",
)


_SIGMOID, _TANH = {"Type": "ACTIVATION_SIGMOID"}, {"Type": "ACTIVATION_TANH"}
_RECURRENT = {  # operator -> (gates, its own fields)
    "RNN": (1, {"ActivationDescs": [_TANH]}),
    "LSTM": (
        4,
        {
            "ActivationDescs": [_SIGMOID, _TANH, _TANH],
            "ClipThreshold": 0.0,
            "UseClipThreshold": False,
            "CoupleInputForget": False,
        },
    ),
    "GRU": (3, {"ActivationDescs": [_SIGMOID, _TANH], "LinearBeforeReset": False}),
}


def recurrent(operator: str) -> Builder:
    """The builder of RNN, LSTM or GRU, FORWARD: 3 steps, a batch of 2, input_size 4, hidden_size 5, each tensor in
    its page's layout (4-D; right-aligned in ``dims`` dimensions, which only 4 obeys)."""
    gates, fields = _RECURRENT[operator]
    seq, batch, inputs, hidden = 3, 2, 4, 5
    single = (1, 1, batch, hidden)
    layouts = {
        "InputTensor": (1, seq, batch, inputs),
        "WeightTensor": (1, 1, gates * hidden, inputs),
        "RecurrenceTensor": (1, 1, gates * hidden, hidden),
        "BiasTensor": (1, 1, 1, 2 * gates * hidden),
        "HiddenInitTensor": single,
        "CellMemInitTensor": single,
        "SequenceLengthsTensor": (1, 1, 1, batch),
        "PeepholeTensor": (1, 1, 1, 3 * hidden),
        "OutputSequenceTensor": (seq, 1, batch, hidden),
        "OutputSingleTensor": single,
        "OutputCellSingleTensor": single,
    }

    made = functools.cache(lambda t, sizes: dml.TensorDesc(desc=tensor(t, sizes)))
    desc_class = dml.OPERATORS[dml.OperatorType[operator]]
    own = {**fields, "ActivationDescs": tuple(map(dml.RecurrentActivation.model_validate, fields["ActivationDescs"]))}

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        tensors = {name: None if t is None else made(t, _padded(dims, *layouts[name])) for name, t in types.items()}
        return desc_class.model_validate({**tensors, "Direction": "FORWARD", **own})

    return build


def dynamic_quantize(types: Types, dims: int) -> OperatorDescBase | None:
    """DYNAMIC_QUANTIZE_LINEAR over {2, 3, 4, ..}: OutputTensor the input's Sizes, the scale and zero point one
    element { 1, ..., 1 }."""
    data, one = (2, 3, 4, 5, 2, 3, 2, 3, 2)[:dims], (1,) * dims
    tensors = {name: None if t is None else tensor(t, data if name in ("InputTensor", "OutputTensor") else one)
               for name, t in types.items()}  # fmt: skip
    return dml.DynamicQuantizeLinearOperatorDesc.model_validate(tensors)


def attention(operator: str) -> Builder:
    """The builder of MULTIHEAD_ATTENTION or MULTIHEAD_ATTENTION1 over ``dims`` dimensions, each tensor in its page
    shape right-aligned (leading 1s; only 3 to 5 can pass with a query): batchSize 2, sequenceLength 3,
    keyValueSequenceLength 4 (3 where a stacked tensor gives the key with the query), a past of 2, 2 heads of size 4
    (MULTIHEAD_ATTENTION1: 4 query heads sharing 2 key and value heads, unless a stacked tensor holds both),
    valueHeadSize 5 (4 where a stacked tensor gives the value); MaskType KEY_SEQUENCE_LENGTH, a mask [1, 2]."""

    def build(types: Types, dims: int) -> OperatorDescBase | None:
        given = {name for name, t in types.items() if t is not None}
        stacked = {name for name in given if name.startswith("Stacked")}
        b, s, p, kv, hs = 2, 3, 2, 2, 4
        q = 4 if operator == "MULTIHEAD_ATTENTION1" and not stacked else kv
        t = s if stacked & {"StackedQueryKeyTensor", "StackedQueryKeyValueTensor"} else 4
        vs = hs if stacked & {"StackedKeyValueTensor", "StackedQueryKeyValueTensor"} else 5
        layouts = {
            "QueryTensor": (b, s, q * hs),
            "KeyTensor": (b, t, kv * hs),
            "ValueTensor": (b, t, kv * vs),
            "StackedQueryKeyTensor": (b, s, kv, 2, hs),
            "StackedKeyValueTensor": (b, t, kv, 2, hs),
            "StackedQueryKeyValueTensor": (b, s, kv, 3, hs),
            "BiasTensor": (q * hs + kv * hs + kv * vs,),
            "MaskTensor": (1, b),
            "RelativePositionBiasTensor": (b, q, s, p + t),
            "PastKeyTensor": (b, kv, p, hs),
            "PastValueTensor": (b, kv, p, vs),
            "PastSequenceLengthsTensor": (b,),
            "OutputTensor": (b, s, q * vs),
            "OutputPresentKeyTensor": (b, kv, p + t if "PastKeyTensor" in given else t, hs),
            "OutputPresentValueTensor": (b, kv, p + t if "PastValueTensor" in given else t, vs),
        }
        heads = (
            {"HeadCount": kv} if operator == "MULTIHEAD_ATTENTION" else {"QueryHeadCount": q, "KeyValueHeadCount": kv}
        )
        tensors = {
            name: None if ty is None else tensor(ty, _padded(dims, *layouts[name])) for name, ty in types.items()
        }
        fields = {"Scale": 0.5, "MaskFilterValue": -10000.0, "MaskType": "KEY_SEQUENCE_LENGTH", **heads}
        return dml.OPERATORS[dml.OperatorType[operator]].model_validate({**tensors, **fields})

    return build


def adam(types: Types, dims: int) -> OperatorDescBase | None:
    """ADAM_OPTIMIZER over {2, 3, 4, ..}: the parameters, moments, gradient and outputs of those Sizes, the training
    step { 1, ..., 1 }."""
    data, one = (2, 3, 4, 5, 2, 3, 2, 3, 2)[:dims], (1,) * dims
    tensors = {name: None if t is None else tensor(t, one if name == "TrainingStepTensor" else data)
               for name, t in types.items()}  # fmt: skip
    return dml.AdamOptimizerOperatorDesc.model_validate(
        {**tensors, "LearningRate": 0.001, "Beta1": 0.9, "Beta2": 0.999, "Epsilon": 1e-8}
    )


SAMPLES: dict[str, Builder] = {
    "GEMM": matrix_product(dml.GemmOperatorDesc, TransA="NONE", TransB="NONE", Alpha=1.0, Beta=1.0),
    "MATRIX_MULTIPLY_INTEGER": matrix_product(dml.MatrixMultiplyIntegerOperatorDesc),
    "QUANTIZED_LINEAR_MATRIX_MULTIPLY": matrix_product(dml.QuantizedLinearMatrixMultiplyOperatorDesc),
    "MATRIX_MULTIPLY_INTEGER_TO_FLOAT": matrix_product(dml.MatrixMultiplyIntegerToFloatOperatorDesc),
    "CONVOLUTION": convolution(dml.ConvolutionOperatorDesc, Mode="CROSS_CORRELATION", Direction="FORWARD"),
    "CONVOLUTION_INTEGER": convolution(dml.ConvolutionIntegerOperatorDesc),
    "QUANTIZED_LINEAR_CONVOLUTION": convolution(dml.QuantizedLinearConvolutionOperatorDesc),
    "BATCH_NORMALIZATION": normalization(dml.BatchNormalizationOperatorDesc, _STATISTICS, Spatial=True, Epsilon=1e-5),
    "BATCH_NORMALIZATION_GRAD": normalization(dml.BatchNormalizationGradOperatorDesc, _GRADIENTS, Epsilon=1e-5),
    "BATCH_NORMALIZATION_TRAINING": normalization(
        dml.BatchNormalizationTrainingOperatorDesc,
        ("ScaleTensor", "BiasTensor", "OutputMeanTensor", "OutputVarianceTensor"),
        Epsilon=1e-5,
    ),
    "BATCH_NORMALIZATION_TRAINING_GRAD": normalization(
        dml.BatchNormalizationTrainingGradOperatorDesc, _GRADIENTS, Epsilon=1e-5
    ),
    "MEAN_VARIANCE_NORMALIZATION": normalization(
        dml.MeanVarianceNormalizationOperatorDesc,
        ("ScaleTensor", "BiasTensor"),
        CrossChannel=False,
        NormalizeVariance=True,
        Epsilon=1e-5,
    ),
    "MEAN_VARIANCE_NORMALIZATION1": normalization(
        dml.MeanVarianceNormalization1OperatorDesc,
        ("ScaleTensor", "BiasTensor"),
        Axes=[0],
        NormalizeVariance=True,
        Epsilon=1e-5,
    ),
    "MEAN_VARIANCE_NORMALIZATION2": normalization(
        dml.MeanVarianceNormalization2OperatorDesc,
        ("ScaleTensor", "BiasTensor"),
        Axes=[0],
        UseMean=True,
        UseVariance=True,
        Epsilon=1e-5,
    ),
    "LOCAL_RESPONSE_NORMALIZATION": normalization(dml.LocalResponseNormalizationOperatorDesc, **_WINDOW),
    "LOCAL_RESPONSE_NORMALIZATION_GRAD": normalization(dml.LocalResponseNormalizationGradOperatorDesc, **_WINDOW),
    "LP_NORMALIZATION": normalization(dml.LpNormalizationOperatorDesc, Axis=0, Epsilon=1e-5, P=2),
    "REDUCE": along_axes(dml.ReduceOperatorDesc, Function="SUM", Axes=[0]),
    "ARGMIN": along_axes(dml.ArgMinOperatorDesc, Axes=[0], AxisDirection="INCREASING"),
    "ARGMAX": along_axes(dml.ArgMaxOperatorDesc, Axes=[0], AxisDirection="DECREASING"),
    "TOP_K": along_axes(dml.TopKOperatorDesc, K=2),
    "TOP_K1": along_axes(dml.TopK1OperatorDesc, K=2, AxisDirection="INCREASING"),
    "CUMULATIVE_SUMMATION": along_axes(
        dml.CumulativeSummationOperatorDesc, Axis=0, AxisDirection="INCREASING", HasExclusiveSum=False
    ),
    "CUMULATIVE_PRODUCT": along_axes(
        dml.CumulativeProductOperatorDesc, Axis=0, AxisDirection="DECREASING", HasExclusiveProduct=True
    ),
    "AVERAGE_POOLING": pooling(dml.AveragePoolingOperatorDesc, IncludePadding=False),
    "AVERAGE_POOLING1": pooling(dml.AveragePooling1OperatorDesc, IncludePadding=True),
    "LP_POOLING": pooling(dml.LpPoolingOperatorDesc, P=2),
    "LP_POOLING1": pooling(dml.LpPooling1OperatorDesc, P=1),
    "MAX_POOLING": pooling(dml.MaxPoolingOperatorDesc),
    "MAX_POOLING1": pooling(dml.MaxPooling1OperatorDesc),
    "MAX_POOLING2": pooling(dml.MaxPooling2OperatorDesc),
    "QUANTIZED_LINEAR_AVERAGE_POOLING": pooling(dml.QuantizedLinearAveragePoolingOperatorDesc, IncludePadding=False),
    "AVERAGE_POOLING_GRAD": pooling(dml.AveragePoolingGradOperatorDesc, IncludePadding=False),
    "MAX_POOLING_GRAD": pooling(dml.MaxPoolingGradOperatorDesc),
    "MAX_UNPOOLING": unpooling,
    **{name: recurrent(name) for name in _RECURRENT},
    "DYNAMIC_QUANTIZE_LINEAR": dynamic_quantize,
    **{name: reshaping(name) for name in RESHAPING},
    **{name: indexing(name) for name in INDEXING},
    "MULTIHEAD_ATTENTION": attention("MULTIHEAD_ATTENTION"),
    "MULTIHEAD_ATTENTION1": attention("MULTIHEAD_ATTENTION1"),
    "ADAM_OPTIMIZER": adam,
    **{name: resampling(name) for name in RESAMPLING},
    **{name: rearranging(name) for name in REARRANGING},
    **{name: regions(name) for name in REGIONS},
}
"""A builder per operator of ``tests/data/directml-operators`` that dmlpy implements (by support.json's name), but
QUANTIZE and DEQUANTIZE (``NOT_COMPARED``)."""

NOT_COMPARED = {
    "QUANTIZE": "check_support.py gives QuantizationTensors one type for the scale and the zero point alike, and "
    "the scale has the float side's type, the zero point the integer side's (docs/quantization.md); "
    "tests/unit/descriptors/test_quantize_6_3.py compares its table, written out by hand",
    "DEQUANTIZE": "as QUANTIZE",
}
"""Operators of the table that dmlpy implements and check_support.py cannot describe, with why and where they are
compared instead."""

HEADER_LEVELS = {"TOP_K": "1_0", "MAX_UNPOOLING": "2_0", "SCATTER_ELEMENTS": "2_0"}
"""Operators whose page gives a later first level than DirectML.h, where dmlpy follows the header (the README's
"Conflicts found"): support.json's name -> the header's level, from which the page's first table holds. TOP_K's
page says FL 2_0; the header lists DML_OPERATOR_TOP_K among FL 1_0's enumerators. MAX_UNPOOLING's page says
FL 3_0; the header has DML_OPERATOR_MAX_UNPOOLING in its DML_TARGET_VERSION >= 0x2000 block. SCATTER_ELEMENTS is
the other way round: its page (DML_SCATTER) says FL 1_0, the header has DML_OPERATOR_SCATTER_ELEMENTS and its alias
DML_OPERATOR_SCATTER in the DML_TARGET_VERSION >= 0x2000 block, so dmlpy's first table holds from FL 2_0."""


TABLE = Path(__file__).resolve().parents[1] / "data" / "directml-operators" / "support.json"


def valid_sample(desc_class: type[OperatorDescBase]) -> OperatorDescBase | None:
    """A descriptor of ``desc_class`` that validates at DML_FEATURE_LEVEL_6_4, from its SAMPLES builder: every
    tensor of the newest support table present, of its first documented type, at the most dimensions that build;
    None for an operator with no builder (QUANTIZE, DEQUANTIZE, FOLD and UNFOLD, whose pages list no types)."""
    name = desc_class.OPERATOR_TYPE.name
    build = SAMPLES.get(name)
    if build is None:
        return None
    (entry,) = (op for op in json.loads(TABLE.read_text(encoding="utf-8"))["ops"] if op["op"] == name)
    # Every tensor given; the required ones only; those and attention's separate sources (one source per role).
    presences = (None, (), ("QueryTensor", "KeyTensor", "ValueTensor"))
    for row, optional in ((row, keep) for row in reversed(entry["support"]) for keep in presences):
        types = {
            c: T[info["types"][0]]
            if info.get("types") and (optional is None or "Optional" not in info["kind"] or c in optional)
            else None
            for c, info in row["tensors"].items()
        }
        highest = max(info["dims_max"] for info in row["tensors"].values())
        for dims in range(highest, 0, -1):
            try:
                desc = build(types, dims)
                if desc is not None:
                    dml.validate(desc, dml.FeatureLevel.FL_6_4)
                    return desc
            except dml.DmlError:
                continue
    return None
