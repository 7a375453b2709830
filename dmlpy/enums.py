"""DirectML's enums and constants with directml.h's numeric values (DirectX-Headers, DML_TARGET_VERSION 0x6400).

Members drop the C prefix: ``DML_ROUNDING_MODE_TOWARD_ZERO`` is ``RoundingMode.TOWARD_ZERO``. Wherever a value
is parsed (constructors, JSON, the CLI) the C spelling, the short name and the number are all accepted::

    RoundingMode("DML_ROUNDING_MODE_TOWARD_ZERO") is RoundingMode("TOWARD_ZERO") is RoundingMode(1)

Flag enums also accept ``"A|B"`` combinations, as C code writes them.
"""

from __future__ import annotations

from dmlpy.enum_base import DmlEnum as DmlEnum
from dmlpy.enum_base import DmlFlag as DmlFlag


class TensorDataType(DmlEnum, c_prefix="DML_TENSOR_DATA_TYPE_"):
    """DML_TENSOR_DATA_TYPE."""

    UNKNOWN = 0
    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    UINT4 = 12
    INT4 = 13


class TensorType(DmlEnum, c_prefix="DML_TENSOR_TYPE_"):
    """DML_TENSOR_TYPE."""

    INVALID = 0
    BUFFER = 1


class TensorFlags(DmlFlag, c_prefix="DML_TENSOR_FLAG_"):
    """DML_TENSOR_FLAGS."""

    NONE = 0
    OWNED_BY_DML = 0x1


class RoundingMode(DmlEnum, c_prefix="DML_ROUNDING_MODE_"):
    """DML_ROUNDING_MODE. Beware the naming trap: TOWARD_INFINITY rounds to nearest with halves away from zero
    (2.5 -> 3, -2.5 -> -3); it is not ceil (MicrosoftDocs/sdk-api PR #1974)."""

    HALVES_TO_NEAREST_EVEN = 0
    """Nearest; halves to even (C rint). 2.5 -> 2, -1.5 -> -2."""
    TOWARD_ZERO = 1
    """Truncate (C trunc). 1.75 -> 1, -1.75 -> -1."""
    TOWARD_INFINITY = 2
    """Nearest; halves away from zero (C round), not ceil. 2.5 -> 3, -2.5 -> -3, 1.25 -> 1."""


class IsInfinityMode(DmlEnum, c_prefix="DML_IS_INFINITY_MODE_"):
    """DML_IS_INFINITY_MODE: which infinities ELEMENT_WISE_IS_INFINITY reports."""

    EITHER = 0
    """+infinity or -infinity."""
    POSITIVE = 1
    """+infinity only."""
    NEGATIVE = 2
    """-infinity only."""


class FeatureLevel(DmlEnum, c_prefix="DML_FEATURE_LEVEL_"):
    """DML_FEATURE_LEVEL; ordered, each level a strict superset of the ones below it."""

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400

    @classmethod
    def _short_name_alias(cls, name: str) -> str:
        # "3_0", "3.0" and "FL_3_0" all name DML_FEATURE_LEVEL_3_0.
        return "FL_" + name.removeprefix("FL_").replace(".", "_")

    @property
    def c_name(self) -> str:
        return self.C_PREFIX + self.name.removeprefix("FL_")

    @classmethod
    def spellings(cls) -> list[str]:
        return [*super().spellings(), *(m.name.removeprefix("FL_") for m in cls)]


