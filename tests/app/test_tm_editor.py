"""Tools ▸ TM Editor, driven as a translator would: opened from the menu, a unit found by
typing in the search box, its target edited in place, Ctrl+Z, the Delete key; on a local
TM and on a shared TM of a real PostgreSQL server."""
from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from engine.inline import protect
from engine.tm import TranslationMemory, open_tm
from engine.tm.shared import SharedTM, wait_until
from engine.tm.units import author

from app.dialogs.tm_editor import TMEditorDialog
from app.dialogs.tm_units import TARGET
from editor_helpers import make_project
from test_editor import open_window

UNITS = [("Open the file", "Datei öffnen", "ann"), ("Close the window", "Fenster schließen", "bob"),
         ("Print the page", "Seite drucken", "ann")]


def _seed(tm) -> None:
    for s, t, who in UNITS:
        tm.add(protect(s), protect(t), creator=who)


def open_editor(qtbot, win) -> TMEditorDialog:
    """Tools ▸ TM Editor… from the menu bar, with the keyboard."""
    qtbot.waitUntil(lambda: not win.tm.busy(), timeout=30_000)
    tools = next(a.menu() for a in win.menuBar().actions() if a.text() == "&Tools")
    item = next(a for a in tools.actions() if a.text() == "TM &Editor…")
    item.trigger()
    dlg = win.memory.tm_editor
    assert isinstance(dlg, TMEditorDialog) and dlg.isVisible()
    qtbot.waitExposed(dlg, timeout=30_000)
    return dlg


def shown(dlg) -> list[str]:
    return [e.source.plain() for e in dlg.model.entries]


def find(qtbot, dlg, text: str, expect: list[str]) -> None:
    dlg.search.clear()
    qtbot.keyClicks(dlg.search, text)
    qtbot.waitUntil(lambda: shown(dlg) == expect, timeout=30_000)


def edit_target(qtbot, dlg, row: int, text: str) -> None:
    """F2 on the row's target, select all, type, Enter."""
    view = dlg.table
    view.setFocus()
    view.setCurrentIndex(dlg.model.index(row, TARGET))
    qtbot.keyClick(view, Qt.Key_F2)
    editor = view.focusWidget()
    assert isinstance(editor, QLineEdit)
    qtbot.keyClick(editor, Qt.Key_A, Qt.ControlModifier)
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return)


def target_of(dlg, row: int) -> str:
    return dlg.model.entries[row].target.text if row < len(dlg.model.entries) else ""


def test_a_unit_found_by_typing_is_edited_in_place_ctrl_z_restores_it_and_ctrl_y_redoes_it(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Close the window."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.waitUntil(lambda: len(dlg.model.entries) == 3, timeout=30_000)
    assert "3 units shown" in dlg.status.text()

    find(qtbot, dlg, "window", ["Close the window"])
    edit_target(qtbot, dlg, 0, "Schließen Sie das Fenster")
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Schließen Sie das Fenster", timeout=30_000)
    assert author(dlg.model.entries[0]) == win.memory.tm_editor.controller.editor
    with TranslationMemory(folder / "tm") as tm:  # another reader: it is in the TM, and found
        assert tm.search("Close the window", k=1)[0].target.text == "Schließen Sie das Fenster"

    dlg.table.setFocus()
    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Fenster schließen", timeout=30_000)
    assert author(dlg.model.entries[0]) == "bob"
    with TranslationMemory(folder / "tm") as tm:
        assert tm.search("Close the window", k=1)[0].target.text == "Fenster schließen"

    qtbot.keyClick(dlg.table, Qt.Key_Y, Qt.ControlModifier)  # and again
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Schließen Sie das Fenster", timeout=30_000)
    with TranslationMemory(folder / "tm") as tm:
        assert tm.search("Close the window", k=1)[0].target.text == "Schließen Sie das Fenster"
    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: target_of(dlg, 0) == "Fenster schließen", timeout=30_000)


