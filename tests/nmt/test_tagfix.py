"""A translation printed by the command line carries exactly its source's tags, balanced."""
import pytest

from engine.formats.textutil import protect_text
from engine.inline import TaggedText
from engine.nmt.tagfix import repair, restore_markup
from engine.qa import check_tags

SRC = protect_text("Click <b>Next</b> to <i>continue</i>.")
B, B_, I, I_ = (t.char for t in SRC.tags)


def clean(text: str) -> bool:
    return list(check_tags(SRC, TaggedText(text, SRC.tags))) == []


@pytest.mark.parametrize("text", [
    f"Klicken Sie auf {B}Weiter{B_}, um {I}fortzufahren{I_}.",   # already right: kept as it is
    f"Klicken Sie auf {B}Weiter{B_}{B_}, um {I}fortzufahren{I_}{I}.",  # doubled
    f"Klicken Sie auf {B_}Weiter{B}, um {I}fortzufahren{I_}.",   # close before open
    f"Klicken Sie auf {B}Weiter {I}um{B_} fortzufahren{I_}.",    # crossing pairs
    "Klicken Sie auf Weiter, um fortzufahren.",                   # all dropped
    f"Klicken Sie auf {B}Weiter, um fortzufahren. \ue009",       # half dropped, one invented
])
def test_every_source_tag_once_and_balanced(text):
    fixed = repair(text, SRC)
    assert clean(fixed), fixed
    assert fixed.replace(B, "").replace(B_, "").replace(I, "").replace(I_, "") == \
        text.replace(B, "").replace(B_, "").replace(I, "").replace(I_, "").replace("\ue009", "")


def test_a_valid_placement_is_kept():
    text = f"Klicken Sie auf {B}Weiter{B_}, um {I}fortzufahren{I_}."
    assert repair(text, SRC) == text


def test_a_missing_tag_goes_where_the_attention_points():
    # words of the translation, the source's words, and per target word its most-attended source word
    text = f"Klicken Sie auf Weiter, um {I}fortzufahren{I_}."   # both halves of <b> dropped
    words = ["Klicken", "Sie", "auf", "Weiter,", "um", f"{I}fortzufahren{I_}."]
    src_words = ["Click", f"{B}Next{B_}", "to", f"{I}continue{I_}."]
    fixed = repair(text, SRC, words=words, src_words=src_words, links=[0, 0, 0, 1, 2, 3])
    assert fixed == f"Klicken Sie auf {B}Weiter{B_}, um {I}fortzufahren{I_}."


def test_the_printed_line_has_the_sources_own_markup():
    src = protect_text("Choose <guimenu>File</guimenu> &gt; <guimenuitem>Save</guimenuitem>.")
    c = [t.char for t in src.tags]
    out = restore_markup(f"Wählen Sie {c[0]}Datei{c[1]} {c[2]} {c[3]}Speichern{c[4]}.", src)
    assert out == "Wählen Sie <guimenu>Datei</guimenu> &gt; <guimenuitem>Speichern</guimenuitem>."


def test_the_missing_half_of_a_pair_wraps_the_word_beside_the_other_half():
    assert repair(f"Klicken Sie auf {B}Weiter, um {I}fortzufahren{I_}.", SRC) == \
        f"Klicken Sie auf {B}Weiter{B_}, um {I}fortzufahren{I_}."
    assert repair(f"Klicken Sie auf {B}Weiter{B_}, um fortzufahren{I_}.", SRC) == \
        f"Klicken Sie auf {B}Weiter{B_}, um {I}fortzufahren{I_}."
