"""Sentence segmentation: per-language rules, loss-free, tag-safe."""
from __future__ import annotations

import random

import pytest

from engine.inline import protect, tag_chars_in
from engine.segmentation import segment_text, segmenter_language, split_sentences


def test_abbreviation_and_price_do_not_end_a_sentence():
    assert split_sentences("Dr. Smith paid $3.50. He left.", "en") == ["Dr. Smith paid $3.50.", "He left."]
    assert split_sentences("Dr. Smith paid $3.50.", "en") == ["Dr. Smith paid $3.50."]


def test_german_rules_keep_z_b_and_ordinal_dates():
    text = "Wir treffen uns z. B. am 3. Mai im Büro. Dann reden wir."
    assert split_sentences(text, "de") == ["Wir treffen uns z. B. am 3. Mai im Büro.", "Dann reden wir."]
    # The rules really are per language: English rules break "z. B." apart.
    assert len(split_sentences(text, "en")) > 2


def test_regional_code_uses_the_language_rules():
    text = "Wir treffen uns z. B. am 3. Mai im Büro. Dann reden wir."
    assert split_sentences(text, "de-AT") == split_sentences(text, "de")


def test_french_guillemets_hold_their_sentences_together():
    text = "Il a dit « Bonjour. Ça va ? » puis il est parti. Fin."
    assert split_sentences(text, "fr") == ["Il a dit « Bonjour. Ça va ? » puis il est parti.", "Fin."]


@pytest.mark.parametrize("inside, held", [(399, True), (400, True), (401, False)])
def test_a_guillemet_quotation_holds_a_sentence_end_up_to_400_characters_after_its_opening(inside, held):
    quoted = ("Ça va " * 100)[:inside - 1] + "x"  # ``inside`` characters between « and the full stop
    text = f"Il a dit «{quoted}. Bien » puis il est parti."
    expected = [text] if held else [f"Il a dit «{quoted}.", "Bien » puis il est parti."]
    assert split_sentences(text, "fr") == expected


def test_empty_and_blank_text():
    assert split_sentences("", "en") == []
    seg = segment_text("  \n ", "en")
    assert seg.sentences == () and seg.join() == "  \n "


def test_unknown_language_uses_the_rules_every_language_shares():
    assert segmenter_language("tlh") == "Default"
    assert segmenter_language("") == "Default"
    assert split_sentences("Dr. Who paid $3.50. Then he left.", "tlh") == \
        split_sentences("Dr. Who paid $3.50. Then he left.", "en")


def test_hard_wrapped_line_is_not_a_sentence_end():
    text = "This sentence is long and\nwraps onto a second line. Next one."
    assert split_sentences(text, "en") == ["This sentence is long and\nwraps onto a second line.", "Next one."]


@pytest.mark.parametrize("text", [
    "  Leading space. Two  spaces between.   Trailing.  ",
    "Tabs\there.\tNext one.\n",
    "Line one.\r\nLine two.\rLine three.\n\n",
    "Il a dit « Bonjour. Ça va ? » puis il est parti.",
    "No final stop",
    "What?! Really... yes. (Maybe.) [No.]",
])
def test_segmentation_is_loss_free(text):
    seg = segment_text(text, "en")
    assert seg.join() == text
    assert all(s == s.strip() and s for s in seg.sentences)
    assert all(not g.strip() for g in seg.gaps)
    assert len(seg.gaps) == len(seg.sentences) + 1


def test_loss_free_on_random_text():
    rng = random.Random(7)
    words = ["Dr.", "Mr.", "3.50", "e.g.", "end.", "Yes!", "why?", "«", "»", "\n", "  ", "\t", "ok", "U.S.", "1."]
    for _ in range(200):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        assert segment_text(text, rng.choice(["en", "de", "fr", "xx"])).join() == text


def test_join_puts_translations_in_place_with_original_spacing():
    seg = segment_text("One.   Two.\n", "en")
    assert seg.join(["Eins.", "Zwei."]) == "Eins.   Zwei.\n"
    with pytest.raises(ValueError):
        seg.join(["only one"])


def test_tag_characters_are_kept_and_never_split_from_their_pair():
    tt = protect("<b>Bold one. Bold two.</b> After. Then <i>x</i>.")
    seg = segment_text(tt.text, "en", tt.tags)
    assert seg.join() == tt.text
    assert sorted(c for s in seg.sentences for c in tag_chars_in(s)) == sorted(tag_chars_in(tt.text))
    first = seg.sentences[0]
    assert tt.tags[0].char in first and tt.tags[1].char in first  # <b> and </b> together
    assert len(seg.sentences) == 3


def test_closing_code_after_sentence_end_stays_with_its_sentence():
    tt = protect("<b>Bold one. Bold two.</b> After.")
    seg = segment_text(tt.text, "en")  # no tag table: pairs unknown
    assert seg.join() == tt.text
    close = tt.tags[1].char
    assert any(s.endswith(close) for s in seg.sentences)
    assert not any(s.startswith(close) for s in seg.sentences)


@pytest.mark.parametrize("text, want", [
    # a formatted run that ends with its sentence's space: the closing code goes with that sentence
    ("<b>Bold one. </b> Plain two.", ["<b>Bold one. </b>", "Plain two."]),
    ("<b>Bold one. </b>Plain two.", ["<b>Bold one. </b>", "Plain two."]),
    ("Plain. <i>Italic one. </i> <b>Bold two. </b> Three.", ["Plain.", "<i>Italic one. </i>", "<b>Bold two. </b>",
                                                              "Three."]),
])
def test_no_sentence_starts_with_a_closing_code_and_a_space(text, want):
    tt = protect(text)
    seg = segment_text(tt.text, "en", tt.tags)
    assert seg.join() == tt.text
    chars = {t.char: t.original for t in tt.tags}
    assert ["".join(chars.get(c, c) for c in s) for s in seg.sentences] == want


def test_a_closing_code_whose_opening_is_elsewhere_does_not_start_the_next_sentence():
    tt = protect("<b>x</b>")  # a tag table with a closing code; the text has only the close
    close = tt.tags[1]
    seg = segment_text(f"Bold one. {close.char} Plain two.", "en", tt.tags)
    assert seg.sentences == ("Bold one. " + close.char, "Plain two.")


def test_a_placeholder_may_start_a_sentence():
    tt = protect("Done. {0} files were copied.")
    seg = segment_text(tt.text, "en", tt.tags)
    assert len(seg.sentences) == 2 and seg.sentences[1].startswith(tt.tags[0].char + " files")


def test_loss_free_on_random_text_with_codes_and_their_pairs_kept_together():
    rng = random.Random(11)
    words = ["Dr.", "end.", "Yes!", "Next", "next", "<b>", "</b>", "<i>", "</i>", "{0}", "<br/>", " ", "\n", "x."]
    for _ in range(300):
        tt = protect(" ".join(rng.choice(words) for _ in range(rng.randint(0, 25))))
        seg = segment_text(tt.text, rng.choice(["en", "de", "fr"]), tt.tags)
        assert seg.join() == tt.text
        for s in seg.sentences:  # no sentence starts with a closing code, no pair split
            pairs = [t.pair for t in tt.tags if t.char in s and t.pair]
            assert all(pairs.count(p) == 2 for p in pairs if sum(t.pair == p for t in tt.tags) == 2)