def test_the_delete_key_removes_a_unit_from_the_tm_search_and_ctrl_z_brings_it_back(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Print the page."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    offered = lambda: [m.match.target.text for m in win.matches.matches]  # noqa: E731
    qtbot.waitUntil(lambda: "Seite drucken" in offered(), timeout=30_000)  # the segment's best match
    dlg = open_editor(qtbot, win)
    find(qtbot, dlg, "drucken", ["Print the page"])
    dlg.table.setFocus()
    dlg.table.selectRow(0)
    qtbot.keyClick(dlg.table, Qt.Key_Delete)
    qtbot.waitUntil(lambda: shown(dlg) == [] and "deleted" in dlg.status.text(), timeout=30_000)
    # looked up again: the other units are still offered, the deleted one is not
    qtbot.waitUntil(lambda: offered() and "Seite drucken" not in offered(), timeout=30_000)
    with TranslationMemory(folder / "tm") as tm:
        assert len(tm) == 2 and not tm.search("Print the page", k=1, min_score=0.99)

    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: shown(dlg) == ["Print the page"], timeout=30_000)
    assert author(dlg.model.entries[0]) == "ann"
    qtbot.waitUntil(lambda: offered()[:1] == ["Seite drucken"], timeout=30_000)
    with TranslationMemory(folder / "tm") as tm:
        assert tm.search("Print the page", k=1)[0].target.text == "Seite drucken"
    qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)  # deleted again
    qtbot.waitUntil(lambda: shown(dlg) == [] and "deleted" in dlg.status.text(), timeout=30_000)
    with TranslationMemory(folder / "tm") as tm:
        assert len(tm) == 2


