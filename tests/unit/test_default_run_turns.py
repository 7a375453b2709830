"""A default run takes some device tests on one (device, launch profile) pair each, taking turns (the ``one_run``
mark over tests/helpers/devices.py's ``run_turns``): the operator table's layout and graph cases
(tests/helpers/row_params.py) and the lists tests/helpers/turns.py builds. What that sampling promises, checked on
the marks themselves with two stand-in devices, as CI has two compilers: every layout class still runs on every
pair; every operator runs fused on both compilers, under both profiles where it has two default cases; and a
product of choices takes each value of each choice on both devices and under both profiles."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from dmlpy.kernels import LAUNCH_PROFILE_NAMES
from tests.helpers.devices import SelectedDevice, run_turns
from tests.helpers.row_params import GRAPH_CASES, LAYOUT_CASES, params
from tests.helpers.turns import one_run_product, pairs_by_value

DEVICES = [SelectedDevice("first-cpu", "First: cpu", None), SelectedDevice("second-cpu", "Second: cpu", None)]
TURNS = run_turns(DEVICES)
EVERY_PAIR = {(d.id, profile) for d in DEVICES for profile in LAUNCH_PROFILE_NAMES}


def _pairs(param: Any) -> set[tuple[str, str]]:
    """The (device, profile) pairs a default run gives ``param``: its ``one_run`` turn's, or ``one_profile``'s
    profile on every device, or every pair."""
    marks = {mark.name: mark for mark in param.marks}
    if "one_run" in marks:
        device, profile = TURNS[marks["one_run"].args[0] % len(TURNS)]
        return {(device.id, profile)}
    if "one_profile" in marks:
        return {(d.id, marks["one_profile"].args[0]) for d in DEVICES}
    return EVERY_PAIR


def test_turns_are_every_pair_with_the_devices_alternating_first() -> None:
    pairs = [(device.id, profile) for device, profile in TURNS]
    assert sorted(pairs) == sorted(EVERY_PAIR)
    assert all(pairs[k][0] != pairs[k + 1][0] for k in range(len(pairs) - 1))


def test_every_layout_class_runs_on_every_pair_in_a_default_run() -> None:
    pairs_of: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for param in params(LAYOUT_CASES, run_slow=False):
        pairs_of[param.values[2]] |= _pairs(param)
    assert set(pairs_of) == {param.values[2] for param in LAYOUT_CASES}
    short = {layout: sorted(pairs) for layout, pairs in pairs_of.items() if pairs != EVERY_PAIR}
    assert short == {}, f"layout classes a default run leaves off some (device, profile) pair: {short}"


def test_every_operator_runs_fused_on_both_devices_and_under_both_profiles_in_a_default_run() -> None:
    pairs_of: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    cases_of: defaultdict[str, int] = defaultdict(int)
    for param in params(GRAPH_CASES, run_slow=False):
        pairs_of[param.values[0].name] |= _pairs(param)
        cases_of[param.values[0].name] += 1
    assert set(pairs_of) == {param.values[0].name for param in GRAPH_CASES}
    one_device = sorted(row for row, pairs in pairs_of.items() if {d for d, _ in pairs} != {d.id for d in DEVICES})
    assert one_device == []
    one_profile = sorted(
        row for row, pairs in pairs_of.items() if cases_of[row] >= 2 and {p for _, p in pairs} != {"cpu", "gpu"}
    )
    assert one_profile == []


def test_a_product_takes_each_value_on_both_devices_and_under_both_profiles() -> None:
    """The shapes of the products the Round tests take in turns (views x types x modes, layouts x ranks x types):
    with any value fixed, the other choices' places sum to at least three consecutive turns."""
    for lengths in ((14, 2, 3), (2, 8, 2)):
        product = one_run_product(*((list(range(n)), [str(i) for i in range(n)]) for n in lengths))
        for place in range(len(lengths)):
            for value, turns in pairs_by_value(product, place).items():
                pairs = {(TURNS[t][0].id, TURNS[t][1]) for t in turns}
                assert {d for d, _ in pairs} == {d.id for d in DEVICES}, (lengths, place, value)
                assert {p for _, p in pairs} == set(LAUNCH_PROFILE_NAMES), (lengths, place, value)
