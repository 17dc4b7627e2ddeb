"""A reviewer's edits with Track Changes on are kept as deletions and insertions, accepted or
rejected one by one, per segment or for the document."""
from __future__ import annotations

from engine.review.changes import TrackedChanges, set_tracking
from engine.review.diff import diff, new_text, old_text


def _edit(p, seg, text, author="Rita"):
    tc = TrackedChanges(p)
    with tc.recording([seg.id], author):
        p.confirm(seg.id, seg.target.with_text(text))
    return tc


def test_word_diff_keeps_tags_whole_and_rebuilds_both_texts():
    old, new = "Öffnen Sie die \ue001Datei\ue002 jetzt.", "Öffnen Sie \ue001die Datei\ue002 sofort."
    ops = diff(old, new)
    assert old_text(ops) == old and new_text(ops) == new
    # the moved tag is one whole code deleted and inserted, the replaced word one word
    assert [(o.kind, o.text) for o in ops if o.kind != "equal"] == [
        ("insert", "\ue001"), ("delete", "\ue001"), ("delete", "jetzt"), ("insert", "sofort")]


def test_edit_without_track_changes_records_nothing(sdl_project):
    p, _ = sdl_project
    seg = p.segments(1)[0]
    tc = _edit(p, seg, "Das blaue Haus ist gross.")
    assert tc.of(seg.id) is None


def test_edit_of_a_received_target_is_recorded_as_deletion_and_insertion(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    seg = p.segments(1)[0]
    tc = _edit(p, seg, "Das blaue Haus ist gross.")
    t = tc.of(seg.id)
    assert [(c.kind, c.text, c.author) for c in t.changes()] == [("delete", "rote", "Rita"), ("insert", "blaue", "Rita")]
    assert t.at.endswith("+00:00")
    assert p.segment(seg.id).target.text == "Das blaue Haus ist gross."  # the store holds the edited text


def test_second_edit_keeps_the_first_base(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    seg = p.segments(1)[0]
    _edit(p, seg, "Das blaue Haus ist gross.")
    tc = _edit(p, p.segment(seg.id), "Das blaue Haus ist klein.")
    assert tc.of(seg.id).base.text == "Das rote Haus ist gross."


def test_typing_the_old_text_back_leaves_the_segment_untouched(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    seg = p.segments(1)[0]
    _edit(p, seg, "Das blaue Haus ist gross.")
    tc = _edit(p, p.segment(seg.id), "Das rote Haus ist gross.")
    assert tc.of(seg.id) is None
    assert p.segment(seg.id).as_received  # exports as the file had it


def test_accept_one_change_and_reject_the_other(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    seg = p.segments(1)[0]
    tc = _edit(p, seg, "Das blaue Haus ist sehr gross.")
    changes = tc.of(seg.id).changes()
    kinds = [(c.kind, c.text) for c in changes]
    assert kinds == [("delete", "rote"), ("insert", "blaue"), ("insert", "sehr ")]
    tc.reject(seg.id, changes[2].index)   # "sehr" goes from the target
    assert p.segment(seg.id).target.text == "Das blaue Haus ist gross."
    t = tc.of(seg.id)
    tc.accept(seg.id, t.changes()[0].index)  # the deletion of "rote" becomes the base
    assert [(c.kind, c.text) for c in tc.of(seg.id).changes()] == [("insert", "blaue")]
    tc.accept(seg.id)
    assert tc.of(seg.id) is None and p.segment(seg.id).target.text == "Das blaue Haus ist gross."


def test_reject_all_in_document_restores_received_targets(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    segs = p.segments(1)
    _edit(p, segs[0], "Das blaue Haus ist gross.")
    _edit(p, segs[1], segs[1].target.text.replace("jetzt", "sofort"))
    tc = TrackedChanges(p)
    assert tc.reject_document(1) == 2
    assert [s.target.text for s in p.segments(1)] == [s.target.text for s in segs]
    assert all(s.as_received for s in p.segments(1))
    assert p.translations(1) == {}  # nothing left to write: the export is the original


def test_accept_all_in_document_keeps_the_edits_and_no_marks(sdl_project):
    p, _ = sdl_project
    set_tracking(p, True)
    segs = p.segments(1)
    _edit(p, segs[1], segs[1].target.text.replace("jetzt", "sofort"))
    tc = TrackedChanges(p)
    assert tc.accept_document(1) == 1
    assert tc.in_document(1) == {}
    assert "sofort" in p.segment(segs[1].id).target.text


def test_a_new_translation_is_not_a_tracked_change(tmp_path):
    from engine.store import Project
    f = tmp_path / "a.txt"
    f.write_text("Hello world.\n", encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        p.import_document(f)
        set_tracking(p, True)
        seg = p.segments(1)[0]
        tc = TrackedChanges(p)
        with tc.recording([seg.id]):
            p.confirm(seg.id, "Hallo Welt.")
        assert tc.of(seg.id) is None
        with tc.recording([seg.id]):  # now confirmed: the next edit is tracked
            p.confirm(seg.id, "Hallo, Welt.")
        assert [c.kind for c in tc.of(seg.id).changes()] == ["insert"]


def test_a_locked_segment_keeps_its_target_when_its_changes_are_rejected(sdl_project):
    import pytest

    from engine.errors import ProjectError
    from engine.store.locks import SegmentLocks

    p, _ = sdl_project
    set_tracking(p, True)
    segs = p.segments(1)
    _edit(p, segs[0], "Das blaue Haus ist gross.")
    _edit(p, segs[1], segs[1].target.text.replace("jetzt", "sofort"))
    SegmentLocks(p).lock([segs[1].id])
    with pytest.raises(ProjectError, match="segment 2 is locked"):
        TrackedChanges(p).reject_document(1)
    assert [s.target.text for s in p.segments(1)][:2] == [
        "Das blaue Haus ist gross.", segs[1].target.text.replace("jetzt", "sofort")]  # none rejected
    TrackedChanges(p).accept(segs[1].id)  # accepting changes no target: allowed
    assert TrackedChanges(p).of(segs[1].id) is None
