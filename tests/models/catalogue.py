"""The acceptance set: each real model's name, kind, precision, where it comes from, the inputs it is run on and
the tolerance its comparison with onnxruntime uses, with why (docs/models.md shows the table).

Tolerances are elementwise, ``|dmlpy - onnxruntime| <= atol + rtol * |onnxruntime|``:

- float32 (FLOAT32): both runtimes round every operation to float32 but sum in their own orders (a convolution or
  matrix product of K terms may differ by about K ulps of its largest partial sum), and the differences pass
  through every later layer; 1e-4 relative with 1e-4 absolute holds for the depths here with a margin of about
  10 over the float32 spread measured between onnxruntime's own CPU kernels at two thread counts, and still catches
  any wrong operator (those give errors of order 1).
- int8 (INT8): a requantization may round a tie or a value within one float32 ulp of a tie the other way, which
  moves one int8 step (the tensor's scale) and propagates; the bound is a few steps of the output's scale, stated
  per model as an absolute error.
- int4 blocked weights: the weights are dequantized exactly (a 4-bit integer times a float32 scale), so the
  products are float32 products: the float32 bound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.models import quantized
from tests.models.cache import built, run_builder, wheel_file

Inputs = Callable[[np.random.Generator], dict[str, np.ndarray[Any, Any]]]


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float
    why: str


FLOAT32 = Tolerance(1e-4, 1e-4, "float32 in another summation order, through the model's depth")
INT8 = Tolerance(0.05, 0.0, "a requantization tie rounded the other way moves one int8 step; a few steps at the end")
INT8_LSTM = Tolerance(
    0.24,
    0.0,
    "int8 dynamic: a DynamicQuantizeLinear of an activation may round a value one step the other way, 21 "
    "convolutions deep, and onnxruntime quantizes DynamicQuantizeLSTM's hidden state at each step, DirectML's LSTM "
    "not (0.0051 on its Y alone): two uint8 steps of the logits' range of 30 (2 * 30 / 255)",
)
YOLO_BOXES = Tolerance(
    12 * 1.2545396,
    0.0,
    "int8 QDQ YOLOv8 against onnxruntime fused as dmlpy fuses: one int8 step at each of a box's two DFL distances "
    "(scales 0.155, 0.157 grid cells) moves their difference, the width, by 0.312, and with the width's own "
    "rounding (0.040) up to 3 steps of the decoded box (0.155) once requantized; times the largest stride, 32, that "
    "is 14.9 pixels, 11.9 steps of the output's scale (1.2545 pixels): 12 steps",
)
INT4 = Tolerance(1e-4, 1e-4, "int4 weights dequantize exactly: float32 products in another order")
CLASS_PROBABILITIES = Tolerance(1e-5, 1e-4, "softmax probabilities: float32 logits' differences, shrunk by softmax")


@dataclass(frozen=True)
class Model:
    name: str
    kind: str  # CNN classifier, detector, OCR, transformer, recurrent voice model, file-type classifier
    precision: str  # float32, int8 QDQ, int8 dynamic, int4 blocked
    source: str  # how it is obtained, in words
    obtain: Callable[[], Path] = field(repr=False)
    inputs: Inputs = field(repr=False)
    tolerance: Tolerance = FLOAT32
    fast: bool = False  # in the default test suite (cheap to obtain in CI and to run)
    fused_reference: bool = False  # compared with onnxruntime on the model fused as dmlpy fuses it (runner.py)


# ----------------------------------------------------------------------------------------------- input makers
def image(size: int, height: int | None = None, channels: int = 3, name: str = "x") -> Inputs:
    """One image, batch 1, values in [0, 1) (a normalised picture's range; the models' own preprocessing aside)."""
    shape = (1, channels, height or size, size)
    return lambda rng: {name: rng.random(shape, dtype=np.float32)}


def magika_bytes(rng: np.random.Generator) -> dict[str, np.ndarray[Any, Any]]:
    """A file's first, middle and last bytes as magika feeds them: 2048 int32 values, bytes 0-255."""
    return {"bytes": rng.integers(0, 256, (1, 2048), dtype=np.int32)}


