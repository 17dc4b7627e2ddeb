"""Comments in the editor, driven from the keyboard as a translator would: Ctrl+Shift+N (Add
Comment) puts the cursor in the Comments panel, Ctrl+Enter adds, the grid marks the row, the
comment is there after reopening, it is edited, resolved and reopened; the file's own comments
show read-only; an exported XLIFF and PO carry the open comment where the format keeps one."""
from __future__ import annotations

import zipfile

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPainter
from lxml import etree

from app.controllers.comments import NO_PLACE
from app.panels.comments import MARK_COLOUR, NOTE_COLOUR
from app.segment_model import COL_NUM
from engine.store import Project
from engine.store.comments import Comments

from editor_helpers import make_project
from formats.docfiles import make_docx
from test_editor import open_window

ADD_KEYS = (Qt.Key_N, Qt.ControlModifier | Qt.ShiftModifier)   # the Trados preset, the default
CTRL_ENTER = (Qt.Key_Return, Qt.ControlModifier)
X12 = "urn:oasis:names:tc:xliff:document:1.2"

XLF = f"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="{X12}">
  <file original="ui" source-language="en" target-language="de" datatype="plaintext">
    <body>
      <trans-unit id="open">
        <source>Open the file.</source>
        <note>Menu item, keep it short.</note>
      </trans-unit>
      <trans-unit id="close">
        <source>Close the window.</source>
      </trans-unit>
    </body>
  </file>
</xliff>
"""

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

#. Button label
msgid "Open the file."
msgstr ""

msgid "Close the window."
msgstr ""
"""


def _imported(tmp_path, name: str, text: str):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    return tmp_path / "p", src


def _add_by_keyboard(qtbot, win, text: str) -> None:
    qtbot.keyClick(win.editor(), *ADD_KEYS)
    box = win.comments_panel.box
    qtbot.waitUntil(box.hasFocus, timeout=30_000)
    qtbot.keyClicks(box, text)
    qtbot.keyClick(box, *CTRL_ENTER)


def _shown(win) -> list[str]:
    lst = win.comments_panel.list
    return [lst.item(i).text() for i in range(lst.count())]


def _mark_painted(win, row: int, colour=MARK_COLOUR) -> bool:
    """Whether the "#" cell of ``row`` is drawn with the open-comment mark (or ``colour``'s)."""
    grid = win.grid
    idx = win.proxy.mapFromSource(win.model.index(row, COL_NUM))
    rect = grid.visualRect(idx)
    img = QImage(rect.size(), QImage.Format_ARGB32)
    img.fill(Qt.white)
    painter = QPainter(img)
    painter.translate(-rect.topLeft())
    opt = grid.viewOptions() if hasattr(grid, "viewOptions") else None
    if opt is None:
        from PySide6.QtWidgets import QStyleOptionViewItem

        opt = QStyleOptionViewItem()
        grid.initViewItemOption(opt)
    opt.rect = rect
    win.delegate.paint(painter, opt, idx)
    painter.end()
    return img.pixelColor(QPoint(rect.width() - 3, 1)).rgb() == colour.rgb()


def test_a_comment_added_by_keyboard_shows_marks_the_row_and_survives_reopening(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window."])
    win = open_window(qtbot, folder)
    qtbot.keyClicks(win.editor(), "Öffnen")
    _add_by_keyboard(qtbot, win, "Is it a document or a folder?")
    assert win.model.segment(0).target.text == "Öffnen"   # what was typed is kept
    shown = _shown(win)
    assert len(shown) == 1 and shown[0].endswith("· open\nIs it a document or a folder?")
    assert win.delegate.commented == {0} and _mark_painted(win, 0) and not _mark_painted(win, 1)
    assert NO_PLACE in win.comments_panel.where.text()     # a .txt has no place for comments
    qtbot.keyClick(win.comments_panel.box, Qt.Key_Escape)  # back to the target
    qtbot.waitUntil(lambda: win.editor() is not None and win.editor().hasFocus(), timeout=30_000)
    qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    qtbot.waitUntil(lambda: win.current_row() == 1, timeout=30_000)
    assert _shown(win) == []
    win.close()

    again = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: win.delegate.commented is not None and again.delegate.commented == {0}, timeout=30_000)
    again.nav.go_to(0)
    qtbot.waitUntil(lambda: len(_shown(again)) == 1, timeout=30_000)
    assert "Is it a document or a folder?" in _shown(again)[0]
    again.close()


def test_edit_resolve_and_reopen_from_the_panel(qtbot, tmp_path):
    folder = make_project(tmp_path / "p", ["Open the file.", "Close the window."])
    win = open_window(qtbot, folder)
    _add_by_keyboard(qtbot, win, "Check the term")
    lst = win.comments_panel.list
    lst.setFocus()
    lst.setCurrentRow(0)
    qtbot.keyClick(lst, Qt.Key_F2)                          # edit the selected comment
    box = win.comments_panel.box
    assert box.hasFocus() and box.toPlainText() == "Check the term"
    qtbot.keyClicks(box, " 'file'")
    qtbot.keyClick(box, *CTRL_ENTER)
    with Project.open(folder) as p:
        (c,) = Comments(p).for_segment(win.model.segment(0).id)
    assert c.text == "Check the term 'file'" and not c.resolved
    win.actions_by_id["resolve_comment"].trigger()          # Segment ▸ Resolve/Reopen Comment
    assert "· resolved\n" in _shown(win)[0] and win.delegate.commented == frozenset()
    assert win.statusBar().currentMessage() == "Comment resolved: it stays in the project and is not exported."
    assert win.comments_panel.resolve_button.text() == "Reopen"
    win.actions_by_id["resolve_comment"].trigger()
    assert "· open\n" in _shown(win)[0] and win.delegate.commented == {0}
    lst.setFocus()
    qtbot.keyClick(lst, Qt.Key_Delete)
    assert _shown(win) == [] and win.delegate.commented == frozenset()
    win.close()


