"""Reading TBX glossaries (v2 ``martif`` / TBX-Basic and v3 ``tbx``): :func:`read_tbx`.

Streams concept by concept through :mod:`engine.formats.xmlsafe`; what becomes
an entry, and how the language pair is chosen, is in :mod:`engine.glossary.formats`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from engine.errors import FormatError
from engine.formats.xmlsafe import iterparse, localname, refuse_entities
from engine.glossary.cells import _one_line, _status
from engine.glossary.model import GlossaryEntry, GlossaryFile
from engine.langs import normalize_lang, same_language

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


@dataclass
class _Term:
    text: str
    pos: str = ""
    status: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class _Concept:
    id: str
    line: int
    notes: list[str] = field(default_factory=list)
    langs: dict[str, list[_Term]] = field(default_factory=dict)
    lang_notes: dict[str, list[str]] = field(default_factory=dict)


def _note_of(el) -> str:
    """The text of a definition / note element ('' for other kinds of descrip)."""
    ln = localname(el)
    if ln == "note" or (ln == "descrip" and el.get("type") == "definition") or ln == "definition":
        return _one_line("".join(el.itertext()))
    return ""


def _notes_below(el) -> list[str]:
    """Definitions and notes that are direct children of ``el`` or of its ``descripGrp``s."""
    out = []
    for ch in el:
        ln = localname(ch)
        if ln in ("descripGrp", "noteGrp"):
            out.extend(_notes_below(ch))
        else:
            n = _note_of(ch)
            if n:
                out.append(n)
    return out


def _read_term(group) -> _Term | None:
    """A ``tig`` / ``ntig`` / ``termSec`` (or a bare ``term``'s parent) as a term."""
    term_el = None
    for el in group.iter():
        if localname(el) == "term":
            term_el = el
            break
    if term_el is None:
        return None
    t = _Term(_one_line("".join(term_el.itertext())))
    for el in group.iter():
        ln = localname(el)
        kind = el.get("type") if ln in ("termNote", "admin") else ln
        value = _one_line("".join(el.itertext())) if isinstance(el.tag, str) else ""
        if kind == "partOfSpeech" and not t.pos:
            t.pos = value
        elif kind in ("administrativeStatus", "normativeAuthorization") and not t.status:
            t.status = _status(value) or t.status
        elif el is not term_el and ln in ("note", "descrip", "definition") and el.getparent() is not None:
            n = _note_of(el)
            if n:
                t.notes.append(n)
    return t if t.text else None


def _read_concept(el) -> _Concept:
    c = _Concept(id=el.get("id") or "", line=el.sourceline or 0)
    for ch in el:
        ln = localname(ch)
        if ln in ("langSet", "langSec"):
            lang = normalize_lang(ch.get(XML_LANG) or ch.get("lang") or "")
            if not lang:
                continue
            terms = c.langs.setdefault(lang, [])
            c.lang_notes.setdefault(lang, []).extend(_notes_below(ch))
            for g in ch:
                if localname(g) in ("tig", "ntig", "termSec", "termGrp"):
                    t = _read_term(g)
                    if t is not None:
                        terms.append(t)
                elif localname(g) == "term":  # TBX-Min style: a term right in the language section
                    t = _Term(_one_line("".join(g.itertext())))
                    if t.text:
                        terms.append(t)
        elif ln in ("descripGrp", "noteGrp"):
            c.notes.extend(_notes_below(ch))
        else:
            n = _note_of(ch)
            if n:
                c.notes.append(n)
    return c


def _read_tbx_concepts(path: Path) -> tuple[str, list[_Concept]]:
    """The root's language and every concept of a TBX file (bounded memory per concept)."""
    root_lang = ""
    concepts: list[_Concept] = []
    root = None
    try:
        for event, el in iterparse(path, events=("start", "end")):
            if root is None:
                root = el
                if localname(el) not in ("martif", "tbx"):
                    raise FormatError(path, f"not a TBX file (root element <{localname(el)}>, "
                                            "expected <martif> or <tbx>)", f"line {el.sourceline}")
                root_lang = normalize_lang(el.get(XML_LANG) or "")
                continue
            if event == "end" and localname(el) in ("termEntry", "conceptEntry"):
                refuse_entities(path, el)  # "Hello &xxe;" read as "Hello " otherwise
                concepts.append(_read_concept(el))
                el.clear()
                parent = el.getparent()
                while el.getprevious() is not None and parent is not None:
                    del parent[0]
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None) or 1
        msg = (str(getattr(e, "msg", None) or e).strip().splitlines() or ["?"])[0]
        raise FormatError(path, f"not well-formed XML: {msg}", f"line {line}") from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if not concepts:
        raise FormatError(path, "a TBX file without any <termEntry> or <conceptEntry>")
    return root_lang, concepts


