"""A paragraph of the zipped document formats (DOCX, ODF, PPTX, XLSX, IDML) as segments, and back.

Each format walks a paragraph's content into a flat list of :class:`Token`: text with a formatting
key, and codes (a line break, a field, a footnote reference, the start and end of a hyperlink).
:func:`paragraph_text` turns the tokens into one :class:`~engine.inline.TaggedText` where a stretch
of text whose formatting differs from the paragraph's most common formatting is wrapped in a pair of
codes; runs that differ only in invisible ways are merged before (the format's reader gives them the
same key).  The paragraph is cut into sentences with the plain-text segmenter.  Export turns the
translated paragraph text back into events (text with a formatting key, codes, containers opened and
closed) from which the format rebuilds the paragraph's XML.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import FormatError
from engine.formats.codefold import Codes, code_char, code_number, has_code_chars, narrow, para_sentence
from engine.inline import TAG_BASE, TAG_MAX, Tag, TaggedText, is_private_use_tag, new_tag, tag_number
from engine.segmentation import segment_text


@dataclass
class Token:
    """One item of a paragraph's content.

    ``kind``: ``text`` (``text`` with formatting key ``fmt``), ``ph`` (a
    standalone code), ``open``/``close`` (a container such as a hyperlink or the
    two halves of a field; ``pair`` links them).  ``payload``: what the format
    needs to put the code back (elements); ``label``: the chip's text.
    """

    kind: str
    text: str = ""
    fmt: str = ""
    payload: Any = None
    label: str = ""
    pair: str = ""


@dataclass
class Paragraph:
    """A paragraph's tokens and its text as segments (see :func:`paragraph_text`)."""

    element: Any
    tokens: list[Token]
    base_fmt: str = ""
    text: TaggedText = field(default_factory=lambda: TaggedText(""))
    #: tag number in ``text`` -> ("token", index) or ("fmt", key, "open"/"close")
    actions: dict[int, tuple] = field(default_factory=dict)
    lead: str = ""          # paragraph-level text (codes) before the first sentence
    tail: str = ""          # ... and after the last
    sentences: list[TaggedText] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def translatable(self) -> bool:
        return bool(self.sentences)


def paragraph_text(p: Paragraph, lang: str, path=None, place: str | None = None) -> None:
    """Fill ``p.text``, ``p.actions``, ``p.sentences`` and ``p.gaps`` from ``p.tokens`` (a paragraph
    with too many codes is refused naming ``path`` and ``place``: engine/formats/codefold.py)."""
    counts: dict[str, int] = {}
    runs_only = True
    for t in p.tokens:
        if t.kind == "text":
            counts[t.fmt] = counts.get(t.fmt, 0) + len(t.text)
        else:
            runs_only = False
    p.base_fmt = max(counts, key=counts.__getitem__) if counts else ""  # the first of the most common
    built = _runs_text(p) if runs_only else None
    if built is None:
        built = _codes_text(p, path, place)
    p.text, p.actions, k, e = built
    text = p.text
    if not any(map(str.isalnum, text.text)):  # a code's character (private use) is no letter: no plain() copy
        p.sentences, p.gaps, p.lead, p.tail = [], [], text.text, ""
        return
    seg = segment_text(text.text[k:e], lang, narrow(text.tags))
    p.lead, p.tail = text.text[:k], text.text[e:]
    by_n = {t.n: t for t in text.tags}
    p.sentences = [para_sentence(s, by_n, path, place) for s in seg.sentences]
    p.gaps = list(seg.gaps)


