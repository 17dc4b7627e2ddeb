"""`verso qa` leaves out what the translator ignored in the editor's QA check (issue 38):
an ignored error no longer fails the run; --show-ignored lists it, marked."""
from __future__ import annotations

import json

from engine.cli import main
from engine.qa import check_segments
from engine.store import Project
from engine.store.qa_ignore import IgnoreList


def test_an_ignored_finding_is_left_out_and_no_longer_fails_the_run(tmp_path, capsys):
    src = tmp_path / "doc.txt"
    src.write_text("Buy 5 apples.\n\nOpen the file.\n", encoding="utf-8")
    folder = tmp_path / "p"
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        segs = p.segments(doc)
        p.confirm(segs[0].id, "Kaufen Sie 6 Äpfel.")
        p.confirm(segs[1].id, "Öffnen Sie die Datei.")
    assert main(["qa", "--project", str(folder)]) == 1
    assert "number 5 of the source" in capsys.readouterr().out
    with Project.open(folder) as p:
        found = [i for i in check_segments(p.segments(doc), p.qa_options()) if i.check == "number"]
        IgnoreList(p).ignore(found)
    assert main(["qa", "--project", str(folder)]) == 0
    assert "number" not in capsys.readouterr().out
    assert main(["qa", "--project", str(folder), "--show-ignored"]) == 0
    assert "error (ignored): number: number 5 of the source" in capsys.readouterr().out
    assert main(["qa", "--project", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["ignored"] == 2 and not [i for i in report["issues"] if i["check"] == "number"]