def _pick_lang(path: Path, wanted: str, languages: list[str], what: str) -> str:
    for lang in languages:
        if same_language(wanted, lang):
            return lang
    raise FormatError(path, f"no {what} terms in {wanted} (the file's languages: {', '.join(languages)})")


def read_tbx(path: str | Path, *, src_lang: str = "", tgt_lang: str = "") -> GlossaryFile:
    """Entries of a TBX file for one language pair (see the module doc)."""
    path = Path(path)
    root_lang, concepts = _read_tbx_concepts(path)
    counts: dict[str, int] = {}
    for c in concepts:
        for lang, terms in c.langs.items():
            if terms:
                counts[lang] = counts.get(lang, 0) + 1
    languages = list(counts)
    if not languages:
        raise FormatError(path, "no terms with a language (xml:lang) in any concept")
    if src_lang:
        src = _pick_lang(path, src_lang, languages, "source")
    else:
        src = next((lg for lg in languages if same_language(root_lang, lg)), "") if root_lang else ""
        src = src or max(languages, key=lambda lg: counts[lg])
    others = [lg for lg in languages if lg != src]
    if tgt_lang:
        tgt = _pick_lang(path, tgt_lang, others, "target") if others else ""
        if not tgt:
            raise FormatError(path, f"no target terms in {tgt_lang} (the file's languages: {', '.join(languages)})")
    elif len(others) == 1:
        tgt = others[0]
    elif not others:
        raise FormatError(path, f"terms in one language only ({src}): a glossary needs a target language")
    else:
        raise FormatError(path, f"terms in {len(languages)} languages ({', '.join(languages)}): "
                                "choose the pair with --src-lang and --tgt-lang")
    out_src = normalize_lang(src_lang) or src
    out_tgt = normalize_lang(tgt_lang) or tgt
    entries: list[GlossaryEntry] = []
    problems: list[str] = []
    for c in concepts:
        sources, targets = c.langs.get(src, []), c.langs.get(tgt, [])
        if not sources or not targets:
            if sources or targets:
                label = f"concept {c.id!r}" if c.id else "a concept"
                problems.append(f"{path.name}, line {c.line}: {label} has no "
                                f"{src if not sources else tgt} term; skipped")
            continue
        accepted = [t for t in targets if t.status != "deprecated"]
        accepted.sort(key=lambda t: {"preferred": 0, "": 1, "admitted": 2}.get(t.status, 1))
        forbidden = tuple(t.text for t in targets if t.status == "deprecated")
        for s in sources:
            note = "; ".join(dict.fromkeys([*c.notes, *c.lang_notes.get(src, []), *s.notes]))
            entries.append(GlossaryEntry(
                source=s.text, targets=tuple(t.text for t in accepted), src_lang=out_src, tgt_lang=out_tgt,
                pos=s.pos, note=note, forbidden=forbidden, status=s.status or "preferred", concept=c.id,
                origin=path.name))
    return GlossaryFile(tuple(entries), out_src, out_tgt, tuple(languages), tuple(problems))
