"""Makes the models no package ships, under the builder Python (cache.BUILDER_VARIABLE: torch, torchvision,
transformers, onnxscript, onnx_ir, onnxruntime; dmlpy is not imported here). Run as a script by cache.run_builder:

    builders.py torchvision NAME OUT SIZE      # a torchvision architecture, random weights, batch 1, SIZE x SIZE
    builders.py transformer NAME OUT SEQUENCE  # a transformers architecture from a small config, random weights
    builders.py int4 IN OUT                    # MatMul weights as int4 blocks of 32 (DequantizeLinear block_size)

Random weights: the architecture is the author's, the numbers are not (no model hub is reachable). Exported as a
user exports today, by torch.onnx.export's default (torch.export-based) exporter at opset 18, which folds the
constants it can; a fixed seed, so a rebuilt file computes what the first did."""

from __future__ import annotations

import sys
from typing import Any

OPSET = 18
TRANSFORMER_CONFIGS: dict[str, dict[str, Any]] = {
    # Two layers, hidden 64: the architecture's every op type at a size two shared cores run in milliseconds.
    "bert": {"vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
             "intermediate_size": 128, "max_position_embeddings": 64},
    "gpt2": {"vocab_size": 1000, "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64},
}  # fmt: skip


def _export(module: Any, example: tuple[Any, ...], out: str, names: list[str], outputs: list[str]) -> None:
    import torch

    module.eval()
    torch.onnx.export(
        module, example, out, opset_version=OPSET, input_names=names, output_names=outputs, external_data=False
    )  # one file: the cache renames it once written


def torchvision_model(name: str, out: str, size: int) -> None:
    import torch
    import torchvision

    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None)
    _export(model, (torch.rand(1, 3, size, size),), out, ["image"], ["logits"])


def transformer_model(name: str, out: str, sequence: int) -> None:
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.AutoConfig.for_model(name, **TRANSFORMER_CONFIGS[name])
    model = transformers.AutoModel.from_config(config)
    model.config.return_dict = False
    ids = torch.randint(0, 1000, (1, sequence))

    class LastHidden(torch.nn.Module):  # the hidden states alone: caches and pooled extras are not the architecture
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, input_ids: Any) -> Any:
            return self.inner(input_ids=input_ids, use_cache=False)[0] if name == "gpt2" else self.inner(input_ids)[0]

    _export(LastHidden(), (ids,), out, ["input_ids"], ["hidden"])


def int4_model(source: str, out: str) -> None:
    import onnx
    import onnx.version_converter
    from onnxruntime.quantization import QuantFormat
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    # Opset 21 first, by onnx's converter: the quantizer only relabels the opset, which leaves attributes later
    # opsets moved to inputs (ReduceMax's axes at 18) where they were, an invalid model.
    model = onnx.version_converter.convert_version(onnx.load(source), 21)
    config = DefaultWeightOnlyQuantConfig(
        block_size=32, is_symmetric=True, quant_format=QuantFormat.QDQ, op_types_to_quantize=("MatMul",)
    )
    quantizer = MatMulNBitsQuantizer(model, algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(out, False)


def main(argv: list[str]) -> None:
    kind, *rest = argv
    if kind == "torchvision":
        torchvision_model(rest[0], rest[1], int(rest[2]))
    elif kind == "transformer":
        transformer_model(rest[0], rest[1], int(rest[2]))
    elif kind == "int4":
        int4_model(rest[0], rest[1])
    else:
        raise SystemExit(f"builders.py: unknown kind {kind!r}: torchvision, transformer or int4")


if __name__ == "__main__":
    main(sys.argv[1:])
