"""A reviewed target's tracked changes stay in the project: what a confirmation owes the TM --
sent at once or after a crash (engine.tmsync) -- is the target with its changes accepted."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.inline import revision
from engine.store import Project
from engine.tm import TranslationMemory
from engine.tmsync import send_pending

DATA = Path(__file__).parent.parent / "app" / "data"


@pytest.mark.parametrize("name", ["tracked-changes.sdlxliff", "tracked-changes.mqxliff"])
def test_a_confirmation_owed_after_a_crash_reaches_the_tm_without_change_marks(tmp_path, name):
    shutil.copy(DATA / name, tmp_path / name)
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(tmp_path / name)
        seg = next(s for s in p.segments(doc) if any(revision(t) for t in s.target.tags))
        p.confirm(seg.id, seg.target, tm_meta={"origin": "p"})   # ... and the process dies before the TM write
        with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
            assert send_pending(p, tm) == 1
            [unit] = [m for m in tm.search(seg.source.text, k=3) if m.score >= 0.99]
    assert not any(revision(t) for t in unit.target.tags)
    assert unit.target.plain() == "Das neue Fenster schließen."