def silero_chunk(sample_rate: bool) -> Inputs:
    """576 samples of 16 kHz audio (a 512-sample window and its 64-sample context), the recurrent state at zero."""

    def make(rng: np.random.Generator) -> dict[str, np.ndarray[Any, Any]]:
        feeds = {
            "input": rng.uniform(-0.5, 0.5, (1, 576)).astype(np.float32),
            "state": np.zeros((2, 1, 128), np.float32),
        }
        return {**feeds, "sr": np.array(16000, np.int64)} if sample_rate else feeds

    return make


def token_ids(sequence: int) -> Inputs:
    return lambda rng: {"input_ids": rng.integers(0, 1000, (1, sequence), dtype=np.int64)}


# ----------------------------------------------------------------------------------------------- sources
def shipped(requirement: str, module: str, member: str) -> Callable[[], Path]:
    return lambda: wheel_file(requirement, module, member)


def torchvision(name: str, size: int) -> Callable[[], Path]:
    return lambda: built(
        f"torchvision-{name}-{size}.onnx", lambda out: run_builder("torchvision", name, str(out), str(size))
    )


def transformer(name: str, sequence: int) -> Callable[[], Path]:
    return lambda: built(
        f"transformers-{name}-{sequence}.onnx", lambda out: run_builder("transformer", name, str(out), str(sequence))
    )


def qdq(base: Model) -> Callable[[], Path]:
    return lambda: built(
        f"{base.name}-int8-qdq.onnx", lambda out: quantized.qdq_static(base.obtain(), base.inputs, out)
    )


def dynamic(base: Model) -> Callable[[], Path]:
    return lambda: built(f"{base.name}-int8-dynamic.onnx", lambda out: quantized.dynamic(base.obtain(), out))


def int4(base: Model) -> Callable[[], Path]:
    return lambda: built(f"{base.name}-int4.onnx", lambda out: run_builder("int4", str(base.obtain()), str(out)))


MAGIKA = "magika==1.0.3"
SILERO = "silero-vad==6.2.3"
RAPIDOCR_V4 = "rapidocr-onnxruntime==1.4.4"
RAPIDOCR_V6 = "rapidocr==3.10.0"
DDDDOCR = "ddddocr==1.6.1"
NUDENET = "nudenet==3.4.2"


def _pip(
    name: str,
    kind: str,
    requirement: str,
    module: str,
    member: str,
    inputs: Inputs,
    precision: str = "float32",
    **extra: Any,
) -> Model:
    source = f"pip package {requirement}: {module}/{member}"
    return Model(name, kind, precision, source, shipped(requirement, module, member), inputs, **extra)


magika = _pip(
    "magika", "file-type classifier", MAGIKA, "magika", "models/standard_v3_3/model.onnx", magika_bytes,
    tolerance=CLASS_PROBABILITIES, fast=True,
)  # fmt: skip
silero_16k = _pip(
    "silero-vad-16k", "recurrent voice model", SILERO, "silero_vad", "data/silero_vad_openvino_16k.onnx",
    silero_chunk(False),
)  # fmt: skip
silero_ifless = _pip(
    "silero-vad-op18", "recurrent voice model", SILERO, "silero_vad", "data/silero_vad_op18_ifless.onnx",
    silero_chunk(True),
)  # fmt: skip
ocr_v4_det = _pip(
    "ppocr-v4-det", "OCR", RAPIDOCR_V4, "rapidocr_onnxruntime", "models/ch_PP-OCRv4_det_infer.onnx", image(96)
)
ocr_v4_rec = _pip(
    "ppocr-v4-rec", "OCR", RAPIDOCR_V4, "rapidocr_onnxruntime", "models/ch_PP-OCRv4_rec_infer.onnx", image(160, 48)
)
ocr_v4_cls = _pip(
    "ppocr-cls", "OCR", RAPIDOCR_V4, "rapidocr_onnxruntime", "models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    image(192, 48), tolerance=CLASS_PROBABILITIES,
)  # fmt: skip
ocr_v6_det = _pip("ppocr-v6-det", "OCR", RAPIDOCR_V6, "rapidocr", "models/PP-OCRv6_det_small.onnx", image(96))
ocr_v6_rec = _pip("ppocr-v6-rec", "OCR", RAPIDOCR_V6, "rapidocr", "models/PP-OCRv6_rec_small.onnx", image(160, 48))
captcha = _pip("ddddocr", "OCR", DDDDOCR, "ddddocr", "common.onnx", image(128, 64, 1, "input1"))
captcha_old = _pip(
    "ddddocr-old", "OCR", DDDDOCR, "ddddocr", "common_old.onnx", image(128, 64, 1, "input1"), "int8 dynamic",
    tolerance=INT8_LSTM,
)  # fmt: skip
captcha_det = _pip("ddddocr-det", "detector", DDDDOCR, "ddddocr", "common_det.onnx", image(416, name="images"))
nudenet = _pip("nudenet-yolov8n", "detector", NUDENET, "nudenet", "320n.onnx", image(320, name="images"))


