"""dmlpy.onnx on models it must not trust: external data is read from the model's own folder only (never the
working directory, never through '..', absolute paths or symbolic links that leave it, not even when the folder
changes while prepare reads it), and only for the graph's initializers; a model that contradicts itself (an
output type, an output_dtype against its zero point, an input of another shape, a graph input against its
initializer, a node nothing reads) is refused instead of answered; the compiled-graph cache is bounded and
shared by threads; prepare keeps no host copy of initializers; and every malformed model, handmade or mutated
by hypothesis, is refused with a dml.DmlError. Results are compared with onnx.reference; the fuzz counts how
many, and a model dmlpy answers that onnx.reference refuses is a failure."""

from __future__ import annotations

import itertools
import os
import sys
import threading
import tracemalloc
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is a test dependency (pip install -e .[dev])")
from hypothesis import HealthCheck, event, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from onnx import TensorProto, helper, numpy_helper, version_converter  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from onnx.utils import Extractor  # noqa: E402

import dmlpy as dml  # noqa: E402
import dmlpy.onnx  # noqa: E402
from tests.helpers.onnx_compute import COMPUTE_OPS  # noqa: E402

F, U8, I8 = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8
WEIGHTS = np.arange(3, 19, dtype=np.uint8)
"""The model's own external data: 16 bytes."""
SECRET = b"-----BEGIN KEY--"
"""16 bytes in files the model does not own: never to appear in an output."""


def make_model(nodes: list[Any], inputs: list[Any], outputs: list[Any], initializers: Sequence[Any] = ()) -> Any:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def value(name: str, elem: int, shape: list[Any]) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def reference(model: Any, feeds: dict[str, Any]) -> list[Any]:
    return list(ReferenceEvaluator(model).run(None, feeds))


def same(got: Any, want: Any) -> bool:
    return bool(got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes())


# ------------------------------------------------------------------------------------------- external data
def external_tensor(name: str, location: str, dims: list[int], **entries: int) -> Any:
    """A uint8 initializer whose data lies at ``location`` (offset and length as given)."""
    tensor = TensorProto(name=name, data_type=U8, dims=dims, data_location=TensorProto.EXTERNAL)
    for key, entry in {"location": location, **entries}.items():
        tensor.external_data.add(key=key, value=str(entry))
    return tensor


def identity_of(tensor: Any) -> Any:
    """y = Identity(w), w an initializer: the output is w's bytes."""
    return make_model([helper.make_node("Identity", ["w"], ["y"])], [], [value("y", U8, list(tensor.dims))], [tensor])


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """``model``: the model's folder, holding weights.bin (WEIGHTS); ``cwd``: the working directory, holding a
    weights.bin and a .ssh/id_rsa of SECRET; ``secret``: SECRET beside the model's folder."""
    model, cwd = tmp_path / "model", tmp_path / "cwd"
    model.mkdir()
    (cwd / ".ssh").mkdir(parents=True)
    (model / "weights.bin").write_bytes(WEIGHTS.tobytes())
    (cwd / "weights.bin").write_bytes(SECRET)
    (cwd / ".ssh" / "id_rsa").write_bytes(SECRET)
    (tmp_path / "secret.bin").write_bytes(SECRET)
    monkeypatch.chdir(cwd)
    return {"model": model, "cwd": cwd, "secret": tmp_path / "secret.bin"}


def saved(places: dict[str, Path], tensor: Any) -> Path:
    path = places["model"] / "m.onnx"
    path.write_bytes(identity_of(tensor).SerializeToString())
    return path


def test_external_data_is_read_from_the_model_folder(places: dict[str, Path]) -> None:
    path = saved(places, external_tensor("w", "weights.bin", [16]))
    (want,) = reference(onnx.load(path), {})  # onnx.load reads weights.bin beside the model
    assert same(want, WEIGHTS)
    for given_as in (str(path), path):
        (got,) = dmlpy.onnx.prepare(given_as).run([])
        assert same(got, want)
    # The model without its data, with the folder named: the same.
    bare = onnx.load(path, load_external_data=False)
    (got,) = dmlpy.onnx.prepare(bare, base_dir=places["model"]).run([])
    assert same(got, want)
    # An offset and a length pick a part of the file.
    part = saved(places, external_tensor("w", "weights.bin", [4], offset=8, length=4))
    (got,) = dmlpy.onnx.prepare(part).run([])
    assert same(got, WEIGHTS[8:12])


def test_a_model_without_its_folder_never_reads_the_working_directory(places: dict[str, Path]) -> None:
    bare = onnx.load(saved(places, external_tensor("w", "weights.bin", [16])), load_external_data=False)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(bare)
    message = str(refused.value)
    assert "ONNX initializer 'w'" in message and "'weights.bin'" in message and "base_dir" in message
    assert SECRET.decode() not in message


def test_a_model_naming_a_file_below_the_working_directory_gets_nothing(places: dict[str, Path]) -> None:
    """The issue's case: a model that names .ssh/id_rsa, prepared from memory (onnx.load of its bytes) with the
    working directory holding one."""
    model = identity_of(external_tensor("w", ".ssh/id_rsa", [16]))
    with pytest.raises(dml.DmlError) as refused:
        dmlpy.onnx.prepare(model)
    assert "'.ssh/id_rsa'" in str(refused.value)
    with pytest.raises(dml.DmlError, match="no such file"):
        dmlpy.onnx.prepare(model, base_dir=places["model"])


def _leave_by_link(places: dict[str, Path]) -> str:
    (places["model"] / "link.bin").symlink_to(places["secret"])
    return "link.bin"


def _leave_by_folder_link(places: dict[str, Path]) -> str:
    (places["model"] / "up").symlink_to(places["secret"].parent)
    return "up/secret.bin"


LEAVING: dict[str, Callable[[dict[str, Path]], str]] = {
    "parent": lambda places: "../secret.bin",
    "nested parent": lambda places: "sub/../../secret.bin",
    "absolute": lambda places: str(places["secret"]),
    "working directory": lambda places: str(places["cwd"] / "weights.bin"),
    "link to a file outside": _leave_by_link,
    "link to a folder outside": _leave_by_folder_link,
}


@pytest.mark.parametrize("how", sorted(LEAVING))
def test_external_data_outside_the_model_folder_is_refused(places: dict[str, Path], how: str) -> None:
    (places["model"] / "sub").mkdir()
    location = LEAVING[how](places)
    path = saved(places, external_tensor("w", location, [16]))
    bare = onnx.load(path, load_external_data=False)
    for prepare in (lambda: dmlpy.onnx.prepare(path), lambda: dmlpy.onnx.prepare(bare, base_dir=places["model"])):
        with pytest.raises(dml.InvalidArgumentError) as refused:
            prepare()
        message = str(refused.value)
        assert "ONNX initializer 'w'" in message and repr(location) in message, message
        assert SECRET.decode() not in message


def test_a_link_that_stays_inside_the_folder_is_followed(places: dict[str, Path]) -> None:
    (places["model"] / "alias.bin").symlink_to(places["model"] / "weights.bin")
    (got,) = dmlpy.onnx.prepare(saved(places, external_tensor("w", "alias.bin", [16]))).run([])
    assert same(got, WEIGHTS)


