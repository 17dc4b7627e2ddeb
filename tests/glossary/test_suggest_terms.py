"""The glossary hits a machine suggestion is held to: the term as the glossary writes it, one a span."""
from __future__ import annotations

from engine.glossary import GlossaryEntry, TermIndex
from engine.glossary.suggest_terms import suggestion_terms


def entry(source: str, *targets: str, **kw) -> GlossaryEntry:
    return GlossaryEntry(source=source, targets=targets, src_lang="en", tgt_lang="de", **kw)


def held(text: str, *entries: GlossaryEntry) -> list[tuple[str, tuple[str, ...]]]:
    hits = TermIndex(entries, "en").find(text)
    return [(text[h.start:h.end], h.entry.targets) for h in suggestion_terms(text, hits)]


def test_a_label_used_as_a_common_word_does_not_hold_the_suggestion():
    e = entry("Edit", "Bearbeiten")
    assert held("To edit a schedule, select it.", e) == []
    assert held("Then choose Edit in the menu.", e) == [("Edit", ("Bearbeiten",))]


def test_another_form_of_the_term_holds_only_an_entry_that_may_inflect():
    assert held("Open the Files here.", entry("File", "Datei")) == []
    assert held("Open the Files here.", entry("File", "Datei", inflect=True)) == [("Files", ("Datei",))]


def test_at_the_start_of_a_sentence_a_one_word_term_is_not_held_a_longer_one_is():
    assert held("Enter the name.", entry("Enter", "Eintragen")) == []
    assert held("It is here. To go on, press it.", entry("To:", "An:")) == []
    assert held("New schedule opens a dialog.", entry("New Schedule", "Neue Buchung planen")) == []
    assert held("New Schedule opens a dialog.", entry("new Schedule", "Neue Buchung planen")) == \
        [("New Schedule", ("Neue Buchung planen",))]


def test_the_entries_of_one_span_are_one_term_with_every_target():
    out = held("Type your Name here.", entry("Name", "Name"), entry("Name:", "Name:"), entry("name", "Bezeichnung"))
    assert out == [("Name", ("Name", "Name:"))]


def test_a_term_after_a_tag_at_the_start_is_held():
    assert held("\ue001OK\ue002 closes it.", entry("OK", "OK")) == [("OK", ("OK",))]
