"""A finished suggestion never drops a tag or a menu separator of its source silently, never glues a
glossary term to the next word, never appends glossary words after its finished sentence, and names the
negation, number or code it leaves out (engine.nmt.finish)."""
from pathlib import Path

import pytest

from engine.inline import protect
from engine.nmt.finish import finish, follow, mend
from engine.nmt.results import TranslationResult
from engine.nmt.termjoin import join_terms, trim_after_end

DEMO_MODEL = Path(__file__).resolve().parents[2] / "resources" / "models" / "demo"


def _result(text: str, src_words: list[str], links: list[int]) -> TranslationResult:
    words = text.split()
    align = [[1.0 if j == links[i] else 0.0 for j in range(len(src_words))] for i in range(len(words))]
    return TranslationResult(text, -1.0, words=words, src_words=src_words, alignment=align, links=links,
                             gates=[0.5] * len(words))


def test_separator_dropped_between_tagged_menu_items_is_put_back():
    src = protect("Choose <guimenu>Album</guimenu> > <guimenuitem>New Album</guimenuitem>.")
    assert mend("Wählen Sie \ue001Album\ue002 \ue003Neues Album\ue004.", src) == \
        "Wählen Sie \ue001Album\ue002 > \ue003Neues Album\ue004."


def test_glued_separator_gets_its_spaces_and_the_dropped_tag_goes_beside_it():
    src = protect("Choose <guimenu>Edit</guimenu> > <guimenuitem>Add Tags</guimenuitem>.")
    assert mend("Wählen Sie \ue001Bearbeiten\ue002 >Tags hinzufügen\ue004.", src) == \
        "Wählen Sie \ue001Bearbeiten\ue002 > \ue003Tags hinzufügen\ue004."


def test_separator_between_plain_items_is_placed_by_the_alignment_else_marked():
    src = "Choose File > Open to start."
    sw = ["Choose", "File", ">", "Open", "to", "start."]
    r = _result("Wählen Sie Datei Öffnen zum Starten.", sw, [0, 0, 1, 3, 4, 5])
    fixed, marks = finish(r, src, tgt_lang="de")
    assert fixed.text == "Wählen Sie Datei > Öffnen zum Starten." and marks == []
    assert len(fixed.words) == len(fixed.alignment) == len(fixed.links) == len(fixed.gates) == 7
    apart = _result("Datei wählen Sie, um Öffnen zu starten.", sw, [1, 0, 0, 4, 3, 4, 5])
    fixed, marks = finish(apart, src, tgt_lang="de")
    assert ">" not in fixed.text and [m.omission.kind for m in marks] == ["separator"]


def test_dropped_negation_is_marked_on_the_least_attended_source_word():
    src = "Deleting an album does not delete the photos on your disk."
    sw = src.split()
    r = _result("Das Löschen eines Albums ist das Fotos auf Ihrer Festplatte.", sw, [0, 0, 1, 2, 3, 5, 7, 8, 9, 10])
    _, marks = finish(r, src, tgt_lang="de")
    assert [(m.omission.kind, m.omission.text, m.src_word) for m in marks] == [("negation", "not", 4)]
    kept = _result("Das Löschen eines Albums löscht nicht die Fotos.", sw, [0, 0, 1, 2, 5, 4, 6, 7])
    assert finish(kept, src, tgt_lang="de")[1] == []


def test_glossary_term_is_not_glued_to_the_next_word():
    src = "Use SQL Server higher than 2008."
    terms = [(4, 14, ("SQL-Server",))]
    assert join_terms("Verwenden Sie SQL-Serverhöher als 2008.", src, terms) == \
        "Verwenden Sie SQL-Server höher als 2008."
    # the target language's own joins are kept: an ending, a compound of a plain word
    assert join_terms("Die Dateien im Dateimanager.", "The files in the file manager.",
                      [(4, 9, ("Datei",)), (17, 21, ("Datei",))]) == "Die Dateien im Dateimanager."


def test_nothing_is_appended_after_the_finished_sentence():
    src = "Save the file."
    terms = [(9, 13, ("Datei",)), (0, 4, ("Speichern",))]
    assert trim_after_end("Speichern Sie die Datei. Datei", src, terms) == "Speichern Sie die Datei."
    assert trim_after_end("Speichern Sie die Datei. Speichern Datei.", src, terms) == "Speichern Sie die Datei."
    # a tail that is not only glossary words, or a source of two sentences, is the model's own
    assert trim_after_end("Speichern Sie die Datei. Sie ist neu.", src, terms) == "Speichern Sie die Datei. Sie ist neu."
    assert trim_after_end("Datei. Speichern.", "File. Save.", terms) == "Datei. Speichern."