@pytest.mark.parametrize(
    ("tensor", "words"),
    [
        (external_tensor("w", "absent.bin", [16]), "'absent.bin': no such file"),
        (external_tensor("w", "weights.bin", [32]), "holds 16 bytes"),
        (external_tensor("w", "weights.bin", [16], offset=8), "holds 8 bytes"),
        (external_tensor("w", "weights.bin", [4], offset=99), "offset 99"),
        (external_tensor("w", "weights.bin", [4], length=5), "length 5"),
        (external_tensor("w", "weights.bin", [4], offset=-1), "offset"),
        (external_tensor("w", "", [4]), "location"),
    ],
)
def test_missing_or_short_external_data_is_refused(places: dict[str, Path], tensor: Any, words: str) -> None:
    with pytest.raises(dml.InvalidArgumentError, match=words):
        dmlpy.onnx.prepare(saved(places, tensor))


def test_links_inside_the_folder_are_followed_one_component_at_a_time(places: dict[str, Path]) -> None:
    """Links resolved by dmlpy, each step inside the folder: a relative link up from a subfolder, a link to a
    subfolder, a chain of links, and a link named by its absolute path."""
    model = places["model"]
    (model / "sub").mkdir()
    (model / "sub" / "up.bin").symlink_to("../weights.bin")
    (model / "alias").symlink_to("sub")
    (model / "chain.bin").symlink_to("alias/up.bin")
    (model / "absolute.bin").symlink_to(model / "sub" / "up.bin")
    for location in ("sub/up.bin", "alias/up.bin", "chain.bin", "absolute.bin"):
        (got,) = dmlpy.onnx.prepare(saved(places, external_tensor("w", location, [16]))).run([])
        assert same(got, WEIGHTS), location


def test_a_hard_link_inside_the_folder_is_the_folders_file(places: dict[str, Path]) -> None:
    """As docs/graphs.md says: a hard link is a name of the file in the folder, whoever else names it (refusing
    files of several names would refuse deduplicated stores)."""
    os.link(places["secret"], places["model"] / "hard.bin")
    (got,) = dmlpy.onnx.prepare(saved(places, external_tensor("w", "hard.bin", [16]))).run([])
    assert got.tobytes() == SECRET


def _fifo(places: dict[str, Path]) -> str:
    os.mkfifo(places["model"] / "pipe.bin")
    return "pipe.bin"


def _loop(places: dict[str, Path]) -> str:
    (places["model"] / "a.bin").symlink_to("b.bin")
    (places["model"] / "b.bin").symlink_to("a.bin")
    return "a.bin"


def _up_and_back(places: dict[str, Path]) -> str:
    (places["model"] / "back.bin").symlink_to(f"../{places['model'].name}/weights.bin")
    return "back.bin"


NO_FILE: dict[str, tuple[Callable[[dict[str, Path]], str], str]] = {
    "a FIFO": (_fifo, "it is a FIFO in "),
    "a folder": (lambda places: (places["model"] / "sub").mkdir() or "sub", "it is a directory in "),
    "the folder itself": (lambda places: ".", "it names the folder "),
    "a loop of links": (_loop, "more than 40 symbolic links"),
    "a link out and back in": (_up_and_back, "leaves the model's folder"),
    "a file as a folder": (lambda places: "weights.bin/w.bin", "is a regular file, not a folder"),
}
"""Locations inside the folder that name no regular file reached without leaving it -> the refusal's words.
(A link whose target steps out of the folder is refused even when it comes back in.)"""


@pytest.mark.parametrize("case", sorted(NO_FILE))
def test_a_location_that_is_no_regular_file_is_refused(places: dict[str, Path], case: str) -> None:
    make, words = NO_FILE[case]
    location = make(places)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(saved(places, external_tensor("w", location, [16])))
    message = str(refused.value)
    assert message.startswith(f"ONNX initializer 'w': its external data file {location!r}: "), message
    assert words in message, message
    assert SECRET.decode() not in message


@pytest.mark.parametrize("location", ["weights.bin/", "weights.bin/.", "weights.bin//", "weights.bin\\", "./"])
def test_a_location_of_a_folders_form_is_refused_not_read_as_the_file(places: dict[str, Path], location: str) -> None:
    """Issue 42: 'weights.bin/' (a trailing separator, or '/.', which name a folder) was read as weights.bin, the
    walk skipping its empty and '.' components. It is refused, as the other bad locations are, naming the
    initializer and the location; the same file named plainly is read."""
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(saved(places, external_tensor("w", location, [16])))
    assert str(refused.value) == (
        f"ONNX initializer 'w': its external data file {location!r}: it ends in a path separator (or one and '.'), "
        "the form of a folder; external data is a regular file: name it without the trailing separator"
    )
    (got,) = dmlpy.onnx.prepare(saved(places, external_tensor("w", "weights.bin", [16]))).run([])
    assert same(got, WEIGHTS)


def test_a_nul_in_an_external_location_is_refused_naming_the_initializer(places: dict[str, Path]) -> None:
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(identity_of(external_tensor("w", "weights.bin\0.txt", [16])), base_dir=places["model"])
    assert str(refused.value).startswith("ONNX initializer 'w': its external data location 'weights.bin\\x00.txt' ")


class _BytesPath:
    def __fspath__(self) -> bytes:
        return b"/tmp"


@pytest.mark.parametrize(
    ("base_dir", "words"),
    [
        ("", "base_dir is ''"),
        ("no/such/folder", "base_dir 'no/such/folder' does not exist"),
        ("weights.bin", "base_dir 'weights.bin' is no folder"),
        ("mo\0del", "base_dir 'mo\\x00del' holds a NUL character"),
        (_BytesPath(), "base_dir is <"),
        (b"/tmp", "base_dir is b'/tmp'"),
    ],
)
def test_a_base_dir_that_names_no_folder_is_refused(places: dict[str, Path], base_dir: Any, words: str) -> None:
    """Before the model is looked at: an empty base_dir is not the working directory, a file or a missing folder
    is not a folder without its external data."""
    os.chdir(places["model"])
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(identity_of(external_tensor("w", "weights.bin", [16])), base_dir=base_dir)
    assert str(refused.value).startswith(f"prepare: {words}"), str(refused.value)


# What another process can do to the model's folder while prepare reads it.
def _folder_for_a_link_out(model: Path, secret: Path) -> None:
    (model / "sub").rename(model / "old")
    (model / "sub").symlink_to(secret.parent)


def _file_for_a_link_out(model: Path, secret: Path) -> None:
    (model / "sub" / "secret.bin").unlink()
    (model / "sub" / "secret.bin").symlink_to(secret)


def _file_for_a_fifo(model: Path, secret: Path) -> None:
    (model / "sub" / "secret.bin").unlink()
    os.mkfifo(model / "sub" / "secret.bin")


