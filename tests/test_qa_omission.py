"""The QA check "possible omission": a draft the machine filled that leaves out a negation, a number,
a code or a menu separator of its source is named, before it reaches the export without a word."""
from types import SimpleNamespace

from engine.inline import TaggedText, protect
from engine.qa import QAOptions, check_segments
from engine.qa_omission import omissions

NOT_SRC = "Deleting an album does not delete the photos on your disk."
MENU_SRC = "To create a new album, choose <guimenu>Album</guimenu> > <guimenuitem>New Album</guimenuitem>."


def _seg(src: str, tgt: str, origin: str = "mt", status: str = "draft", idx: int = 0):
    source = protect(src)
    return SimpleNamespace(id=idx + 1, idx=idx, source=source, target=TaggedText(tgt, source.tags), status=status,
                           origin=origin, locked=False, as_received=False)


def _omission_messages(segs, options=None) -> list[str]:
    return [i.message for i in check_segments(segs, options) if i.check == "possible-omission"]


def test_machine_draft_that_drops_the_negation_is_named():
    # the demo model's suggestion for the demo project's segment 11 (beam 5, with the demo TM)
    msgs = _omission_messages([_seg(NOT_SRC, "Das Löschen eines Albums ist das Fotos auf Ihrer Festplatte.")])
    assert len(msgs) == 1 and "'not'" in msgs[0]


def test_machine_draft_keeping_the_negation_is_not_named():
    assert _omission_messages([_seg(NOT_SRC, "Das Löschen eines Albums löscht nicht die Fotos auf Ihrer Festplatte.")]) == []
    assert _omission_messages([_seg("You can't undo this.", "Dies lässt sich nicht rückgängig machen.")]) == []


def test_machine_draft_that_drops_the_menu_separator_is_named():
    tt = protect(MENU_SRC)
    dropped = tt.text.split(", ")[0].replace("To create a new album", "Um ein neues Album zu erstellen") \
        + ", wählen Sie \ue001Album\ue002 \ue003Neues Album\ue004."
    kept = "Um ein neues Album zu erstellen, wählen Sie \ue001Album\ue002 > \ue003Neues Album\ue004."
    assert any("menu separator" in m for m in _omission_messages([_seg(MENU_SRC, dropped)]))
    assert _omission_messages([_seg(MENU_SRC, kept)]) == []


def test_dropped_code_and_number_are_named_but_a_formula_is_no_menu():
    found = omissions("Press F2 to rename 3 albums.", "Drücken Sie, um Alben umzubenennen.")
    assert [(o.kind, o.text) for o in found] == [("code", "F2"), ("number", "3")]
    assert omissions("If a > b, swap them.", "Wenn a b ist, tauschen.") == []


def test_only_machine_drafts_are_checked_and_the_check_can_be_turned_off():
    dropped = "Das Löschen eines Albums ist das Fotos auf Ihrer Festplatte."
    assert _omission_messages([_seg(NOT_SRC, dropped, origin="human")]) == []
    assert _omission_messages([_seg(NOT_SRC, dropped)], QAOptions().with_check("omission", False)) == []
