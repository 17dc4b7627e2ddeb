"""Plural forms a target language needs (CLDR categories, from babel) and the segments a
software-string file gets for the forms its source lacks.

A source file written in English has ``one`` and ``other``; a Russian translation needs
``one``/``few``/``many``/``other``, an Arabic one six forms, a Japanese one ``other`` only.
:func:`missing` gives the categories to add to a plural group, :func:`foreign` the forms the
target language does not use (kept as the client wrote them, marked in the note), and
:func:`note` a translator's hint such as ``few: e.g. 2, 3, 4``.

:class:`PluralGaps` is the read/write half shared by the string formats: a format's parser lists
its plural groups (:class:`Group`: the forms present, their segment keys, where a new form goes)
in ``Parsed.meta["plural_groups"]`` and says how one new form is written
(:meth:`PluralGaps.plural_item`); reading adds a segment per missing category, writing splices
each translated one in after the group's existing forms, in CLDR order.
"""
from __future__ import annotations

import gettext
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from engine.errors import FormatError
from engine.formats.base import ParsedDocument, ParsedSegment, Translation
from engine.fsutil import atomic_write

#: CLDR's plural categories, in the order files list them
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
_SAMPLES = [*range(0, 1001), 1000000, 2000000]
_DECIMALS = [Decimal("0.5"), Decimal("1.5"), Decimal("2.5"), Decimal("0.1")]


@lru_cache(maxsize=None)
def _locale(lang: str):
    from babel import Locale, UnknownLocaleError

    code = (lang or "").replace("-", "_")
    for c in (code, code.split("_")[0]):
        if not c:
            continue
        try:
            return Locale.parse(c)
        except (UnknownLocaleError, ValueError):
            continue
    return None


def categories(lang: str) -> tuple[str, ...]:
    """The CLDR plural categories of ``lang`` in file order; ``()`` for a language babel does not know."""
    loc = _locale(lang)
    if loc is None:
        return ()
    tags = set(loc.plural_form.tags) | {"other"}
    return tuple(c for c in CATEGORIES if c in tags)


def category_of(lang: str, n) -> str:
    loc = _locale(lang)
    return loc.plural_form(n) if loc is not None else "other"


@lru_cache(maxsize=None)
def examples(lang: str, cat: str, count: int = 3) -> tuple[str, ...]:
    """Numbers that take the form ``cat`` in ``lang``: whole numbers first, else decimals."""
    loc = _locale(lang)
    if loc is None:
        return ()
    found = [str(n) for n in _SAMPLES if loc.plural_form(n) == cat][:count]
    return tuple(found or [str(d) for d in _DECIMALS if loc.plural_form(d) == cat][:count])


def note(lang: str, cat: str) -> str:
    """``few: e.g. 2, 3, 4``"""
    ex = examples(lang, cat)
    return f"{cat}: e.g. {', '.join(ex)}" if ex else cat


def missing(present, lang: str) -> list[str]:
    """The categories ``lang`` needs that ``present`` lacks, in file order."""
    return [c for c in categories(lang) if c not in set(present)]


def foreign(present, lang: str) -> list[str]:
    """The forms of ``present`` that ``lang`` does not use (none when the language is unknown)."""
    cats = categories(lang)
    return [c for c in present if cats and c in CATEGORIES and c not in cats]


def nearest(cat: str, present) -> str | None:
    """The source form a new category is translated from: ``one`` for ``one``, ``other`` for
    the rest (the last form present when there is no ``other``)."""
    present = [c for c in CATEGORIES if c in set(present)]
    if not present:
        return None
    if cat == "one" and "one" in present:
        return "one"
    return "other" if "other" in present else present[-1]


def foreign_note(lang: str, cat: str) -> str:
    return f"{cat}: not a plural form of {lang} (kept as the file has it; never shown in {lang})"


@lru_cache(maxsize=None)
def gettext_forms(lang: str) -> tuple[str, ...]:
    """The gettext/Qt plural forms of ``lang``, in index order, each named by the CLDR category
    of its first example number (``("one", "few", "many")`` for Russian); ``()`` when unknown."""
    from babel.messages.plurals import get_plural

    if _locale(lang) is None:
        return ()
    rule = get_plural(str(_locale(lang)))
    pick = gettext.c2py(rule.plural_expr)
    first: dict[int, int] = {}
    for n in _SAMPLES:
        first.setdefault(pick(n), n)
    return tuple(category_of(lang, first[i]) if i in first else "other" for i in range(rule.num_plurals))


@dataclass
class Group:
    """One plural message of a file: ``forms`` maps each category present to its segment key,
    ``keys`` the key a category's segment gets (a JSON array as a string, ``{form}`` in it),
    ``at`` where a new form is spliced in, ``layout`` the format's own data for writing it."""

    forms: dict[str, str]
    key: str
    at: int
    layout: dict = field(default_factory=dict)
    context: str = ""  # a new form's context, ``{form}`` in it; "" for its source form's

    def key_for(self, cat: str) -> str:
        return self.key.replace("{form}", cat)


