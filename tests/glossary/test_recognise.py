"""Finding glossary terms in a segment as a translator expects."""
from __future__ import annotations

from engine.glossary import GlossaryEntry, TermIndex, find_terms, term_issues


def entry(source: str, *targets: str, src_lang="en", tgt_lang="de", **kw) -> GlossaryEntry:
    return GlossaryEntry(source=source, targets=targets, src_lang=src_lang, tgt_lang=tgt_lang, **kw)


def found(text: str, index) -> list[tuple[str, str]]:
    return [(text[h.start:h.end], h.entry.source) for h in find_terms(text, index)]


def test_german_datei_finds_dateien():
    ix = TermIndex([entry("Datei", "file", src_lang="de", tgt_lang="en")], "de")
    assert found("Alle Dateien wurden gespeichert.", ix) == [("Dateien", "Datei")]


def test_english_file_finds_files():
    ix = TermIndex([entry("file", "Datei")], "en")
    assert found("Select the files to open.", ix) == [("files", "file")]


def test_multi_word_file_manager_beats_file():
    ix = TermIndex([entry("file", "Datei"), entry("file manager", "Dateiverwaltung")], "en")
    assert found("Open the file manager and pick a file.", ix) == [
        ("file manager", "file manager"), ("file", "file")]


def test_a_term_split_by_a_tag_is_found():
    ix = TermIndex([entry("file manager", "Dateiverwaltung")], "en")
    text = "Open the \ue001file\ue002 manager."
    (h,) = find_terms(text, ix)
    assert text[h.start:h.end] == "file\ue002 manager"
    # a tag inside a word does not hide it either
    assert found("the fi\ue001le manager", ix) == [("fi\ue001le manager", "file manager")]


def test_matching_ignores_case_and_punctuation():
    ix = TermIndex([entry("file manager", "Dateiverwaltung"), entry("e-mail", "E-Mail")], "en")
    assert found("FILE MANAGER: E-Mail", ix) == [("FILE MANAGER", "file manager"), ("E-Mail", "e-mail")]


def test_an_acronym_matches_only_in_capitals():
    ix = TermIndex([entry("IT", "IT-Abteilung")], "en")
    assert found("Ask IT whether it works.", ix) == [("IT", "IT")]


def test_a_language_without_stemmer_matches_exact_words():
    ix = TermIndex([entry("kotak", "box", src_lang="ms", tgt_lang="en")], "ms")
    assert found("Buka Kotak itu", ix) == [("Kotak", "kotak")]
    assert found("Buka kotaknya", ix) == []


def test_chinese_terms_are_found_without_spaces():
    ix = TermIndex([entry("文件", "file", src_lang="zh", tgt_lang="en")], "zh")
    assert found("打开文件夹", ix) == [("文件", "文件")]


def test_words_containing_a_term_are_not_hits():
    ix = TermIndex([entry("file", "Datei")], "en")
    assert found("a profile", ix) == []


def test_lookup_cost_does_not_grow_with_the_glossary():
    # A structural check, not a timing: the trie walk visits only nodes reached from the text.
    big = [entry(f"term{i} word{i}", f"T{i}") for i in range(20000)] + [entry("file", "Datei")]
    ix = TermIndex(big, "en")
    assert found("open the file", ix) == [("file", "file")]
    assert len(ix) == 20001


def test_term_not_used_when_the_target_lacks_every_accepted_translation():
    ix = TermIndex([entry("file", "Datei", "Akte")], "en")
    src = "Save the file."
    hits = find_terms(src, ix)
    assert term_issues(src, "Speichern Sie die Dateien.", hits, "de") == []  # inflected: still used
    (p,) = term_issues(src, "Speichern Sie das Dokument.", hits, "de")
    assert p.kind == "term_not_used" and src[p.source_start:p.source_end] == "file"
    assert '"Datei"' in p.message


def test_forbidden_variant_in_the_target_is_reported_with_its_place():
    ix = TermIndex([entry("file", "Datei", forbidden=("File",))], "en")
    src, tgt = "Save the file.", "Speichern Sie das File und die Datei."
    (p,) = term_issues(src, tgt, find_terms(src, ix), "de")
    assert p.kind == "forbidden_term" and tgt[p.target_start:p.target_end] == "File"
    assert "forbidden" in p.message


def test_no_hits_means_no_term_problems():
    assert term_issues("Hello", "Hallo", [], "de") == []


def test_labels_of_a_menu_path_written_without_spaces_are_each_found():
    """KDE writes <guimenu>Search</guimenu><guimenuitem>Filter Out Rare</guimenuitem>: two codes
    between the words part them, one code inside a word (formatting) does not."""
    from engine.formats.textutil import protect_text
    from engine.glossary import GlossaryEntry, TermIndex

    idx = TermIndex([GlossaryEntry("Search", ("Suchen",), "en", "de"),
                     GlossaryEntry("Filter Out Rare", ("Seltene ausfiltern",), "en", "de")], "en")
    text = protect_text("Choose <guimenu>Search</guimenu><guimenuitem>Filter Out Rare</guimenuitem>.").text
    assert sorted(h.entry.source for h in idx.find(text)) == ["Filter Out Rare", "Search"]
