"""Filters and find options, driven from the keyboard: Ctrl+Shift+F puts the keys in the
toolbar's filter box, Up/Down choose, Tab goes to the second box
whose filter the rows must pass too, Enter goes back to the target box; Ctrl+F, Tab and
Space set the find bar's options."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from app.filters import FILTERS, compile_find
from app.main_window import MainWindow
from engine.inline import protect
from engine.store import Project

from editor_helpers import make_project


def project_with(tmp_path: Path, rows: list[tuple[str, str | None, str, str]]) -> Path:
    """A project of ``(source, target, status, origin)`` rows (target None: untranslated)."""
    folder = make_project(tmp_path / "p", [r[0] for r in rows])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        for seg, (_, target, status, origin) in zip(segs, rows):
            if target is not None:
                p.set_target(seg.id, protect(target), status=status, origin=origin,
                             origin_score=1.0 if origin == "tm" else None)
    return folder


def open_window(qtbot, folder: Path) -> MainWindow:
    win = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win, timeout=30_000)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=30_000)  # window shortcuts need an active window
    return win


def shown(win: MainWindow) -> list[int]:
    """The document rows the grid shows."""
    return [win.proxy.mapToSource(win.proxy.index(r, 0)).row() for r in range(win.proxy.rowCount())]


def choose_filter(qtbot, win: MainWindow, key: str) -> None:
    """Ctrl+Shift+F in the target box, then Down/Up in the filter box until ``key``'s filter is in force."""
    qtbot.keyClick(win.editor(), Qt.Key_F, Qt.ControlModifier | Qt.ShiftModifier)
    combo = win.filter_combo
    qtbot.waitUntil(combo.hasFocus, timeout=30_000)
    target = list(FILTERS).index(key)
    if combo.currentIndex() == target:
        return
    with qtbot.waitSignal(win.search.filterApplied, timeout=30_000,
                          check_params_cb=lambda mode: mode == key):
        while combo.currentIndex() != target:
            qtbot.keyClick(combo, Qt.Key_Down if combo.currentIndex() < target else Qt.Key_Up)


def choose_in(qtbot, win: MainWindow, combo, index: int, applied: str) -> None:
    """Down/Up in ``combo`` (which has the keys) until item ``index``, the filters then ``applied``."""
    with qtbot.waitSignal(win.search.filterApplied, timeout=30_000,
                          check_params_cb=lambda modes: modes == applied):
        while combo.currentIndex() != index:
            qtbot.keyClick(combo, Qt.Key_Down if combo.currentIndex() < index else Qt.Key_Up)


def test_filtering_by_origin_from_the_keyboard_and_enter_goes_back_to_the_target(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Open the file.", "Öffnen Sie die Datei.", "draft", "tm"),
        ("Close the file.", "Schließen Sie die Datei.", "draft", "mt"),
        ("Save the file.", "Speichern Sie die Datei.", "confirmed", "human"),
        ("Print the file.", None, "new", "human"),
    ]))
    choose_filter(qtbot, win, "mt")
    assert shown(win) == [1]
    choose_filter(qtbot, win, "human")
    assert shown(win) == [2]  # an untranslated segment is nobody's translation yet
    choose_filter(qtbot, win, "tm")
    assert shown(win) == [0]
    qtbot.keyClick(win.filter_combo, Qt.Key_Return)
    qtbot.waitUntil(lambda: win.editor() is not None and win.editor().hasFocus(), timeout=30_000)
    assert win.current_row() == 0
    qtbot.keyClicks(win.editor(), " Gut.")
    qtbot.keyClick(win.editor(), Qt.Key_Return, Qt.ControlModifier)
    assert win.model.segment(0).status == "confirmed" and win.model.segment(0).target.text.endswith("Gut.")
    # on to the next unconfirmed segment, which the filter hid: everything is shown again
    assert win.current_row() == 1 and shown(win) == [0, 1, 2, 3]
    assert win.filter_combo.currentData() == "all"


