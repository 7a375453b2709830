"""The recurrent networks as descriptors, without OpenCL: RNN, LSTM and GRU. Worked examples (the pages have none:
ONNX's RNN, LSTM and GRU, the operators the pages model, in DirectML's 4-D layout) validate from FL 1_0; each
documented rule broken is refused naming the field and the rule; ActivationDescs is counted per direction and each
entry checked as its own operator; the output rule agrees with onnx.reference on small random arrays (ONNX's 3-D
tensors padded to DirectML's 4-D with a leading 1); JSON, the schema and the command line take them."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import dmlpy as dml
from dmlpy.descriptors_json import parse_descriptor
from dmlpy.ops._base import OperatorDescBase
from tests.helpers.cli import Run
from tests.helpers.schema import schema_validator
from tests.helpers.structured import tensor

T, FL = dml.TensorDataType, dml.FeatureLevel
F32, F16 = T.FLOAT32, T.FLOAT16
GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}
CLASSES = {"RNN": dml.RnnOperatorDesc, "LSTM": dml.LstmOperatorDesc, "GRU": dml.GruOperatorDesc}
ACTIVATIONS = {
    "RNN": [{"Type": "ACTIVATION_TANH"}],
    "LSTM": [{"Type": "ACTIVATION_SIGMOID"}, {"Type": "ACTIVATION_TANH"}, {"Type": "ACTIVATION_TANH"}],
    "GRU": [{"Type": "ACTIVATION_SIGMOID"}, {"Type": "ACTIVATION_TANH"}],
}
OWN_FIELDS: dict[str, dict[str, Any]] = {
    "RNN": {},
    "LSTM": {"ClipThreshold": 0.0, "UseClipThreshold": False, "CoupleInputForget": False},
    "GRU": {"LinearBeforeReset": False},
}


def layouts(op: str, seq: int, batch: int, inputs: int, hidden: int, dirs: int) -> dict[str, tuple[int, ...]]:
    """Every tensor's Sizes in the page's layout, written out independently of the library."""
    g = GATES[op]
    sizes = {
        "InputTensor": (1, seq, batch, inputs),
        "WeightTensor": (1, dirs, g * hidden, inputs),
        "RecurrenceTensor": (1, dirs, g * hidden, hidden),
        "BiasTensor": (1, 1, dirs, 2 * g * hidden),
        "HiddenInitTensor": (1, dirs, batch, hidden),
        "SequenceLengthsTensor": (1, 1, 1, batch),
        "OutputSequenceTensor": (seq, dirs, batch, hidden),
        "OutputSingleTensor": (1, dirs, batch, hidden),
    }
    if op == "LSTM":
        sizes |= {"CellMemInitTensor": (1, dirs, batch, hidden), "PeepholeTensor": (1, 1, dirs, 3 * hidden)}
        sizes |= {"OutputCellSingleTensor": (1, dirs, batch, hidden)}
    return sizes


def recurrent(op: str, direction: str = "FORWARD", shape: tuple[int, int, int, int] = (3, 2, 4, 5),
              **fields: Any) -> Any:  # fmt: skip
    """``op`` over { seq, batch, input, hidden } ``shape`` with every tensor given (FLOAT32; SequenceLengthsTensor
    UINT32) in its page's layout; a ``...Tensor`` keyword gives that tensor's Sizes (None leaves it out)."""
    data_type = fields.pop("data_type", F32)
    dirs = 2 if direction == "BIDIRECTIONAL" else 1
    sizes: dict[str, Any] = layouts(op, *shape, dirs)
    sizes |= {k: fields.pop(k) for k in list(fields) if k.endswith("Tensor")}
    tensors = {
        name: None if s is None else tensor(T.UINT32 if name == "SequenceLengthsTensor" else data_type, s)
        for name, s in sizes.items()
    }
    own = {"ActivationDescs": ACTIVATIONS[op] * dirs, "Direction": direction, **OWN_FIELDS[op], **fields}
    return CLASSES[op].model_validate({**tensors, **own})


def refused(desc: OperatorDescBase, *fragments: str, level: FL = FL.FL_6_4, error: type = dml.InvalidArgumentError
            ) -> None:  # fmt: skip
    with pytest.raises(error) as raised:
        dml.validate(desc, level)
    for fragment in fragments:
        assert fragment in str(raised.value), (fragment, str(raised.value))


EXAMPLES = {
    "RNN forward, every tensor (ONNX's RNN)": recurrent("RNN"),
    "RNN backward, only X, W, R and OutputSingleTensor": recurrent(
        "RNN", "BACKWARD", BiasTensor=None, HiddenInitTensor=None, SequenceLengthsTensor=None, OutputSequenceTensor=None
    ),
    "LSTM bidirectional with peepholes and clipping (ONNX's LSTM)": recurrent(
        "LSTM", "BIDIRECTIONAL", UseClipThreshold=True, ClipThreshold=3.0, CoupleInputForget=True
    ),
    "LSTM forward, no outputs but the cell": recurrent(
        "LSTM", OutputSequenceTensor=None, OutputSingleTensor=None, PeepholeTensor=None, CellMemInitTensor=None
    ),
    "GRU backward, linear before reset, FLOAT16 (ONNX's GRU)": recurrent(
        "GRU", "BACKWARD", LinearBeforeReset=True, data_type=F16
    ),
    "GRU bidirectional, one step, batch 1": recurrent("GRU", "BIDIRECTIONAL", (1, 1, 3, 2)),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples_validate_from_fl_1_0(name: str) -> None:
    desc = EXAMPLES[name]
    dml.validate(desc, FL.FL_1_0)
    dml.validate(desc, FL.FL_6_4)
    assert desc.runs()


def _activation(type_name: str, **desc: Any) -> dict[str, Any]:
    return {"Type": type_name, "Desc": desc}


@pytest.mark.parametrize(
    ("desc", "level", "fragments"),
    [
        (recurrent("RNN", InputTensor=(2, 3, 2, 4)), FL.FL_1_0,
         ("RNN.InputTensor.Sizes is [2, 3, 2, 4]; it must be [1, 3, 2, 4]: the page's { 1, seq_length, batch_size, "
          "input_size }",)),
        (recurrent("RNN", WeightTensor=(1, 1, 5, 3)), FL.FL_1_0,
         ("RNN.WeightTensor.Sizes is [1, 1, 5, 3]; it must be [1, 1, 5, 4]: the page's { 1, num_directions, "
          "hidden_size, input_size }", "input_size InputTensor.Sizes[1], [2] and [3]")),
        (recurrent("LSTM", RecurrenceTensor=(1, 1, 5, 5)), FL.FL_1_0,
         ("LSTM.RecurrenceTensor.Sizes is [1, 1, 5, 5]; it must be [1, 1, 20, 5]: the page's { 1, num_directions, "
          "4 * hidden_size, hidden_size }", "hidden_size RecurrenceTensor.Sizes[3]")),
        (recurrent("GRU", "BIDIRECTIONAL", WeightTensor=(1, 1, 15, 4)), FL.FL_1_0,
         ("GRU.WeightTensor.Sizes is [1, 1, 15, 4]; it must be [1, 2, 15, 4]",
          "num_directions 2 (Direction BIDIRECTIONAL)")),
        (recurrent("GRU", BiasTensor=(1, 1, 1, 15)), FL.FL_1_0,
         ("GRU.BiasTensor.Sizes is [1, 1, 1, 15]; it must be [1, 1, 1, 30]: the page's { 1, 1, num_directions, "
          "6 * hidden_size }",)),
        (recurrent("RNN", HiddenInitTensor=(1, 1, 3, 5)), FL.FL_1_0,
         ("RNN.HiddenInitTensor.Sizes is [1, 1, 3, 5]; it must be [1, 1, 2, 5]: the page's { 1, num_directions, "
          "batch_size, hidden_size }",)),
        (recurrent("LSTM", CellMemInitTensor=(1, 2, 2, 5)), FL.FL_1_0,
         ("LSTM.CellMemInitTensor.Sizes is [1, 2, 2, 5]; it must be [1, 1, 2, 5]",)),
        (recurrent("LSTM", SequenceLengthsTensor=(1, 1, 2, 1)), FL.FL_1_0,
         ("LSTM.SequenceLengthsTensor.Sizes is [1, 1, 2, 1]; it must be [1, 1, 1, 2]: the page's { 1, 1, 1, "
          "batch_size }",)),
        (recurrent("LSTM", PeepholeTensor=(1, 1, 1, 20)), FL.FL_1_0,
         ("LSTM.PeepholeTensor.Sizes is [1, 1, 1, 20]; it must be [1, 1, 1, 15]: the page's { 1, 1, num_directions, "
          "3 * hidden_size }",)),
        (recurrent("RNN", OutputSequenceTensor=(1, 1, 2, 5)), FL.FL_1_0,
         ("RNN.OutputSequenceTensor.Sizes is [1, 1, 2, 5]; it must be [3, 1, 2, 5]: { seq_length, num_directions, "
          "batch_size, hidden_size }",)),
        (recurrent("LSTM", "BIDIRECTIONAL", OutputCellSingleTensor=(1, 1, 2, 5)), FL.FL_1_0,
         ("LSTM.OutputCellSingleTensor.Sizes is [1, 1, 2, 5]; it must be [1, 2, 2, 5]: { 1, num_directions, "
          "batch_size, hidden_size }",)),
        (recurrent("GRU", OutputSingleTensor=(1, 1, 2, 5, 1)), FL.FL_1_0,
         ("GRU.OutputSingleTensor.DimensionCount is 5",)),
        (recurrent("RNN", ActivationDescs=ACTIVATIONS["RNN"] * 2), FL.FL_1_0,
         ("RNN.ActivationDescCount is 2; it must be 1: the page asks 1 activation (f()) per direction, and "
          "Direction FORWARD runs 1",)),
        (recurrent("LSTM", "BIDIRECTIONAL", ActivationDescs=ACTIVATIONS["LSTM"]), FL.FL_1_0,
         ("LSTM.ActivationDescCount is 3; it must be 6: the page asks 3 activations (f(), g(), h()) per direction",
          "give 6 ActivationDescs, forward's first")),
        (recurrent("GRU", ActivationDescs=[_activation("ACTIVATION_SIGMOID"), _activation("ACTIVATION_LEAKY_RELU")]),
         FL.FL_1_0, ("GRU.ActivationDescs[1].Desc: ACTIVATION_LEAKY_RELU.Alpha",)),
    ],
    ids=["input leading 1", "weight input_size", "recurrence gates", "weight directions", "bias", "hidden init",
         "cell init", "sequence lengths", "peephole", "output sequence", "output cell single", "output rank",
         "activation count", "activation count bidirectional", "activation fields"],
)  # fmt: skip
def test_each_rule_is_refused_naming_field_and_rule(
    desc: OperatorDescBase, level: FL, fragments: tuple[str, ...]
) -> None:
    refused(desc, *fragments, level=level, error=dml.DmlError)


def test_data_types_agree_and_sequence_lengths_are_uint32() -> None:
    wrong = recurrent("LSTM").model_copy(update={"peephole_tensor": dml.TensorDesc(desc=tensor(F16, (1, 1, 1, 15)))})
    refused(wrong, "LSTM.PeepholeTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT16", "must have the same DataType")
    lengths = dml.TensorDesc(desc=tensor(T.INT32, (1, 1, 1, 2)))
    refused(recurrent("RNN").model_copy(update={"sequence_lengths_tensor": lengths}),
            "RNN.SequenceLengthsTensor.DataType is DML_TENSOR_DATA_TYPE_INT32; DML_FEATURE_LEVEL_6_4 allows "
            "DML_TENSOR_DATA_TYPE_UINT32")  # fmt: skip
    refused(recurrent("GRU", data_type=T.FLOAT64), "GRU.InputTensor.DataType is DML_TENSOR_DATA_TYPE_FLOAT64")
    with pytest.raises(dml.DescriptorProblems, match=r"GRU\.WeightTensor"):  # X, W and R are required
        recurrent("GRU", WeightTensor=None)


def test_inputs_may_not_be_owned_by_dml() -> None:
    owned = dml.BufferTensorDesc(data_type=F32, sizes=(1, 1, 5, 4), flags="OWNED_BY_DML")
    desc = recurrent("RNN").model_copy(update={"weight_tensor": dml.TensorDesc(desc=owned)})
    refused(desc, "RNN.WeightTensor.Flags is", "does not support DML_TENSOR_FLAG_OWNED_BY_DML")


def test_the_activation_count_is_derived_or_checked() -> None:
    desc = recurrent("LSTM", "BIDIRECTIONAL")
    assert desc.activation_desc_count == 6 and len(desc.activation_descs) == 6
    with pytest.raises(dml.DescriptorProblems, match="ActivationDescs has 3 entries; ActivationDescCount is 2"):
        recurrent("LSTM", ActivationDescCount=2)
    assert recurrent("GRU", ActivationDescCount=2).activation_desc_count == 2


def test_each_activation_is_checked_as_its_own_operator() -> None:
    """An activation's own support table and fields hold: GELU from FL 5_1 only, LINEAR needs Alpha and Beta; the
    softmax family (along an axis), PARAMETERIZED_RELU (a SlopeTensor) and RELU_GRAD are no recurrent activations,
    and an entry's tensors stay null."""
    gelu = recurrent("RNN", ActivationDescs=[_activation("ACTIVATION_GELU")])
    refused(gelu, "RNN.ActivationDescs[0] (f() of the forward direction)", "ACTIVATION_GELU needs "
            "DML_FEATURE_LEVEL_5_1", level=FL.FL_5_0, error=dml.UnsupportedError)  # fmt: skip
    dml.validate(gelu, FL.FL_5_1)
    linear = [_activation("ACTIVATION_SIGMOID"), _activation("ACTIVATION_TANH")] * 2
    linear[3] = _activation("ACTIVATION_LINEAR", Alpha=2.0)
    refused(recurrent("GRU", "BIDIRECTIONAL", ActivationDescs=linear), "GRU.ActivationDescs[3].Desc",
            "ACTIVATION_LINEAR.Beta")  # fmt: skip
    linear[3] = _activation("ACTIVATION_LINEAR", Alpha=2.0, Beta=0.5)
    dml.validate(recurrent("GRU", "BIDIRECTIONAL", ActivationDescs=linear), FL.FL_1_0)
    for name in ("ACTIVATION_SOFTMAX", "ACTIVATION_PARAMETERIZED_RELU", "ACTIVATION_RELU_GRAD", "ELEMENT_WISE_ADD"):
        with pytest.raises(dml.DescriptorProblems, match=f"Type DML_OPERATOR_{name} cannot be a recurrent network"):
            recurrent("RNN", ActivationDescs=[_activation(name)])
    with pytest.raises(dml.DescriptorProblems, match=r"Desc\.InputTensor is given"):
        recurrent("RNN", ActivationDescs=[_activation("ACTIVATION_RELU", InputTensor=tensor(F32, (1, 1, 2, 5)))])
    assert str(dml.RecurrentActivation(type="ACTIVATION_ELU", desc={"Alpha": 1.0})) == "ACTIVATION_ELU(Alpha=1.0)"