class OperatorType(DmlEnum, c_prefix="DML_OPERATOR_"):
    """DML_OPERATOR_TYPE (the values dmlpy knows; directml.h numbers them implicitly, counted from the header)."""

    INVALID = 0
    ELEMENT_WISE_IDENTITY = 1
    ELEMENT_WISE_ABS = 2
    ELEMENT_WISE_ACOS = 3
    ELEMENT_WISE_ADD = 4
    ELEMENT_WISE_ASIN = 5
    ELEMENT_WISE_ATAN = 6
    ELEMENT_WISE_CEIL = 7
    ELEMENT_WISE_CLIP = 8
    ELEMENT_WISE_COS = 9
    ELEMENT_WISE_DIVIDE = 10
    ELEMENT_WISE_EXP = 11
    ELEMENT_WISE_FLOOR = 12
    ELEMENT_WISE_LOG = 13
    ELEMENT_WISE_LOGICAL_AND = 14
    ELEMENT_WISE_LOGICAL_EQUALS = 15
    ELEMENT_WISE_LOGICAL_GREATER_THAN = 16
    ELEMENT_WISE_LOGICAL_LESS_THAN = 17
    ELEMENT_WISE_LOGICAL_NOT = 18
    ELEMENT_WISE_LOGICAL_OR = 19
    ELEMENT_WISE_LOGICAL_XOR = 20
    ELEMENT_WISE_MAX = 21
    ELEMENT_WISE_MEAN = 22
    ELEMENT_WISE_MIN = 23
    ELEMENT_WISE_MULTIPLY = 24
    ELEMENT_WISE_POW = 25
    ELEMENT_WISE_CONSTANT_POW = 26
    ELEMENT_WISE_RECIP = 27
    ELEMENT_WISE_SIN = 28
    ELEMENT_WISE_SQRT = 29
    ELEMENT_WISE_SUBTRACT = 30
    ELEMENT_WISE_TAN = 31
    ELEMENT_WISE_THRESHOLD = 32
    ELEMENT_WISE_QUANTIZE_LINEAR = 33
    ELEMENT_WISE_DEQUANTIZE_LINEAR = 34
    ACTIVATION_ELU = 35
    ACTIVATION_HARDMAX = 36
    ACTIVATION_HARD_SIGMOID = 37
    ACTIVATION_IDENTITY = 38
    ACTIVATION_LEAKY_RELU = 39
    ACTIVATION_LINEAR = 40
    ACTIVATION_LOG_SOFTMAX = 41
    ACTIVATION_PARAMETERIZED_RELU = 42
    ACTIVATION_PARAMETRIC_SOFTPLUS = 43
    ACTIVATION_RELU = 44
    ACTIVATION_SCALED_ELU = 45
    ACTIVATION_SCALED_TANH = 46
    ACTIVATION_SIGMOID = 47
    ACTIVATION_SOFTMAX = 48
    ACTIVATION_SOFTPLUS = 49
    ACTIVATION_SOFTSIGN = 50
    ACTIVATION_TANH = 51
    ACTIVATION_THRESHOLDED_RELU = 52
    CONVOLUTION = 53
    GEMM = 54
    REDUCE = 55
    AVERAGE_POOLING = 56
    LP_POOLING = 57
    MAX_POOLING = 58
    ROI_POOLING = 59
    SLICE = 60
    CAST = 61
    SPLIT = 62
    JOIN = 63
    PADDING = 64
    VALUE_SCALE_2D = 65
    UPSAMPLE_2D = 66
    GATHER = 67
    SPACE_TO_DEPTH = 68
    DEPTH_TO_SPACE = 69
    TILE = 70
    TOP_K = 71
    BATCH_NORMALIZATION = 72
    MEAN_VARIANCE_NORMALIZATION = 73
    LOCAL_RESPONSE_NORMALIZATION = 74
    LP_NORMALIZATION = 75
    RNN = 76
    LSTM = 77
    GRU = 78
    ELEMENT_WISE_SIGN = 79
    ELEMENT_WISE_IS_NAN = 80
    ELEMENT_WISE_ERF = 81
    ELEMENT_WISE_SINH = 82
    ELEMENT_WISE_COSH = 83
    ELEMENT_WISE_TANH = 84
    ELEMENT_WISE_ASINH = 85
    ELEMENT_WISE_ACOSH = 86
    ELEMENT_WISE_ATANH = 87
    ELEMENT_WISE_IF = 88
    ELEMENT_WISE_ADD1 = 89
    ACTIVATION_SHRINK = 90
    MAX_POOLING1 = 91
    MAX_UNPOOLING = 92
    DIAGONAL_MATRIX = 93
    SCATTER_ELEMENTS = 94
    SCATTER = 94
    """directml.h's alias of SCATTER_ELEMENTS (the same value; DML_SCATTER_OPERATOR_DESC is the same struct)."""
    ONE_HOT = 95
    RESAMPLE = 96
    ELEMENT_WISE_BIT_SHIFT_LEFT = 97
    ELEMENT_WISE_BIT_SHIFT_RIGHT = 98
    ELEMENT_WISE_ROUND = 99
    ELEMENT_WISE_IS_INFINITY = 100
    ELEMENT_WISE_MODULUS_TRUNCATE = 101
    ELEMENT_WISE_MODULUS_FLOOR = 102
    FILL_VALUE_CONSTANT = 103
    FILL_VALUE_SEQUENCE = 104
    CUMULATIVE_SUMMATION = 105
    REVERSE_SUBSEQUENCES = 106
    GATHER_ELEMENTS = 107
    GATHER_ND = 108
    SCATTER_ND = 109
    MAX_POOLING2 = 110
    SLICE1 = 111
    TOP_K1 = 112
    DEPTH_TO_SPACE1 = 113
    SPACE_TO_DEPTH1 = 114
    MEAN_VARIANCE_NORMALIZATION1 = 115
    RESAMPLE1 = 116
    MATRIX_MULTIPLY_INTEGER = 117
    QUANTIZED_LINEAR_MATRIX_MULTIPLY = 118
    CONVOLUTION_INTEGER = 119
    QUANTIZED_LINEAR_CONVOLUTION = 120
    ELEMENT_WISE_BIT_AND = 121
    ELEMENT_WISE_BIT_OR = 122
    ELEMENT_WISE_BIT_XOR = 123
    ELEMENT_WISE_BIT_NOT = 124
    ELEMENT_WISE_BIT_COUNT = 125
    ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL = 126
    ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL = 127
    ACTIVATION_CELU = 128
    ACTIVATION_RELU_GRAD = 129
    AVERAGE_POOLING_GRAD = 130
    MAX_POOLING_GRAD = 131
    RANDOM_GENERATOR = 132
    NONZERO_COORDINATES = 133
    RESAMPLE_GRAD = 134
    SLICE_GRAD = 135
    ADAM_OPTIMIZER = 136
    ARGMIN = 137
    ARGMAX = 138
    ROI_ALIGN = 139
    GATHER_ND1 = 140
    ELEMENT_WISE_ATAN_YX = 141
    ELEMENT_WISE_CLIP_GRAD = 142
    ELEMENT_WISE_DIFFERENCE_SQUARE = 143
    LOCAL_RESPONSE_NORMALIZATION_GRAD = 144
    CUMULATIVE_PRODUCT = 145
    BATCH_NORMALIZATION_GRAD = 146
    ELEMENT_WISE_QUANTIZED_LINEAR_ADD = 147
    DYNAMIC_QUANTIZE_LINEAR = 148
    ROI_ALIGN1 = 149
    ROI_ALIGN_GRAD = 150
    BATCH_NORMALIZATION_TRAINING = 151
    BATCH_NORMALIZATION_TRAINING_GRAD = 152
    ELEMENT_WISE_CLIP1 = 153
    ELEMENT_WISE_CLIP_GRAD1 = 154
    PADDING1 = 155
    ELEMENT_WISE_NEGATE = 156
    ACTIVATION_GELU = 157
    ACTIVATION_SOFTMAX1 = 158
    ACTIVATION_LOG_SOFTMAX1 = 159
    ACTIVATION_HARDMAX1 = 160
    RESAMPLE2 = 161
    RESAMPLE_GRAD1 = 162
    DIAGONAL_MATRIX1 = 163
    MULTIHEAD_ATTENTION = 164
    LP_POOLING1 = 165
    AVERAGE_POOLING1 = 166
    ACTIVATION_SWISH = 167
    ACTIVATION_HARD_SWISH = 168
    QUANTIZED_LINEAR_AVERAGE_POOLING = 169
    MATRIX_MULTIPLY_INTEGER_TO_FLOAT = 170
    MEAN_VARIANCE_NORMALIZATION2 = 171
    MULTIHEAD_ATTENTION1 = 172
    QUANTIZE = 173
    DEQUANTIZE = 174
    RESAMPLE3 = 175
    FOLD = 176
    UNFOLD = 177


