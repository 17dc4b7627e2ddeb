"""SpreadsheetML rich text: a shared string (``si``), an inline string (``is``), a comment's ``text``.

Plain text is one ``t``; formatted text is ``r`` runs, each with its ``rPr``: a run whose
formatting differs from the string's most common one is a pair of codes (as a DOCX run).
"""
from __future__ import annotations

import copy

from lxml import etree

from engine.formats.package import Paragraph, Token, events

S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def s(name: str) -> str:
    return f"{{{S}}}{name}"


def rich(el, fmts: dict) -> Paragraph:
    """A string item (``si``, ``is``, a comment's ``text``): plain ``t`` or rich ``r`` runs."""
    tokens: list[Token] = []
    for child in el:
        if child.tag == s("t"):
            key, text = "", child.text or ""
        elif child.tag == s("r"):
            rpr = child.find(s("rPr"))
            key = "" if rpr is None else etree.tostring(rpr, method="c14n").decode()
            fmts.setdefault(key, rpr)
            text = child.findtext(s("t")) or ""
        else:
            continue  # phonetic runs (rPh) and their settings: a guide to the source's reading
        if not text:
            continue
        if tokens and tokens[-1].fmt == key:
            tokens[-1].text += text
        else:
            tokens.append(Token("text", text=text, fmt=key))
    return Paragraph(el, tokens)


def rebuild_rich(el, para: Paragraph, text: str, fmts: dict) -> None:
    """``el``'s runs replaced by ``text``; phonetic runs dropped (they read the source)."""
    for child in list(el):
        if child.tag in (s("t"), s("r"), s("rPh")):
            el.remove(child)
    evs = [ev for ev in events(para, text) if ev[0] == "text"]
    plain = all(fmts.get(ev[2]) is None for ev in evs) and len({ev[2] for ev in evs}) <= 1
    items = []
    for ev in ([("text", "".join(e[1] for e in evs), "")] if plain else evs):
        t = etree.Element(s("t"))
        t.text = ev[1]
        if ev[1] != ev[1].strip() or "\n" in ev[1] or "  " in ev[1]:
            t.set(XML_SPACE, "preserve")
        if plain:
            items.append(t)
        else:
            r = etree.Element(s("r"))
            if fmts.get(ev[2]) is not None:
                r.append(copy.deepcopy(fmts[ev[2]]))
            r.append(t)
            items.append(r)
    for i, item in enumerate(items):
        el.insert(i, item)