def test_direction_takes_every_spelling() -> None:
    spellings = ("DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL", "BIDIRECTIONAL", 2)
    assert {dml.RecurrentNetworkDirection(s) for s in spellings} == {dml.RecurrentNetworkDirection.BIDIRECTIONAL}
    assert [d.value for d in dml.RecurrentNetworkDirection] == [0, 1, 2]
    with pytest.raises(dml.DescriptorProblems, match="Direction"):
        recurrent("RNN", "REVERSE")


def _onnx_run(op: str, direction: str, seq: int, batch: int, inputs: int, hidden: int, seed: int) -> list[Any]:
    """onnx.reference's outputs (Y, Y_h and for LSTM Y_c) of ``op`` on random arrays in ONNX's 3-D layout."""
    rng = np.random.default_rng(seed)
    dirs, g = (2 if direction == "bidirectional" else 1), GATES[op]
    arrays = {
        "X": rng.standard_normal((seq, batch, inputs)),
        "W": rng.standard_normal((dirs, g * hidden, inputs)),
        "R": rng.standard_normal((dirs, g * hidden, hidden)),
        "B": rng.standard_normal((dirs, 2 * g * hidden)),
    }
    outputs = ["Y", "Y_h", "Y_c"] if op == "LSTM" else ["Y", "Y_h"]
    node = helper.make_node(op, list(arrays), outputs, hidden_size=hidden, direction=direction)
    values = [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in arrays.items()]
    results = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs]
    model = helper.make_model(helper.make_graph([node], op.lower(), values, results))
    return list(ReferenceEvaluator(model).run(None, {n: a.astype(np.float32) for n, a in arrays.items()}))


