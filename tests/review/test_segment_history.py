"""A segment's history: each edit of its target (before, after, status, who, when), Track Changes on or off."""
from __future__ import annotations

from engine.review import history
from engine.review.changes import TrackedChanges, set_tracking


def test_every_edit_is_in_the_history_with_who_and_when(sdl_project):
    p, _ = sdl_project
    seg = p.segments(1)[0]
    tc = TrackedChanges(p)
    with tc.recording([seg.id], "Tom Translator"):
        p.set_target(seg.id, seg.target.with_text("Das grüne Haus ist gross."))
    set_tracking(p, True)
    with tc.recording([seg.id], "Rita Reviewer"):
        p.confirm(seg.id, seg.target.with_text("Das blaue Haus ist gross."))
    with tc.recording([seg.id], "Rita Reviewer"):  # confirmed again unchanged: not an edit
        p.confirm(seg.id)
    versions = history.of(p, seg.id)
    assert [(v.old.text, v.new.text, v.status, v.author) for v in versions] == [
        ("Das rote Haus ist gross.", "Das grüne Haus ist gross.", "draft", "Tom Translator"),
        ("Das grüne Haus ist gross.", "Das blaue Haus ist gross.", "confirmed", "Rita Reviewer")]
    assert all(v.at.endswith("+00:00") for v in versions)
