"""A paragraph of text runs only is built straight from its runs (engine/formats/paragraphs.py): the
same text, codes and export actions as the general path that numbers every code through Codes."""
from __future__ import annotations

import pytest

from engine.formats.paragraphs import Paragraph, Token, _runs_text, events, paragraph_text
from engine.inline import TAG_MAX

RUNS = {
    "one formatting": [("Plain text. Two sentences here.", "")],
    "a bold word": [("The Council ", ""), ("hereby", "b"), (" adopts this. It applies.", "")],
    "bold at both ends": [("Title", "b"), (" and text ", ""), ("end.", "b")],
    "two formattings side by side": [("Some ", ""), ("bold", "b"), ("italic", "i"), (" words here.", "")],
    "mostly bold": [("A ", ""), ("long bold stretch of text.", "b"), (" B.", "")],
    "equal counts: the first wins": [("abc", "x"), ("abc", "y")],
    "empty run": [("", "b"), ("Text.", "")],
    "no letter": [("  ", ""), ("...", "b")],
}


def _para(runs) -> Paragraph:
    return Paragraph(None, [Token("text", text=t, fmt=f) for t, f in runs])


@pytest.mark.parametrize("name", list(RUNS))
def test_a_paragraph_of_runs_reads_as_the_general_path_reads_it(name, monkeypatch):
    from engine.formats import paragraphs

    fast, general = _para(RUNS[name]), _para(RUNS[name])
    paragraph_text(fast, "en")
    assert _runs_text(fast) is not None
    monkeypatch.setattr(paragraphs, "_runs_text", lambda p: None)
    paragraph_text(general, "en")
    assert (fast.base_fmt, fast.text, fast.actions) == (general.base_fmt, general.text, general.actions)
    assert (fast.sentences, fast.gaps, fast.lead, fast.tail) == (
        general.sentences, general.gaps, general.lead, general.tail)
    assert events(fast, fast.text.text) == events(general, general.text.text)


def test_a_private_use_character_in_a_run_stays_text_of_its_own_code():
    """A symbol-font bullet (a private-use character) is kept as a code standing for itself, as the
    general path makes it: the quick path steps aside."""
    p = _para([("\uf0b7 Item one. Item two.", ""), ("bold", "b")])
    assert _runs_text(p) is None
    paragraph_text(p, "en")
    assert p.text.tags[0].original == "\uf0b7"
    assert p.actions[1] == ("char",)


def test_more_format_changes_than_a_segment_numbers_take_the_general_path():
    runs = [("w ", "") if i % 2 else ("b", "b") for i in range(TAG_MAX + 10)]
    p = _para(runs)
    p.base_fmt = ""
    assert _runs_text(p) is None
    paragraph_text(p, "en")  # numbered past TAG_MAX by Codes (engine/formats/codefold.py), not refused
    assert len(p.text.tags) > TAG_MAX


def test_a_code_made_in_one_step_is_the_code_the_constructor_makes():
    import copy
    import json

    from engine.inline import Tag, TaggedText, new_tag

    attrs = {"fmt": "<w:rPr><w:b/></w:rPr>", "p": 3}
    made, built = new_tag(2, "close", "</fmt>", "fmt", "f1", attrs), Tag(2, "close", "</fmt>", "fmt", "f1", attrs)
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert vars(made) == vars(built) and made.char == built.char and made.attrs is attrs
    assert copy.deepcopy(made) == built
    assert TaggedText(made.char, (made,)).tags_json() == TaggedText(built.char, (built,)).tags_json()
    assert json.loads(TaggedText(made.char, (made,)).tags_json())[0]["attrs"] == attrs
    with pytest.raises(AttributeError):
        made.n = 5  # still frozen
