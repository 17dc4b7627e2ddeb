"""Every confirmed segment reaches the TM, even when the process dies between
the project's write and the TM's."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from engine.formats.base import ParsedDocument, ParsedSegment
from engine.inline import protect
from engine.store import Project
from engine.tm import TranslationMemory
from engine.tmsync import send_pending

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _project(folder, n=5):
    original = folder.parent / "doc.txt"
    sources = [f"Sentence number {i} of the manual." for i in range(n)]
    original.write_text("\n\n".join(sources), encoding="utf-8")
    p = Project.create(folder, src_lang="en", tgt_lang="de")
    p.import_parsed(ParsedDocument("doc.txt", "txt", "en", "de",
                                   [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(sources)]),
                    original)
    return p


def test_a_confirmation_the_tm_never_got_is_sent_when_the_project_opens_again(tmp_path):
    p = _project(tmp_path / "p")
    segs = p.segments(p.documents()[0].id)
    p.confirm(segs[1].id, "Satz Nummer 1.", tm_meta={"origin": "Manual", "creator": "translator"})
    p.close()   # the process ends before the TM write
    with Project.open(tmp_path / "p") as p2, TranslationMemory(tmp_path / "tm", src_lang="en",
                                                              tgt_lang="de") as tm:
        assert [x.segment.id for x in p2.tm_pending()] == [segs[1].id]
        assert send_pending(p2, tm) == 1
        hit = tm.search("Sentence number 1 of the manual.")[0]
        assert hit.score == 1.0 and hit.target.text == "Satz Nummer 1."
        assert hit.entry.meta["creator"] == "translator"
        assert p2.tm_pending() == [] and send_pending(p2, tm) == 0


def test_a_segment_unconfirmed_again_owes_the_tm_nothing(tmp_path):
    with _project(tmp_path / "p") as p:
        sid = p.segments(p.documents()[0].id)[0].id
        p.confirm(sid, "Erster Satz.", tm_meta={})
        p.set_target(sid, "Erster Satz, geändert.")   # back to draft
        assert p.tm_pending() == []


def test_no_confirmed_segment_is_missing_from_the_tm_after_kill_9(tmp_path):
    """Kill -9 at random moments of a confirm loop (project write, then TM write);
    on reopening, what the project still owes is sent and every confirmed segment
    is in the TM."""
    with _project(tmp_path / "p", n=400):
        pass
    code = textwrap.dedent("""
        import sys
        from engine.store import Project
        from engine.tm import TranslationMemory
        from engine.tmsync import confirm_to_tm, send_pending
        p = Project.open(sys.argv[1])
        tm = TranslationMemory(sys.argv[2], src_lang="en", tgt_lang="de")
        send_pending(p, tm)
        print("ready", flush=True)
        for s in p.segments(p.documents()[0].id):
            if s.status != "confirmed":
                confirm_to_tm(p, tm, s.id, f"Satz {s.idx}.", meta={"origin": "Manual"})
                print("confirmed", flush=True)
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    for delay in (0.15, 0.4, 0.05):
        proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "p"), str(tmp_path / "tm")],
                                stdout=subprocess.PIPE, env=env)
        assert proc.stdout.readline().strip() == b"ready"
        # each run confirms a segment (if one is left) before the kill can come: a busy machine may confirm
        # none in 0.4 s
        assert proc.stdout.readline().strip() in (b"confirmed", b"")
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with Project.open(tmp_path / "p") as p, TranslationMemory(tmp_path / "tm") as tm:
        send_pending(p, tm)
        confirmed = [s for s in p.segments(p.documents()[0].id) if s.status == "confirmed"]
        assert confirmed
        for s in confirmed:
            hit = tm.search(s.source.text, k=1)
            assert hit and hit[0].score == 1.0 and hit[0].target.text == s.target.text, s.idx


def test_a_corrected_confirmation_owed_after_a_crash_updates_its_unit_not_a_second_one(tmp_path):
    from engine.inline import TaggedText

    p = _project(tmp_path / "p")
    seg = p.segments(p.documents()[0].id)[2]
    with TranslationMemory(tmp_path / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add(seg.source, TaggedText("Satz Numer 2."), origin="Manual")   # the first, wrong, confirmation
    p.confirm(seg.id, "Satz Numer 2.", tm_meta={"origin": "Manual"})
    p.tm_written([seg.id])
    p.confirm(seg.id, "Satz Nummer 2.", tm_meta={"origin": "Manual"}, tm_replaces=TaggedText("Satz Numer 2."))
    p.close()                                                   # killed before the TM update
    with Project.open(tmp_path / "p") as p2, TranslationMemory(tmp_path / "tm") as tm:
        assert send_pending(p2, tm) == 1
        assert [e.target.text for e in tm.entries()] == ["Satz Nummer 2."]
