"""The operator table's default run takes each layout case and graph case on one (device, launch profile) pair
(tests/helpers/row_params.py's ``one_run`` marks over tests/conftest.py's ``run_turns``). What that sampling
promises, checked on the marks themselves with two stand-in devices, as CI has two compilers: every layout class
still runs on every pair, and every operator runs fused on both compilers."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tests.conftest import LAUNCH_PROFILES, SelectedDevice, run_turns
from tests.helpers.row_params import GRAPH_CASES, LAYOUT_CASES, params

DEVICES = [SelectedDevice("first-cpu", "First: cpu", None), SelectedDevice("second-cpu", "Second: cpu", None)]
TURNS = run_turns(DEVICES)


def _pair(param: Any) -> tuple[str, str]:
    (mark,) = [mark for mark in param.marks if mark.name == "one_run"]
    device, profile = TURNS[mark.args[0] % len(TURNS)]
    return device.id, profile


def test_turns_are_every_pair_with_the_devices_alternating_first() -> None:
    pairs = [(device.id, profile) for device, profile in TURNS]
    assert sorted(pairs) == sorted((d.id, p) for d in DEVICES for p in LAUNCH_PROFILES)
    assert all(pairs[k][0] != pairs[k + 1][0] for k in range(len(pairs) - 1))


def test_every_layout_class_runs_on_every_pair_in_a_default_run() -> None:
    pairs_of: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for param in params(LAYOUT_CASES, run_slow=False):
        pairs_of[param.values[2]].add(_pair(param))
    every_layout = {param.values[2] for param in LAYOUT_CASES}
    assert set(pairs_of) == every_layout
    short = {layout: sorted(pairs) for layout, pairs in pairs_of.items() if len(pairs) < len(TURNS)}
    assert short == {}, f"layout classes a default run leaves off some (device, profile) pair: {short}"


def test_every_operator_runs_fused_on_every_device_in_a_default_run() -> None:
    devices_of: defaultdict[str, set[str]] = defaultdict(set)
    for param in params(GRAPH_CASES, run_slow=False):
        marks = {mark.name: mark for mark in param.marks}
        on = {_pair(param)[0]} if "one_run" in marks else {device.id for device in DEVICES}
        devices_of[param.values[0].name] |= on
    every_device = {device.id for device in DEVICES}
    assert {row for row, devices in devices_of.items() if devices != every_device} == set()
    assert set(devices_of) == {param.values[0].name for param in GRAPH_CASES}