def test_the_files_own_comment_shows_read_only_and_the_exported_xliff_has_the_new_one(qtbot, tmp_path):
    folder, src = _imported(tmp_path, "ui.xlf", XLF)
    win = open_window(qtbot, folder)
    assert _shown(win) == ["From the file (read-only): Menu item, keep it short."]
    assert "<note>" in win.comments_panel.where.text()
    _add_by_keyboard(qtbot, win, "Öffnen or Aufmachen?")
    out = tmp_path / "ui.de.xlf"
    assert win.delivery.export_to(win.model.document_id, out)
    unit = etree.parse(str(out)).getroot().find(f".//{{{X12}}}trans-unit[@id='open']")
    notes = [(n.get("from"), n.text) for n in unit.findall(f"{{{X12}}}note")]
    assert notes[0] == (None, "Menu item, keep it short.") and notes[1][1] == "Öffnen or Aufmachen?"
    assert notes[1][0]                                      # the author
    close = etree.parse(str(out)).getroot().find(f".//{{{X12}}}trans-unit[@id='close']")
    assert close.findall(f"{{{X12}}}note") == []
    win.close()


def test_a_row_whose_file_brings_a_comment_is_marked_in_grey_and_an_open_comment_over_it(qtbot, tmp_path):
    """A client's note in the file marks its row before anyone comments in Verso (it showed no mark)."""
    folder, _ = _imported(tmp_path, "ui.xlf", XLF)
    win = open_window(qtbot, folder)
    qtbot.waitUntil(lambda: win.delegate.noted == {0}, timeout=30_000)
    assert _mark_painted(win, 0, NOTE_COLOUR) and not _mark_painted(win, 1, NOTE_COLOUR)
    assert not _mark_painted(win, 1)
    _add_by_keyboard(qtbot, win, "Short enough?")
    qtbot.waitUntil(lambda: win.delegate.commented == {0}, timeout=30_000)
    assert _mark_painted(win, 0)                          # the open comment's mark wins
    win.close()


def test_an_exported_po_has_the_comment_as_a_translator_comment_and_a_resolved_one_not(qtbot, tmp_path):
    from translate.storage import pypo

    folder, src = _imported(tmp_path, "ui.po", PO)
    win = open_window(qtbot, folder)
    assert _shown(win) == ["From the file (read-only): Button label"]
    _add_by_keyboard(qtbot, win, "Formal: Sie")
    _add_by_keyboard(qtbot, win, "Done already")
    win.actions_by_id["resolve_comment"].trigger()          # the latest open one
    out = tmp_path / "ui.de.po"
    assert win.delivery.export_to(win.model.document_id, out)
    units = {u.source: u for u in pypo.pofile(out.read_bytes()).units if not u.isheader()}
    assert units["Open the file."].othercomments == ["# Formal: Sie\n"]
    assert units["Open the file."].automaticcomments == ["#. Button label\n"]
    assert units["Close the window."].othercomments == []
    win.close()


def test_an_untouched_document_exports_byte_identical_with_only_resolved_comments(qtbot, tmp_path):
    folder, src = _imported(tmp_path, "ui.xlf", XLF)
    win = open_window(qtbot, folder)
    _add_by_keyboard(qtbot, win, "Looked at it")
    win.actions_by_id["resolve_comment"].trigger()
    out = tmp_path / "ui.de.xlf"
    assert win.delivery.export_to(win.model.document_id, out)
    assert out.read_bytes() == src.read_bytes()
    win.close()


def test_an_exported_docx_has_the_comment_as_a_word_comment(qtbot, tmp_path):
    src = make_docx(tmp_path / "guide.docx", "<w:p><w:r><w:t>Open the file.</w:t></w:r></w:p>"
                                             "<w:p><w:r><w:t>Close the window.</w:t></w:r></w:p>")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(src)
    win = open_window(qtbot, tmp_path / "p")
    assert "Word comments" in win.comments_panel.where.text()
    qtbot.keyClick(win.editor(), Qt.Key_Down, Qt.ControlModifier)
    qtbot.waitUntil(lambda: win.current_row() == 1, timeout=30_000)
    _add_by_keyboard(qtbot, win, "Which window?")
    out = tmp_path / "guide.de.docx"
    assert win.delivery.export_to(win.model.document_id, out)
    with zipfile.ZipFile(out) as z:
        comments = etree.fromstring(z.read("word/comments.xml"))
        body = etree.fromstring(z.read("word/document.xml"))
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    assert "".join(comments.itertext()) == "Which window?"
    paras = body.findall(f".//{w}p")
    assert paras[0].find(f"{w}commentRangeStart") is None and paras[1].find(f"{w}commentRangeStart") is not None
    win.close()