SWAPS = {"its folder for a link out": _folder_for_a_link_out, "the file for a link out": _file_for_a_link_out}
SWAPS["the file for a FIFO"] = _file_for_a_fifo
FILE_CALLS = [(os, "stat"), (os, "lstat"), (os, "open"), (os, "readlink"), (os, "fstat")]
FILE_CALLS += [(os.path, "isfile"), (os.path, "realpath"), (os.path, "exists"), (os.path, "isdir")]
"""The calls by which a reader of the folder looks at it or opens something in it: the swap happens just before
or just after one of them."""


def _prepared_while_swapped(
    monkeypatch: pytest.MonkeyPatch, model: Path, secret: Path, swap: Callable[[Path, Path], None], at: int
) -> tuple[bool, Any]:
    """prepare(model/m.onnx), the swap made at the ``at``-th moment: just before or just after a call of
    FILE_CALLS (odd: before, even: after). Whether the swap was made, and the outputs (or the dml.DmlError). A
    prepare that waits on a FIFO fails the test."""
    moments = 0

    def tick() -> None:
        nonlocal moments
        moments += 1
        if moments == at:
            swap(model, secret)

    def around(call: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            tick()
            try:
                return call(*args, **kwargs)
            finally:
                tick()

        return counted

    outcome: list[Any] = []

    def prepare_and_run() -> None:
        try:
            outcome.append(dmlpy.onnx.prepare(model / "m.onnx").run([]))
        except dml.DmlError as error:
            outcome.append(error)

    with monkeypatch.context() as patched:
        for module, name in FILE_CALLS:
            patched.setattr(module, name, around(getattr(module, name)))
        worker = threading.Thread(target=prepare_and_run, daemon=True)
        worker.start()
        worker.join(timeout=60)  # a hang guard only: the prepare of 16 bytes takes milliseconds
    if worker.is_alive():  # blocked opening the FIFO: a writer that opens and closes it lets it go
        os.close(os.open(model / "sub" / "secret.bin", os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
        pytest.fail(f"prepare waited on what was swapped in at moment {at}")
    return moments >= at, outcome[0]


@pytest.mark.parametrize("swap", sorted(SWAPS))
def test_a_folder_changed_while_prepare_reads_it_never_gives_data_from_outside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """The location sub/secret.bin, and another process swapping a folder or the file for a link out of the
    model's folder (or for a FIFO nobody writes) just before or after each file call prepare makes, in turn:
    every prepare reads the model's own bytes or refuses (a dml.DmlError), never the bytes outside and never
    waits."""
    dmlpy.onnx.prepare(round_model())  # the default device made before the calls are counted
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET)
    swapped = 0
    for at in itertools.count(1):
        model = tmp_path / f"model{at}"
        (model / "sub").mkdir(parents=True)
        (model / "sub" / "secret.bin").write_bytes(WEIGHTS.tobytes())
        (model / "m.onnx").write_bytes(identity_of(external_tensor("w", "sub/secret.bin", [16])).SerializeToString())
        made, outcome = _prepared_while_swapped(monkeypatch, model, outside / "secret.bin", SWAPS[swap], at)
        if not made:
            break
        swapped += 1
        assert isinstance(outcome, dml.InvalidArgumentError) or same(outcome[0], WEIGHTS), (at, outcome)
        assert SECRET.decode() not in str(outcome)
    assert swapped >= 8  # around the folder looked at and opened, the file looked at and opened


def _external(name: str, location: str) -> Any:
    """A float32 [4] tensor whose data lies at ``location``."""
    tensor = TensorProto(name=name, data_type=F, dims=[4], data_location=TensorProto.EXTERNAL)
    tensor.external_data.add(key="location", value=location)
    return tensor


def _constant_in_the_graph(location: str) -> Any:
    constant = helper.make_node("Constant", [], ["k"], name="konst", value=_external("c", location))
    nodes = [constant, helper.make_node("Identity", ["x"], ["y"])]
    return make_model(nodes, [value("x", F, [4])], [value("y", F, [4])])


def _branches(then_branch: Any) -> Any:
    """y = If(b) then ``then_branch`` else x."""
    otherwise = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [value("e", F, [4])])
    node = helper.make_node("If", ["b"], ["y"], name="choice", then_branch=then_branch, else_branch=otherwise)
    return make_model([node], [value("b", TensorProto.BOOL, []), value("x", F, [4])], [value("y", F, [4])])


def _constant_in_a_subgraph(location: str) -> Any:
    constant = helper.make_node("Constant", [], ["t"], name="konst", value=_external("c", location))
    return _branches(helper.make_graph([constant], "then", [], [value("t", F, [4])]))


def _initializer_of_a_subgraph(location: str) -> Any:
    identity = helper.make_node("Identity", ["c"], ["t"])
    return _branches(helper.make_graph([identity], "then", [], [value("t", F, [4])], [_external("c", location)]))


def _sparse_initializer(location: str) -> Any:
    model = _constant_in_the_graph(location)
    del model.graph.node[0]
    indices = numpy_helper.from_array(np.array([0, 1, 2, 3], np.int64), "sp_i")
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(_external("sp", location), indices, [4]))
    return model


EXTERNAL_ELSEWHERE: dict[str, tuple[Callable[[str], Any], str]] = {
    "a Constant's value": (_constant_in_the_graph, "graph, node 'konst' (Constant), attribute 'value', tensor 'c'"),
    "a Constant's value in a subgraph": (
        _constant_in_a_subgraph,
        "graph, node 'choice' (If), attribute 'then_branch', subgraph 'then', node 'konst' (Constant), attribute "
        "'value', tensor 'c'",
    ),
    "a subgraph's initializer": (
        _initializer_of_a_subgraph,
        "graph, node 'choice' (If), attribute 'then_branch', subgraph 'then', initializer 'c'",
    ),
    "a sparse initializer's values": (_sparse_initializer, "graph, sparse_initializer 0, values 'sp'"),
}
"""Tensors stored in external data that are not the graph's initializers -> where the refusal says they are."""


@pytest.mark.parametrize("case", sorted(EXTERNAL_ELSEWHERE))
def test_external_data_outside_the_graphs_initializers_is_refused_without_a_look(
    places: dict[str, Path], case: str
) -> None:
    """onnx.checker looks for these in the working directory; dmlpy refuses them before it runs, so a file of
    that name there (weights.bin) and none (absent.bin) get the same answer."""
    make, place = EXTERNAL_ELSEWHERE[case]
    for location in ("weights.bin", "absent.bin"):
        for base_dir in (None, places["model"]):
            with pytest.raises(dml.UnsupportedError) as refused:
                dmlpy.onnx.prepare(make(location), base_dir=base_dir)
            assert str(refused.value) == (
                f"prepare: the model's {place} is stored in external data ({location!r}); dmlpy reads external "
                "data only for the graph's initializers (graph.initializer): keep this tensor in the model"
            )


# --------------------------------------------------------------------------------- models that contradict
def test_an_output_dtype_the_zero_point_contradicts_is_refused_at_prepare() -> None:
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", output_dtype=I8)
    scale = numpy_helper.from_array(np.array(0.5, np.float32), "s")
    zero = numpy_helper.from_array(np.array(3, np.uint8), "z")
    model = make_model([node], [value("x", F, [4])], [value("y", I8, [4])], [scale, zero])
    with pytest.raises(ValueError, match="output_dtype"):  # onnx.reference refuses it too
        reference(model, {"x": np.zeros(4, np.float32)})
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(model)
    message = str(refused.value)
    assert "ONNX node 'q' (QuantizeLinear, opset 21)" in message
    assert "output_dtype INT8" in message and "zero point 'z' is UINT8" in message


