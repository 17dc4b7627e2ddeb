"""The glossary folder: entries kept, re-imports update, a failed import changes nothing."""
from __future__ import annotations

import pytest

from engine.glossary import Glossary, GlossaryEntry, GlossaryError


def entry(source: str, *targets: str, **kw) -> GlossaryEntry:
    return GlossaryEntry(source=source, targets=targets, src_lang=kw.pop("src_lang", "en"),
                         tgt_lang=kw.pop("tgt_lang", "de"), **kw)


def test_entries_survive_closing_and_reopening_the_glossary(tmp_path):
    with Glossary(tmp_path / "g", create=True) as g:
        res = g.import_entries([entry("file", "Datei", note="a document on disk", pos="noun",
                                      forbidden=("Akte",), status="preferred")])
        assert (res.added, res.updated) == (1, 0)
    with Glossary(tmp_path / "g") as g:
        (e,) = g.entries()
        assert (e.source, e.targets, e.note, e.pos, e.forbidden, e.status) == (
            "file", ("Datei",), "a document on disk", "noun", ("Akte",), "preferred")
        assert (g.src_lang, g.tgt_lang) == ("en", "de")
        assert g.get(e.id) == e


def test_importing_the_same_terms_again_updates_instead_of_duplicating(tmp_path):
    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("file", "Datei", note="old"), entry("folder", "Ordner")])
        res = g.import_entries([entry("File", "datei", note="new"), entry("folder", "Ordner")])
        assert (res.added, res.updated) == (0, 2)
        assert len(g) == 2
        assert {e.source: e.note for e in g.entries()}["File"] == "new"


def test_the_same_source_with_another_translation_is_a_second_entry(tmp_path):
    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("bank", "Bank"), entry("bank", "Ufer")])
        assert len(g) == 2


def test_a_failing_import_leaves_the_glossary_as_it_was(tmp_path):
    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("file", "Datei")])

        def entries():
            yield entry("folder", "Ordner")
            raise ValueError("reader broke half way")

        with pytest.raises(ValueError):
            g.import_entries(entries())
        assert [e.source for e in g.entries()] == ["file"]


def test_entries_of_another_language_pair_are_refused(tmp_path):
    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("file", "Datei")])
        with pytest.raises(GlossaryError, match="en->de glossary cannot take en->fr"):
            g.import_entries([entry("file", "fichier", tgt_lang="fr")])
        g.import_entries([entry("folder", "Ordner", src_lang="en-US", tgt_lang="de-DE")])  # same languages
        assert len(g) == 2


def test_a_folder_that_is_not_a_glossary_is_named_in_the_error(tmp_path):
    with pytest.raises(GlossaryError, match="not a glossary"):
        Glossary(tmp_path / "nothing")


def test_a_new_entry_is_found_by_the_next_lookup(tmp_path):
    from engine.glossary import find_terms

    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("file", "Datei")])
        assert [h.entry.source for h in find_terms("a folder of files", g)] == ["file"]
        added = g.add(entry("folder", "Ordner"))
        assert added.id is not None
        assert [h.entry.source for h in find_terms("a folder of files", g)] == ["folder", "file"]
        assert g.remove(added.id)
        assert [h.entry.source for h in find_terms("a folder of files", g)] == ["file"]


def test_glossary_modules_load_without_torch():
    import subprocess
    import sys

    code = ("import sys, engine.glossary, engine.cli.glossary; "
            "print([m for m in ('torch', 'PySide6') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_inflect_flag_is_kept_and_a_schema_1_glossary_gains_it(tmp_path):
    import sqlite3

    from engine.glossary.store import entry_key

    with Glossary(tmp_path / "g", create=True) as g:
        g.import_entries([entry("file", "Datei", inflect=True), entry("folder", "Ordner")])
    with Glossary(tmp_path / "g") as g:
        assert {e.source: e.inflect for e in g.entries()} == {"file": True, "folder": False}
    # a glossary written before the flag existed (schema 1: no inflect column) opens, and takes it
    old = tmp_path / "old"
    old.mkdir()
    c = sqlite3.connect(old / Glossary.DB_NAME)
    c.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1'), ('src_lang', 'en'), ('tgt_lang', 'de');
        CREATE TABLE entries (id INTEGER PRIMARY KEY, dkey TEXT NOT NULL UNIQUE, source TEXT NOT NULL,
            targets TEXT NOT NULL, src_lang TEXT NOT NULL, tgt_lang TEXT NOT NULL, pos TEXT NOT NULL DEFAULT '',
            note TEXT NOT NULL DEFAULT '', forbidden TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL DEFAULT 'preferred', concept TEXT NOT NULL DEFAULT '',
            origin TEXT NOT NULL DEFAULT '', created TEXT NOT NULL, changed TEXT NOT NULL);
        """)
    c.execute("INSERT INTO entries(dkey, source, targets, src_lang, tgt_lang, created, changed) "
              "VALUES (?, 'file', '[\"Datei\"]', 'en', 'de', 'now', 'now')", (entry_key("file", ["Datei"], "en", "de"),))
    c.commit()
    c.close()
    with Glossary(old) as g:
        (e,) = g.entries()
        assert (e.source, e.targets, e.inflect) == ("file", ("Datei",), False)
        g.import_entries([entry("file", "Datei", inflect=True)])
        assert len(g) == 1 and g.entries()[0].inflect and g._meta("schema") == "2"
