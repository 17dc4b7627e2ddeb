"""Token score (Eq. 3 of Gu et al. 2018 with small penalties), char score, edit ops."""
import numpy as np
import pytest

from engine.inline import tag_char
from engine.tm.scoring import char_score, edit_ops, token_score
from engine.tm.tokens import TAG, analyse, index_terms


def test_identical_segments_score_one():
    assert token_score("Save the file", "Save the file") == 1.0


@pytest.mark.parametrize("a, b, expected", [
    ("Save the file", "Save the document", 1 - 1 / 3),      # one substitution of three
    ("Save the file", "Save file", 1 - 1 / 3),              # one deletion, max length 3
    ("Open the file now", "Close the window", 1 - 3 / 4),   # three edits over four tokens
    ("a b c d e", "x y", 0.0),                               # five edits over five tokens
])
def test_eq3_on_hand_computed_examples(a, b, expected):
    assert token_score(a, b) == pytest.approx(expected)


def test_case_and_punctuation_cost_a_little_not_a_miss():
    assert token_score("save the file", "Save the file") == pytest.approx(0.99)
    assert token_score("Save the file.", "Save the file") == pytest.approx(0.99)
    assert token_score("SAVE THE FILE!", "Save the file") == pytest.approx(0.96)
    # never more than the cap
    assert token_score("a, b, c, d, e, f, g, h", "a b c d e f g h") == pytest.approx(0.95)
    # a real word difference still weighs more than any penalty
    assert token_score("Save the files", "Save the file") < token_score("SAVE THE FILE", "Save the file")


def test_tags_are_one_generic_token():
    a = f"Click {tag_char(1)}Save{tag_char(2)} now"
    b = f"Click {tag_char(5)}Save{tag_char(6)} now"
    assert token_score(a, b) == 1.0
    # tags count as tokens: two missing tags over five tokens
    assert token_score(a, "Click Save now") == pytest.approx(1 - 2 / 5)
    assert analyse(a).core == ("click", TAG, "save", TAG, "now")
    # but they are not index terms
    assert index_terms(a) == ["click", "save", "now"]


def test_unicode_tokenisation():
    assert analyse("Größe ändern").core == ("größe", "ändern")
    assert analyse("l'homme arrive").core == ("l", "homme", "arrive")
    assert analyse("保存文件").core == ("保", "存", "文", "件")
    assert token_score("保存文件", "保存文档") == pytest.approx(0.75)
    assert token_score("ファイルを保存", "ファイルを開く") == pytest.approx(1 - 2 / 7)
    assert token_score("Die Datei wurde gespeichert", "Die Datei wurde gelöscht") == pytest.approx(0.75)
    assert token_score("Le fichier a été enregistré", "Le fichier a été supprimé") == pytest.approx(0.8)


def test_char_score_is_the_usual_cat_percentage():
    assert char_score("abc", "abd") == pytest.approx(2 / 3)
    assert char_score(f"a{tag_char(1)}b", f"a{tag_char(7)}b") == 1.0
    assert char_score("Save", "save") == pytest.approx(0.75)


def test_edit_ops_give_token_ranges_and_character_spans():
    ops = edit_ops("Save the file", "Save the document")
    assert [o.op for o in ops] == ["equal", "replace"]
    rep = ops[1]
    assert rep.query_tokens == (2, 3) and rep.match_tokens == (2, 3)
    assert rep.query_span == (9, 13) and rep.match_span == (9, 17)
    ops = edit_ops("Save the file now", "Save file")
    assert [(o.op, o.query_tokens) for o in ops] == [("equal", (0, 1)), ("delete", (1, 2)),
                                                     ("equal", (2, 3)), ("delete", (3, 4))]



def test_edit_ops_of_long_pairs_turn_the_query_into_the_match_in_as_many_edits_as_the_token_distance():
    import random

    from rapidfuzz.distance import Levenshtein

    rng = random.Random(4)
    words = ["Save", "save", "SAVE", "the", "file", "disk", tag_char(1), tag_char(2), "a", "b"]
    for _ in range(60):
        q = " ".join(rng.choice(words) for _ in range(rng.randint(0, 300)))
        m = " ".join(rng.choice(words) for _ in range(rng.randint(0, 300)))
        qn, mn = list(analyse(q).core), list(analyse(m).core)
        ops = edit_ops(q, m)
        built, edits = [], 0
        for o in ops:
            built += mn[o.match_tokens[0]:o.match_tokens[1]]
            if o.op == "equal":
                assert qn[o.query_tokens[0]:o.query_tokens[1]] == mn[o.match_tokens[0]:o.match_tokens[1]]
            else:
                edits += max(o.query_tokens[1] - o.query_tokens[0], o.match_tokens[1] - o.match_tokens[0])
        assert built == mn and [t for o in ops for t in qn[o.query_tokens[0]:o.query_tokens[1]]] == qn
        assert edits == Levenshtein.distance(qn, mn)

def test_score_many_equals_score_encoded_one_by_one():
    import random

    from engine.tm.scoring import Encoded, Vocab, score_encoded, score_many

    rng = random.Random(3)
    words = ["Save", "save", "the", "The", "file", "File", "%1", "now"]
    def seg():
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) + rng.choice(
            ["", ".", "!", " ?", ", ok."])
    v = Vocab()
    q = Encoded.of(analyse("Save the File now."), v)
    segs = [Encoded.of(analyse(seg()), v) for _ in range(300)]
    many = score_many(q, [e.core for e in segs], [e.surface for e in segs],
                      [e.punct for e in segs])
    one = [score_encoded(q, e) for e in segs]
    assert list(many) == one  # bit for bit: the same arithmetic
    assert len(set(one)) > 10


def test_penalties_past_the_cap_score_the_same_with_the_core_distances_given():
    """Long segments with many case and punctuation differences (rapidfuzz stops counting at
    the cap) and the core distances the re-rank already has: the scores one by one."""
    import random

    from rapidfuzz.distance import Levenshtein

    from engine.tm.scoring import Encoded, Vocab, score_encoded, score_many

    rng = random.Random(5)
    words = ["Save", "SAVE", "save", "the", "The", "file", "FILE", "now", "a", "b"]
    def seg():
        return " ".join(rng.choice(words) + rng.choice(["", ",", ".", ";"])
                        for _ in range(rng.randint(1, 90)))
    v = Vocab()
    q = Encoded.of(analyse(seg()), v)
    segs = [Encoded.of(analyse(seg()), v) for _ in range(300)]
    d = np.array([Levenshtein.distance(q.core, e.core) for e in segs], dtype=np.int32)
    one = [score_encoded(q, e) for e in segs]
    for given in (None, d):
        many = score_many(q, [e.core for e in segs], [e.surface for e in segs],
                          [e.punct for e in segs], given)
        assert list(many) == one
    pens = [max(0.0, 1 - Levenshtein.distance(q.core, e.core) / max(len(q.core), len(e.core))) - s
            for e, s in zip(segs, one)]
    assert sum(p == pytest.approx(0.05) for p in pens) > 50  # the cap is reached often
