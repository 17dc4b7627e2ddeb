"""The editor asks once before a project uses TM folders outside itself (issue 45, item 2), and a
project's settings never create a TM folder outside the project."""
from __future__ import annotations

import json

from PySide6.QtWidgets import QMessageBox

from engine.store import Project
from engine.tm import TranslationMemory

from editor_helpers import make_project
from test_editor import open_window


def _listing(tmp_path, entries):
    folder = make_project(tmp_path / "p", ["The secret plan of client A.", "Other."], tm=False)
    with Project(folder) as p:
        p.set_setting("tms", json.dumps([{"path": e, "writable": True} for e in entries]))
    return folder


def _client_a(tmp_path):
    with TranslationMemory(tmp_path / "tmA", src_lang="en", tgt_lang="de") as tm:
        tm.add("The secret plan of client A.", "Der geheime Plan von Kunde A.")


def test_declined_outside_tms_are_left_out_and_no_folder_is_created(qtbot, tmp_path, monkeypatch):
    _client_a(tmp_path)
    far = tmp_path / "elsewhere" / "X"
    folder = _listing(tmp_path, ["../tmA", str(far)])
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.No)
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    assert len(asked) == 1 and "tmA" in asked[0] and str(far) in asked[0]
    assert win.tm.infos == [] and not far.exists() and not far.parent.exists()
    win.close()


def test_confirmed_once_the_outside_tm_is_searched_and_not_asked_again(qtbot, tmp_path, monkeypatch):
    _client_a(tmp_path)
    far = tmp_path / "elsewhere" / "X"
    folder = _listing(tmp_path, ["../tmA", str(far)])
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.Yes)
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    assert [i.name for i in win.tm.infos] == ["tmA"]  # X holds no TM: never created from the settings
    assert not far.exists()
    win.close()
    win2 = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win2.tm.busy(), timeout=30_000)
    assert len(asked) == 1 and [i.name for i in win2.tm.infos] == ["tmA"]
    win2.close()


def _glossary_outside(tmp_path):
    from engine.glossary import Glossary
    from engine.glossary.model import GlossaryEntry
    with Glossary(tmp_path / "glossA", create=True) as g:
        g.add(GlossaryEntry("secret plan", ("Geheimplan",), "en", "de"))
    folder = _listing(tmp_path, [])
    with Project(folder) as p:
        p.set_setting("glossaries", json.dumps([{"path": "../glossA", "writable": False}]))
    return folder


def _terms_loaded(qtbot, win) -> int:
    qtbot.waitUntil(lambda: win.memory.terms_ready, timeout=30_000)
    return len(win.flow.terms) if win.flow.terms is not None else 0


def test_a_glossary_outside_the_project_is_asked_about_once_and_read_when_confirmed(qtbot, tmp_path, monkeypatch):
    folder = _glossary_outside(tmp_path)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.Yes)
    win = open_window(qtbot, folder)
    assert len(asked) == 1 and "glossA" in asked[0] and "glossary" in asked[0]
    assert _terms_loaded(qtbot, win) == 1
    win.close()
    win2 = open_window(qtbot, folder)
    assert len(asked) == 1 and _terms_loaded(qtbot, win2) == 1
    win2.close()


def test_a_declined_glossary_outside_the_project_is_left_out(qtbot, tmp_path, monkeypatch):
    folder = _glossary_outside(tmp_path)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.No)
    win = open_window(qtbot, folder)
    assert _terms_loaded(qtbot, win) == 0
    win.close()


def test_a_shared_tm_server_the_project_names_is_asked_about_without_its_password(qtbot, tmp_path, monkeypatch):
    folder = _listing(tmp_path, ["postgresql://verso:s3cret@db.invalid:5432/team?tm=client_a"])
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.No)
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    assert len(asked) == 1 and "db.invalid" in asked[0] and "s3cret" not in asked[0]
    assert win.tm.infos == []    # declined: never connected to
    win.close()
