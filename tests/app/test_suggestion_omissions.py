"""The suggestion panel never shows (nor inserts) a suggestion that fails silently: a dropped menu separator
or tag is put back, a glossary term is not glued to the next word, glossary words after the finished
sentence are not offered, and a negation, number or code left out is named beside the suggestion."""
from __future__ import annotations

from engine.inline import protect
from engine.nmt.results import TranslationResult

NOT_SRC = "Deleting an album does not delete the photos on your disk."
MENU_SRC = "To create a new album, choose <guimenu>Album</guimenu> > <guimenuitem>New Album</guimenuitem>."


def _result(text: str, src_words: list[str], links: list[int]) -> TranslationResult:
    words = text.split()
    align = [[1.0 if j == links[i] else 0.0 for j in range(len(src_words))] for i in range(len(words))]
    return TranslationResult(text, -3.0, words=words, src_words=src_words, alignment=align, links=links)


def _panel(qtbot):
    from app.panels.suggestion import SuggestionPanel

    panel = SuggestionPanel()
    qtbot.addWidget(panel)
    return panel


def test_a_dropped_negation_is_named_beside_the_suggestion(qtbot):
    from app.suggest import view_of

    panel = _panel(qtbot)
    sw = NOT_SRC.split()
    res = _result("Das Löschen eines Albums ist das Fotos auf Ihrer Festplatte.", sw, [0, 0, 1, 2, 3, 5, 7, 8, 9, 10])
    panel.show_view(view_of(NOT_SRC, res))
    assert panel.omissions.isVisibleTo(panel) and "'not'" in panel.omissions.text()
    kept = _result("Das Löschen eines Albums löscht nicht die Fotos.", sw, [0, 0, 1, 2, 5, 4, 6, 7])
    panel.show_view(view_of(NOT_SRC, kept))
    assert not panel.omissions.isVisibleTo(panel)


def test_the_inserted_suggestion_has_the_menu_separator_the_model_dropped(qtbot):
    from app.suggest import view_of

    panel = _panel(qtbot)
    tt = protect(MENU_SRC)
    sw = ["To", "create", "a", "new", "album,", "choose", "\ue001Album\ue002", ">", "\ue003New", "Album\ue004."]
    text = "Um ein neues Album zu erstellen, wählen Sie \ue001Album\ue002 \ue003Neues Album\ue004."
    res = _result(text, sw, [0, 2, 3, 4, 1, 1, 5, 6, 6, 8, 9])
    panel.show_view(view_of(tt.text, res), tt.tags)
    assert panel.text_for(tt) == "Um ein neues Album zu erstellen, wählen Sie \ue001Album\ue002 > \ue003Neues Album\ue004."
    assert not panel.omissions.isVisibleTo(panel)
    assert len(panel.current.words) == len(panel.current.alignment)


def test_a_glossary_term_is_not_glued_and_nothing_follows_the_finished_sentence(qtbot):
    from app.suggest import view_of

    panel = _panel(qtbot)
    src = "Use SQL Server higher than 2008."
    sw = src.split()
    view = view_of(src, _result("Verwenden Sie SQL-Serverhöher als 2008.", sw, [0, 0, 1, 3, 4, 5]))
    view.extra["term_spans"] = [(4, 14, ("SQL-Server",))]
    panel.show_view(view)
    assert panel.text_for(None) == "Verwenden Sie SQL-Server höher als 2008."
    typed = "Verwenden Sie "
    done = view_of(src, _result("Verwenden Sie SQL-Server höher als 2008. SQL-Server", sw, [0, 0, 1, 3, 4, 5, 1]))
    done.extra.update({"term_spans": [(4, 14, ("SQL-Server",))], "prefix": typed})
    panel.show_completion(done)
    assert panel.completion.text == "Verwenden Sie SQL-Server höher als 2008."