@pytest.mark.parametrize("seed", range(6))
def test_output_rule_agrees_with_onnx_reference(seed: int) -> None:
    """DirectML's OutputSequenceTensor is ONNX's Y; OutputSingleTensor and OutputCellSingleTensor are Y_h and Y_c
    with a leading 1 (DirectML's 4-D)."""
    rng = np.random.default_rng(100 + seed)
    op = ("RNN", "LSTM", "GRU")[seed % 3]
    direction = ("FORWARD", "BACKWARD", "BIDIRECTIONAL")[rng.integers(0, 3)]
    seq, batch, inputs, hidden = (int(v) for v in rng.integers(1, 5, 4))
    onnx_direction = {"FORWARD": "forward", "BACKWARD": "reverse", "BIDIRECTIONAL": "bidirectional"}[direction]
    y, *singles = _onnx_run(op, onnx_direction, seq, batch, inputs, hidden, seed)
    desc = recurrent(op, direction, (seq, batch, inputs, hidden))
    expected = [shape.sizes for shape in desc.expected_outputs()]
    assert expected == [y.shape, *((1, *s.shape) for s in singles)]
    assert {shape.data_type for shape in desc.expected_outputs()} == {F32}
    dml.validate(desc, FL.FL_1_0)  # the outputs given in the independent layout agree