def test_an_output_declared_of_another_type_is_refused_at_prepare() -> None:
    """QuantizeLinear without a zero point or output_dtype gives UINT8; the model says INT8."""
    node = helper.make_node("QuantizeLinear", ["x", "s"], ["y"])
    scale = numpy_helper.from_array(np.array(0.5, np.float32), "s")
    model = make_model([node], [value("x", F, [4])], [value("y", I8, [4])], [scale])
    with pytest.raises(onnx.shape_inference.InferenceError):  # onnx's full check refuses it too
        onnx.checker.check_model(model, full_check=True)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(model)
    message = str(refused.value)
    assert "ONNX graph output 'y' is declared INT8" in message and "UINT8" in message


def per_axis_model(x_shape: list[Any]) -> Any:
    node = helper.make_node("QuantizeLinear", ["x", "s"], ["y"], axis=0)
    scale = numpy_helper.from_array(np.array([0.5, 1.0, 2.0], np.float32), "s")
    return make_model([node], [value("x", F, x_shape)], [value("y", U8, x_shape)], [scale])


@pytest.mark.parametrize(
    ("shape", "words"),
    [
        ((2, 4), "the model's input 'x' has shape (2, 4); the model declares [3, 4]"),
        ((3, 5), "the model's input 'x' has shape (3, 5); the model declares [3, 4]"),
        ((3, 4, 1), "the model's input 'x' has shape (3, 4, 1); the model declares [3, 4]"),
        ((12,), "the model's input 'x' has shape (12,); the model declares [3, 4]"),
    ],
)
def test_an_input_of_another_shape_is_refused_naming_the_input(shape: tuple[int, ...], words: str) -> None:
    rep = dmlpy.onnx.prepare(per_axis_model([3, 4]))
    with pytest.raises(dml.InvalidArgumentError) as refused:
        rep.run([np.ones(shape, np.float32)])
    assert str(refused.value).startswith(words)
    assert rep.compiled_graphs == []


@pytest.mark.parametrize(
    ("declared", "shape", "words"),
    [
        (
            ["N", 4],
            (2, 4),
            "the model's input 'x' has shape (2, 4); the model declares [N, 4], and ONNX node (QuantizeLinear, opset "
            "21) reads it with scale 's' of shape [3], one value per index of axis 0: give an array whose dimension 0 "
            "is 3",
        ),
        (
            ["N"],
            (5,),
            "the model's input 'x' has shape (5,); the model declares [N], and ONNX node (QuantizeLinear, opset 21) "
            "reads it with scale 's' of shape [3], one value per index of axis 0: give an array whose dimension 0 is 3",
        ),
    ],
)
def test_an_input_a_per_axis_scale_cannot_read_is_blamed_not_the_scale(
    declared: list[Any], shape: tuple[int, ...], words: str
) -> None:
    """Before: NodeRefused "ONNX node (QuantizeLinear, opset 21): scale 's' has shape [3]; DirectML takes one value
    per tensor, or one per index of the axis (axis 0: 2 values); ..." blamed the model's scale for the caller's
    array, where a symbolic dimension lets the shape check pass."""
    rep = dmlpy.onnx.prepare(per_axis_model(declared))
    with pytest.raises(dml.InvalidArgumentError) as refused:
        rep.run([np.ones(shape, np.float32)])
    assert not isinstance(refused.value, dmlpy.onnx.NodeRefused)
    assert str(refused.value) == words
    assert rep.compiled_graphs == []


def test_an_input_matching_a_symbolic_dimension_runs() -> None:
    model = per_axis_model([3, "N"])
    x = np.linspace(-3, 300, 3 * 7, dtype=np.float32).reshape(3, 7)
    (got,) = dmlpy.onnx.prepare(model).run([x])
    (want,) = reference(model, {"x": x})
    assert same(got, want)


def scale_declared_as(elem: int, shape: list[Any]) -> Any:
    """y = DequantizeLinear(x, s), the initializer s (FLOAT, dims [1]) also a graph input declared ``elem`` of
    ``shape``."""
    node = helper.make_node("DequantizeLinear", ["x", "s"], ["y"])
    scale = numpy_helper.from_array(np.array([2.0], np.float32), "s")
    declared = helper.make_tensor_value_info("s", elem, shape)
    return make_model([node], [value("x", U8, [4]), declared], [value("y", F, [4])], [scale])


@pytest.mark.parametrize(
    ("elem", "shape", "words"),
    [
        (
            TensorProto.FLOAT16,
            [3],
            "is declared FLOAT16 of shape [3]; the initializer 's' is FLOAT of dims [1] (FLOAT16, not FLOAT)",
        ),
        (F, [3], "is declared FLOAT of shape [3]; the initializer 's' is FLOAT of dims [1] (dimension 0 is 1, not 3)"),
        (
            F,
            [1, 1],
            "is declared FLOAT of shape [1, 1]; the initializer 's' is FLOAT of dims [1] (1 dimensions, not 2)",
        ),
        (
            TensorProto.DOUBLE,
            ["N"],
            "is declared DOUBLE of shape [N]; the initializer 's' is FLOAT of dims [1] (DOUBLE, not FLOAT)",
        ),
    ],
    ids=["FLOAT16 for FLOAT", "3 values for 1", "rank 2 for rank 1", "DOUBLE for FLOAT"],
)
def test_a_graph_input_that_contradicts_its_initializer_is_refused_naming_both(
    elem: int, shape: list[Any], words: str
) -> None:
    """The reviewer's case (FLOAT16[3] declared, FLOAT[1] given) and its kin: onnx.reference answers from the
    initializer, ignoring the declaration; dmlpy refuses the model that contradicts itself."""
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(scale_declared_as(elem, shape))
    assert str(refused.value).startswith(f"ONNX graph input 's' {words}: make the input's declaration agree"), str(
        refused.value
    )


@pytest.mark.parametrize("shape", [[1], ["N"], [None]])
def test_a_graph_input_that_agrees_with_its_initializer_runs(shape: list[Any]) -> None:
    model = scale_declared_as(F, shape)
    x = np.array([0, 1, 7, 255], np.uint8)
    rep = dmlpy.onnx.prepare(model)
    assert rep.input_names == ["x"]  # the initializer is bound; its input is not asked for
    (got,) = rep.run([x])
    (want,) = reference(model, {"x": x})
    assert same(got, want)


def test_a_node_nothing_reads_is_still_checked_at_prepare() -> None:
    """A node whose output nothing reads is left out of the compiled graph (as onnxruntime prunes it), but
    checked like every node first (as onnxruntime does): a DequantizeLinear of a FLOAT input, which onnx's full
    check refuses too, is refused naming it. The fuzz found dmlpy answering such a model."""
    model = _valid()
    model.graph.node[0].name = "unused"
    model.graph.node[0].input[0] = "s"  # DequantizeLinear(s: FLOAT, s, z: INT8), read by nothing
    model.graph.node[1].input[0] = "s"
    with pytest.raises(onnx.shape_inference.InferenceError):
        onnx.checker.check_model(model, full_check=True)
    with pytest.raises(dmlpy.onnx.NodeRefused) as refused:
        dmlpy.onnx.prepare(model)
    assert str(refused.value).startswith("ONNX node 'unused' (DequantizeLinear, opset 21): DirectML cannot express it")


