"""A TM is a folder or a postgresql:// URL wherever one is named: the project's TM list
(searched by `verso doc pretranslate`), `--tm` of the pre-translation, and the editor's
import dialog.  Real PostgreSQL server (tests/pgserver_helper.py); skipped as the other
PG tests are when none can start."""
from __future__ import annotations

import json
import uuid

import pytest

from engine.cli import main
from engine.errors import TMError
from engine.store import Project, trusted
from engine.tm import open_tm, project_tms

XLF = """<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="guide" source-language="en" target-language="de" datatype="plaintext"><body>
<trans-unit id="1"><source>Open the file.</source></trans-unit>
<trans-unit id="2"><source>Close the window.</source></trans-unit>
<trans-unit id="3"><source>Print the page.</source></trans-unit>
<trans-unit id="4"><source>Nothing matches this one.</source></trans-unit>
</body></file></xliff>
"""

TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence" adminlang="en"
 creationtool="t" creationtoolversion="1" o-tmf="t"/><body>
<tu><tuv xml:lang="en"><seg>Open the red album.</seg></tuv><tuv xml:lang="de"><seg>Öffnen Sie das rote Album.</seg></tuv></tu>
<tu><tuv xml:lang="en"><seg>Close the window.</seg></tuv><tuv xml:lang="de"><seg>Schließen Sie das Fenster.</seg></tuv></tu>
</body></tmx>
"""


def tm_url(base: str) -> str:
    """A URL of a TM not made yet on the test server."""
    return f"{base}{'&' if '?' in base else '?'}tm=n{uuid.uuid4().hex[:12]}"


def _tm_with(ref, *pairs):
    with open_tm(ref, src_lang="en", tgt_lang="de") as tm:
        for s, t in pairs:
            tm.add(s, t)


def test_project_lists_urls_and_folders_in_order(tmp_path, pg_url):
    """A URL in the setting ``tms`` is kept as written (not read as a path), and the
    folders after it keep their own settings."""
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de") as p:
        p.set_setting("tms", json.dumps([{"path": pg_url, "writable": True},
                                         {"path": "tm", "writable": False}]))
        trusted.confirm_servers([pg_url])  # the user's word for the server (a received project's is refused)
        listed = project_tms(p)
    assert [(str(r.ref), r.writable, r.shared) for r in listed] == [
        (pg_url, True, True), (str(tmp_path / "proj" / "tm"), False, False)]
    assert listed[0].name == pg_url.rsplit("tm=", 1)[1]


def test_pretranslate_reads_the_projects_shared_tm_and_a_url_given_with_tm(tmp_path, pg_server, capsys):
    listed, extra = tm_url(pg_server[0]), tm_url(pg_server[0])
    _tm_with(listed, ("Open the file.", "Öffnen Sie die Datei."))
    _tm_with(extra, ("Close the window.", "Schließen Sie das Fenster."))
    _tm_with(tmp_path / "proj-tm", ("Print the page.", "Drucken Sie die Seite."))
    (tmp_path / "guide.xlf").write_text(XLF, "utf-8")
    with Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de") as p:
        p.import_document(tmp_path / "guide.xlf")
        p.set_setting("tms", json.dumps([{"path": listed, "writable": True}]))
        trusted.confirm_servers([listed])  # the user's word for the server (a received project's is refused)
        p.add_tm_ref(tmp_path / "proj-tm")  # the user's own: a folder outside the project needs their word
    folder = str(tmp_path / "proj")
    assert main(["doc", "pretranslate", "guide.xlf", "--project", folder, "--model", "none",
                 "--tm", extra]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["tm"], out["mt"], out["empty"]) == (3, 0, 1)
    with Project.open(folder) as p:
        segs = p.segments(1)
    assert [(s.target.text, s.origin) for s in segs[:3]] == [
        ("Öffnen Sie die Datei.", "tm"), ("Schließen Sie das Fenster.", "tm"), ("Drucken Sie die Seite.", "tm")]
    # a missing TM named by URL: one line, and nothing is created
    missing = tm_url(pg_server[0])
    assert main(["doc", "pretranslate", "guide.xlf", "--project", folder, "--model", "none",
                 "--tm", missing]) == 2
    err = capsys.readouterr().err
    assert "no TM named" in err and err.count("\n") == 1
    with pytest.raises(TMError):
        open_tm(missing, create=False)


# ------------------------------------------------------------------ the editor's import dialog
def _dialog(qtbot, tmp_path):
    from app.dialogs.import_tm import ImportTMDialog
    from app.tmservice import TMService

    p = Project.create(tmp_path / "proj", src_lang="en", tgt_lang="de")
    p.set_setting("tms", '[{"path": "tm", "writable": true}]')
    svc = TMService(p)
    qtbot.waitUntil(lambda: not svc.busy(), timeout=30_000)
    dlg = ImportTMDialog(None, p, svc)
    qtbot.addWidget(dlg)
    return p, svc, dlg


def _run(qtbot, dlg, tmx):
    dlg.set_file(tmx)
    qtbot.waitUntil(lambda: dlg.report is not None, timeout=30_000)
    dlg.start_import()
    qtbot.waitUntil(lambda: not dlg.busy(), timeout=30_000)


def test_import_dialog_takes_a_pasted_url_creates_and_lists_the_shared_tm(qtbot, tmp_path, pg_url):
    p, svc, dlg = _dialog(qtbot, tmp_path)
    try:
        assert dlg.target.text() == str(tmp_path / "proj" / "tm")  # the project's writable TM
        assert dlg.target_ref() is None and dlg.list_it.isHidden()
        dlg.target.setText(f"  {pg_url} ")  # pasted, with spaces
        assert dlg.target_ref() == pg_url and not dlg.list_it.isHidden() and dlg.list_it.isChecked()
        tmx = tmp_path / "mem.tmx"
        tmx.write_text(TMX, "utf-8")
        _run(qtbot, dlg, tmx)
        assert dlg.result is not None and dlg.result.added == 2, dlg.summary.text()
        assert "Into postgresql://" in dlg.summary.text()
        with open_tm(pg_url, create=False) as tm:  # created on the server, with the pair
            assert len(tm) == 2 and (tm.src_lang, tm.tgt_lang) == ("en", "de")
        with open_tm(tmp_path / "proj" / "tm", create=False) as own:
            assert len(own) == 0  # the project's own TM untouched
        # now one of the project's TMs (read-only listing), and the editor's lookups find it
        qtbot.waitUntil(lambda: not svc.busy(), timeout=30_000)
        assert [(str(r.ref), r.writable) for r in project_tms(p)][-1] == (pg_url, False)
        got = []
        from engine.inline import TaggedText

        svc.lookups.ready.connect(lambda key, found: got.append(found))
        svc.lookup("k", TaggedText("Close the window."))
        qtbot.waitUntil(lambda: bool(got), timeout=30_000)
        assert got[0][0].match.target.text == "Schließen Sie das Fenster."
    finally:
        svc.close()
        p.close()


def test_import_dialog_a_broken_file_into_a_new_url_leaves_no_tm(qtbot, tmp_path, pg_url):
    p, svc, dlg = _dialog(qtbot, tmp_path)
    try:
        dlg.target.setText(pg_url)
        tmx = tmp_path / "half.tmx"
        tmx.write_text(TMX.replace("</body></tmx>", "<tu><tuv xml:lang=\"en\"><seg>x</tuv></tu></body></tmx>"),
                       "utf-8")
        dlg.set_file(tmx)
        qtbot.waitUntil(lambda: dlg.report is not None, timeout=30_000)
        assert dlg.report.fatal  # the dry run says so; importing anyway is refused as a whole
        dlg.start_import()
        qtbot.waitUntil(lambda: not dlg.busy(), timeout=30_000)
        assert dlg.result is None and dlg.summary.text().startswith("Nothing was imported")
        assert "half.tmx" in dlg.summary.text()
        with pytest.raises(TMError):
            open_tm(pg_url, create=False)
        assert all(not r.shared for r in project_tms(p))  # not listed either
    finally:
        svc.close()
        p.close()
