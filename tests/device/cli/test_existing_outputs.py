"""An existing output is refused without --force in every command that writes a file (issue 30), a read-only
one as the shell's `>` refuses it (issue 26, item 8): `round`, `quantize`, `dequantize` (OUT.npy, and IN.npy
under --in-place, which needs --force only when IN is read-only) and `validate`/`explain --svg`. The refusal
names the file and --force, exits 2 and writes nothing; --force (-f) replaces the file, keeping its mode.

The permission bits decide, not os.access: as root os.access says every file is writable, and tests may run as
root."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import EXAMPLES, Run, assert_one_line_error

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)
OLD = b"the user's file, kept read-only on purpose\n"


def _commands(tmp_path: Path, target: Path) -> dict[str, list[str]]:
    """Each command that writes ``target``, with its input in ``tmp_path``."""
    source, integers = tmp_path / "in.npy", tmp_path / "int8.npy"
    np.save(source, SEED)
    np.save(integers, np.array([-128, -3, 0, 5, 127], np.int8))
    graph = str(EXAMPLES / "qdq_graph.json")
    return {
        "round": ["round", str(source), str(target), "--quiet"],
        "quantize": ["quantize", str(source), str(target), "--scale", "0.5", "--dtype", "int8", "--quiet"],
        "dequantize": ["dequantize", str(integers), str(target), "--scale", "0.25", "--quiet"],
        "validate --svg": ["validate", graph, "--svg", str(target)],
        "explain --svg": ["explain", graph, "--svg", str(target)],
    }


def _expected(command: str, tmp_path: Path) -> np.ndarray | None:
    """What ``command`` writes, from NumPy (None for a picture, checked as SVG)."""
    if command == "round":
        return np.rint(SEED)
    if command == "quantize":
        return np.clip(np.rint(SEED / np.float32(0.5)), -128, 127).astype(np.int8)
    if command == "dequantize":
        return np.load(tmp_path / "int8.npy").astype(np.float32) * np.float32(0.25)
    return None


COMMANDS = ["round", "quantize", "dequantize", "validate --svg", "explain --svg"]


@pytest.mark.parametrize("mode", [0o444, 0o464, 0o400], ids=["0444", "0464", "0400"])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_read_only_output_is_refused_and_left_alone(run: Run, tmp_path: Path, command: str, mode: int) -> None:
    # 0464: the group may write, but the owner (this user) may not; the owner's bits are the ones that apply.
    target = tmp_path / ("out.svg" if "svg" in command else "out.npy")
    target.write_bytes(OLD)
    target.chmod(mode)
    result = run(*_commands(tmp_path, target)[command])
    assert_one_line_error(result, 2, f"{target}: is read-only (mode 0{mode:o})", "--force")
    assert result.stdout == ""  # no verdict or summary either: the refusal comes before any work
    assert target.read_bytes() == OLD
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_force_replaces_a_read_only_output_and_keeps_its_mode(run: Run, tmp_path: Path, command: str) -> None:
    target = tmp_path / ("out.svg" if "svg" in command else "out.npy")
    target.write_bytes(OLD)
    target.chmod(0o444)
    result = run(*_commands(tmp_path, target)[command], "--force")
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    expected = _expected(command, tmp_path)
    if expected is None:
        assert target.read_text(encoding="utf-8").startswith("<svg") and f"picture written to {target}" in (
            result.stdout
        )
    else:
        np.testing.assert_array_equal(np.load(target), expected, strict=True)


def test_a_read_only_input_is_not_replaced_in_place_without_force(run: Run, tmp_path: Path) -> None:
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    source.chmod(0o444)
    assert_one_line_error(run("round", str(source), "--in-place"), 2, f"{source}: is read-only (mode 0444)", "--force")
    np.testing.assert_array_equal(np.load(source), SEED)
    assert run("round", str(source), "--in-place", "--force", "--quiet").returncode == 0
    np.testing.assert_array_equal(np.load(source), np.rint(SEED))
    assert stat.S_IMODE(source.stat().st_mode) == 0o444


@pytest.mark.parametrize("command", COMMANDS)
def test_an_existing_output_is_replaced_only_with_force(run: Run, tmp_path: Path, command: str) -> None:
    # Issue 30: `round IN OUT` replaced an existing OUT silently (a 40 MB result became 4 elements). A writable
    # file now needs --force (or -f) as a read-only one does; nothing is written, no verdict or summary printed.
    target = tmp_path / ("out.svg" if "svg" in command else "out.npy")
    target.write_bytes(OLD)
    target.chmod(0o644)
    refused = run(*_commands(tmp_path, target)[command])
    assert_one_line_error(refused, 2, f"{target}: exists; refusing to replace it: give --force (or -f)")
    assert refused.stdout == ""
    assert target.read_bytes() == OLD
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")) == []
    replaced = run(*_commands(tmp_path, target)[command], "-f")
    assert replaced.returncode == 0, replaced.stderr
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    expected = _expected(command, tmp_path)
    if expected is None:
        assert target.read_text(encoding="utf-8").startswith("<svg")
    else:
        np.testing.assert_array_equal(np.load(target), expected, strict=True)


def test_in_place_replaces_a_writable_input_without_force(run: Run, tmp_path: Path) -> None:
    # --in-place names IN as the file to replace: it needs no --force (a read-only IN still does, above).
    source = tmp_path / "in.npy"
    np.save(source, SEED)
    assert run("round", str(source), "--in-place", "--quiet").returncode == 0
    np.testing.assert_array_equal(np.load(source), np.rint(SEED))


@pytest.mark.parametrize("command", ["round", "quantize", "dequantize", "validate", "explain"])
def test_every_writing_command_documents_force(run: Run, command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0
    assert "-f, --force" in result.stdout and "read-only" in result.stdout
    assert "if it exists" in " ".join(result.stdout.split())  # as wrapped to the terminal's width


def test_a_read_only_svg_refusal_writes_no_verdict_for_a_refused_descriptor(run: Run, tmp_path: Path) -> None:
    # The --svg check comes before the verdict, for a refused descriptor too: one line, status 2, not 1.
    desc = tmp_path / "refused.json"
    desc.write_text(json.dumps(json.loads((EXAMPLES / "round_refused.json").read_text())), encoding="utf-8")
    target = tmp_path / "out.svg"
    target.write_bytes(OLD)
    target.chmod(0o444)
    assert_one_line_error(run("validate", str(desc), "--svg", str(target)), 2, f"{target}: is read-only")
    assert target.read_bytes() == OLD