class GraphNodeType(DmlEnum, c_prefix="DML_GRAPH_NODE_TYPE_"):
    """DML_GRAPH_NODE_TYPE (DML_TARGET_VERSION >= 0x2100; CONSTANT from 0x6200)."""

    INVALID = 0
    OPERATOR = 1
    CONSTANT = 2


class GraphEdgeType(DmlEnum, c_prefix="DML_GRAPH_EDGE_TYPE_"):
    """DML_GRAPH_EDGE_TYPE (DML_TARGET_VERSION >= 0x2100)."""

    INVALID = 0
    INPUT = 1
    OUTPUT = 2
    INTERMEDIATE = 3


class ExecutionFlags(DmlFlag, c_prefix="DML_EXECUTION_FLAG_"):
    """DML_EXECUTION_FLAGS."""

    NONE = 0
    ALLOW_HALF_PRECISION_COMPUTATION = 0x1
    DISABLE_META_COMMANDS = 0x2
    DESCRIPTORS_VOLATILE = 0x4


class BindingType(DmlEnum, c_prefix="DML_BINDING_TYPE_"):
    """DML_BINDING_TYPE."""

    NONE = 0
    BUFFER = 1
    BUFFER_ARRAY = 2


class CreateDeviceFlags(DmlFlag, c_prefix="DML_CREATE_DEVICE_FLAG_"):
    """DML_CREATE_DEVICE_FLAGS."""

    NONE = 0
    DEBUG = 0x1