def _runs_text(p: Paragraph) -> tuple[TaggedText, dict[int, tuple], int, int] | None:
    """What :func:`_codes_text` makes of a paragraph of text runs only (no code, no container, the
    common paragraph), built straight from the runs; None when it needs the general path (a
    private-use character of the file's own text, more codes than a segment numbers).  Collecting
    each item into :class:`Codes` and numbering them there: 0.1 s of reading 3 MB of JRC-Acquis
    DOCX with a bold word a paragraph."""
    base = p.base_fmt
    parts: list[str] = []
    tags: list[Tag] = []
    actions: dict[int, tuple] = {}
    cur: str | None = None  # the formatting key of the open pair of codes
    seq = 0
    for t in p.tokens:
        fmt = t.fmt
        if fmt != (base if cur is None else cur):
            if cur is not None:
                tags.append(new_tag(len(tags) + 1, "close", "</fmt>", "fmt", f"f{seq}", {"fmt": cur}))
                actions[len(tags)] = ("fmt", cur, "close")
                parts.append(chr(TAG_BASE + len(tags)))
                cur = None
            if fmt != base:
                seq += 1
                tags.append(new_tag(len(tags) + 1, "open", "<fmt>", "fmt", f"f{seq}", {"fmt": fmt}))
                actions[len(tags)] = ("fmt", fmt, "open")
                parts.append(chr(TAG_BASE + len(tags)))
                cur = fmt
        parts.append(t.text)
    if cur is not None:
        tags.append(new_tag(len(tags) + 1, "close", "</fmt>", "fmt", f"f{seq}", {"fmt": cur}))
        actions[len(tags)] = ("fmt", cur, "close")
        parts.append(chr(TAG_BASE + len(tags)))
    if len(tags) > TAG_MAX or has_code_chars("".join(t.text for t in p.tokens)):
        return None
    text = "".join(parts)
    return TaggedText(text, tuple(tags)), actions, 0, len(text)


def _codes_text(p: Paragraph, path, place) -> tuple[TaggedText, dict[int, tuple], int, int]:
    """The paragraph's text and codes numbered by :class:`Codes`, the export's action of each code,
    and where its text starts and ends without the standalone codes at its ends (bookmarks, a
    comment reference stay outside the segments)."""
    b = Codes()
    cur: str | None = None  # the formatting key of the open pair of codes
    seq = 0

    def close_fmt() -> None:
        nonlocal cur
        if cur is not None:
            b.code("close", "</fmt>", "fmt", f"f{seq}", {"fmt": cur}, ("fmt", cur, "close"))
            cur = None

    # inside a container (a hyperlink) whose text has one formatting, that formatting
    # is the base: a link styled as a link makes one pair of codes, not two
    bases = [p.base_fmt]
    local: dict[int, str] = {}
    for i, t in enumerate(p.tokens if any(t.kind == "open" for t in p.tokens) else ()):
        if t.kind == "open":
            depth, fmts = 0, set()
            for u in p.tokens[i + 1:]:
                if u.kind == "open":
                    depth += 1
                elif u.kind == "close":
                    if not depth and u.pair == t.pair:
                        break
                    depth -= 1
                elif u.kind == "text":
                    fmts.add(u.fmt)
            if len(fmts) == 1:
                local[i] = fmts.pop()

    for i, t in enumerate(p.tokens):
        if t.kind == "text":
            if t.fmt != (cur if cur is not None else bases[-1]):
                close_fmt()
                if t.fmt != bases[-1]:
                    seq += 1
                    b.code("open", "<fmt>", "fmt", f"f{seq}", {"fmt": t.fmt}, ("fmt", t.fmt, "open"))
                    cur = t.fmt
            b.text(t.text)
            continue
        if t.kind in ("open", "close"):
            close_fmt()
        if t.kind == "open":
            bases.append(local.get(i, bases[-1]))
        elif t.kind == "close" and len(bases) > 1:
            bases.pop()
        label = t.label or t.kind
        original = {"open": f"<{label}>", "close": f"</{label}>"}.get(t.kind, f"<{label}/>")
        pair = f"c{t.pair}" if t.kind != "ph" else ""
        b.code(t.kind if t.kind in ("open", "close") else "ph", original, label, pair, {"tok": i},
               ("token", i, bases[-1]))
    close_fmt()
    text, actions = b.build(path, place)
    by_n = {t.n: t for t in text.tags}

    def edge_code(ch: str) -> bool:
        n = code_number(ch)
        return n is not None and by_n[n].kind == "ph" and not is_private_use_tag(by_n[n])

    k, e = 0, len(text.text)
    while k < e and edge_code(text.text[k]):
        k += 1
    while e > k and edge_code(text.text[e - 1]):
        e -= 1
    return text, actions, k, e