SCHEMA_CHECKED = (*list(EXAMPLES)[::2],)


@pytest.mark.parametrize("name", EXAMPLES)
def test_json_round_trip_and_schema(name: str) -> None:
    desc = EXAMPLES[name]
    dumped = json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json(by_alias=True))
    read = parse_descriptor(dumped)
    back = read.desc if isinstance(read, dml.OperatorDesc) else read
    assert type(back) is type(desc) and back == desc and hash(back) == hash(desc)
    assert dumped["Desc"]["ActivationDescCount"] == len(dumped["Desc"]["ActivationDescs"])
    if name in SCHEMA_CHECKED:  # one per operator: the schema's validation costs a fraction of a second each
        schema_validator().validate(dumped)


def test_operator_types_have_the_headers_values() -> None:
    values = {t.name: t.value for t in dml.OperatorType}
    assert {name: values[name] for name in ("RNN", "LSTM", "GRU")} == {"RNN": 76, "LSTM": 77, "GRU": 78}
    assert {dml.OperatorType(s) for s in ("DML_OPERATOR_LSTM", "LSTM", 77)} == {dml.OperatorType.LSTM}


@pytest.mark.parametrize(("op", "direction", "launches"), [("RNN", "FORWARD", 3), ("LSTM", "BIDIRECTIONAL", 3),
                                                           ("GRU", "BACKWARD", 6)])  # fmt: skip
