"""What `dmlpy` prints is shown, never obeyed (issue 26, item 10): escape sequences, C0/C1 controls, bidi
overrides and lone surrogates in a graph's Names, in file names and in arguments reach the terminal escaped
(``\\x1b``, ``\\u202e``), and the output stays encodable under a strict ASCII or UTF-8 stdout and stderr.

The commands run as subprocesses with PYTHONIOENCODING set, so the streams are the real ones and a character
they cannot encode would fail the write."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.cli import EXAMPLES, assert_one_line_error, hidden_characters

REPO = Path(__file__).resolve().parents[3]

HOSTILE_NAMES = {
    "dequantize": "\x1b[2J\x1b[31mred\x1b[0m",  # clear the screen, then colour: CSI sequences
    "round": "\u202eevil\u202c \u2066iso\u2069 zw\u200bsp",  # bidi override and isolate, zero-width space
    "quantize": "c1\x9b31m nel\x85 bell\x07 del\x7f line\nbreak\ttab na\u00efve \u2028sep",
}
"""Names for the three nodes of examples/descriptors/qdq_graph.json; every one stays a valid Name."""

ESCAPED = ["\\x1b[2J\\x1b[31mred\\x1b[0m", "\\u202eevil\\u202c \\u2066iso\\u2069 zw\\u200bsp", "\\x9b31m", "\\x85"]
"""How they must be shown (some of them: each kind once)."""


def _hostile_graph(tmp_path: Path, names: dict[str, str] = HOSTILE_NAMES, edge_name: str = "\x1b]0;title\x07") -> Path:
    graph: dict[str, Any] = json.loads((EXAMPLES / "qdq_graph.json").read_text(encoding="utf-8"))
    for node in graph["Nodes"]:
        node["Desc"]["Name"] = names[node["Desc"]["Name"]]
    graph["InputEdges"][0]["Desc"]["Name"] = edge_name  # an OSC sequence: sets the terminal's title
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(graph), encoding="utf-8")  # ensure_ascii: the file holds \\u escapes
    return path


def _run(*arguments: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
    """`python -m dmlpy ARGS` with stdout and stderr encoded strictly in ``encoding``; bytes captured."""
    env = {**os.environ, "PYTHONIOENCODING": f"{encoding}:strict", "PYTHONPATH": str(REPO)}
    env.pop("DMLPY_TRACEBACK", None)
    return subprocess.run(
        [sys.executable, "-m", "dmlpy", *arguments], cwd=REPO, env=env, capture_output=True, timeout=120, check=False
    )


def _decoded(result: subprocess.CompletedProcess[bytes], encoding: str) -> tuple[str, str]:
    out, err = result.stdout.decode(encoding), result.stderr.decode(encoding)  # strict: raises if not encodable
    assert "internal error" not in err and "Traceback" not in err, err
    assert hidden_characters(out) == [] and hidden_characters(err) == [], (out, err)
    return out, err


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
@pytest.mark.parametrize("command", ["validate", "explain"])
def test_names_with_escape_sequences_are_shown_escaped(tmp_path: Path, command: str, encoding: str) -> None:
    result = _run(command, str(_hostile_graph(tmp_path)), encoding=encoding)
    assert result.returncode == 0, result.stderr
    out, _ = _decoded(result, encoding)
    for shown in ESCAPED:
        assert shown in out, shown
    assert "\\nbreak\\ttab" in out  # a Name's newline and tab do not start a line or move the cursor
    assert ("na\\xefve" if encoding == "ascii" else "na\u00efve") in out  # printable: as is, where it encodes
    if command == "validate":
        assert 'Nodes[1] (ELEMENT_WISE_ROUND "\\u202eevil' in out  # the node lines, one line per node
        assert len([line for line in out.splitlines() if " <- " in line]) == 3


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
@pytest.mark.parametrize("name", ["lone \ud800 surrogate", "nul \x00 inside"], ids=["surrogate", "nul"])
@pytest.mark.parametrize("command", ["validate", "explain"])
def test_names_a_c_string_cannot_hold_never_crash_the_output(
    tmp_path: Path, command: str, name: str, encoding: str
) -> None:
    # Accepted (and shown escaped) or refused as invalid, never "internal error" (status 3).
    path = _hostile_graph(tmp_path, {**HOSTILE_NAMES, "round": name})
    result = _run(command, str(path), encoding=encoding)
    assert result.returncode in (0, 1), result.stderr
    out, err = _decoded(result, encoding)
    shown = ["\\ud800"] if "surrogate" in name else ["\\x00", "\\u0000"]  # as printed, or as JSON shows it
    assert any(escape in out + err for escape in shown), out + err


@pytest.mark.parametrize("encoding", ["ascii", "utf-8"])
def test_a_file_name_with_escape_sequences_is_shown_escaped(tmp_path: Path, encoding: str) -> None:
    missing = tmp_path / "\x1b[2J\u202ena\u00efve.json"
    result = _run("validate", str(missing), encoding=encoding)
    out, err = _decoded(result, encoding)
    assert result.returncode == 2 and out == ""
    shown = "\\x1b[2J\\u202ena" + ("\\xefve" if encoding == "ascii" else "\u00efve")
    assert err.strip().splitlines() == [f"dmlpy validate: {tmp_path}/{shown}.json: no such file"]


def test_an_unknown_argument_with_escape_sequences_is_shown_escaped() -> None:
    result = _run("explain", str(EXAMPLES / "round.json"), "\x1b[2J\x9b", encoding="ascii")
    _decoded(result, "ascii")
    assert_one_line_error(
        subprocess.CompletedProcess(result.args, result.returncode, "", result.stderr.decode("ascii")),
        2,
        "dmlpy explain: unrecognized arguments: \\x1b[2J\\x9b",
    )