def translated_text(p: Paragraph, targets: list[TaggedText | None]) -> str:
    """The paragraph's text (paragraph-level code numbers) with ``targets`` in place
    of the sentences that have one."""
    out = [p.lead, p.gaps[0]]
    for src, tgt, gap in zip(p.sentences, targets, p.gaps[1:]):
        if tgt is None:
            out.append(_to_para(src, src))
        else:
            out.append(_to_para(tgt, src))
        out.append(gap)
    out.append(p.tail)
    return "".join(out)


def _to_para(tt: TaggedText, src: TaggedText) -> str:
    """``tt`` (numbered as the segment ``src``) with paragraph-level code numbers; a code
    the source segment lacks is dropped."""
    by_n = {t.n: t for t in src.tags}
    out = []
    for ch in tt.text:
        n = tag_number(ch)
        if n is None:
            out.append(ch)
        elif n in by_n and "p" in by_n[n].attrs:
            out.append(code_char(by_n[n].attrs["p"]))
    return "".join(out)


def events(p: Paragraph, text: str) -> list[tuple]:
    """Turn paragraph-level ``text`` back into events for the format's builder:
    ``("text", str, fmt)``, ``("ph", token)``, ``("open", token)``, ``("close", token)``.
    Formatting codes change the key of the text that follows; a code without its
    partner is kept (a container a translation leaves open is closed at the end)."""
    by_n = {t.n: t for t in p.text.tags}
    fmt_stack: list[str] = []
    open_tokens: list[Token] = []
    bases = [p.base_fmt]
    evs: list[tuple] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            evs.append(("text", "".join(buf), fmt_stack[-1] if fmt_stack else bases[-1]))
            buf.clear()

    def step(act: tuple) -> None:
        if act[0] == "fmt":
            if act[2] == "open":
                fmt_stack.append(act[1])
            elif act[1] in fmt_stack:
                del fmt_stack[len(fmt_stack) - 1 - fmt_stack[::-1].index(act[1])]
            return
        tok = p.tokens[act[1]]
        if tok.kind == "open":
            open_tokens.append(tok)
            bases.append(act[2])
        elif tok.kind == "close":
            if tok.pair not in {t.pair for t in open_tokens}:
                return  # its opening code was deleted: drop the close as well
            while open_tokens:
                top = open_tokens.pop()
                bases.pop()
                if top.pair == tok.pair:
                    break
                evs.append(("close", _partner(p, top)))
        evs.append((tok.kind, tok))

    for ch in text:
        n = code_number(ch)
        if n is None:
            buf.append(ch)
            continue
        act = p.actions.get(n)
        if act is None:
            continue
        if act[0] == "char":
            buf.append(by_n[n].original)
            continue
        flush()
        for a in act[1] if act[0] == "group" else (act,):  # a group: adjacent codes joined (codefold)
            step(a)
    flush()
    while open_tokens:
        evs.append(("close", _partner(p, open_tokens.pop())))
    return evs


def _partner(p: Paragraph, tok: Token) -> Token:
    for t in p.tokens:
        if t.kind == "close" and t.pair == tok.pair:
            return t
    return Token("close", pair=tok.pair)


def segment_keys(prefix: str, p: Paragraph) -> list[str]:
    return [f"{prefix}.s{i + 1}" for i in range(len(p.sentences))]


def apply_translations(p: Paragraph, prefix: str, translations: dict) -> str | None:
    """The paragraph's translated text, or None when no sentence of it is translated
    (differently from its source)."""
    keys = segment_keys(prefix, p)
    targets: list[TaggedText | None] = []
    changed = False
    for k, src in zip(keys, p.sentences):
        tr = translations.get(k)
        if tr is None or (tr.target.text == src.text):
            targets.append(None)
        else:
            targets.append(tr.target)
            changed = True
    return translated_text(p, targets) if changed else None


def unknown_keys(path, translations: dict, known: set[str]) -> None:
    unknown = [k for k in translations if k not in known]
    if unknown:
        raise FormatError(path, f"{len(unknown)} translation(s) for segments the file does not have "
                                f"(first: {unknown[0]!r})")