def test_search_by_author_regex_and_a_bad_expression_said_in_one_line(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.keyClicks(dlg.author, "ANN")
    qtbot.waitUntil(lambda: shown(dlg) == ["Open the file", "Print the page"], timeout=30_000)
    dlg.regex.setChecked(True)
    find(qtbot, dlg, "^(Close|Print)", ["Print the page"])
    find(qtbot, dlg, "(unclosed", ["Print the page"])  # the last good search stays
    qtbot.waitUntil(lambda: "not a regular expression" in dlg.status.text(), timeout=30_000)
    assert "\n" not in dlg.status.text()


def test_units_are_read_a_page_at_a_time_as_the_translator_scrolls(qtbot, tmp_path):
    from app.controllers.tm_editor import PAGE

    folder = make_project(tmp_path / "p", ["One."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many([(f"Sentence number {i}", f"Satz Nummer {i}") for i in range(2 * PAGE + 30)])
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    qtbot.waitUntil(lambda: len(dlg.model.entries) == PAGE and "scroll for more" in dlg.status.text(),
                    timeout=30_000)
    dlg.table.setFocus()
    dlg.table.setCurrentIndex(dlg.model.index(0, TARGET))
    for n in (2 * PAGE, 2 * PAGE + 30):
        qtbot.keyClick(dlg.table, Qt.Key_End, Qt.ControlModifier)  # to the last row shown: the next page
        qtbot.waitUntil(lambda n=n: len(dlg.model.entries) == n, timeout=30_000)
    assert dlg.model.done and dlg.status.text() == f"{2 * PAGE + 30} units shown"
    assert [e.source.text for e in dlg.model.entries[-2:]] == [f"Sentence number {2 * PAGE + 28}",
                                                              f"Sentence number {2 * PAGE + 29}"]


def test_every_tm_of_the_project_is_listed_and_the_chosen_one_is_shown(qtbot, tmp_path):
    import json

    from engine.store import Project

    folder = make_project(tmp_path / "p", ["One."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    with TranslationMemory(tmp_path / "reference", src_lang="en", tgt_lang="de") as tm:
        tm.add("Save the document", "Dokument speichern", creator="eva")
    with Project.open(folder) as p:
        p.set_setting("tms", json.dumps([{"path": "tm", "writable": True}]))
        p.add_tm_ref(tmp_path / "reference")  # added here: a folder outside the project the user chose
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    assert [dlg.tm_combo.itemText(i) for i in range(dlg.tm_combo.count())] == ["tm", "reference"]
    qtbot.waitUntil(lambda: len(dlg.model.entries) == 3, timeout=30_000)
    dlg.tm_combo.setFocus()
    qtbot.keyClick(dlg.tm_combo, Qt.Key_Down)
    qtbot.waitUntil(lambda: shown(dlg) == ["Save the document"], timeout=30_000)
    assert author(dlg.model.entries[0]) == "eva"


# ------------------------------------------------------------------ a shared TM
@pytest.fixture(scope="module")
def pg_base():
    from pgserver_helper import find_bin, start_server

    url, srv, why = start_server()
    if not url:
        if os.environ.get("VERSO_REQUIRE_PG") or find_bin() is not None:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    yield url
    if srv is not None:
        srv.cleanup()


def test_an_edit_of_a_shared_tm_reaches_another_clients_replica(qtbot, tmp_path, pg_base, monkeypatch):
    import json

    from engine.store import Project, trusted

    monkeypatch.setenv("VERSO_REPLICAS", str(tmp_path / "replicas"))
    url = f"{pg_base}{'&' if '?' in pg_base else '?'}tm=editor_{os.getpid()}"
    with open_tm(url, src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
    folder = make_project(tmp_path / "p", ["Close the window."], tm=False)
    with Project.open(folder) as p:
        p.set_setting("tms", json.dumps([{"path": url, "writable": True}]))
        trusted.confirm_servers([url])  # the user's word for the server (a received project's is refused)
    other = SharedTM(url, replica_dir=tmp_path / "other", src_lang="en", tgt_lang="de")
    try:
        other.search("The first search starts the first sync", k=1)
        assert wait_until(lambda: other.replica.ready, 30), other.feed_error
        win = open_window(qtbot, folder)
        dlg = open_editor(qtbot, win)
        assert dlg.tm_combo.currentText().endswith("(shared)")
        find(qtbot, dlg, "window", ["Close the window"])
        edit_target(qtbot, dlg, 0, "Schließen Sie das Fenster")
        qtbot.waitUntil(lambda: target_of(dlg, 0) == "Schließen Sie das Fenster", timeout=30_000)

        def replica_has(text: str) -> bool:
            ms = other.search("Close the window", k=1, min_score=0.99)
            return bool(ms) and ms[0].target.text == text
        assert wait_until(lambda: replica_has("Schließen Sie das Fenster"), 30)
        assert other.last_search  # answered by the other client's own replica

        dlg.table.setFocus()
        qtbot.keyClick(dlg.table, Qt.Key_Z, Qt.ControlModifier)
        qtbot.waitUntil(lambda: target_of(dlg, 0) == "Fenster schließen", timeout=30_000)
        assert wait_until(lambda: replica_has("Fenster schließen"), 30)
    finally:
        other.close()


def test_a_reader_roles_edit_of_a_shared_tm_is_refused_in_one_line(qtbot, tmp_path, pg_base, monkeypatch):
    import json
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    from engine.store import Project, trusted

    monkeypatch.setenv("VERSO_REPLICAS", str(tmp_path / "replicas"))
    url = f"{pg_base}{'&' if '?' in pg_base else '?'}tm=reader_{os.getpid()}"
    with open_tm(url, src_lang="en", tgt_lang="de") as tm:
        _seed(tm)
        schema = tm.schema
    role = f"reader_{os.getpid()}"
    with psycopg.connect(pg_base, autocommit=True) as c:
        c.execute(f"CREATE ROLE {role} LOGIN")
        c.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        c.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role}")
    p = urlsplit(url)
    as_reader = urlunsplit(p._replace(netloc=f"{role}@{p.netloc.rsplit('@', 1)[-1]}"))
    folder = make_project(tmp_path / "p", ["Close the window."], tm=False)
    with Project.open(folder) as proj:
        proj.set_setting("tms", json.dumps([{"path": as_reader, "writable": False}]))
        trusted.confirm_servers([as_reader])  # the user's word for the server
    win = open_window(qtbot, folder)
    dlg = open_editor(qtbot, win)
    find(qtbot, dlg, "window", ["Close the window"])
    edit_target(qtbot, dlg, 0, "Fenster zu")
    qtbot.waitUntil(lambda: "may only read" in dlg.status.text(), timeout=30_000)
    assert "\n" not in dlg.status.text() and target_of(dlg, 0) == "Fenster schließen"
    dlg.table.setFocus()
    dlg.table.selectRow(0)
    dlg.status.clear()
    qtbot.keyClick(dlg.table, Qt.Key_Delete)
    qtbot.waitUntil(lambda: "may only read" in dlg.status.text(), timeout=30_000)
    assert shown(dlg) == ["Close the window"]
    with open_tm(url) as tm:
        assert len(tm) == 3 and tm.search("Close the window", k=1)[0].target.text == "Fenster schließen"