class Feature(DmlEnum, c_prefix="DML_FEATURE_"):
    """DML_FEATURE: what IDMLDevice::CheckFeatureSupport can be asked."""

    TENSOR_DATA_TYPE_SUPPORT = 0
    FEATURE_LEVELS = 1


class MatrixTransform(DmlEnum, c_prefix="DML_MATRIX_TRANSFORM_"):
    """DML_MATRIX_TRANSFORM: how GEMM reads ATensor or BTensor's last two dimensions (both members FL 1_0)."""

    NONE = 0
    """As stored: A is {.., M, K}, B {.., K, N}."""
    TRANSPOSE = 1
    """Transposed: A is stored {.., K, M}, B {.., N, K}."""


class PaddingMode(DmlEnum, c_prefix="DML_PADDING_MODE_"):
    """DML_PADDING_MODE: what PADDING and PADDING1 write into the padding (CONSTANT, EDGE, REFLECTION FL 1_0;
    SYMMETRIC FL 3_0; WRAP FL 6_4, in the header and the feature-level history, on neither operator's page)."""

    CONSTANT = 0
    """PaddingValue everywhere in the padding (NumPy's pad mode "constant")."""
    EDGE = 1
    """The nearest edge value repeated ("edge")."""
    REFLECTION = 2
    """Mirrored about the edge, the edge not repeated; folds again past the far edge ("reflect")."""
    SYMMETRIC = 3
    """Mirrored with the edge repeated ("symmetric"); FL 3_0."""
    WRAP = 4
    """The input repeated periodically, the far edge's values first ("wrap"); FL 6_4."""


class InterpolationMode(DmlEnum, c_prefix="DML_INTERPOLATION_MODE_"):
    """DML_INTERPOLATION_MODE: how UPSAMPLE_2D and the RESAMPLE operators choose an output element (both members
    FL 1_0)."""

    NEAREST_NEIGHBOR = 0
    """The input element nearest the output element's pixel centre (ONNX's Resize mode "nearest")."""
    LINEAR = 1
    """The weighted average of the 2 nearest input elements per dimension, up to 4 dimensions (16 taps; "linear")."""


class ConvolutionMode(DmlEnum, c_prefix="DML_CONVOLUTION_MODE_"):
    """DML_CONVOLUTION_MODE: whether CONVOLUTION flips its filter (both members FL 1_0)."""

    CONVOLUTION = 0
    """The filter flipped along its spatial dimensions (the mathematical convolution) under FORWARD; as stored under
    BACKWARD."""
    CROSS_CORRELATION = 1
    """The filter as stored under FORWARD (ONNX's Conv); flipped under BACKWARD (ONNX's ConvTranspose)."""


class ConvolutionDirection(DmlEnum, c_prefix="DML_CONVOLUTION_DIRECTION_"):
    """DML_CONVOLUTION_DIRECTION: CONVOLUTION's direction (both members FL 1_0)."""

    FORWARD = 0
    """A forward convolution: FilterTensor {OutputChannelCount, InputChannelCount / GroupCount, ...}."""
    BACKWARD = 1
    """The transposed convolution: FilterTensor {InputChannelCount, OutputChannelCount / GroupCount, ...}."""


