"""The paragraphs of an InDesign story (see :mod:`engine.formats.idml`): split, read as tokens, rebuilt.

A paragraph ends at ``Br``; its items are the character style ranges (or the part of one
before or after a ``Br``), XML tags around ranges and other elements of its paragraph style
range.  :func:`normalise` splits ranges at each ``Br`` before a rebuild, so that a paragraph is
whole ranges; :func:`rebuild` puts the translated text in their place.
"""
from __future__ import annotations

import copy

from lxml import etree

from engine.formats.package import Paragraph, Token, events, paragraph_text

PSR, CSR, PROPS, CONTENT, BR = "ParagraphStyleRange", "CharacterStyleRange", "Properties", "Content", "Br"
_CONTAINER, XML = "HyperlinkTextSource", "XMLElement"
#: children that are settings of their parent, not its content
_NOT_CONTENT = {PROPS, "XMLAttribute", "XMLInstruction", "XMLComment"}
_LABELS = {"Table": "table", "Footnote": "fn", "Note": "note", "Change": "change", "XMLElement": "xml",
           "TextFrame": "frame", "Rectangle": "img", "Group": "img", "Oval": "img", "Polygon": "img",
           "TextVariableInstance": "var", "HiddenText": "hidden"}


def local(el) -> str:
    return el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else ""


def _key(csr) -> str:
    """A character style range's formatting: its attributes and its ``Properties``."""
    props = csr.find(PROPS)
    attrs = " ".join(f"{k}={v!r}" for k, v in sorted(csr.attrib.items()))
    return attrs + ("" if props is None else etree.tostring(props, method="c14n").decode())


class _Para:
    """One paragraph: the element holding its items (a ``ParagraphStyleRange`` or an XML element with
    paragraphs of its own), the items, and the ``Br`` that ends it (or None)."""

    def __init__(self, host):
        # items: ("csr", range, [its children in this paragraph]), ("box", XML element), ("el", element)
        self.host, self.items, self.br = host, [], None


def _own_br(el) -> bool:
    """True when ``el`` holds a paragraph end of its own (not one of a table cell or footnote in it)."""
    for br in el.iter(BR):
        up = br.getparent()
        while up is not el and up.tag != PSR:
            up = up.getparent()
        if up is el:
            return True
    return False


def split(host) -> list[_Para]:
    """The paragraphs of ``host``, split at ``Br``; an XML element holding paragraph ends is a host
    of its own (its paragraphs end where it ends), one holding none is a pair of codes."""
    paras = [_Para(host)]
    for child in host:
        name = local(child)
        if not name or name in _NOT_CONTENT:
            continue
        if name == XML and _own_br(child):
            paras.extend(split(child))
            paras.append(_Para(host))
            continue
        if name != CSR:
            paras[-1].items.append(("box" if name == XML else "el", child))
            continue
        kids = []
        for g in child:
            if local(g) in _NOT_CONTENT or not isinstance(g.tag, str) and not isinstance(g, etree._ProcessingInstruction):
                continue
            if local(g) == BR:
                if kids:
                    paras[-1].items.append(("csr", child, kids))
                paras[-1].br = (child, g)
                paras.append(_Para(host))
                kids = []
            else:
                kids.append(g)
        if kids:
            paras[-1].items.append(("csr", child, kids))
    return [p for p in paras if p.items or p.br is not None]


class Extractor:
    def __init__(self) -> None:
        self.fmts: dict[str, object] = {}
        self.pairs = 0

    def _pair(self) -> str:
        self.pairs += 1
        return str(self.pairs)

    def paragraph(self, para: _Para) -> Paragraph:
        tokens: list[Token] = []

        def text(s: str | None, key: str) -> None:
            if not s:
                return
            if tokens and tokens[-1].kind == "text" and tokens[-1].fmt == key:
                tokens[-1].text += s
            else:
                tokens.append(Token("text", text=s, fmt=key))

        def kid(g, key: str) -> None:
            name = local(g)
            if name == CONTENT:
                text(g.text, key)
                for pi in g:
                    tokens.append(Token("ph", payload=("pi", key, pi), label="char"))
                    text(pi.tail, key)
            elif (name in (_CONTAINER, XML) or name == "Change" and g.get("ChangeType") == "InsertedText") \
                    and not _own_br(g):
                pair = self._pair()
                label = {_CONTAINER: "link", XML: "xml"}.get(name, "ins")
                tokens.append(Token("open", payload=("container", key, g), label=label, pair=pair))
                for inner in g:
                    if local(inner) not in _NOT_CONTENT:
                        kid(inner, key)
                tokens.append(Token("close", payload=("end",), label=label, pair=pair))
            elif name:
                tokens.append(Token("ph", payload=("kid", key, g), label=_LABELS.get(name, name[:8].lower())))

        def item(it) -> None:
            if it[0] == "csr":
                key = _key(it[1])
                self.fmts.setdefault(key, it[1])
                for g in it[2]:
                    kid(g, key)
            elif it[0] == "box":  # an XML element around ranges: a pair of codes
                pair = self._pair()
                tokens.append(Token("open", payload=("box", None, it[1]), label="xml", pair=pair))
                for child in it[1]:
                    name = local(child)
                    if name == CSR:
                        item(("csr", child, [g for g in child if local(g) not in _NOT_CONTENT]))
                    elif name and name not in _NOT_CONTENT:
                        item(("box" if name == XML else "el", child))
                tokens.append(Token("close", payload=("end",), label="xml", pair=pair))
            else:
                tokens.append(Token("ph", payload=("el", None, it[1]),
                                    label=_LABELS.get(local(it[1]), local(it[1])[:8].lower())))

        for it in para.items:
            item(it)
        return Paragraph(para, tokens)