def test_the_tag_error_filter_shows_only_targets_whose_tags_differ_from_the_source(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Delete %1 now.", "%1 jetzt löschen.", "draft", "human"),
        ("Rename %1 now.", "Jetzt umbenennen.", "draft", "human"),          # the %1 is missing
        ("Move %1 to %2.", "%1 nach %2 verschieben.", "confirmed", "human"),
        ("Copy %1 now.", None, "new", "human"),                           # nothing to check yet
    ]))
    choose_filter(qtbot, win, "tag_error")
    assert shown(win) == [1]
    assert "tag error" in win.model.index(1, 3).data()


def test_the_qa_filter_shows_segments_with_findings(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Open the file.", "Öffnen Sie die Datei.", "confirmed", "human"),
        ("Page 12 of 30.", "Seite 13 von 30.", "confirmed", "human"),      # a number differs
        ("Close the file.", "Schließen Sie die Datei.", "confirmed", "human"),
    ]))
    choose_filter(qtbot, win, "qa")
    assert shown(win) == [1]


def test_the_repetitions_filter_shows_every_segment_whose_source_occurs_again(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Save the file.", None, "new", "human"),
        ("Close it.", None, "new", "human"),
        ("Save the file.", None, "new", "human"),
    ]))
    choose_filter(qtbot, win, "repetitions")
    assert shown(win) == [0, 2]


def test_find_whole_word_and_in_target_only_set_from_the_keyboard(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Start the engine.", "Starten Sie den Motor.", "draft", "human"),
        ("The engine started.", "Der Motor lief an.", "draft", "human"),
        ("Restart the engine.", "Starten Sie den Motor neu.", "draft", "human"),
    ]))
    qtbot.keyClick(win.editor(), Qt.Key_F, Qt.ControlModifier)
    bar = win.findbar
    qtbot.waitUntil(bar.find_edit.hasFocus, timeout=30_000)
    qtbot.keyClicks(bar.find_edit, "start")
    assert shown(win) == [0, 1, 2]      # "start" inside "started" and "Restart" too
    qtbot.keyClick(bar.find_edit, Qt.Key_Tab)   # the "in" box
    qtbot.keyClick(bar.where, Qt.Key_Tab)       # Whole word
    assert bar.word.hasFocus()
    qtbot.keyClick(bar.word, Qt.Key_Space)
    assert shown(win) == [0]            # only the word itself
    qtbot.keyClick(bar.word, Qt.Key_Backtab)
    qtbot.keyClick(bar.where, Qt.Key_Down)
    qtbot.keyClick(bar.where, Qt.Key_Down)
    assert bar.where.currentData() == "target"
    assert shown(win) == []             # the targets say "Starten", not "start"
    qtbot.keyClick(bar.where, Qt.Key_Tab)
    qtbot.keyClick(bar.word, Qt.Key_Space)      # whole word off: "Starten" holds "start"
    assert shown(win) == [0, 2]


def test_whole_word_sees_letters_of_any_script_as_part_of_the_word():
    pat = compile_find("Fenster", word=True)
    assert pat.search("Das Fenster ist offen.") and pat.search("(Fenster)")
    assert not pat.search("Das Hauptfenster ist offen.") and not pat.search("Fensterrahmen")
    assert compile_find("straße", word=True).search("Die Straße.") is not None
    assert compile_find("a+b", word=True).search("x a+b y") is not None   # not a regex: taken as written
    assert compile_find("(", regex=True).search("f(x)") is not None       # no valid regex: plain text


def test_the_locked_filter_shows_the_locked_segments_only(qtbot, tmp_path):
    from engine.store.locks import SegmentLocks

    folder = project_with(tmp_path, [("One.", "Eins.", "confirmed", "tm"), ("Two.", None, "new", ""),
                                     ("Three.", "Drei.", "draft", "human")])
    with Project.open(folder) as p:
        segs = p.segments(p.documents()[0].id)
        SegmentLocks(p).lock([segs[0].id, segs[2].id])
    win = open_window(qtbot, folder)
    choose_filter(qtbot, win, "locked")
    assert shown(win) == [0, 2]