class AxisDirection(DmlEnum, c_prefix="DML_AXIS_DIRECTION_"):
    """DML_AXIS_DIRECTION (DML_TARGET_VERSION >= 0x2100; both members FL 2_1): the order along an axis in which
    ARGMIN/ARGMAX break ties, TOP_K1 selects and the cumulative operators run; RESAMPLE2, RESAMPLE3 and
    RESAMPLE_GRAD1's RoundingDirection (NEAREST_NEIGHBOR only): INCREASING rounds a fractional input coordinate up,
    DECREASING down."""

    INCREASING = 0
    """By ascending index: the first extreme (ARGMIN, ARGMAX), the smallest K ascending (TOP_K1), a running tally
    from index 0 (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT)."""
    DECREASING = 1
    """By descending index: the last extreme, the largest K descending, a running tally from the last index."""


class ReduceFunction(DmlEnum, c_prefix="DML_REDUCE_FUNCTION_"):
    """DML_REDUCE_FUNCTION: what REDUCE computes over each group of elements (every member FL 1_0)."""

    ARGMAX = 0
    ARGMIN = 1
    AVERAGE = 2
    L1 = 3
    L2 = 4
    LOG_SUM = 5
    LOG_SUM_EXP = 6
    MAX = 7
    MIN = 8
    MULTIPLY = 9
    SUM = 10
    SUM_SQUARE = 11


class RecurrentNetworkDirection(DmlEnum, c_prefix="DML_RECURRENT_NETWORK_DIRECTION_"):
    """DML_RECURRENT_NETWORK_DIRECTION: which way RNN, LSTM and GRU run along the sequence (every member FL 1_0)."""

    FORWARD = 0
    """From the first step to the last (num_directions 1)."""
    BACKWARD = 1
    """From the last step to the first (num_directions 1)."""
    BIDIRECTIONAL = 2
    """Both, forward's results first (num_directions 2)."""


class RandomGeneratorType(DmlEnum, c_prefix="DML_RANDOM_GENERATOR_TYPE_"):
    """DML_RANDOM_GENERATOR_TYPE (DML_TARGET_VERSION >= 0x3000): RANDOM_GENERATOR's algorithm."""

    PHILOX_4X32_10 = 0
    """Philox 4x32 with 10 rounds (FL 3_0): a state of 6 UINT32, a 128-bit counter then a 64-bit key."""


class QuantizationType(DmlEnum, c_prefix="DML_QUANTIZATION_TYPE_"):
    """DML_QUANTIZATION_TYPE (DML_TARGET_VERSION >= 0x6300)."""

    NONE = 0
    SCALE = 1
    SCALE_ZERO_POINT = 2


class MultiheadAttentionMaskType(DmlEnum, c_prefix="DML_MULTIHEAD_ATTENTION_MASK_TYPE_"):
    """DML_MULTIHEAD_ATTENTION_MASK_TYPE (DML_TARGET_VERSION >= 0x6100; every member FL 6_1): how
    MULTIHEAD_ATTENTION and MULTIHEAD_ATTENTION1 read MaskTensor (INT32)."""

    NONE = 0
    """No mask: MaskTensor is null."""
    KEY_SEQUENCE_LENGTH = 1
    """MaskTensor [1, batchSize]: each batch's unpadded key length; the keys after it are masked."""
    KEY_SEQUENCE_END_START = 2
    """MaskTensor [2, batchSize]: each batch's end (exclusive), then start (inclusive), of the unpadded keys."""
    KEY_QUERY_SEQUENCE_LENGTH_START_END = 3
    """MaskTensor [batchSize * 3 + 2]: key lengths, query starts, the last query end, key starts, the last key end."""
    BOOLEAN = 4
    """MaskTensor of the scores' Sizes: 0 adds MaskFilterValue to the score, 1 leaves it."""


class DepthSpaceOrder(DmlEnum, c_prefix="DML_DEPTH_SPACE_ORDER_"):
    """DML_DEPTH_SPACE_ORDER (DML_TARGET_VERSION >= 0x2100; both members FL 2_1): the order in which
    DEPTH_TO_SPACE1 and SPACE_TO_DEPTH1 move elements between the channels and a block."""

    DEPTH_COLUMN_ROW = 0
    """Depth, then column, then row: DEPTH_TO_SPACE's and SPACE_TO_DEPTH's order (ONNX's DepthToSpace mode DCR)."""
    COLUMN_ROW_DEPTH = 1
    """Column, then row, then depth (ONNX's DepthToSpace mode CRD)."""


