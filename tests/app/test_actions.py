"""The action table wired to the controllers: every action reaches a controller's method,
and no key does two things in either keyboard preset."""
from __future__ import annotations

from collections import defaultdict

import pytest

from app import keymap
from app.actions import MENUS, Placeholder, specs
from app.main_window import MainWindow


@pytest.fixture
def win(qtbot):
    w = MainWindow(nmt=False)
    qtbot.addWidget(w)
    return w


def test_every_action_calls_a_method_of_the_controller_it_names(win):
    for spec in specs():
        target = win
        for part in spec.slot.split("."):   # "controller.method" (or deeper: "editing.locking.toggle_lock")
            target = getattr(target, part)
        assert callable(target), spec.id
        assert spec.id in win.actions_by_id
    owners = {e.owner for _, entries in MENUS for e in entries if isinstance(e, Placeholder) and e.owner}
    assert owners and all(hasattr(getattr(win, o), "fill_menu") for o in owners)


@pytest.mark.parametrize("preset", sorted(keymap.PRESETS))
def test_no_key_is_bound_to_two_actions(win, preset):
    win.apply_preset(preset)
    by_key = defaultdict(list)
    for aid, act in win.actions_by_id.items():
        for k in act.shortcuts():
            by_key[k.toString()].append(aid)
    assert {k: ids for k, ids in by_key.items() if len(ids) > 1} == {}
    assert win.actions_by_id["choose_filter"].shortcut().toString() == "Ctrl+Shift+F"
