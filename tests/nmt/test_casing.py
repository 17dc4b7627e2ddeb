"""All-caps segments: read in sentence case, written back in capitals (engine.nmt.casing)."""
from __future__ import annotations

import pytest

from engine.nmt.casing import fold, is_all_caps


@pytest.mark.parametrize("text,caps", [
    ("HAS ADOPTED THIS REGULATION:", True),
    ("ARTICLE 1", True),
    ("THE COUNCIL OF THE EUROPEAN UNION,", True),
    ("The Council", False),
    ("NATO members", False),
    ("A", False),            # one letter says nothing
    ("2658/87", False),
    ("", False),
    ("STRASSE", True),
    ("STRAßE", False),       # ß has no capital in most text: lower case
])
def test_what_counts_as_all_caps(text, caps):
    assert is_all_caps(text) is caps


@pytest.mark.parametrize("text,folded", [
    ("HAS ADOPTED THIS REGULATION:", "Has adopted this regulation:"),
    ("1. SCOPE", "1. Scope"),
    ("(A) DEFINITIONS", "(A) definitions"),
])
def test_fold_is_sentence_case(text, folded):
    assert fold(text) == folded


def test_an_all_caps_segment_gets_the_translation_of_its_sentence_case_in_capitals(translator):
    plain = translator.translate(["The red dog sees a small cat."], beam=3)[0]
    caps = translator.translate(["THE RED DOG SEES A SMALL CAT."], beam=3)[0]
    assert plain.text and caps.text == plain.text.upper()
    assert caps.words == [w.upper() for w in plain.words]
    assert caps.src_words == ["THE", "RED", "DOG", "SEES", "A", "SMALL", "CAT."]
    assert caps.alignment == plain.alignment
    # mixed case is left alone
    mixed = translator.translate(["The RED dog sees a small cat."], beam=3)[0]
    assert mixed.text != caps.text


def test_a_prefix_keeps_the_case_the_translator_typed(translator):
    plain = translator.translate(["The red dog sees a small cat."], beam=3)[0]
    first = plain.words[0]
    upper = translator.translate(["THE RED DOG SEES A SMALL CAT."], beam=3, prefixes=[first.upper()])[0]
    assert upper.text == plain.text.upper()
    typed = translator.translate(["THE RED DOG SEES A SMALL CAT."], beam=3, prefixes=[first])[0]
    assert typed.text.startswith(first + " ") and typed.text != typed.text.upper()


def test_forced_decoding_reads_all_caps_in_sentence_case(translator):
    """The alignment view of a translator's own all-caps translation: words in capitals, the attention of the
    sentence-case pair (not of the rare pieces capitals cut a text into)."""
    src = "The red dog sees a small cat."
    tgt = translator.translate([src], beam=3)[0].text.upper()
    folded = translator.forced([src], [fold(tgt)])[0]
    caps = translator.forced([src.upper()], [tgt])[0]
    assert caps.words == tgt.split() and caps.src_words == src.upper().split()
    assert caps.links == folded.links and caps.score == pytest.approx(folded.score, abs=1e-4)