def _nested(el) -> list:
    """The outermost ``ParagraphStyleRange`` elements inside ``el`` (a table's cells, a footnote)."""
    out = []
    for psr in el.iter(PSR):
        up = psr.getparent()
        while up is not None and up is not el and up.tag != PSR:
            up = up.getparent()
        if up is el:
            out.append(psr)
    return out


def paragraphs(psrs: list, ex: Extractor, lang: str):
    """``Paragraph`` of each paragraph of ``psrs`` in reading order, nested ones after their holder."""
    for psr in psrs:
        for raw in split(psr):
            para = ex.paragraph(raw)
            paragraph_text(para, lang)
            para.top = psr
            yield para
            for tok in para.tokens:
                if tok.kind == "ph" and tok.payload[0] in ("kid", "el") and local(tok.payload[2]) != "Note":
                    yield from paragraphs(_nested(tok.payload[2]), ex, lang)


def story_psrs(root) -> list:
    story = root.find("Story") if root.tag != "Story" else root
    return _nested(story) if story is not None else []


def _new_csr(template, parent=None):
    el = etree.Element(CSR, dict(template.attrib)) if parent is None else \
        etree.SubElement(parent, CSR, dict(template.attrib))
    props = template.find(PROPS)
    if props is not None:
        el.append(copy.deepcopy(props))
    return el


def normalise(psr) -> None:
    """Split every character style range of ``psr`` after each ``Br``: a paragraph is then whole ranges."""
    for csr in [c for c in psr.iter(CSR) if next(c.iterancestors(PSR), None) is psr]:
        kids = [g for g in csr if local(g) != PROPS]
        cuts = [i for i, g in enumerate(kids) if local(g) == BR and i < len(kids) - 1]
        parent = csr.getparent()
        at = parent.index(csr)
        for n, (a, b) in enumerate(zip([-1] + cuts, cuts + [len(kids) - 1])):
            if n == 0:
                continue
            piece = _new_csr(csr)
            for g in kids[a + 1:b + 1]:
                piece.append(g)  # moved, not copied: nested stories already translated stay so
            parent.insert(at + n, piece)


def _shell(src):
    """A copy of a container (a hyperlink, an XML element) without its content, its settings kept."""
    c = etree.Element(src.tag, dict(src.attrib))
    for child in src:
        if local(child) in _NOT_CONTENT:
            c.append(copy.deepcopy(child))
            c[-1].tail = None
    return c


def _add_text(parent, s: str) -> None:
    last = parent[-1] if len(parent) else None
    if last is not None and local(last) == CONTENT:
        if len(last):
            last[-1].tail = (last[-1].tail or "") + s
        else:
            last.text = (last.text or "") + s
    else:
        etree.SubElement(parent, CONTENT).text = s


def rebuild(p: Paragraph, text: str, fmts: dict) -> None:
    """Replace the paragraph's items in its host by ``text`` (paragraph-level code numbers)."""
    raw: _Para = p.element
    host = raw.host
    holder = etree.Element("holder")
    parents, targets, kinds = [holder], [], []  # XML elements around ranges; inline containers
    cur = {"csr": None, "key": None}

    def csr_for(key: str):
        if targets:
            return targets[-1]
        c = cur["csr"]
        if c is None or cur["key"] != key or c.getparent() is not parents[-1]:
            c = cur["csr"] = _new_csr(fmts[key], parents[-1])
            cur["key"] = key
        return c

    for ev in events(p, text):
        if ev[0] == "text":
            _add_text(csr_for(ev[2]), ev[1])
            continue
        kind, key, el = (ev[1].payload + (None, None))[:3] if ev[1].payload else ("", None, None)
        if ev[0] == "open":
            c = _shell(el)
            if kind == "box" and not targets:
                parents[-1].append(c)
                parents.append(c)
                cur["csr"] = None
            else:
                (targets[-1] if targets or key is None else csr_for(key)).append(c)
                targets.append(c)
            kinds.append(kind)
        elif ev[0] == "close":
            if kinds and kinds.pop() == "box" and len(parents) > 1 and not targets:
                parents.pop()
                cur["csr"] = None
            elif targets:
                targets.pop()
        elif kind == "el":
            c = copy.deepcopy(el)
            c.tail = None
            (targets[-1] if targets else parents[-1]).append(c)
            cur["csr"] = None
        elif kind in ("kid", "pi"):
            parent = csr_for(key)
            c = copy.deepcopy(el)
            c.tail = None
            if kind == "pi":
                last = parent[-1] if len(parent) else None
                if last is None or local(last) != CONTENT:
                    last = etree.SubElement(parent, CONTENT)
                last.append(c)
            else:
                parent.append(c)
    new = list(holder)
    br_csr, br = raw.br if raw.br is not None else (None, None)
    # the paragraph's end goes into its last new range when that has the Br's formatting
    merge = br_csr is not None and new and local(new[-1]) == CSR and _key(new[-1]) == _key(br_csr)
    at = host.index(raw.items[0][1])
    for item in raw.items:
        if item[1] is br_csr and not merge:
            for g in item[2]:
                br_csr.remove(g)  # the new ranges go before the one keeping the Br
        else:
            host.remove(item[1])
    if merge:
        new[-1].append(br)
        if br_csr.getparent() is host:
            host.remove(br_csr)
    for i, el in enumerate(new):
        host.insert(at + i, el)
