"""Inline tags as chips: one object in a QTextDocument per tag.

A segment's tags are single private-use characters (:mod:`engine.inline`).
In a Qt text document each one becomes an *object replacement character*
drawn as a small rounded chip (``<b>``, ``</b>``, ``<%1/>``).  Being one
character, a chip is selected, moved and deleted as a whole: it cannot be
half-deleted.  :func:`read_tagged` turns a document back into segment text.

Every text view of the app (grid, editor, panels) builds its documents with
:func:`fill` so tags look the same everywhere.
"""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import re
from typing import Iterable, Sequence

from PySide6.QtCore import QRectF, QSizeF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
    QPyTextObject,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from engine.inline import Tag, TaggedText, deleted_text, from_display, revision, tag_number

_TAG_CHAR_RE = re.compile("[\ue001-\uf8ff]")  # engine.inline's tag characters

CHIP_TYPE = QTextFormat.UserObject + 1
PROP_TAG_N = QTextFormat.UserProperty + 1
PROP_LABEL = QTextFormat.UserProperty + 2
PROP_KIND = QTextFormat.UserProperty + 3
PROP_COLOUR = QTextFormat.UserProperty + 4
OBJECT_CHAR = "\ufffc"

CHIP_COLOURS = {"open": QColor("#cfe0fb"), "close": QColor("#cfe0fb"), "ph": QColor("#e8dcf7")}
MISSING_COLOUR = QColor("#f7c6c6")


class ChipHandler(QPyTextObject):
    """Draws tag chips inside a QTextDocument (register with :func:`install`)."""

    def _font(self, fmt: QTextFormat) -> QFont:
        f = QFont(fmt.toCharFormat().font())
        f.setPointSizeF(max(6.0, f.pointSizeF() * 0.8 if f.pointSizeF() > 0 else 8.0))
        return f

    def intrinsicSize(self, doc, pos_in_document, fmt):  # noqa: N802 (Qt API)
        # Asked for every chip at every layout of every document: measured once per font and label.
        label = fmt.property(PROP_LABEL) or "?"
        font = fmt.toCharFormat().font()
        key = (font.key(), label)
        size = _SIZES.get(key)
        if size is None:
            fm = QFontMetricsF(self._font(fmt))
            size = (fm.horizontalAdvance(label) + 10, max(QFontMetricsF(font).height() - 1, fm.height() + 2))
            if len(_SIZES) > 4096:
                _SIZES.clear()
            _SIZES[key] = size
        return QSizeF(*size)

    def drawObject(self, painter: QPainter, rect: QRectF, doc, pos_in_document, fmt):  # noqa: N802
        kind = fmt.property(PROP_KIND) or "ph"
        label = fmt.property(PROP_LABEL) or "?"
        # hasProperty first: reading an unset property gives None with a refcount bug in PySide6 6.12
        colour = QColor(fmt.property(PROP_COLOUR) if fmt.hasProperty(PROP_COLOUR)
                        else CHIP_COLOURS.get(kind, CHIP_COLOURS["ph"]))
        painter.save()
        painter.setRenderHint(QPainter.Antialiasing, True)
        r = rect.adjusted(1, 1, -1, -1)
        painter.setPen(QPen(colour.darker(135), 1))
        painter.setBrush(colour)
        painter.drawRoundedRect(r, 4, 4)
        painter.setPen(QColor("#1d2b4a"))
        painter.setFont(self._font(fmt))
        painter.drawText(r, Qt.AlignCenter, label)
        painter.restore()


_HANDLER: ChipHandler | None = None
_SIZES: dict[tuple[str, str], tuple[float, float]] = {}  # (font key, label) -> chip width, height


def handler() -> ChipHandler:
    global _HANDLER
    if _HANDLER is None:
        _HANDLER = ChipHandler()
    return _HANDLER


def install(doc: QTextDocument) -> QTextDocument:
    """Let ``doc`` draw tag chips (idempotent)."""
    # Registering again only replaces the handler.  (No "already done" flag kept
    # as a Qt property: reading an unset property returns None with a refcount
    # bug in PySide6 6.12 that eventually crashes the interpreter.)
    doc.documentLayout().registerHandler(CHIP_TYPE, handler())
    return doc


#: tracked changes of another tool: a deletion's chip shows the deleted text struck through,
#: inserted text is underlined between its two chips
DELETED_COLOUR = QColor("#f4d0d0")
INSERTED_COLOUR = QColor("#1a7f37")


