"""Where a model comes from: the ModelProto ``prepare`` is given (or parses from a path or bytes) and the folder
of its external data; the onnx.checker pass over its structure alone, after refusing external data anywhere but
the graph's initializers; the one-node model ``run_node`` makes."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper

from dmlpy.errors import InvalidArgumentError, UnsupportedError, argument_error


def model_and_folder(model: Any, base_dir: Any) -> tuple[onnx.ModelProto, str | None]:
    """The ModelProto ``prepare`` was given (or loaded from the path or bytes it was given), and the folder its
    external data is read from: ``base_dir``, else a path's folder, else None."""
    folder = _folder(base_dir)
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


def _folder(base_dir: Any) -> str | None:
    """``base_dir`` as the path of a folder that exists, or None when not given."""
    if base_dir is None:
        return None
    expected = "the folder (a str or os.PathLike of a str) of the model's external data"
    folder = os.fspath(base_dir) if isinstance(base_dir, str | os.PathLike) else None
    if not isinstance(folder, str):
        raise argument_error("prepare", "base_dir", base_dir, expected)
    if not folder:
        raise InvalidArgumentError(
            "prepare: base_dir is ''; name the folder of the model's external data ('.' for the working directory)"
        )
    if "\0" in folder:
        raise InvalidArgumentError(f"prepare: base_dir {folder!r} holds a NUL character, which no path can")
    if not os.path.isdir(folder):
        what = "is no folder" if os.path.exists(folder) else "does not exist"
        raise InvalidArgumentError(
            f"prepare: base_dir {folder!r} {what}; it names the folder that holds the model's external data"
        )
    return folder


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


def _place(field: str, index: int, item: Any) -> str:
    """How a message found at ``field`` (its ``index``-th entry) is named in a message: by name where it has one."""
    if isinstance(item, onnx.NodeProto):
        return f"node {item.name!r} ({item.op_type})" if item.name else f"node {index} ({item.op_type})"
    if isinstance(item, onnx.AttributeProto):
        return f"attribute {item.name!r}"
    if isinstance(item, onnx.GraphProto | onnx.FunctionProto):
        return f"{'subgraph' if field != 'functions' else 'function'} {item.name!r}"
    if isinstance(item, onnx.TensorProto):
        return f"{'tensor' if field in ('t', 'tensors') else field} {item.name!r}"
    return f"{field} {index}"


def _refuse_external_data_elsewhere(model: onnx.ModelProto) -> None:
    """UnsupportedError for a tensor stored in external data anywhere but the main graph's initializers (a
    Constant's value, a subgraph's initializer, a sparse initializer's values or indices): dmlpy reads only those
    from the model's folder, and onnx.checker would look for the others in the working directory."""
    pending: deque[tuple[Any, str, bool]] = deque([(model.graph, "graph", True)])
    pending += [(function, _place("functions", k, function), False) for k, function in enumerate(model.functions)]
    pending += [(info, f"training_info {k}", False) for k, info in enumerate(model.training_info)]
    while pending:
        message, where, main_graph = pending.popleft()
        for field, value in message.ListFields():
            if field.message_type is None or (main_graph and field.name == "initializer"):
                continue  # numbers and strings; the initializers dmlpy.onnx.external_data reads
            for index, entry in enumerate([value] if hasattr(value, "ListFields") else value):
                place = f"{where}, {_place(field.name, index, entry)}"
                if isinstance(entry, onnx.TensorProto):
                    if entry.data_location == onnx.TensorProto.EXTERNAL:
                        location = next((e.value for e in entry.external_data if e.key == "location"), "")
                        raise UnsupportedError(
                            f"prepare: the model's {place} is stored in external data ({location!r}); dmlpy reads "
                            "external data only for the graph's initializers (graph.initializer): keep this tensor "
                            "in the model"
                        )
                else:
                    pending.append((entry, place, False))


def check_with_onnx(model: onnx.ModelProto) -> None:
    """onnx.checker over the model's structure (see _structure), once nothing in it can send the checker to the
    working directory for external data."""
    _refuse_external_data_elsewhere(model)
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
