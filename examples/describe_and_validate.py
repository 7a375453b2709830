"""Descriptors, DMLCalcBufferTensorSize and validation at every feature level; no OpenCL needed.

Run: python examples/describe_and_validate.py
"""

from __future__ import annotations

import dmlpy as dml


def main() -> None:
    # DML_BUFFER_TENSOR_DESC, packed: TotalTensorSizeInBytes = DMLCalcBufferTensorSize(FLOAT32, 4, sizes, nullptr).
    packed = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 3, 2, 2))
    print(f"packed    {packed.sizes} strides {packed.effective_strides}: {packed.total_tensor_size_in_bytes} bytes")
    assert packed.total_tensor_size_in_bytes == 12 * 4

    # NHWC data described as NCHW through strides (a permutation), and a padded row pitch.
    nhwc = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 3, 2, 2), strides=(12, 1, 6, 3))
    padded = dml.BufferTensorDesc(data_type="FLOAT16", sizes=(1, 1, 3, 5), strides=(24, 24, 8, 1))
    for name, desc in (("nhwc", nhwc), ("padded", padded)):
        print(f"{name:<9} {desc.sizes} strides {desc.strides}: {desc.total_tensor_size_in_bytes} bytes")
    assert nhwc.total_tensor_size_in_bytes == 48
    assert padded.total_tensor_size_in_bytes == dml.calc_buffer_tensor_size("FLOAT16", (1, 1, 3, 5), (24, 24, 8, 1))
    assert padded.total_tensor_size_in_bytes == 44  # (2*8 + 4*1 + 1) halves = 42 bytes, rounded up to 44

    # Which feature levels accept a Round over each tensor (levels are supersets of one another).
    cases = {
        "4-D FLOAT32": packed,
        "2-D FLOAT16": dml.BufferTensorDesc(data_type="FLOAT16", sizes=(4, 4)),
        "4-D INT32": dml.BufferTensorDesc(data_type="INT32", sizes=(1, 1, 2, 2)),
    }
    for name, tensor in cases.items():
        desc = dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor)
        accepted = []
        for level in dml.FeatureLevel:
            try:
                dml.validate(desc, level)
            except dml.DmlError as error:
                reason = error
                continue
            accepted.append(level)
        if accepted:
            print(f"{name}: valid from {accepted[0].c_name}")
        else:
            print(f"{name}: never valid: {reason}")
    # DirectML's Round takes no integer types at any level.
    int_round = dml.ElementWiseRoundOperatorDesc(input_tensor=cases["4-D INT32"], output_tensor=cases["4-D INT32"])
    try:
        dml.validate(int_round, "6_4")
    except dml.InvalidArgumentError as error:
        assert "DataType is DML_TENSOR_DATA_TYPE_INT32" in str(error)
    else:
        raise AssertionError("INT32 Round must be refused")

    # The same descriptor, written as JSON with C names, as `dmlpy validate` reads it.
    op_desc = dml.OperatorDesc(type="ELEMENT_WISE_ROUND", desc={"InputTensor": packed, "OutputTensor": packed})
    text = op_desc.model_dump_json(by_alias=True)
    assert dml.OperatorDesc.model_validate_json(text) == op_desc
    print(text[:80] + "...")


if __name__ == "__main__":
    main()
