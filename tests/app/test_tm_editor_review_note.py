"""The TM editor shows a shared TM's review note ("revised by X, was: ...") as the tooltip of a
reviewed unit's target and under its author, and nothing for a unit nobody revised."""
from __future__ import annotations

from PySide6.QtCore import Qt

from app.dialogs.tm_units import AUTHOR, TARGET, UnitTableModel
from engine.tm import TranslationMemory
from engine.tm.units import page

NOTE = "revised by Rita, was: Seite drucken. (Ana)"


class _Reviewed(TranslationMemory):
    """A local TM answering as a shared TM with a reviewer does (engine.tm.pg_review)."""

    def revision_notes(self, uids: list[int]) -> dict[int, str]:
        return {uid: NOTE for uid in uids if self.get(uid).source.text == "Print the page."}


def test_a_reviewed_units_note_is_its_tooltip_and_another_unit_has_none(qtbot, tmp_path):
    with _Reviewed(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add("Print the page.", "Die Seite drucken.", creator="Rita")
        tm.add("Untouched unit.", "Unberührt.", creator="Ana")
        model = UnitTableModel()
        assert model.add_page(model.restart(), page(tm))
    rows = {model.data(model.index(r, 0)): r for r in range(model.rowCount())}
    reviewed, other = rows["Print the page."], rows["Untouched unit."]
    assert model.data(model.index(reviewed, TARGET), Qt.ToolTipRole) == NOTE
    assert model.data(model.index(reviewed, AUTHOR), Qt.ToolTipRole).endswith("\n" + NOTE)
    assert model.data(model.index(other, TARGET), Qt.ToolTipRole) is None
    assert NOTE not in model.data(model.index(other, AUTHOR), Qt.ToolTipRole)