# ------------------------------------------------------------------------------------- cache and memory
def round_model() -> Any:
    return make_model([helper.make_node("Round", ["x"], ["y"])], [value("x", F, ["N"])], [value("y", F, ["N"])])


def test_the_compiled_graph_cache_keeps_the_most_recently_used() -> None:
    model = round_model()
    rep = dmlpy.onnx.prepare(model)
    assert rep.max_compiled_graphs == dmlpy.onnx.MAX_COMPILED_GRAPHS
    rep.max_compiled_graphs = 3

    def check(n: int) -> None:
        x = np.linspace(-4.5, 4.5, n, dtype=np.float32)
        (got,) = rep.run([x])
        (want,) = reference(model, {"x": x})
        assert same(got, want)

    for n in range(1, 6):
        check(n)
    assert len(rep.compiled_graphs) == 3  # 3, 4 and 5 kept
    kept = {id(graph) for graph in rep.compiled_graphs}
    check(3)  # used again: kept, not compiled again, and now the most recent
    assert {id(graph) for graph in rep.compiled_graphs} == kept
    check(1)  # compiled again; 4, the least recently used, is dropped
    assert len(rep.compiled_graphs) == 3
    assert len(kept & {id(graph) for graph in rep.compiled_graphs}) == 2
    check(4)
    assert len(rep.compiled_graphs) == 3


@pytest.mark.parametrize("bound", [None, 0, -1, "x", True, 1.5])
def test_max_compiled_graphs_is_an_int_of_at_least_one(bound: Any) -> None:
    rep = dmlpy.onnx.prepare(round_model())
    with pytest.raises(dml.InvalidArgumentError) as refused:
        rep.max_compiled_graphs = bound
    assert str(refused.value).startswith(f"DmlBackendRep: max_compiled_graphs is {bound!r}; it must be an int"), str(
        refused.value
    )
    assert rep.max_compiled_graphs == dmlpy.onnx.MAX_COMPILED_GRAPHS
    (got,) = rep.run([np.array([0.5, 1.5], np.float32)])  # and the model still runs
    assert same(got, np.array([0.0, 2.0], np.float32))


def test_a_smaller_max_compiled_graphs_drops_the_least_recently_used_at_once() -> None:
    rep = dmlpy.onnx.prepare(round_model())
    for n in (1, 2, 3):
        rep.run([np.zeros(n, np.float32)])
    kept = rep.compiled_graphs
    rep.max_compiled_graphs = 2
    assert rep.compiled_graphs == kept[1:]


def test_a_run_of_a_compiled_shape_never_waits_for_another_shapes_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    """While one thread compiles the model for a new shape, another runs a shape already compiled: the second
    finishes while the first is still compiling (it waited behind the compile before)."""
    model = round_model()
    rep = dmlpy.onnx.prepare(model)
    cached = np.linspace(-2.5, 2.5, 3, dtype=np.float32)
    rep.run([cached])
    build = dmlpy.onnx.backend._Compiled.build
    during_compile: list[Any] = []

    def build_while_another_runs(rep_: Any, shapes: Any, decided: Any) -> Any:
        other = threading.Thread(target=lambda: during_compile.append(rep.run([cached])))
        other.start()
        other.join(timeout=60)  # a hang guard only: the run takes milliseconds unless it waits for this compile
        during_compile.append(other.is_alive())
        return build(rep_, shapes, decided)

    monkeypatch.setattr(dmlpy.onnx.backend._Compiled, "build", build_while_another_runs)
    new = np.linspace(-4.5, 4.5, 5, dtype=np.float32)
    (got,) = rep.run([new])
    assert same(got, reference(model, {"x": new})[0])
    assert len(during_compile) == 2 and during_compile[1] is False, "the run of a compiled shape waited"
    assert same(during_compile[0][0], reference(model, {"x": cached})[0])


def test_threads_running_several_shapes_share_one_bounded_cache(tally: Any) -> None:
    """8 threads, each running 6 shapes 4 times in its own order on one prepared model that keeps 3 graphs:
    every result equals onnx.reference's, and the cache, sampled all along by a ninth thread, never holds more
    than 3."""
    model = round_model()
    rep = dmlpy.onnx.prepare(model)
    rep.max_compiled_graphs = 3
    inputs = [np.linspace(-n - 0.5, n + 0.5, n + 1, dtype=np.float32) for n in range(1, 7)]
    wants = [reference(model, {"x": x})[0] for x in inputs]
    results: list[tuple[int, Any]] = []
    sizes: list[int] = []
    running = threading.Event()
    running.set()

    def runs(first: int) -> None:
        for k in range(4 * len(inputs)):
            which = (first + k * (1 + first % 2)) % len(inputs)
            results.append((which, rep.run([inputs[which]])[0]))

    def sample() -> None:
        while running.is_set():
            sizes.append(len(rep.compiled_graphs))

    sampler = threading.Thread(target=sample)
    sampler.start()
    workers = [threading.Thread(target=runs, args=(first,)) for first in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    running.clear()
    sampler.join()
    assert len(results) == 8 * 4 * len(inputs)
    assert all(same(got, wants[which]) for which, got in results)
    assert sizes and max(sizes) <= 3 and len(rep.compiled_graphs) == 3
    tally["threads x ONNX runs (one prepared model, 6 shapes, 3 kept)"] += len(results)


INITIALIZER_BYTES = 16 << 20


def big_initializer_model() -> Any:
    """y = Identity(w), w 16 MiB of uint8 held in the model."""
    weights = numpy_helper.from_array(np.resize(np.arange(251, dtype=np.uint8), INITIALIZER_BYTES), "w")
    return identity_of(weights)


def test_prepare_keeps_no_host_copy_of_the_initializers() -> None:
    model = big_initializer_model()
    dmlpy.onnx.prepare(round_model())  # the default device made, its programs built: not counted
    tracemalloc.start()
    try:
        rep = dmlpy.onnx.prepare(model)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The initializer's bytes are read once (peak about 1x) and live on the device only.
    assert held < INITIALIZER_BYTES / 4, held
    assert peak < 2 * INITIALIZER_BYTES, peak
    (got,) = rep.run([])
    assert same(got, numpy_helper.to_array(model.graph.initializer[0]))


def test_external_data_streams_to_the_device(tmp_path: Path) -> None:
    model = big_initializer_model()
    want = numpy_helper.to_array(model.graph.initializer[0])
    path = tmp_path / "m.onnx"
    onnx.save_model(model, path, save_as_external_data=True, location="w.bin", size_threshold=0)  # changes model
    dmlpy.onnx.prepare(round_model())
    tracemalloc.start()
    try:
        rep = dmlpy.onnx.prepare(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < INITIALIZER_BYTES / 2, peak  # read in pieces, never whole on the host
    (got,) = rep.run([])
    assert same(got, want)


# ------------------------------------------------------------------------------------------ malformed models
def _valid() -> Any:
    """x -> DequantizeLinear(int8, per tensor, zero point) -> Round -> QuantizeLinear(uint8) -> y."""
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s", "z"], ["r"]),
        helper.make_node("Round", ["r"], ["t"]),
        helper.make_node("QuantizeLinear", ["t", "s"], ["y"]),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0.5, np.float32), "s"),
        numpy_helper.from_array(np.array(-3, np.int8), "z"),
    ]
    return make_model(nodes, [value("x", I8, [2, 3])], [value("y", U8, [2, 3])], initializers)


