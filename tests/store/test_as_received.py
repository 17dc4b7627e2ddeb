"""A target as the client's file brought it is the client's: a code it adds or drops is a QA
warning "as received", never a reason to refuse the export; once the translator writes or
confirms it in Verso the tag gate applies."""
from __future__ import annotations

import json
import subprocess
import sys

from engine.store import Project

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file source-language="en" target-language="de" datatype="plaintext" original="ui">
<body>
<trans-unit id="1"><source>Click <g id="1">Save</g> now.</source><target state="translated">Klicken Sie jetzt auf Speichern.</target></trans-unit>
<trans-unit id="2"><source>Open the file.</source><target state="translated">Datei öffnen.</target></trans-unit>
</body>
</file>
</xliff>
"""


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=120)


def test_an_untouched_export_with_a_received_tag_difference_goes_through(tmp_path):
    src = tmp_path / "ui.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        seg = p.segments(doc)[0]
        assert seg.as_received and p.tag_errors(doc) == []
    r = _cli("doc", "export", "ui.xlf", "--project", str(tmp_path / "p"), "--out", str(tmp_path / "out.xlf"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.xlf").exists()
    qa = _cli("qa", "--project", str(tmp_path / "p"), "--json")
    issues = json.loads(qa.stdout)[0]["issues"]
    tagged = [i for i in issues if i["group"] == "tags"]
    assert tagged and all(i["severity"] == "warning" and i["message"].startswith("as received") for i in tagged)
    assert qa.returncode == 0                                   # warnings only


def test_a_received_target_confirmed_in_verso_is_held_to_the_tag_gate(tmp_path):
    src = tmp_path / "ui.xlf"
    src.write_text(XLF, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        seg = p.segments(doc)[0]
        p.confirm(seg.id)                                       # the translator confirms it as it is
        assert not p.segment(seg.id).as_received
        assert {i.idx for i in p.tag_errors(doc)} == {0}
    r = _cli("doc", "export", "ui.xlf", "--project", str(tmp_path / "p"), "--out", str(tmp_path / "out.xlf"))
    assert r.returncode == 3 and "1" in r.stderr