def _torch(name: str, size: int) -> Model:
    source = f"torchvision.models.get_model({name!r}, weights=None), torch.onnx.export, 1 x 3 x {size} x {size}"
    return Model(f"tv-{name}", "CNN classifier", "float32", source, torchvision(name, size), image(size, name="image"))


def _transformer(name: str, sequence: int) -> Model:
    source = f"transformers {name} (2 layers, hidden 64, random weights), torch.onnx.export, {sequence} tokens"
    return Model(f"hf-{name}", "transformer", "float32", source, transformer(name, sequence), token_ids(sequence))


resnet18 = _torch("resnet18", 96)
mobilenet = _torch("mobilenet_v3_small", 96)
efficientnet = _torch("efficientnet_b0", 96)
squeezenet = _torch("squeezenet1_1", 96)
shufflenet = _torch("shufflenet_v2_x0_5", 96)
bert = _transformer("bert", 16)
gpt2 = _transformer("gpt2", 16)


def _derived(
    base: Model, precision: str, how: str, obtain: Callable[[Model], Callable[[], Path]], **extra: Any
) -> Model:
    suffix = {"int8 QDQ": "int8-qdq", "int8 dynamic": "int8-dyn", "int4 blocked": "int4"}[precision]
    tolerance = {"int4 blocked": INT4}.get(precision, INT8)
    return Model(
        f"{base.name}-{suffix}", base.kind, precision, f"{base.name} {how}", obtain(base), base.inputs,
        **{"tolerance": tolerance, **extra},
    )  # fmt: skip


STATIC = "through onnxruntime.quantization.quantize_static (QDQ, per channel, 4 calibration inputs)"
DYNAMIC = "through onnxruntime.quantization.quantize_dynamic (int8 weights)"
BLOCKED = "through MatMulNBitsQuantizer (QDQ: DequantizeLinear block_size 32, int4, opset 21)"

MODELS: tuple[Model, ...] = (
    magika, silero_16k, silero_ifless, ocr_v4_det, ocr_v4_rec, ocr_v4_cls, ocr_v6_det, ocr_v6_rec,
    captcha, captcha_old, captcha_det, nudenet,
    resnet18, mobilenet, efficientnet, squeezenet, shufflenet, bert, gpt2,
    _derived(magika, "int8 QDQ", STATIC, qdq, fast=True),
    _derived(ocr_v4_cls, "int8 QDQ", STATIC, qdq),
    _derived(nudenet, "int8 QDQ", STATIC, qdq, tolerance=YOLO_BOXES, fused_reference=True),
    _derived(resnet18, "int8 QDQ", STATIC, qdq),
    _derived(mobilenet, "int8 QDQ", STATIC, qdq),
    _derived(bert, "int8 QDQ", STATIC, qdq),
    _derived(bert, "int8 dynamic", DYNAMIC, dynamic),
    _derived(magika, "int4 blocked", BLOCKED, int4),
    _derived(bert, "int4 blocked", BLOCKED, int4),
)  # fmt: skip

BY_NAME = {model.name: model for model in MODELS}
