"""Fuzz `dmlpy validate` and `dmlpy explain` (issue 26, item 9): the example descriptors (examples/descriptors)
mutated (values replaced by other JSON of any type, keys deleted, renamed and added, strings rewritten with any
Unicode: lone surrogates, NUL, ESC, bidi overrides), with and without --feature-level and --svg. Whatever the
document, the command answers with status 0, 1 or 2, never 3 ("internal error"), and what it prints is
encodable under a strict ASCII or UTF-8 stream and holds no control character but the newlines between lines.

main() runs in process (stdout and stderr replaced by strict streams) to spare an interpreter start per example:
about a hundred examples by default, thousands with --run-slow."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmlpy.cli import main
from tests.helpers.cli import EXAMPLES, hidden_characters

DOCUMENTS = {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("*.json"))}


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


KNOWN_KEYS = sorted({key for document in DOCUMENTS.values() for key in _keys(document)})
"""Field names the examples use: a renamed or added key is often one of them, so mutations reach past the
first unknown-field refusal."""

HOSTILE_TEXT = ["\x1b[2J\x1b[31m", "\ud800", "a\udfffb", "\x00", "nul\x00end", "\u202eevil", "\x9b1m", "\n\t\r", ""]

texts = st.one_of(
    st.sampled_from(HOSTILE_TEXT + KNOWN_KEYS),
    st.text(st.characters(exclude_categories=()), max_size=12),  # any code point, surrogates included
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 1, 2**31, 2**32, 2**64, -(2**63) - 1, 10**300]),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4), max_leaves=8
)

Place = tuple[Any, ...]
"""Where a value is in a document: the keys and indices that lead to it."""


def _places(value: Any, place: Place = ()) -> Iterator[Place]:
    """The place of every value inside ``value``, ``value`` itself first."""
    yield place
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _places(item, (*place, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _places(item, (*place, index))


def _at(document: Any, place: Place) -> Any:
    for step in place:
        document = document[step]
    return document


def _place(data: st.DataObject, document: Any) -> Place:
    """Any place, a top-level field or its items (whole node and edge lists), or a Name: a Name may hold any
    text and keep the descriptor valid, so what is printed of a valid graph is fuzzed too."""
    places = list(_places(document))
    names = [place for place in places if place and place[-1] == "Name"]
    focus = data.draw(st.sampled_from(["anywhere", "top", "name"] if names else ["anywhere", "top"]))
    if focus == "top":
        places = [place for place in places if len(place) <= 2]
    elif focus == "name":
        places = names
    return data.draw(st.sampled_from(places))


def _actions(value: Any) -> list[str]:
    """The mutations that apply to ``value``; strings and numbers mostly keep their type (so the rest stays
    valid and the mutation reaches further than the first refusal)."""
    actions = ["replace", "retype"]
    if isinstance(value, str):
        actions += ["rewrite string"] * 3
    if isinstance(value, int) and not isinstance(value, bool):
        actions += ["shift number"] * 2
    if isinstance(value, dict):
        actions += ["delete key", "rename key", "add key"]
    if isinstance(value, list) and value:
        actions += ["delete item", "repeat item"]
    return actions


def _mutated(data: st.DataObject, value: Any) -> Any:
    """``value`` changed by one drawn action (a new value: ``value`` itself is left as it is)."""
    action = data.draw(st.sampled_from(_actions(value)))
    if action == "replace":
        return data.draw(json_values)
    if action == "retype":  # the same value, in a shape the field does not take
        return data.draw(st.sampled_from([[value], {"Value": value}, str(value)[:40], len(str(value)), 0, 1.5, True]))
    if action == "rewrite string":
        at = data.draw(st.integers(0, len(value)))
        return value[:at] + data.draw(texts) + value[at + data.draw(st.integers(0, 3)) :]
    if action == "shift number":
        return data.draw(st.sampled_from([value + 1, value - 1, -value, value * 2**32, value + 2**31]))
    new = copy.copy(value)
    if action == "delete key" and new:
        del new[data.draw(st.sampled_from(sorted(new)))]
    elif action == "rename key" and new:
        new[data.draw(texts)] = new.pop(data.draw(st.sampled_from(sorted(new))))
    elif action == "add key":
        new[data.draw(texts)] = data.draw(json_values)
    elif action == "delete item":
        del new[data.draw(st.integers(0, len(new) - 1))]
    elif action == "repeat item":
        new.append(copy.deepcopy(new[data.draw(st.integers(0, len(new) - 1))]))
    return new


def _mutate(data: st.DataObject, document: Any) -> Any:
    """``document`` with one mutation at a drawn place (changed in place; the root may be replaced)."""
    place = _place(data, document)
    new = _mutated(data, _at(document, place))
    if not place:
        return new
    _at(document, place[:-1])[place[-1]] = new
    return document


def _strict_stream(encoding: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict", newline="")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode(stream.encoding)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("DMLPY_TRACEBACK", raising=False)  # an unexpected error must show as status 3, not raise
        yield tmp_path_factory.mktemp("fuzz")


def _check_one(data: st.DataObject, workdir: Path, tally: Any) -> None:
    name = data.draw(st.sampled_from(sorted(DOCUMENTS)))
    document = copy.deepcopy(DOCUMENTS[name])
    for _ in range(data.draw(st.integers(1, 4))):
        document = _mutate(data, document)
    text = json.dumps(document, allow_nan=True)  # ensure_ascii: a lone surrogate is written as \ud800
    desc = workdir / "desc.json"
    desc.write_text(text, encoding="utf-8")
    arguments = [data.draw(st.sampled_from(["validate", "explain"])), str(desc)]
    arguments += data.draw(st.sampled_from([[], ["--feature-level", "2_1"], ["--feature-level", "5_0"]]))
    if data.draw(st.booleans()):
        arguments += ["--svg", str(workdir / "picture.svg")]
    encoding = data.draw(st.sampled_from(["utf-8", "ascii"]))
    out, err = _strict_stream(encoding), _strict_stream(encoding)
    with redirect_stdout(out), redirect_stderr(err):
        status = main(arguments)
    printed, errors = _text(out), _text(err)
    tally["CLI fuzz examples"] += 1
    tally[f"CLI fuzz examples with status {status}"] += 1
    context = f"dmlpy {' '.join(arguments[:1] + arguments[2:])} on {name} mutated to:\n{text}\n{errors}"
    assert status in (0, 1, 2), context
    assert "internal error" not in errors, context
    assert hidden_characters(printed) == [] and hidden_characters(errors) == [], context
    if status == 2:
        assert len(errors.splitlines()) == 1, context


FAST = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
LONG = settings(
    max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@FAST
@given(data=st.data())
def test_mutated_descriptors_never_make_an_internal_error(data: st.DataObject, workdir: Path, tally: Any) -> None:
    _check_one(data, workdir, tally)


@pytest.mark.slow
@LONG
@given(data=st.data())
def test_mutated_descriptors_never_make_an_internal_error_long(data: st.DataObject, workdir: Path, tally: Any) -> None:
    _check_one(data, workdir, tally)


def test_the_harness_sees_an_internal_error(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The negative control: an unexpected exception inside a command reaches the fuzz as status 3 and "internal
    error" (DMLPY_TRACEBACK is unset), so a clean fuzz run means something."""

    def broken(*args: Any) -> None:
        raise TypeError("planted")

    monkeypatch.setattr("dmlpy.cli.validate.check_descriptor", broken)
    desc = workdir / "planted.json"
    desc.write_text(json.dumps(DOCUMENTS["round.json"]), encoding="utf-8")
    out, err = _strict_stream("ascii"), _strict_stream("ascii")
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["validate", str(desc)])
    assert status == 3 and "internal error: TypeError: planted" in _text(err)
