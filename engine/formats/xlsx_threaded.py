"""Excel 365 threaded comments: a comment and its replies on a cell, with their authors.

A sheet relates its ``threadedComment`` part (``ThreadedComments``: one
``threadedComment`` per comment or reply, a reply naming its comment in
``parentId``); the workbook relates its ``person`` part, whose ``person``
elements give each ``personId`` its ``displayName``.  Each comment and each
reply is one plain-text paragraph, read in thread order (a comment, then its
replies as the part lists them; a reply whose comment is missing after the
threads), its note "comment by NAME" or "reply by NAME" (just "comment" or
"reply" when the person is not in the list).  Keys ``<threaded part>:c<n>.s<k>``,
``n`` counting the part's comments and replies in thread order.

Excel also writes each thread into the sheet's legacy comments (author
``tc={id}``), for readers without threads: "[Threaded comment]", a fixed
English paragraph, then "Comment:" and each "Reply:" followed by its text.
Excel 365 shows the threaded part and rewrites that copy on save; LibreOffice,
openpyxl and older Excel show only the copy.  So the copy is not read (it
would be the same text twice), and on export each translated text in it is
replaced in step, found after its label in thread order; a copy whose texts
are not all found that way (edited by an older Excel) is left as it was.  A
translated comment's mentions (``@Name``, kept by the translator) get their
new positions; a mention the translation dropped is removed.
"""
from __future__ import annotations

from engine.formats.opc import rels
from engine.formats.package import (
    Package, Paragraph, Token, apply_translations, events, paragraph_text, segment_keys, xml_bytes,
)

TC = "http://schemas.microsoft.com/office/spreadsheetml/2018/threadedcomments"
S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def tc(name: str) -> str:
    return f"{{{TC}}}{name}"


class SheetThreads:
    """One sheet's threaded comments: ``items`` are ``(prefix, paragraph, ref, note, element)``."""

    def __init__(self, part: str | None = None, tree=None, items: list | None = None):
        self.part, self.tree, self.items = part, tree, items or []
        self.refs = {ref for _, _, ref, _, _ in self.items}


class Threads:
    """The workbook's people and each sheet's threads; ``problems`` gets one line per part missing."""

    def __init__(self, pkg: Package, main: str, lang: str, load):
        self.pkg, self.lang, self.load = pkg, lang, load
        self.problems: list[str] = []
        self.people: dict[str, str] = {}
        for typ, target in rels(pkg, main).values():
            if typ == "person" and pkg.has(target):
                for p in load(pkg, target).getroot().iter(tc("person")):
                    self.people[p.get("id", "")] = (p.get("displayName") or "").strip()

    def sheet(self, sheet_part: str) -> SheetThreads:
        part = next((t for typ, t in rels(self.pkg, sheet_part).values() if typ == "threadedComment"), None)
        if part is None:
            return SheetThreads()
        if not self.pkg.has(part):
            self.problems.append(f"{sheet_part}: its threaded comments ({part}) are missing; "
                                 "their copy for older Excel versions is read")
            return SheetThreads()
        tree = self.load(self.pkg, part)
        comments = list(tree.getroot().iter(tc("threadedComment")))
        ids = {c.get("id") for c in comments if not c.get("parentId")}
        order = []
        for top in comments:
            if not top.get("parentId"):
                order.append(top)
                order.extend(c for c in comments if c.get("parentId") == top.get("id"))
        order.extend(c for c in comments if c.get("parentId") and c.get("parentId") not in ids)
        items = []
        for n, c in enumerate(order, 1):
            text = c.find(tc("text"))
            if text is None:
                continue
            para = Paragraph(text, [Token("text", text=text.text or "")])
            paragraph_text(para, self.lang)
            kind = "reply" if c.get("parentId") else "comment"
            name = self.people.get(c.get("personId", ""), "")
            items.append((f"{part}:c{n}", para, c.get("ref", ""), f"{kind} by {name}" if name else kind, c))
        return SheetThreads(part, tree, items)

    @staticmethod
    def write(threads: SheetThreads, legacy, translations: dict, known: set, replaced: dict) -> None:
        """Translate ``threads`` into ``replaced``; ``legacy``: the sheet's ``(comments part, tree,
        items)`` or None, whose copies of the threads follow the translation (see the module doc)."""
        done: dict[str, list[tuple[str, str, str]]] = {}  # ref -> [(label, source, text)] in thread order
        changed = False
        for prefix, para, ref, _, el in threads.items:
            known.update(segment_keys(prefix, para))
            source = para.element.text or ""
            text = apply_translations(para, prefix, translations)
            if text is not None:
                text = "".join(ev[1] for ev in events(para, text) if ev[0] == "text")
                para.element.text = text
                _move_mentions(el, source, text)
                changed = True
            label = "Reply:" if el.get("parentId") else "Comment:"
            done.setdefault(ref, []).append((label, source, source if text is None else text))
        if not changed:
            return
        replaced[threads.part] = xml_bytes(threads.tree)
        if legacy is None:
            return
        cpart, ctree, items = legacy
        copied = False
        for _, para, ref, _ in items:
            if ref in done and any(s != t for _, s, t in done[ref]):
                copied |= _replace_in_copy(para.element, done[ref])
        if copied:
            replaced[cpart] = xml_bytes(ctree)


def _move_mentions(el, source: str, text: str) -> None:
    """Each ``mention`` of ``el`` pointed at its text in the translation, or removed."""
    for mentions in el.findall(tc("mentions")):
        for m in list(mentions):
            try:
                start, length = int(m.get("startIndex", "")), int(m.get("length", ""))
            except ValueError:
                continue
            at = text.find(source[start:start + length]) if length > 0 else -1
            if at < 0:
                mentions.remove(m)
            else:
                m.set("startIndex", str(at))
        if len(mentions) == 0:
            el.remove(mentions)


def _replace_in_copy(text_el, pairs: list[tuple[str, str, str]]) -> bool:
    """Replace each source text after its label in the legacy comment's runs; all or nothing."""
    ts = list(text_el.iter(f"{{{S}}}t"))
    edits = []
    ti = pos = 0
    for label, source, new in pairs:
        while ti < len(ts):
            t = ts[ti].text or ""
            at = t.find(label, pos)
            at = t.find(source, at + len(label)) if at >= 0 and source else -1
            if at >= 0:
                edits.append((ti, at, at + len(source), new))
                pos = at + len(source)
                break
            ti, pos = ti + 1, 0
        else:
            return False
    for ti, start, end, new in reversed(edits):
        t = ts[ti]
        t.text = t.text[:start] + new + t.text[end:]
        t.set(XML_SPACE, "preserve")
    return True