def test_they_run_as_one_recurrent_cl_launch_per_step(op: str, direction: str, launches: int) -> None:
    """A launch per time step (seq_length 3; GRU without LinearBeforeReset two), the states in one temporary region
    of six float rows of num_directions * batch_size * hidden_size; one launch is no lowering of its own."""
    plan = recurrent(op, direction).plan()
    assert len(plan.steps) == launches
    assert {step.lowered.kernel.source_name for step in plan.steps} == {"recurrent.cl"}
    assert [step.lowered.parameters[0].values[0] for step in plan.steps][-1] == 2  # the last step's index
    units = (2 if direction == "BIDIRECTIONAL" else 1) * 2 * 5
    assert [t.sizes for t in plan.temporaries] == [(1, 1, 6, units)]
    with pytest.raises(dml.UnsupportedError, match="runs as a plan of launches"):
        recurrent(op).lower()


def test_dmlpy_validate_and_explain_a_file(run: Run, write_json: Any) -> None:
    desc = recurrent("GRU", "BIDIRECTIONAL")
    path = write_json(json.loads(dml.OperatorDesc(type=desc.OPERATOR_TYPE, desc=desc).model_dump_json()))
    result = run("validate", str(path))
    assert result.returncode == 0, result.stderr
    assert '"Type": "DML_OPERATOR_GRU"' in result.stdout and '"ActivationDescCount": 4' in result.stdout
    assert "valid from DML_FEATURE_LEVEL_1_0" in result.stdout
    wrong = recurrent("RNN", BiasTensor=(1, 1, 1, 5))
    bad = write_json(json.loads(dml.OperatorDesc.model_validate(wrong).model_dump_json()), "bad.json")
    refused_run = run("validate", str(bad))
    assert refused_run.returncode == 1 and "RNN.BiasTensor.Sizes is [1, 1, 1, 5]; it must be" in refused_run.stdout
    explained = run("explain", str(path))
    assert explained.returncode == 0, explained.stderr
    assert "source of opencl/recurrent.cl" in explained.stdout and "#define G1(v) (tanh_float((v)))" in explained.stdout
