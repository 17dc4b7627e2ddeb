"""Settings ▸ Your name reaches the exported file: a PO export's Last-Translator is the editor's name."""
from __future__ import annotations

from engine.store import Project

from app.preferences import preferences

PO = '''msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Last-Translator: Somebody Else <se@example.com>\\n"
"Language: de\\n"

msgid "Open the file."
msgstr ""
'''


def test_po_export_is_signed_with_your_name(tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_USER", "login.name")
    preferences().user_name = "Mira Kovač"
    src = tmp_path / "a.po"
    src.write_text(PO, encoding="utf-8")
    with Project.create(tmp_path / "p", src_lang="en", tgt_lang="de") as p:
        doc = p.import_document(src)
        p.confirm(p.segments(doc)[0].id, "Öffnen Sie die Datei.")
        out = p.export_document(doc, tmp_path / "out.po")
    assert "Last-Translator: Mira Kovač" in out.read_text(encoding="utf-8")
    preferences().user_name = ""
    with Project.open(tmp_path / "p") as p:
        p.export_document(doc, tmp_path / "out2.po")
    assert "Last-Translator: login.name" in (tmp_path / "out2.po").read_text(encoding="utf-8")