def test_two_filters_at_once_fuzzy_from_the_tm_then_back_to_everything(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Open the file.", "Öffnen Sie die Datei.", "draft", "tm"),
        ("Close the file.", "Schließen Sie die Datei.", "draft", "mt"),
        ("Save the file.", "Speichern Sie die Datei.", "confirmed", "tm"),
        ("Print the file.", "Drucken Sie die Datei.", "draft", "tm"),
        ("Copy the file.", None, "new", "human"),
    ]))
    second = win.search.and_combo
    assert second.isVisible() and second.currentData() == "all"
    choose_filter(qtbot, win, "fuzzy")
    assert shown(win) == [0, 1, 3]
    qtbot.keyClick(win.filter_combo, Qt.Key_Tab)                  # on to the second box
    qtbot.waitUntil(second.hasFocus, timeout=30_000)
    choose_in(qtbot, win, second, second.findData("tm"), "fuzzy+tm")
    assert shown(win) == [0, 3]                                   # draft AND from the TM
    assert win.filter_combo.currentData() == "fuzzy"
    assert "Fuzzy / draft and From the TM: 2 segments" in win.statusBar().currentMessage()
    choose_in(qtbot, win, second, second.findData("all"), "fuzzy")
    assert shown(win) == [0, 1, 3]                                # the second box emptied: one filter
    choose_in(qtbot, win, second, second.findData("mt"), "fuzzy+mt")
    assert shown(win) == [1]
    qtbot.keyClick(second, Qt.Key_Return)                         # back to the target box
    qtbot.waitUntil(lambda: win.editor() is not None and win.editor().hasFocus(), timeout=30_000)
    # "All segments" in the first box shows everything: the second box is emptied too
    choose_filter(qtbot, win, "all")
    assert shown(win) == [0, 1, 2, 3, 4] and second.currentData() == "all"


def test_qa_findings_and_confirmed_then_a_checked_filter_in_the_second_box(qtbot, tmp_path):
    win = open_window(qtbot, project_with(tmp_path, [
        ("Page 12 of 30.", "Seite 13 von 30.", "draft", "human"),        # a number differs, a draft
        ("Open the file.", "Öffnen Sie die Datei.", "confirmed", "human"),
        ("Page 14 of 30.", "Seite 15 von 30.", "confirmed", "human"),    # a number differs, confirmed
    ]))
    choose_filter(qtbot, win, "qa")
    assert shown(win) == [0, 2]
    qtbot.keyClick(win.filter_combo, Qt.Key_Tab)
    second = win.search.and_combo
    qtbot.waitUntil(second.hasFocus, timeout=30_000)
    choose_in(qtbot, win, second, second.findData("confirmed"), "qa+confirmed")
    assert shown(win) == [2]
    # a checked filter in the second box: the check runs for it too
    qtbot.keyClick(second, Qt.Key_Return)
    qtbot.waitUntil(lambda: win.editor() is not None and win.editor().hasFocus(), timeout=30_000)
    qtbot.keyClick(win.editor(), Qt.Key_F, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(win.filter_combo.hasFocus, timeout=30_000)
    choose_in(qtbot, win, win.filter_combo, win.filter_combo.findData("fuzzy"), "fuzzy+confirmed")
    assert shown(win) == []                                       # the second box stays as it was
    qtbot.keyClick(win.filter_combo, Qt.Key_Tab)
    qtbot.waitUntil(second.hasFocus, timeout=30_000)
    choose_in(qtbot, win, second, second.findData("qa"), "fuzzy+qa")
    qtbot.keyClick(second, Qt.Key_Backtab)                        # Shift+Tab: back to the first box
    assert win.filter_combo.hasFocus()
    assert shown(win) == [0]