def test_what_the_translator_typed_is_never_rewritten():
    src = protect("Choose <guimenu>Album</guimenu> > <guimenuitem>New Album</guimenuitem>.")
    typed = "Wählen Sie \ue001Album\ue002 \ue003"
    out = typed + "Neues Album\ue004."
    assert mend(out, src, prefix=typed) == out


def test_follow_keeps_each_words_row():
    words, rows = follow("a SQL-Serverhöher b", ["a", "SQL-Serverhöher", "b"], "a SQL-Server höher b")
    assert (words, rows) == (["a", "SQL-Server", "höher", "b"], [0, 1, 1, 2])
    words, rows = follow("x y. z", ["x", "y.", "z"], "x y.")
    assert (words, rows) == (["x", "y."], [0, 1])


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    if not (DEMO_MODEL / "model.safetensors").is_file():
        pytest.skip("the demo model is not bundled in this checkout")
    from engine.demo import ensure_demo_project
    from engine.nmt.translator import Translator
    from engine.pretranslate import _best, open_tms
    from engine.store.project import Project

    project = Project(ensure_demo_project(tmp_path_factory.mktemp("demo") / "demo"))
    segs = project.segments(project.documents()[0].id)
    tms = open_tms(project)
    tr = Translator.load(DEMO_MODEL, threads=1)
    picked = [s for s in segs if s.idx + 1 in (7, 11, 13)]
    memories = [[(m.source.text, m.target.text) for m in _best(tms, s, 4) if m.score >= 0.3] for s in picked]
    results = tr.translate([s.source.text for s in picked], beam=5, memories=memories)
    for tm in tms:
        tm.close()
    return list(zip(picked, results))


def test_demo_suggestions_keep_every_tag_and_separator_or_say_so(demo):
    from engine.qa_omission import separators

    for seg, res in demo:
        fixed, marks = finish(res, seg.source, tgt_lang="de")
        kinds = {m.omission.kind for m in marks}
        assert all(t.char in fixed.text for t in seg.source.tags) or "tag" in kinds, (seg.idx, fixed.text)
        assert len(separators(fixed.text)) == len(separators(seg.source.text)) or "separator" in kinds, fixed.text


def test_demo_suggestion_without_the_negation_is_marked(demo):
    from engine.qa_omission import negation_words

    seg, res = next((s, r) for s, r in demo if s.idx + 1 == 11)   # "... does not delete the photos ..."
    fixed, marks = finish(res, seg.source, tgt_lang="de")
    has_negation = any(w.strip(".,").lower() in negation_words("de") for w in fixed.text.split())
    assert has_negation or [m.omission.text for m in marks if m.omission.kind == "negation"] == ["not"]


def test_a_number_the_model_changed_is_put_back_by_the_alignment_and_an_added_one_is_marked():
    src = "Delete the 15 oldest photos."
    sw = src.split()
    fixed, marks = finish(_result("Löschen Sie die 5 ältesten Fotos.", sw, [0, 0, 1, 2, 3, 4]), src, tgt_lang="de")
    assert fixed.text == "Löschen Sie die 15 ältesten Fotos." and marks == []
    fixed, marks = finish(_result("Löschen Sie die 2 ältesten Fotos.", ["Delete", "the", "oldest", "photos."],
                                  [0, 0, 1, 2, 2, 3]), "Delete the oldest photos.", tgt_lang="de")
    assert fixed.text == "Löschen Sie die 2 ältesten Fotos." and [m.describe() for m in marks] == ["adds the number '2'"]


def test_a_tag_the_alignment_cannot_place_is_named_not_put_at_the_start():
    src = protect("<app>KMouseTool</app> was written by Jeff.")
    sw = ["\ue001KMouseTool\ue002", "was", "written", "by", "Jeff."]
    r = _result("Es wurde von Jeff geschrieben.", sw, [1, 1, 3, 4, 2])
    fixed, marks = finish(r, src, tgt_lang="de")
    assert fixed.text == r.text and {m.omission.kind for m in marks} == {"tag", "code"}
    # a pre-translated draft holds every tag all the same (tags.missing would be an export error)
    drafted, _ = finish(r, src, tgt_lang="de", every_tag=True)
    assert "\ue001" in drafted.text and "\ue002" in drafted.text


def test_a_closing_tag_left_out_after_a_url_closes_the_whole_url():
    src = protect("First read: <ulink>http://example.org/a-b</ulink> (German)")
    assert mend("Zuerst lesen: \ue001http://example.org/a-b (deutsch)", src) == \
        "Zuerst lesen: \ue001http://example.org/a-b\ue002 (deutsch)"
