"""Embedded HTML in a software string: the value read as HTML, as Okapi's sub-filters do.

A JSON, YAML, properties, RESX, .strings or Qt TS value that holds an article (``<p>...</p>``,
``<li>``, ``<h2>``) was one segment of dozens of tag codes with each ``&#39;`` a code.  A value is
HTML when it holds a block element and its end tag (:func:`is_html`); it is then tokenized and cut
by the HTML format (:mod:`engine.formats.html`: blocks, sentences, inline elements as paired codes,
entities as text, ``alt``/``title`` attributes), the string's placeholders (``{{name}}``, ``%s``)
protected in each sentence, and each sentence is one segment keyed ``<string key>#b<n>.s<j>``.
Export splices each translated sentence into the value (HTML-escaped) and the value into the file
(escaped as the container writes it); a value none of whose sentences changed is not rewritten,
so an untouched file exports byte for byte.
"""
from __future__ import annotations

import re
from pathlib import Path

from engine.errors import FormatError
from engine.formats import html as htmlfmt
from engine.formats.base import ParsedSegment, Translation
from engine.formats.placeholders import protect_software
from engine.inline import TaggedText, TaggedTextBuilder, tag_char, tag_number

_BLOCK = re.compile(r"<(p|div|h[1-6]|ul|ol|li|table|tr|td|th|blockquote|section|article|header|footer|"
                    r"figure|figcaption|dl|dt|dd|main|aside|nav)(?=[\s>/])[^<>]*>", re.I)
_LOCAL = re.compile(r"#([ab]\d+\.[a-z]\w*)$")


def is_html(value: str) -> bool:
    """True when ``value`` holds a block element with its end tag (``<p>...</p>``): a short string with
    a ``<b>`` stays one segment with its codes."""
    if "<" not in value:
        return False
    return any(re.search(rf"</{m.group(1)}\s*>", value[m.end():], re.I) for m in _BLOCK.finditer(value))


def split_key(key: str) -> tuple[str, str] | None:
    """``(string key, sentence key)`` of a segment key made by :func:`segments`, else None."""
    m = _LOCAL.search(key)
    return (key[:m.start()], m.group(1)) if m else None


def _placeholders(tt: TaggedText) -> TaggedText:
    """``tt`` with the software placeholders of its text runs (``{{name}}``, ``%1$s``) as codes too."""
    by_n = {t.n: t for t in tt.tags}
    b = TaggedTextBuilder()
    run: list[str] = []

    def flush() -> None:
        sub = protect_software("".join(run), markup=False)
        subs = {t.n: t for t in sub.tags}
        for ch in sub.text:
            t = subs.get(tag_number(ch) or -1)
            if t is None:
                b.text(ch)
            else:
                b.ph(t.original, t.label)
        run.clear()

    for ch in tt.text:
        t = by_n.get(tag_number(ch) or -1)
        if t is None:
            run.append(ch)
            continue
        flush()
        attrs = {**t.attrs, "html_n": t.n}  # its number in the HTML sentence, for export
        if t.kind == "open":
            b.open(t.original, t.label, t.pair, attrs)
        elif t.kind == "close":
            b.close(t.original, t.label, t.pair, attrs)
        else:
            b.ph(t.original, t.label, attrs)
    flush()
    return b.build()


def _parsed(value: str, lang: str, path: Path, where: str):
    sc = htmlfmt.Scanner(value)
    try:
        sc.run()
    except htmlfmt.TooDeep:
        raise FormatError(path, f"an HTML value with inline elements nested more than "
                                f"{htmlfmt.html_scan.MAX_INLINE_DEPTH} deep", where) from None
    segs, attrs = htmlfmt.html_segments(sc, lang, path, where)
    return sc, segs, attrs


def sources(value: str, lang: str, path: Path, where: str) -> list[tuple[str, TaggedText, str]]:
    """``(sentence key, source, context)`` of each sentence and attribute of the HTML ``value``."""
    sc, segs, attrs = _parsed(value, lang, path, where)
    return [(k, _placeholders(src) if not k.startswith("a") else src, ctx)
            for k, src, ctx in htmlfmt.html_sources(sc, segs, attrs)]


def segments(unit, lang: str, path: Path) -> list[ParsedSegment]:
    """The segments of ``unit`` (a :class:`engine.formats.strsplice.Unit` whose value is HTML): one a
    sentence or attribute; a target the file holds is paired sentence by sentence when it has the
    same sentences, else left out (the source's sentences are then new)."""
    where = f"line {unit.line}"
    src = sources(unit.value, lang, path, where)
    targets: dict[str, TaggedText] = {}
    if unit.target and is_html(unit.target):
        tgt = sources(unit.target, lang, path, where)
        if [k for k, _, _ in tgt] == [k for k, _, _ in src]:
            targets = {k: t for k, t, _ in tgt}
    out = []
    for k, s, ctx in src:
        t = targets.get(k)
        out.append(ParsedSegment(key=f"{unit.key}#{k}", source=s, target=t,
                                 status="confirmed" if t is not None else "new", note=unit.note,
                                 context=f"{unit.context} ({ctx})" if ctx and unit.context else unit.context or ctx,
                                 meta={"line": unit.line, **unit.meta, "html": True}))
    return out


def spliced(value: str, translations: dict[str, Translation], lang: str, path: Path, where: str) -> str:
    """``value`` with the translated sentences (keyed ``b<n>.s<j>``/``a<n>.alt``) spliced in."""
    sc, segs, attrs = _parsed(value, lang, path, where)
    # sentences were read with their placeholders as codes: the HTML writer renders each code's original
    by_sentence = dict((k, s) for k, s, _ in htmlfmt.html_sources(sc, segs, attrs))
    fixed: dict[str, Translation] = {}
    for k, tr in translations.items():
        base = by_sentence.get(k)
        if base is None or k.startswith("a"):
            fixed[k] = tr
            continue
        fixed[k] = Translation(_as_html_codes(tr.target, _placeholders(base), base), tr.status)
    text, unknown = htmlfmt.html_spliced(value, segs, attrs, fixed)
    if unknown:
        raise FormatError(path, f"a translation for a sentence the string does not have ({unknown[0]!r})", where)
    return text


def _as_html_codes(target: TaggedText, placed: TaggedText, base: TaggedText) -> TaggedText:
    """A target written against ``placed`` (HTML codes and placeholders) as text and ``base``'s codes
    (HTML only): a placeholder code becomes its text again, an HTML code takes its number in ``base``."""
    tags = {t.n: t for t in placed.tags}
    out = []
    for ch in target.text:
        t = tags.get(tag_number(ch) or -1)
        if t is None:
            out.append(ch)
        elif "html_n" in t.attrs:
            out.append(tag_char(t.attrs["html_n"]))
        else:
            out.append(t.original)
    return TaggedText("".join(out), base.tags)
