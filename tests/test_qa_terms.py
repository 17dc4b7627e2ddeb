"""QA's term check reads the target on word boundaries, with inflection and compound heads
(engine/qa_terms.py): "Fenster" is not missing from "Hauptfenster"; "Start" is not in "started"."""
from __future__ import annotations

import pytest

from engine.glossary import GlossaryEntry, TermIndex, find_terms
from engine.inline import protect
from engine.qa import check_segments
from engine.qa_terms import same_word, term_issues


def entry(src, *targets, src_lang="en", tgt_lang="de", **kw):
    return GlossaryEntry(src, tuple(targets), src_lang, tgt_lang, **kw)


def problems(src, tgt, *entries, tgt_lang="de"):
    ix = TermIndex(entries, entries[0].src_lang)
    return [(p.kind, p.term or p.entry.source) for p in term_issues(src, tgt, find_terms(src, ix), tgt_lang)]


def test_a_term_as_the_head_of_a_german_compound_is_used():
    window = entry("window", "Fenster")
    assert problems("Close the main window.", "Schließen Sie das Hauptfenster.", window) == []
    assert problems("Close the windows.", "Schließen Sie die Dialogfenstern.", window) == []  # head, inflected


def test_a_term_as_the_first_part_of_a_compound_is_not_used():
    # a Fensterrahmen is a frame, not a window
    assert problems("Paint the window.", "Streichen Sie den Fensterrahmen.", entry("window", "Fenster")) == [
        ("term_not_used", "window")]


def test_start_is_not_found_in_started():
    start = entry("Start", "Start", src_lang="de", tgt_lang="en")
    assert problems("Klicken Sie auf Start.", "The download started.", start, tgt_lang="en") == [
        ("term_not_used", "Start")]
    assert problems("Klicken Sie auf Start.", "Click Start.", start, tgt_lang="en") == []


def test_a_forbidden_term_is_not_found_in_an_other_form_or_inside_a_word():
    run = entry("Start", "Start", src_lang="de", tgt_lang="en", forbidden=("begin",))
    assert problems("Start", "Start: the program is beginning", run, tgt_lang="en") == []
    assert problems("Start", "Start: beginner mode", run, tgt_lang="en") == []
    assert problems("Start", "Start: begin here", run, tgt_lang="en") == [("forbidden_term", "begin")]
    # and never as a compound part: an error needs the word itself
    assert problems("Save the file.", "Speichern Sie die Datei (Filesystem).",
                    entry("file", "Datei", forbidden=("File",))) == []


def test_plural_and_case_endings_are_forms_of_the_term():
    assert problems("Save the files.", "Speichern Sie die Dateien.", entry("file", "Datei")) == []
    assert problems("Open the menus.", "Öffnen Sie die Menüs.", entry("menu", "Menü")) == []  # Snowball: menus/menu
    assert problems("The houses", "Die Häuser", entry("house", "Haus")) == []  # umlaut plural
    assert problems("Löschen Sie die Kategorien.", "Delete the categories.",
                    entry("Kategorie", "category", src_lang="de", tgt_lang="en"), tgt_lang="en") == []


@pytest.mark.parametrize("token, word, lang, same", [
    ("started", "Start", "en", False), ("starting", "start", "en", False), ("Starts", "Start", "en", True),
    ("national", "nation", "en", False), ("boxes", "box", "en", True), ("categories", "category", "en", True),
    ("Dateiname", "Datei", "de", False), ("Fensters", "Fenster", "de", True), ("startet", "Start", "de", False),
    ("finestre", "finestra", "it", True), ("PDFs", "PDF", "en", False), ("pdf", "PDF", "en", False),
    ("okna", "okno", "pl", True),  # no table: Snowball stems (Polish)
])
def test_what_counts_as_a_form_of_a_terms_word(token, word, lang, same):
    assert same_word(token, word, lang) is same


def test_an_entry_marked_inflect_accepts_any_word_of_the_stem():
    assert not same_word("started", "start", "en")
    assert same_word("started", "start", "en", inflect=True)
    start = entry("Start", "start", src_lang="de", tgt_lang="en", inflect=True)
    assert problems("Start", "The download started.", start, tgt_lang="en") == []


def test_short_heads_are_not_found_inside_words():
    assert problems("an egg", "eine Datei", entry("egg", "Ei")) == [("term_not_used", "egg")]


def test_the_qa_run_uses_these_rules():
    class Seg:
        def __init__(self, id, src, tgt):
            self.id, self.idx, self.status = id, id - 1, "confirmed"
            self.source, self.target = protect(src), protect(tgt)

    ix = TermIndex([entry("window", "Fenster")], "en")
    segs = [Seg(1, "Close the main window.", "Schließen Sie das Hauptfenster."),
            Seg(2, "Close the window.", "Schließen Sie den Fensterrahmen.")]
    found = [(i.idx + 1, i.check) for i in check_segments(segs, terms=ix, tgt_lang="de") if i.group == "terms"]
    assert found == [(2, "term-not-used")]
