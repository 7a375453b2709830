"""The real-model acceptance set (issue 46): ONNX models written by others, run through ``dmlpy.onnx`` and compared
with onnxruntime on the same inputs (docs/models.md). ``catalogue`` says what each model is and how to get it,
``runner`` runs one and measures it; ``test_models`` and benchmarks/bench_models.py use both."""
