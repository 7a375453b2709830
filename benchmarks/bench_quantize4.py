"""4-bit blocked quantization (FL 6_3's DEQUANTIZE and QUANTIZE): a weight of 64M INT4 elements, one float scale
and INT4 zero point per block of 32 along its rows, dequantized to float32 and float16 and quantized back.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_quantize4.py --json /tmp/quantize4.json [--rows 8192 --columns 8192]

Per row (operator, output type), from one run:

    kernel      the dispatch's own time on a profiling queue, median of 15 (bench_graph.dispatch_events)
    copy        the copy kernel (bench_round.py's, 32-bit words) over the bytes of the float side (the output of
                DEQUANTIZE, the input of QUANTIZE), the same way: it reads and writes them, more traffic than the
                operator's (which moves them once, and an eighth or a quarter as many 4-bit bytes the other way);
                copy / kernel is the operator's speed against it (>= 0.8 is the target)
    onnxruntime onnxruntime's CPU provider on the same one-node model (opset 21, block_size 32), wall time of
                session.run on NumPy arrays, median of 5; "-" when onnxruntime is not installed (it is no
                dependency of dmlpy: pip install onnxruntime to measure it)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import Bound
from bench_round import Dml, event_timings, onnxruntime_model

BLOCK = 32


def tensor(dml: Any, data_type: str, sizes: tuple[int, ...]) -> Any:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes)


def cases(dml: Any, rows: int, columns: int, real: str) -> dict[str, tuple[Any, list[np.ndarray]]]:
    """operator -> (descriptor, its inputs in binding order, 4-bit ones packed two a byte)."""
    from dmlpy import nibbles

    rng = np.random.default_rng(29)
    dtype = np.float16 if real == "FLOAT16" else np.float32
    shape, blocks = (rows, columns), (rows, columns // BLOCK)
    weight = rng.integers(-8, 8, shape).astype(ml_dtypes.int4)
    scale = rng.uniform(0.01, 0.1, blocks).astype(dtype)
    zero = rng.integers(-2, 3, blocks).astype(ml_dtypes.int4)
    real_values = ((weight.astype(np.float32) - np.repeat(zero.astype(np.float32), BLOCK, 1)) * 0.05).astype(dtype)
    quantization = [tensor(dml, real, blocks), tensor(dml, "INT4", blocks)]
    dequantize = dml.DequantizeOperatorDesc(
        input_tensor=tensor(dml, "INT4", shape),
        quantization_type="SCALE_ZERO_POINT",
        quantization_tensors=quantization,
        output_tensor=tensor(dml, real, shape),
    )
    quantize = dml.QuantizeOperatorDesc(
        input_tensor=tensor(dml, real, shape),
        quantization_type="SCALE_ZERO_POINT",
        quantization_tensors=quantization,
        output_tensor=tensor(dml, "INT4", shape),
    )
    packed_weight, packed_zero = nibbles.pack(weight), nibbles.pack(zero)
    return {
        "dequantize": (dequantize, [packed_weight, scale, packed_zero], (weight, scale, zero)),
        "quantize": (quantize, [real_values, scale, packed_zero], (real_values, scale, zero)),
    }


def onnxruntime_time(operator: str, arrays: tuple[np.ndarray, ...]) -> float | None:
    """onnxruntime's CPU provider on the one-node opset 21 model, or None where it is not installed. Its Python
    API takes no 4-bit NumPy arrays, so they are the model's initializers (graph optimisations off: nothing is
    folded at load) and the 4-bit result stays an OrtValue (run_with_ort_values)."""
    try:
        import onnxruntime
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    x, scale, zero = arrays
    elem = helper.np_dtype_to_tensor_dtype
    initializers = [numpy_helper.from_array(zero, "z")]
    inputs = [helper.make_tensor_value_info("s", elem(scale.dtype), scale.shape)]
    feeds: dict[str, Any] = {"s": scale}
    if operator == "dequantize":
        op_type, out_type = "DequantizeLinear", elem(scale.dtype)
        initializers.append(numpy_helper.from_array(x, "x"))
    else:
        op_type, out_type = "QuantizeLinear", TensorProto.INT4
        inputs.append(helper.make_tensor_value_info("x", elem(x.dtype), x.shape))
        feeds["x"] = x
    node = helper.make_node(op_type, ["x", "s", "z"], ["y"], axis=1, block_size=BLOCK)
    output = helper.make_tensor_value_info("y", out_type, x.shape)
    graph = helper.make_graph([node], "q4", inputs, [output], initializer=initializers)
    model = onnxruntime_model(graph)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    values = {name: onnxruntime.OrtValue.ortvalue_from_numpy(array) for name, array in feeds.items()}
    session.run_with_ort_values(["y"], values)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        session.run_with_ort_values(["y"], values)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run(rows: int, columns: int, quick: bool) -> list[dict[str, Any]]:
    dml_ = Dml(None)
    results = []
    for real in ("FLOAT32", "FLOAT16"):
        for operator, (desc, inputs, arrays) in cases(dml_.dml, rows, columns, real).items():
            bound = Bound(dml_, desc, inputs)
            kernel = event_timings({"op": bound.events}, quick)["op"].seconds
            del bound
            real_bytes = rows * columns * (2 if real == "FLOAT16" else 4)
            _, copy_events = dml_.copy_kernel(real_bytes // 4, 4)
            copy = event_timings({"copy": copy_events}, quick)["copy"].seconds
            ort = onnxruntime_time(operator, arrays)
            row = {
                "operator": operator,
                "real": real.lower(),
                "elements": rows * columns,
                "kernel_s": kernel,
                "copy_of_real_side_s": copy,
                "copy_over_kernel": copy / kernel,
                "onnxruntime_cpu_s": ort,
                "onnxruntime_over_kernel": None if ort is None else ort / kernel,
            }
            results.append(row)
            ort_text = "-" if ort is None else f"{ort:.3e} s ({ort / kernel:.2f}x the kernel)"
            print(
                f"{operator:10} {real.lower():8} kernel {kernel:.3e} s  copy {copy:.3e} s "
                f"(copy/kernel {copy / kernel:.2f})  onnxruntime {ort_text}"
            )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--columns", type=int, default=8192)
    parser.add_argument("--json", type=Path, help="output file")
    parser.add_argument("--quick", action="store_true", help="few samples: a smoke run")
    args = parser.parse_args(argv)
    results = run(args.rows, args.columns, args.quick)
    if args.json is not None:
        args.json.write_text(json.dumps({"results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