def _edited(edit: Callable[[Any], Any]) -> Callable[[], Any]:
    def make() -> Any:
        model = _valid()
        edit(model)
        return model

    return make


def _set(path: str, new: Any) -> Callable[[Any], None]:
    def edit(model: Any) -> None:
        *parents, last = path.split(".")
        target = model
        for part in parents:
            target = target[int(part)] if part.isdigit() else getattr(target, part)
        setattr(target, last, new)

    return edit


def _attribute(node: int, attribute: Any) -> Callable[[Any], None]:
    return lambda model: model.graph.node[node].attribute.append(attribute)


def _tensor_attribute() -> Any:
    return helper.make_attribute("axis", numpy_helper.from_array(np.array(1, np.int64)))


def _replace_initializer(tensor: Any) -> Callable[[Any], None]:
    """The initializer of ``tensor``'s name ('s' the scale, 'z' the zero point) replaced by ``tensor``."""

    def edit(model: Any) -> None:
        (target,) = [init for init in model.graph.initializer if init.name == tensor.name]
        target.CopyFrom(tensor)

    return edit


def _truncated() -> bytes:
    data = _valid().SerializeToString()
    return data[: len(data) // 2]


MALFORMED: dict[str, tuple[Callable[[], Any], str]] = {
    "None": (lambda: None, "prepare: model is None"),
    "a number": (lambda: 42, "prepare: model is 42"),
    "a missing file": (lambda: "no/such/model.onnx", "no/such/model.onnx"),
    "truncated bytes": (_truncated, "cannot be parsed"),
    "garbage bytes": (lambda: b"\xff" * 40, "cannot be parsed"),
    "no opset": (_edited(lambda m: m.ClearField("opset_import")), "onnx.checker"),
    "ir_version 0": (_edited(_set("ir_version", 0)), "onnx.checker"),
    "an undefined input": (_edited(lambda m: m.graph.node[1].input.__setitem__(0, "nowhere")), "onnx.checker"),
    "a graph output nothing computes": (_edited(_set("graph.output.0.name", "nothing")), "'nothing'"),
    "a node with no inputs": (_edited(lambda m: m.graph.node[1].ClearField("input")), "onnx.checker"),
    "a node with no outputs": (_edited(lambda m: m.graph.node[2].ClearField("output")), "onnx.checker"),
    "an empty scale name": (_edited(lambda m: m.graph.node[2].input.__setitem__(1, "")), "onnx.checker"),
    "input data type 999": (_edited(_set("graph.input.0.type.tensor_type.elem_type", 999)), "data type 999"),
    "input data type 0": (_edited(_set("graph.input.0.type.tensor_type.elem_type", 0)), "UNDEFINED"),
    "output data type 999": (_edited(_set("graph.output.0.type.tensor_type.elem_type", 999)), "data type 999"),
    "initializer data type 999": (_edited(_set("graph.initializer.0.data_type", 999)), "data type 999"),
    "initializer data type STRING": (
        _edited(_replace_initializer(helper.make_tensor("s", TensorProto.STRING, [], [b"a"]))),
        "STRING",
    ),
    "initializer too short": (
        _edited(_replace_initializer(TensorProto(name="s", data_type=F, dims=[2], raw_data=b"\0" * 4))),
        "its raw_data does not hold the 2 FLOAT values its dims [2] describe",
    ),
    "initializer dims negative": (
        _edited(_replace_initializer(TensorProto(name="s", data_type=F, dims=[-1], raw_data=b"\0" * 4))),
        "has dims [-1]; a dimension is at least 0",
    ),
    "initializer of 2**40 elements": (
        _edited(_replace_initializer(TensorProto(name="s", data_type=F, dims=[1 << 20, 1 << 20]))),
        "'s'",
    ),
    "initializer with two value fields": (
        _edited(_replace_initializer(TensorProto(name="s", data_type=F, raw_data=b"\0" * 4, float_data=[1.0]))),
        "holds its data in 2 fields (raw_data, float_data)",
    ),
    "initializers twice": (_edited(lambda m: m.graph.initializer.append(m.graph.initializer[0])), "'s'"),
    "output_dtype 999": (_edited(_attribute(2, helper.make_attribute("output_dtype", 999))), "data type 999"),
    "output_dtype FLOAT8": (
        _edited(_attribute(2, helper.make_attribute("output_dtype", TensorProto.FLOAT8E4M3FN))),
        "FLOAT8E4M3FN",
    ),
    "axis as a string": (_edited(_attribute(0, helper.make_attribute("axis", "one"))), "axis"),
    "axis as a float": (_edited(_attribute(0, helper.make_attribute("axis", 1.5))), "axis"),
    "axis as a tensor": (_edited(_attribute(0, _tensor_attribute())), "axis"),
    "an attribute of no type": (_edited(_attribute(0, onnx.AttributeProto(name="axis"))), "onnx.checker"),
    "an unknown attribute": (_edited(_attribute(1, helper.make_attribute("mode", 1))), "mode"),
    "Round of an integer": (_edited(lambda m: m.graph.node[1].input.__setitem__(0, "x")), "ELEMENT_WISE_ROUND"),
    "a zero point of another type": (
        _edited(_replace_initializer(numpy_helper.from_array(np.array(3, np.uint8), "z"))),
        "DirectML cannot express it: ELEMENT_WISE_DEQUANTIZE_LINEAR",
    ),
    "a sparse initializer": (
        _edited(
            lambda m: m.graph.sparse_initializer.append(
                helper.make_sparse_tensor(
                    numpy_helper.from_array(np.array([1.0], np.float32), "sp"),
                    numpy_helper.from_array(np.array([0], np.int64), "sp_i"),
                    [2],
                )
            )
        ),
        "sparse",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_model_is_refused_with_a_dml_error(case: str) -> None:
    make, words = MALFORMED[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(dml.DmlError) as refused:
            dmlpy.onnx.prepare(make())
    assert words in str(refused.value), str(refused.value)


def test_what_prepare_wraps_keeps_the_original_as_its_cause() -> None:
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(MALFORMED["no opset"][0]())
    assert isinstance(refused.value.__cause__, onnx.checker.ValidationError)
    with pytest.raises(dml.InvalidArgumentError) as refused:
        dmlpy.onnx.prepare(_truncated())
    assert refused.value.__cause__ is not None


@pytest.mark.parametrize("stage", ["initializer_types", "node_attributes", "lower", "upload_initializers"])
def test_a_bug_of_dmlpy_in_prepare_is_not_called_a_malformed_model(monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    """Every stage of prepare raises its own dml.DmlError, naming what it refuses; an exception of another kind
    is a bug of dmlpy's and shows as itself (it was reported as "the model is malformed: TypeError: ...")."""

    def planted(*args: Any) -> None:
        raise TypeError(f"planted in {stage}")

    monkeypatch.setattr(dmlpy.onnx.backend, stage, planted)
    with pytest.raises(TypeError, match=f"planted in {stage}"):
        dmlpy.onnx.prepare(_valid())


COMPARED = "ran; compared with onnx.reference"
CONVERTED = "ran; compared with onnx.reference, the model converted to opset 19"


def _reference_of(model: Any, feeds: dict[str, Any]) -> tuple[list[Any], str]:
    """onnx.reference's outputs for ``model``, and how they were had. dmlpy runs the nodes the outputs need (as
    onnxruntime prunes the others) and onnx.reference runs every node: it is given the model onnx.utils.Extractor
    cuts to those nodes (the same outputs, wherever the whole model runs). onnx.reference implements
    DequantizeLinear from opset 19 only: a model of an older opset (whose operators compute the same for the types
    dmlpy runs) is compared once onnx.version_converter has moved it to 19. Whatever else onnx.reference refuses,
    of a model dmlpy answered, is a finding: it fails the test."""
    graph = model.graph
    needed = Extractor(model).extract_model([v.name for v in graph.input], [v.name for v in graph.output])
    try:
        return reference(needed, feeds), COMPARED
    except RuntimeError as error:
        if "No implementation for operator" not in str(error):
            raise
    return reference(version_converter.convert_version(needed, 19), feeds), CONVERTED


def _answers_as_onnx_reference(model: Any) -> str:
    """prepare and run ``model`` (a ModelProto or its bytes), X given for each input: a dml.DmlError, or outputs
    equal to onnx.reference's; nothing else. Returns which."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rep = dmlpy.onnx.prepare(model)
        except dml.DmlError as error:
            return f"refused at prepare: {type(error).__name__}"
        feeds = dict.fromkeys(rep.input_names, X)
        try:
            got = rep.run(feeds)
        except dml.DmlError as error:
            return f"refused at run: {type(error).__name__}"
        want, how = _reference_of(
            model if isinstance(model, onnx.ModelProto) else onnx.load_model_from_string(model), feeds
        )
    assert len(got) == len(want)
    for result, expected in zip(got, want, strict=True):
        assert same(result, np.asarray(expected))
    return how


MUTATION_BASE = _valid().SerializeToString()
MUTATED_BYTES = 1000
MUTATED_FIELDS = 200
X = np.array([[-128, -1, 0], [1, 5, 127]], np.int8)
BOUNDED_SEED = 26
"""The default suite's fuzz runs the examples of this seed, the same every run, so that how many it compares with
onnx.reference is fixed; --run-slow's runs LONG_EXAMPLES new ones each time."""
LONG_EXAMPLES = 10_000


def _fuzzed(examples: int | None, mutations: Any, mutated: Callable[[Any], Any], tally: Any, what: str) -> int:
    """``_answers_as_onnx_reference`` of ``mutated(m)`` for ``examples`` examples of ``mutations`` (those of
    BOUNDED_SEED; None: LONG_EXAMPLES new ones); the outcomes counted in the tally; returns how many were compared
    with onnx.reference."""
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=examples or LONG_EXAMPLES,
        deadline=None,
        database=None if examples else settings.default.database,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(mutations)
    def example(mutation: Any) -> None:
        outcome = _answers_as_onnx_reference(mutated(mutation))
        event(outcome)
        outcomes[outcome] += 1

    (seed(BOUNDED_SEED)(example) if examples else example)()
    for outcome, count in outcomes.items():
        tally[f"ONNX fuzz, {what}: {outcome}"] += count
    return outcomes[COMPARED] + outcomes[CONVERTED]


BYTE_EDITS = st.tuples(
    st.lists(st.tuples(st.integers(0, len(MUTATION_BASE) - 1), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(0, 8),
)
"""Bytes of a valid model's protobuf overwritten (field numbers, wire types, lengths, values) and its end cut
off: (position, byte) pairs and how many bytes to cut."""


def _bytes_mutated(mutation: tuple[list[tuple[int, int]], int]) -> bytes:
    edits, cut = mutation
    data = bytearray(MUTATION_BASE)
    for position, byte in edits:
        data[position] = byte
    return bytes(data[: len(data) - cut])


def test_a_model_of_mutated_bytes_is_refused_or_answers_as_onnx_reference(tally: Any) -> None:
    compared = _fuzzed(MUTATED_BYTES, BYTE_EDITS, _bytes_mutated, tally, "bytes")
    assert compared >= 5, compared  # 16 of BOUNDED_SEED's examples (hypothesis 6.170)


@pytest.mark.slow
def test_a_model_of_mutated_bytes_is_refused_or_answers_as_onnx_reference_long(tally: Any) -> None:
    compared = _fuzzed(None, BYTE_EDITS, _bytes_mutated, tally, "bytes, long")
    assert compared >= 20, compared  # about 1% of examples: 100 expected


ELEMENT_TYPES = st.sampled_from([-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 21, 22, 999])
OPERATOR_OF = {op_type: desc for desc in dml.ops.OPERATORS.values() for op_type in desc.ONNX_OPS}
FUZZED_OPS = [
    op_type
    for op_type in dmlpy.onnx.SUPPORTED_OPS
    if not OPERATOR_OF[op_type].FLOAT32_ULPS and op_type not in ("Reciprocal", "Div", "Mod", *COMPUTE_OPS)
]
"""The op types a node may become: those whose results are exact and stay finite on X's values. A bounded one (Exp,
Sin: test_onnx_backend compares them within their bounds) would not equal onnx.reference bit for bit, and an
infinite or huge value (Reciprocal of 0, exp(65)) before a QuantizeLinear meets onnx.reference's cast to int32,
which wraps it (255 becomes 0) where ONNX and dmlpy saturate. Div and Mod are left out too: X holds a 0, and an
integer divided by 0, or its remainder, has all bits set in DirectML and is 0 in onnx.reference
(docs/conformance.md). The matrix products, poolings and resampling op types (``COMPUTE_OPS``) are left out too:
their float results are bounded, not exact (tests/device/graph/test_onnx_matrix.py and its siblings test them)."""
NAMES = st.sampled_from(["x", "s", "z", "r", "t", "y", ""])
FIELD_EDITS = st.one_of(
    st.tuples(st.just("input type"), ELEMENT_TYPES),
    st.tuples(st.just("output type"), ELEMENT_TYPES),
    st.tuples(st.just("initializer type"), st.integers(0, 1), ELEMENT_TYPES),
    st.tuples(st.just("initializer dims"), st.integers(0, 1), st.lists(st.integers(-1, 3), max_size=3)),
    st.tuples(st.just("input shape"), st.lists(st.integers(-1, 4), max_size=3)),
    st.tuples(
        st.just("attribute"),
        st.integers(0, 2),
        st.sampled_from(["axis", "output_dtype", "saturate", "block_size"]),
        st.integers(-3, 22),
    ),
    st.tuples(st.just("node input"), st.integers(0, 2), st.integers(0, 3), NAMES),
    st.tuples(st.just("node output"), st.integers(0, 2), NAMES),
    st.tuples(st.just("operator"), st.integers(0, 2), st.sampled_from(FUZZED_OPS)),
    st.tuples(st.just("opset"), st.integers(0, 30)),
)


def _edit(model: Any, edit: tuple[Any, ...]) -> None:
    kind, *args = edit
    graph = model.graph
    if kind == "input type":
        graph.input[0].type.tensor_type.elem_type = args[0]
    elif kind == "output type":
        graph.output[0].type.tensor_type.elem_type = args[0]
    elif kind == "initializer type":
        graph.initializer[args[0]].data_type = args[1]
    elif kind == "initializer dims":
        graph.initializer[args[0]].ClearField("dims")
        graph.initializer[args[0]].dims.extend(args[1])
    elif kind == "input shape":
        shape = graph.input[0].type.tensor_type.shape
        shape.ClearField("dim")
        for size in args[0]:
            shape.dim.add(dim_value=size)
    elif kind == "attribute":
        graph.node[args[0]].attribute.append(helper.make_attribute(args[1], args[2]))
    elif kind == "node input":
        inputs = graph.node[args[0]].input
        if args[1] < len(inputs):
            inputs[args[1]] = args[2]
        else:
            inputs.append(args[2])
    elif kind == "node output":
        graph.node[args[0]].output[0] = args[1]
    elif kind == "operator":
        graph.node[args[0]].op_type = args[1]
    else:
        model.opset_import[0].version = args[0]


def test_the_fuzz_compares_or_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's negative control: the valid model is compared with onnx.reference (one of an opset
    onnx.reference lacks, after conversion), and a model dmlpy answers but onnx.reference refuses fails the
    harness rather than being skipped."""
    assert _answers_as_onnx_reference(_valid()) == COMPARED
    older = _valid()
    older.opset_import[0].version = 13
    assert _answers_as_onnx_reference(older.SerializeToString()) == CONVERTED

    def refusing(model: Any, feeds: dict[str, Any]) -> list[Any]:
        raise ValueError("planted")

    monkeypatch.setattr(sys.modules[__name__], "reference", refusing)
    with pytest.raises(ValueError, match="planted"):
        _answers_as_onnx_reference(_valid())


def _fields_mutated(edits: list[tuple[Any, ...]]) -> Any:
    model = _valid()
    for edit in edits:
        _edit(model, edit)
    return model


FIELD_EDIT_LISTS = st.lists(FIELD_EDITS, min_size=1, max_size=3)
"""A valid model's fields changed: element types (999 and -1 among them), dims, declared shapes, attributes, the
names nodes read and write, operators and the opset."""


def test_a_model_of_mutated_fields_is_refused_or_answers_as_onnx_reference(tally: Any) -> None:
    compared = _fuzzed(MUTATED_FIELDS, FIELD_EDIT_LISTS, _fields_mutated, tally, "fields")
    assert compared >= 8, compared  # 26 of BOUNDED_SEED's examples (hypothesis 6.170)


@pytest.mark.slow
def test_a_model_of_mutated_fields_is_refused_or_answers_as_onnx_reference_long(tally: Any) -> None:
    compared = _fuzzed(None, FIELD_EDIT_LISTS, _fields_mutated, tally, "fields, long")
    assert compared >= 150, compared  # about 5% of examples: 500 expected


def test_run_refuses_what_is_no_array() -> None:
    rep = dmlpy.onnx.prepare(_valid())
    with pytest.raises(dml.InvalidArgumentError, match="'x'"):
        rep.run([object()])
    with pytest.raises(dml.InvalidArgumentError, match="'x'"):
        rep.run({"x": [[1, 2], [3]]})


def _relu() -> Any:
    """y = Relu(x), x and y float32 of shape [3]."""
    return make_model([helper.make_node("Relu", ["x"], ["y"])], [value("x", F, [3])], [value("y", F, [3])])


class _Opaque:
    """An array-like of another library that NumPy knows nothing of: it holds it as one Python object."""


def test_run_refuses_device_arrays_and_python_objects_saying_what_to_pass_and_keeps_a_mask() -> None:
    """Issue 42: a float32 pyopencl array given to rep.run was refused as "an array of dtype object" (NumPy reads it
    element by element as Python objects), and a masked array ran with its mask dropped from the outputs. A device
    array and anything NumPy holds only as Python objects are refused naming the input, what it is and what to pass
    (run_node says the same); a masked array runs on its data and its mask reaches the outputs, as NumPy's masked
    arithmetic keeps it."""
    import pyopencl.array as cl_array

    rep = dmlpy.onnx.prepare(_relu())
    x = np.array([-1.5, 0.0, 2.5], np.float32)
    on_device = cl_array.to_device(rep.device.queue, x)
    refusals: list[tuple[Any, str]] = [
        (
            on_device,
            "is a pyopencl.array.Array (device memory); dmlpy's ONNX backend takes NumPy arrays (host memory) only: "
            "pass its .get(), a NumPy copy",
        ),
        (
            _Opaque(),
            f"is a {_Opaque.__module__}._Opaque, which NumPy holds only as Python objects (dtype object), not an array "
            "of numbers",
        ),
        (np.array([1.0, 2.0, 3.0], object), "is a NumPy array of dtype object, not an array of numbers: pass a"),
    ]
    relu = helper.make_node("Relu", ["x"], ["y"])
    for argument, words in refusals:
        with pytest.raises(dml.InvalidArgumentError) as refused:
            rep.run([argument])
        assert str(refused.value).startswith(f"run: the model's input 'x' {words}"), str(refused.value)
        with pytest.raises(dml.InvalidArgumentError) as refused:
            dmlpy.onnx.run_node(relu, [argument])
        assert str(refused.value).startswith(f"run_node: the node's input 0 {words}"), str(refused.value)
    (got,) = rep.run([on_device.get()])
    assert same(got, np.maximum(x, np.float32(0)))
    for mask in ([False, True, False], [False, False, False]):
        masked = np.ma.masked_array(x, mask=mask)
        for got in (rep.run([masked])[0], dmlpy.onnx.run_node(relu, [masked])[0]):
            want = np.ma.maximum(masked, np.float32(0))
            assert isinstance(got, np.ma.MaskedArray)
            assert np.array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
            assert same(got.data, np.maximum(x, np.float32(0)))  # the data under the mask is computed too


def test_run_node_refuses_what_makes_no_model() -> None:
    node = helper.make_node("Round", ["x"], ["y"])
    with pytest.raises(dml.InvalidArgumentError, match="run_node: the node cannot be made a model") as refused:
        dmlpy.onnx.run_node(node, [np.array(["2026-01-01"], "datetime64[D]")])  # no ONNX element type
    assert refused.value.__cause__ is not None
    with pytest.raises(dml.InvalidArgumentError, match="run_node"):
        dmlpy.onnx.run_node(None, [np.zeros(2, np.float32)])
