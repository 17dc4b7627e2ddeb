"""Source words a translation must not leave out: a negation, a number, a named code, a tag, a menu
separator (">" between menu items, as in KDE's "File > Open").  A machine translation drops such a word
while the sentence still reads well ("does not delete" -> "ist"), so a reader misses it; these checks
catch it on the surface of source and target alone (no model, no torch): the QA check ``omission``
for drafts filled by the machine, and, with the attention, :mod:`engine.nmt.omissions` for suggestions.

    negation   the source has n negation words (its language's list), the target fewer of its own
    number     a number of the source not in the target (as :mod:`engine.qa` reads numbers)
    code       an identifier kept as is in translation (``F2``, ``UTF-8``, ``SQL``, ``kio_http``) not in it
    separator  fewer menu separators in the target than in the source
    tag        a tag of the source not in the target
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from engine.inline import TAG_BASE, TAG_MAX, strip_tags

#: negation words by language (lower case; a word is compared whole, "n't" as a word ending)
NEGATIONS: dict[str, frozenset[str]] = {
    "en": frozenset("not no never none nothing nobody cannot without neither nor".split()),
    "de": frozenset("nicht kein keine keinen keinem keiner keines nie niemals nichts niemand ohne weder "
                    "nirgends".split()),
    "fr": frozenset("ne n' pas jamais aucun aucune rien personne sans ni non".split()),
    "es": frozenset("no nunca ningún ninguna ninguno nada nadie sin ni jamás".split()),
    "it": frozenset("non mai nessun nessuno nessuna niente nulla senza né".split()),
    "nl": frozenset("niet geen nooit niets niemand zonder noch".split()),
    "pt": frozenset("não nunca nenhum nenhuma nada ninguém sem nem jamais".split()),
}
_ANY_NEGATION = frozenset().union(*NEGATIONS.values())
#: what separates menu items in running text
SEPARATORS = (">", "→", "▸", "->", "|")
_WORD = re.compile(r"[^\W_](?:[\w'’+.\-]*[\w+])?", re.UNICODE)
# A code: a letter and a digit (F2, UTF-8, mp3, x86), an identifier's underscore (kio_http), a dotted name
# (config.json) or an inner capital (KMyMoney, setValue).  Capitals alone (URL, GUI) are not: translators
# spell them out as often as not (21 of the 1,343 held-aside KDE manual segments did).
_CODE = re.compile(r"^(?:[A-Za-z]+\d[\w.+\-]*|\d+[A-Za-z][\w.+\-]*|\w+_\w+|\w{2,}\.\w{2,}|[A-Za-z]+[a-z][A-Z]\w*)$")
NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:[.,]\d+)*(?![\w])")


@dataclass(frozen=True)
class Omission:
    """A source word the translation leaves out: ``kind`` (negation, number, code, separator, tag),
    ``text`` the source word, ``start`` its character offset in the source."""

    kind: str
    text: str
    start: int

    def describe(self) -> str:
        """"leaves out the negation 'not'", "adds the number '5'" (kinds ``added-number``, ``added-separator``)."""
        if self.kind.startswith("added-"):
            return f"adds the {'menu separator' if self.kind == 'added-separator' else 'number'} {self.text!r}"
        what = {"negation": "the negation", "number": "the number", "code": "the code",
                "separator": "the menu separator", "tag": "a tag"}[self.kind]
        return "leaves out " + (f"{what} {self.text!r}" if self.kind != "tag" else what)


def additions(source: str, target: str) -> list[Omission]:
    """Numbers and menu separators ``target`` has and ``source`` does not (``start``: offset in the target)."""
    src_numbers = [m.group(0) for m in NUMBER.finditer(strip_tags(source))]
    out = []
    for m in NUMBER.finditer(target):
        if m.group(0) in src_numbers:
            src_numbers.remove(m.group(0))
        else:
            out.append(Omission("added-number", m.group(0), m.start()))
    extra = separators(target)[len(separators(source)):]
    return out + [Omission("added-separator", target[i], i) for i in extra]


def _lang(lang: str) -> str:
    return (lang or "").replace("_", "-").split("-")[0].lower()


def negation_words(lang: str) -> frozenset[str]:
    """The negation words of ``lang`` (every known language's when it is not known)."""
    return NEGATIONS.get(_lang(lang), _ANY_NEGATION)


def _words(text: str):
    for m in _WORD.finditer(text):
        yield m.group(0), m.start()


def _is_negation(word: str, words: frozenset[str]) -> bool:
    w = word.lower().replace("’", "'")
    return w in words or (w.endswith("n't") and "not" in words)


def separators(text: str) -> list[int]:
    """Offsets of the menu separators in ``text``: a separator with a space or a tag on each side,
    between two words or tags (not "a > b" in a formula: both neighbours must start with a capital or
    be a tag, as menu items do)."""
    out = []
    plain = text
    for sep in SEPARATORS:
        for m in re.finditer(rf"(?<=\s){re.escape(sep)}(?=\s)", plain):
            left = plain[:m.start()].rstrip()
            right = plain[m.end():].lstrip()
            if left and right and _item_edge(left[-1]) and _item_edge(right[0], start=True):
                out.append(m.start())
    return sorted(out)


def _item_edge(ch: str, start: bool = False) -> bool:
    if TAG_BASE < ord(ch) <= TAG_BASE + TAG_MAX:
        return True
    return ch.isupper() if start else ch.isalnum()


def _numbers(text: str) -> list[tuple[str, int]]:
    return [(m.group(0), m.start()) for m in NUMBER.finditer(text)]


def codes(text: str) -> list[tuple[str, int]]:
    """(word, offset) of the named codes of ``text`` (a sentence in capitals has none: every word would be one)."""
    plain = strip_tags(text)
    letters = [c for c in plain if c.isalpha()]
    if letters and sum(c.isupper() for c in letters) > 0.6 * len(letters):
        return []
    return [(w, i) for w, i in _words(text) if _CODE.match(w) and not w.isdigit() and not NUMBER.fullmatch(w)]


def omissions(source: str, target: str, *, src_lang: str = "", tgt_lang: str = "") -> list[Omission]:
    """What of ``source`` the ``target`` leaves out, by the rules of the module doc (texts with tags
    as placeholder characters)."""
    out: list[Omission] = []
    src_neg = [(w, i) for w, i in _words(source) if _is_negation(w, negation_words(src_lang))]
    tgt_neg = sum(1 for w, _ in _words(target) if _is_negation(w, negation_words(tgt_lang)))
    out += [Omission("negation", w, i) for w, i in src_neg[tgt_neg:]]
    tgt_numbers = [n for n, _ in _numbers(strip_tags(target))]
    for n, i in _numbers(source):
        if n in tgt_numbers:
            tgt_numbers.remove(n)
        else:
            out.append(Omission("number", n, i))
    tgt_words = [w for w, _ in _words(target)]
    for w, i in codes(source):
        if w in tgt_words:
            tgt_words.remove(w)
        elif w not in target:
            out.append(Omission("code", w, i))
    src_sep, tgt_sep = separators(source), separators(target)
    out += [Omission("separator", source[i], i) for i in src_sep[len(tgt_sep):]]
    out += [Omission("tag", ch, i) for i, ch in enumerate(source)
            if TAG_BASE < ord(ch) <= TAG_BASE + TAG_MAX and ch not in target]
    return sorted(out, key=lambda o: o.start)


def omission_issues(segments, *, src_lang: str = "", tgt_lang: str = ""):
    """The QA finding ``possible-omission`` (a warning) for each draft the machine filled (origin
    ``mt``) that leaves out a negation, number, code or menu separator of its source; a tag is the
    tag check's."""
    from engine.qa_types import Issue

    out = []
    for s in segments:
        if getattr(s, "origin", "") != "mt" or not s.target.text.strip():
            continue
        found = [o for o in omissions(s.source.text, s.target.text, src_lang=src_lang, tgt_lang=tgt_lang)
                 if o.kind != "tag"]
        if found:
            out.append(Issue(s.id, s.idx, "possible-omission", "the machine's draft possibly "
                             + "; ".join(o.describe() for o in found), "warning"))
    return out
