"""File ▸ Align Documents…: the alignment editor shows the least sure pairs first, and only what the
translator confirms (or chooses by confidence) goes into the TM."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402

from engine.align.aligner import align_documents  # noqa: E402
from engine.align.docs import AlignDoc  # noqa: E402
from engine.inline import TaggedText  # noqa: E402

SRC = ["The Council adopted the regulation on 12 May.", "It enters into force on the day after its publication.",
       "Article 2 sets the fee at 40 euros.", "Member States shall apply it.", "Done at Brussels.",
       "For the Council.", "The President."]
TGT = ["Der Rat hat die Verordnung am 12. Mai erlassen.", "Sie tritt am Tag nach ihrer Veröffentlichung in Kraft.",
       "Artikel 2 legt die Gebühr auf 40 Euro fest.", "Die Mitgliedstaaten wenden sie an.",
       "Geschehen zu Brüssel.", "Im Namen des Rates."]


def _alignment():
    src = AlignDoc(Path("en.docx"), [TaggedText(s) for s in SRC], [0] * len(SRC))
    tgt = AlignDoc(Path("de.docx"), [TaggedText(t) for t in TGT], [0] * len(TGT))
    return align_documents(src, tgt)


def _dialog(qtbot, stored):
    from app.dialogs.align_docs import AlignDocsDialog

    dlg = AlignDocsDialog(None, "en", "de", lambda units, done: stored.append(units))
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.set_alignment(_alignment())
    return dlg


def _confidences(dlg):
    t = dlg.review.table
    return [float(t.item(r, 1).text()) for r in range(t.rowCount())]


def test_pairs_are_shown_lowest_confidence_first(qtbot):
    dlg = _dialog(qtbot, [])
    shown = _confidences(dlg)
    assert len(shown) == len(dlg.review.review.rows) and shown == sorted(shown)
    assert shown[0] < 0.9 <= shown[-1]   # the guess at the end of the text is the first to review


def test_only_confirmed_pairs_go_into_the_tm(qtbot):
    stored: list = []
    dlg = _dialog(qtbot, stored)
    t = dlg.review.table
    rows = [r for r in range(t.rowCount()) if t.item(r, 2).text().startswith(("Article 2", "Member States"))]
    t.setFocus()
    for r in rows:
        t.selectRow(r)
        qtbot.keyClick(t, Qt.Key_Space)
    qtbot.mouseClick(dlg.review.add_button, Qt.LeftButton)
    assert len(stored) == 1
    pairs = {(u.variants["en"].text, u.variants["de"].text) for u in stored[0]}
    assert pairs == {("Article 2 sets the fee at 40 euros.", "Artikel 2 legt die Gebühr auf 40 Euro fest."),
                     ("Member States shall apply it.", "Die Mitgliedstaaten wenden sie an.")}
    assert all(u.meta["origin"] == "aligned" for u in stored[0])


def test_choosing_a_confidence_stores_every_pair_at_or_above_it(qtbot):
    stored: list = []
    dlg = _dialog(qtbot, stored)
    dlg.review.above.setChecked(True)
    dlg.review.threshold.setValue(0.9)
    qtbot.mouseClick(dlg.review.add_button, Qt.LeftButton)
    want = [x for x in dlg.review.review.chosen(0.9)]
    assert want and len(stored[0]) == len(want) < len(dlg.review.review.rows)


def test_merge_split_and_shift_from_the_keyboard(qtbot):
    dlg = _dialog(qtbot, [])
    rv, t = dlg.review, dlg.review.table
    t.setFocus()
    first = next(r for r in range(t.rowCount()) if t.item(r, 2).text().startswith("The Council"))
    t.selectRow(first)
    qtbot.keyClick(t, Qt.Key_M, Qt.ControlModifier)      # with "It enters into force..."
    merged = rv.review.rows[0].link
    assert merged.src == (0, 1) and merged.tgt == (0, 1) and rv.review.rows[0].confirmed
    qtbot.keyClick(t, Qt.Key_T, Qt.ControlModifier)      # and apart again
    assert [(r.link.src, r.link.tgt) for r in rv.review.rows[:2]] == [((0,), (0,)), ((1,), (1,))]
    row = next(r for r in range(t.rowCount()) if t.item(r, 2).text().startswith("The Council"))
    t.selectRow(row)
    qtbot.keyClick(t, Qt.Key_Down, Qt.AltModifier)       # its target sentence to the next link
    assert [(r.link.src, r.link.tgt) for r in rv.review.rows[:2]] == [((0,), ()), ((1,), (0, 1))]
    t.selectRow(next(r for r in range(t.rowCount()) if t.item(r, 2).text().startswith("The Council")))
    qtbot.keyClick(t, Qt.Key_Up, Qt.AltModifier)         # and back
    assert [(r.link.src, r.link.tgt) for r in rv.review.rows[:2]] == [((0,), (0,)), ((1,), (1,))]


def test_the_filter_shows_only_matching_pairs(qtbot):
    dlg = _dialog(qtbot, [])
    dlg.review.filter.setText("fee")
    t = dlg.review.table
    assert t.rowCount() == 1 and "fee" in t.item(0, 2).text()