DML_TENSOR_DIMENSION_COUNT_MAX = 5
"""The dimension cap below DML_FEATURE_LEVEL_3_0."""
DML_TENSOR_DIMENSION_COUNT_MAX1 = 8
"""The dimension cap from DML_FEATURE_LEVEL_3_0 (DML_TARGET_VERSION >= 0x3000)."""
DML_TEMPORARY_BUFFER_ALIGNMENT = 256
"""DML_TEMPORARY_BUFFER_ALIGNMENT: the byte alignment of a temporary resource's binding offset."""
DML_PERSISTENT_BUFFER_ALIGNMENT = 256
"""DML_PERSISTENT_BUFFER_ALIGNMENT: the byte alignment of a persistent resource's binding offset."""
DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT = 16
"""DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT: every tensor binding offset is a multiple of this many bytes."""

DML_MAX_ELEMENT_COUNT = 2**32 - 1
"""At most UINT32_MAX elements per tensor (DML_BUFFER_TENSOR_DESC remarks)."""


# ------------------------------------------------------------------------------------------------ dmlpy extensions
# Not DirectML. They live in the enum layer so every layer can name them; ``dmlpy.extensions`` documents them.
# Each is an ``Ext*`` class whose C spellings start with ``DMLPY_EXT_`` and whose values start at 0x80000000, so
# no number DirectML uses ever parses as an extension value, or the reverse.

EXTENSION_BASE = 0x8000_0000
"""First value of every extension enum; DirectML's values are all far below."""


class ExtTensorDataType(DmlEnum, c_prefix="DMLPY_EXT_TENSOR_DATA_TYPE_"):
    """Data types beyond DML_TENSOR_DATA_TYPE (not DirectML)."""

    BFLOAT16 = EXTENSION_BASE + 1
    """bfloat16: float32's top 16 bits (NumPy arrays from ml_dtypes); computed in float."""


class ExtRoundingMode(DmlEnum, c_prefix="DMLPY_EXT_ROUNDING_MODE_"):
    """nGraph's nine rounding modes (not DirectML). The first five round to nearest and differ on ties."""

    NEAREST_TOWARD_INFINITY = EXTENSION_BASE + 0
    """Nearest; ties away from zero (2.5 -> 3, -3.5 -> -4). DirectML's TOWARD_INFINITY, OpenVINO's
    half_away_from_zero."""
    NEAREST_TOWARD_ZERO = EXTENSION_BASE + 1
    """Nearest; ties toward zero (2.5 -> 2, -3.5 -> -3)."""
    NEAREST_UPWARD = EXTENSION_BASE + 2
    """Nearest; ties toward +inf (2.5 -> 3, -3.5 -> -3)."""
    NEAREST_DOWNWARD = EXTENSION_BASE + 3
    """Nearest; ties toward -inf (2.5 -> 2, -3.5 -> -4)."""
    NEAREST_TOWARD_EVEN = EXTENSION_BASE + 4
    """Nearest; ties to even (2.5 -> 2, -3.5 -> -4). DirectML's HALVES_TO_NEAREST_EVEN, ONNX Round."""
    TOWARD_INFINITY = EXTENSION_BASE + 5
    """Directed away from zero (0.1 -> 1, -0.1 -> -1). Not DirectML's TOWARD_INFINITY."""
    TOWARD_ZERO = EXTENSION_BASE + 6
    """Directed toward zero, truncation. DirectML's TOWARD_ZERO."""
    UP = EXTENSION_BASE + 7
    """Directed toward +inf, ceil."""
    DOWN = EXTENSION_BASE + 8
    """Directed toward -inf, floor."""

    @classmethod
    def _short_name_alias(cls, name: str) -> str:
        return name.removeprefix("ROUND_")  # nGraph spells them ROUND_NEAREST_UPWARD, ...

    @property
    def ngraph_name(self) -> str:
        return "ROUND_" + self.name


class ExtOperatorType(DmlEnum, c_prefix="DMLPY_EXT_OPERATOR_"):
    """Operators beyond DML_OPERATOR_TYPE (not DirectML)."""

    ELEMENT_WISE_QUANTIZE_LINEAR = EXTENSION_BASE + 33
    """QuantizeLinear rounding in any of the nine modes."""
    ELEMENT_WISE_ROUND = EXTENSION_BASE + 99
    """Round in any of the nine modes, on float32, float16, float64, bfloat16 and integer tensors."""