class PluralGaps:
    """Mixin for a :class:`engine.formats.strsplice.StringsFormat` whose parser fills
    ``Parsed.meta["plural_groups"]``."""

    zero_for_any_language = False  # a ``zero`` form read for 0 whatever the language (Apple)

    def plural_item(self, group: Group, cat: str, escaped: str, parsed) -> str:  # pragma: no cover
        raise NotImplementedError

    def read(self, path: Path, *, src_lang: str = "", tgt_lang: str = "") -> ParsedDocument:
        doc = super().read(path, src_lang=src_lang, tgt_lang=tgt_lang)
        groups: list[Group] = doc.meta.pop("plural_groups", [])
        if not tgt_lang or not categories(tgt_lang) or not groups:
            return doc
        by_key = {s.key: s for s in doc.segments}
        order = {s.key: i for i, s in enumerate(doc.segments)}
        added: dict[str, list[ParsedSegment]] = {}
        for g in groups:
            segs = {c: by_key[k] for c, k in g.forms.items() if k in by_key}
            if not segs:
                continue
            for c, seg in segs.items():
                seg.meta.setdefault("plural_form", c)
            for c in foreign(segs, tgt_lang):
                if not (c == "zero" and self.zero_for_any_language):
                    segs[c].note = "\n".join(p for p in (segs[c].note, foreign_note(tgt_lang, c)) if p)
            last = max(segs.values(), key=lambda s: order[s.key])
            for c in missing(g.forms, tgt_lang):
                near = nearest(c, segs)
                base = segs[near]
                if g.key_for(c) in by_key:
                    continue
                added.setdefault(last.key, []).append(ParsedSegment(
                    key=g.key_for(c), source=base.source,
                    note=f"{note(tgt_lang, c)} (a form {tgt_lang} needs; the source is the {near!r} form)",
                    context=g.context.replace("{form}", c) if g.context else base.context,
                    meta={**base.meta, "plural_form": c, "plural_added": True}))
        if added:
            out = []
            for s in doc.segments:
                out += [s, *added.get(s.key, [])]
            doc.segments = out
        return doc

    def write(self, original: Path, out: Path, translations: dict[str, Translation], *,
              tgt_lang: str = "", src_lang: str = "") -> None:
        original = Path(original)
        parsed = self.parse(original)
        by_key = {u.key: u for u in parsed.units}
        translations, in_html = self.html_translations(translations, by_key)
        new: dict[str, tuple[Group, str]] = {}
        for g in parsed.meta.get("plural_groups", []):
            for c in CATEGORIES:
                if c not in g.forms:
                    new[g.key_for(c)] = (g, c)
        unknown = [k for k in translations if k not in by_key and k not in new]
        if unknown:
            raise FormatError(original, f"{len(unknown)} translation(s) for strings the file does not have "
                                        f"(first: {unknown[0]!r})")
        text = parsed.decoded.text
        edits: list[tuple[int, int, int, str]] = []
        for key, tr in translations.items():
            if not tr.target:
                continue
            if key in by_key:
                u = by_key[key]
                s = self.written(tr.target, self.source(u, original), u, parsed)
                if s is not None:
                    edits.append((u.start, u.end, 0, s))
                continue
            g, c = new[key]
            src_unit = by_key.get(g.forms.get(nearest(c, g.forms) or "", ""))
            if src_unit is None:
                continue
            blank = type(src_unit)(key=key, value="", start=g.at, end=g.at, line=src_unit.line)
            s = self.written(tr.target, self.source(src_unit, original), blank, parsed)
            if s is not None:
                edits.append((g.at, g.at, 1 + CATEGORIES.index(c), self.plural_item(g, c, s, parsed)))
        edits += [(a, b, 0, t) for a, b, t in self.html_edits(in_html, by_key, parsed, original, src_lang)]
        edits.sort(key=lambda e: e[:3])
        parts, pos = [], 0
        for a, b, _, s in edits:
            parts += [text[pos:a], s]
            pos = b
        parts.append(text[pos:])
        data = self.encode(parsed, "".join(parts), original)
        with atomic_write(out, "wb") as fh:
            fh.write(data)


#: The Plural-Forms gettext's msginit writes (gettext-tools 0.21), read off ``msginit -l LANG``:
#: PO tools and translators expect these where they differ from CLDR's (French: 2 forms, CLDR 3).
_MSGINIT = {
    "nplurals=1; plural=0;": "ja ko vi",
    "nplurals=2; plural=(n != 1);": "bg da de el en eo es et fi fo he hu it nb nl nn no pt sv tr",
    "nplurals=2; plural=(n > 1);": "fr pt_BR",
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2);": "lv",
    "nplurals=3; plural=n==1 ? 0 : n==2 ? 1 : 2;": "ga",
    "nplurals=3; plural=n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2;": "ro",
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) ? 1 : 2);": "lt",
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);":
        "be hr ru sr uk",
    "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;": "cs sk",
    "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);": "pl",
    "nplurals=4; plural=(n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3);": "sl",
}
_MSGINIT_BY_LANG = {lang: rule for rule, langs in _MSGINIT.items() for lang in langs.split()}


@lru_cache(maxsize=None)
def gettext_plural_forms(lang: str) -> tuple[int, str] | None:
    """``(nplurals, "nplurals=N; plural=EXPR;")`` for a PO file in ``lang``: msginit's rule, else
    CLDR's (babel) for a language msginit has none for; None for a language neither knows."""
    from babel.messages.plurals import get_plural

    code = (lang or "").replace("-", "_")
    rule = _MSGINIT_BY_LANG.get(code) or _MSGINIT_BY_LANG.get(code.split("_")[0])
    if rule is None:
        if _locale(lang) is None:
            return None
        rule = get_plural(str(_locale(lang))).plural_forms
    return int(rule.split(";")[0].split("=")[1]), rule