def chip_format(tag: Tag, base: QTextCharFormat | None = None, colour: QColor | None = None) -> QTextCharFormat:
    fmt = QTextCharFormat(base) if base is not None else QTextCharFormat()
    fmt.setObjectType(CHIP_TYPE)
    fmt.setProperty(PROP_TAG_N, tag.n)
    rev = revision(tag)
    if rev == "deleted":
        fmt.setProperty(PROP_LABEL, deleted_text(tag) or tag.display())
        fmt.setFontStrikeOut(True)
        colour = colour or DELETED_COLOUR
    else:
        fmt.setProperty(PROP_LABEL, "+" if rev == "inserted" else tag.display())
    fmt.setProperty(PROP_KIND, tag.kind)
    if colour is not None:
        fmt.setProperty(PROP_COLOUR, colour.name())
    fmt.setToolTip(tag.original)
    return fmt


def insert_tag(cursor: QTextCursor, tag: Tag, base: QTextCharFormat | None = None) -> None:
    cursor.insertText(OBJECT_CHAR, chip_format(tag, base))


def fill(doc: QTextDocument, text: str, tags: Iterable[Tag],
         formats: Sequence[tuple[int, int, QTextCharFormat]] = (),
         base: QTextCharFormat | None = None, append: bool = False) -> None:
    """Write segment ``text`` (tag characters included) into ``doc``.

    ``formats``: (start, end, format) ranges in ``text`` merged over ``base``
    (diff highlighting, copy shading).  ``append`` adds at the end instead of
    replacing the document.
    """
    install(doc)
    by_n = {t.n: t for t in tags}
    formats = list(formats) + _inserted_ranges(text, by_n)
    cur = QTextCursor(doc)
    if append:
        cur.movePosition(QTextCursor.End)
    else:
        doc.clear()
    base = base or QTextCharFormat()
    # Cut the text where a format range starts or ends and around every tag
    # character: each piece is one chip or one run of text in one format
    # (no per-character Python loop: the grid and panels fill many documents).
    n = len(text)
    cuts = {0, n}
    for s, e, _ in formats:
        cuts.add(min(max(s, 0), n))
        cuts.add(min(max(e, 0), n))
    for m in _TAG_CHAR_RE.finditer(text):
        cuts.add(m.start())
        cuts.add(m.end())
    edges = sorted(cuts)
    # One edit block: the document is laid out once at the end, not after every
    # piece (each relayout measures every chip of the paragraph again).
    cur.beginEditBlock()
    try:
        for i, j in zip(edges, edges[1:]):
            fmt = _format_at(i, formats, base) if formats else base
            num = tag_number(text[i])
            if num is not None:  # a tag character is always a piece of its own
                t = by_n.get(num)
                if t is not None:
                    insert_tag(cur, t, fmt)
                continue
            cur.insertText(text[i:j], fmt)
    finally:
        cur.endEditBlock()


def _inserted_ranges(text: str, by_n: dict[int, Tag]) -> list[tuple[int, int, QTextCharFormat]]:
    """Underlined ranges of text a tracked change inserted (between its open and close codes)."""
    out, start = [], None
    if not any(revision(t) == "inserted" for t in by_n.values()):
        return out
    fmt = QTextCharFormat()
    fmt.setFontUnderline(True)
    fmt.setForeground(INSERTED_COLOUR)
    for m in _TAG_CHAR_RE.finditer(text):
        t = by_n.get(tag_number(m.group()) or 0)
        if t is None or revision(t) != "inserted":
            continue
        if t.kind == "open":
            start = m.end()
        elif t.kind == "close" and start is not None:
            out.append((start, m.start(), fmt))
            start = None
    return out


def _format_at(i: int, formats, base: QTextCharFormat) -> QTextCharFormat:
    fmt = QTextCharFormat(base)
    for s, e, f in formats:
        if s <= i < e:
            fmt.merge(f)
    return fmt


def read_tagged(doc: QTextDocument, source_tags: Iterable[Tag] = ()) -> str:
    """Segment text of ``doc``: chips become tag characters again; short tags
    typed or pasted as text (``<b>``) that name a source tag not already
    present become tags too."""
    out: list[str] = []
    block = doc.begin()
    first = True
    while block.isValid():
        if not first:
            out.append("\n")
        first = False
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.isValid():
                fmt = frag.charFormat()
                if fmt.objectType() == CHIP_TYPE:
                    n = int(fmt.property(PROP_TAG_N))
                    out.append(chr(0xE000 + n) * len(frag.text()))
                else:
                    out.append(frag.text())
            it += 1
        block = block.next()
    text = "".join(out)
    present = {tag_number(c) for c in text}
    rest = [t for t in source_tags if t.n not in present]
    return from_display(text, rest) if rest else text


def plain_with_chips(tt: TaggedText) -> str:
    """Short text form used where chips cannot be drawn (tooltips, CSV)."""
    return tt.display()
