"""Where a model comes from: the ModelProto ``prepare`` is given (or parses from a path or bytes) and the folder
of its external data; the onnx.checker pass over its structure alone; the one-node model ``run_node`` makes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper

from dmlpy.errors import InvalidArgumentError, argument_error


def model_and_folder(model: Any, base_dir: Any) -> tuple[onnx.ModelProto, str | None]:
    """The ModelProto ``prepare`` was given (or loaded from the path or bytes it was given), and the folder its
    external data is read from: ``base_dir``, else a path's folder, else None."""
    if base_dir is not None and not isinstance(base_dir, str | os.PathLike):
        raise argument_error("prepare", "base_dir", base_dir, "the folder (a str or os.PathLike) of the model's data")
    folder = os.fspath(base_dir) if base_dir is not None else None
    if isinstance(model, onnx.ModelProto):
        return model, folder
    if isinstance(model, bytes | bytearray):
        return _parsed(bytes(model), "the model's bytes"), folder
    if isinstance(model, str | os.PathLike):
        path = os.fspath(model)
        try:
            with open(path, "rb") as file:
                data = file.read()
        except OSError as error:
            raise InvalidArgumentError(f"prepare: the model file {path!r} cannot be read: {error}") from error
        proto = _parsed(data, f"the model file {path!r}")
        return proto, folder if folder is not None else os.path.dirname(os.path.abspath(path))
    raise argument_error(
        "prepare", "model", model, "an onnx.ModelProto, the path of a .onnx file, or a serialized model (bytes)"
    )


def _parsed(data: bytes, what: str) -> onnx.ModelProto:
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except MemoryError:
        raise
    except Exception as error:  # protobuf's DecodeError, or what its parser raises for bytes it cannot take
        raise InvalidArgumentError(f"prepare: {what} cannot be parsed as an ONNX ModelProto: {error}") from error
    return model


def _structure(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` without its initializers' data, for onnx.checker: each initializer becomes a graph input of its
    type and dims (the data is dmlpy's to read, from the model's folder; the checker would read the working
    directory's, and copy every byte twice)."""
    skeleton = onnx.ModelProto()
    _copy_fields(model, skeleton, leave_out="graph")
    _copy_fields(model.graph, skeleton.graph, leave_out="initializer")
    declared = {value.name for value in model.graph.input}
    for tensor in model.graph.initializer:
        if tensor.name not in declared:
            skeleton.graph.input.append(helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
    return skeleton


def _copy_fields(source: Any, target: Any, leave_out: str) -> None:
    for field, value in source.ListFields():
        if field.name == leave_out:
            continue
        if isinstance(value, bool | int | float | str | bytes):
            setattr(target, field.name, value)
        elif hasattr(value, "ListFields"):  # a message
            getattr(target, field.name).CopyFrom(value)
        else:  # a repeated field
            getattr(target, field.name).extend(value)


def check_with_onnx(model: onnx.ModelProto) -> None:
    try:
        onnx.checker.check_model(_structure(model))
    except MemoryError:
        raise
    except Exception as error:  # onnx.checker.ValidationError, or what it raises on fields it cannot read
        raise InvalidArgumentError(f"prepare: onnx.checker refuses the model: {error}") from error


def node_model(node: onnx.NodeProto, arrays: Sequence[np.ndarray[Any, Any]]) -> onnx.ModelProto:
    """A model of ``node`` alone, its inputs typed and shaped as ``arrays``, its outputs as ONNX infers them."""
    graph_inputs = [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape)
        for name, array in zip(node.input, arrays, strict=False)
        if name
    ]
    inferred = onnx.shape_inference.infer_shapes(
        helper.make_model(helper.make_graph([node], "run_node", graph_inputs, []))
    )
    known = {value.name: value for value in inferred.graph.value_info}
    graph_outputs = [known.get(name) or onnx.ValueInfoProto(name=name) for name in node.output]
    return helper.make_model(helper.make_graph([node], "run_node", graph_inputs, graph_outputs))
