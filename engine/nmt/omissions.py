"""Which source words a suggestion leaves out, located by its attention.

The surface rules (:func:`engine.qa_omission.omissions`: a negation, number, code, menu separator or tag of
the source that the translation lacks) say *what* is missing; where the source has several of a kind and
the translation fewer ("not ... not" -> one "nicht"), the alignment says *which*: the occurrences whose
source word the translation attends to least (column mass of the word alignment A, (words_t, words_s))
are the ones left out.  Pure Python: the editor's process calls it on a result from its engine process.

    mass[j] = sum_i A[i, j]     (the attention the translation's words give source word j)
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.qa_omission import Omission, additions, omissions


@dataclass(frozen=True)
class LeftOut:
    """A source word the suggestion leaves out: the :class:`Omission`, the index of its source word in the
    result's ``src_words`` (None: not found there) and the attention mass the translation gives it."""

    omission: Omission
    src_word: int | None
    mass: float

    def describe(self) -> str:
        return self.omission.describe()


def source_word_index(source: str, src_words: list[str]) -> list[int]:
    """Per character of ``source``, the index of the source word that covers it (-1: none)."""
    owner = [-1] * len(source)
    pos = 0
    for k, w in enumerate(src_words):
        i = source.find(w, pos) if w else -1
        if i < 0:
            continue
        for c in range(i, i + len(w)):
            owner[c] = k
        pos = i + len(w)
    return owner


def left_out(text: str, source: str, src_words: list[str], alignment: list[list[float]], *,
             src_lang: str = "", tgt_lang: str = "") -> list[LeftOut]:
    """The source words ``text`` (a translation of ``source``, tags as placeholder characters) leaves out,
    in source order, then the numbers and menu separators it adds; ``src_words``/``alignment``: the result's source words and word alignment."""
    found = omissions(source, text, src_lang=src_lang, tgt_lang=tgt_lang)
    added = [LeftOut(o, None, 0.0) for o in additions(source, text)]   # a number or separator of its own
    if not found:
        return added
    owner = source_word_index(source, src_words)
    mass = [sum(row[j] for row in alignment if j < len(row)) for j in range(len(src_words))]

    def located(o: Omission) -> LeftOut:
        k = owner[o.start] if 0 <= o.start < len(owner) and owner[o.start] >= 0 else None
        return LeftOut(o, k, mass[k] if k is not None else 0.0)

    out: list[LeftOut] = []
    for kind in ("negation", "separator"):   # counted kinds: the least attended occurrences are the missing ones
        missing = [o for o in found if o.kind == kind]
        if not missing:
            continue
        every = [o for o in omissions(source, "", src_lang=src_lang, tgt_lang=tgt_lang) if o.kind == kind]
        ranked = sorted((located(o) for o in every), key=lambda x: x.mass)
        out += ranked[:len(missing)]
    out += [located(o) for o in found if o.kind not in ("negation", "separator")]
    return sorted(out, key=lambda x: x.omission.start) + added
