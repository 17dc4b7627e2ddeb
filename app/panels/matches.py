"""TM matches: up to N matches with their %, differences to the current
source highlighted (missing, extra, changed words), origin and date."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QBrush, QColor, QFont, QTextBlockFormat, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from engine.inline import TaggedText, strip_tags
from engine.stats import band_of
from app.chips import fill
from app.panels.textview import ChipView
from app.tmservice import SCORE_TOOLTIP, FoundMatch

DIFF_COLOURS = {"replace": QColor("#ffd8a8"), "insert": QColor("#ffc9c9"), "delete": QColor("#c3f0c8")}
DIFF_TIPS = {
    "replace": "changed: the current source has “{q}” here",
    "insert": "extra: not in the current source",
    "delete": "missing: the current source has “{q}” here, the match does not",
}
BAND_COLOURS = {"100%": "#2b8a3e", "95-99%": "#5c940d", "85-94%": "#e67700", "75-84%": "#d9480f"}


def diff_layout(query: str, match_source: str, ops) -> tuple[str, list[tuple[int, int, str, str]]]:
    """The match source with the query's missing words spliced in, and the
    highlighted ranges ``(start, end, kind, tooltip)`` in that text."""
    out: list[str] = []
    spans: list[tuple[int, int, str, str]] = []
    pos = 0
    length = 0
    for op in sorted(ops, key=lambda o: (o.match_span[0], o.op != "delete")):
        ms, me = op.match_span
        if ms > pos:
            out.append(match_source[pos:ms])
            length += ms - pos
            pos = ms
        q = strip_tags(query[op.query_span[0]:op.query_span[1]]).strip()
        if op.op == "delete":
            piece = f"+{q}" if q else ""
            if piece:
                sep = "" if (not out or out[-1].endswith(" ")) else " "
                out.append(sep)
                length += len(sep)
                spans.append((length, length + len(piece), "delete", DIFF_TIPS["delete"].format(q=q)))
                out.append(piece + " ")
                length += len(piece) + 1
            continue
        if me > pos:
            seg = match_source[pos:me]
            if op.op in ("replace", "insert"):
                spans.append((length, length + len(seg), op.op, DIFF_TIPS[op.op].format(q=q)))
            out.append(seg)
            length += len(seg)
            pos = me
    out.append(match_source[pos:])
    return "".join(out), spans


class MatchesPanel(QWidget):
    """Shows :class:`~app.tmservice.FoundMatch` lists; ``insertRequested(n)`` (0-based)."""

    insertRequested = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.matches: list[FoundMatch] = []
        self.query: TaggedText | None = None
        self.selected = 0
        self.status = QLabel("No segment", self)
        self.status.setToolTip(SCORE_TOOLTIP)
        self.view = ChipView(self)
        self.view.blockClicked.connect(self._select)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.status)
        lay.addWidget(self.view)

    def searching(self) -> None:
        self.status.setText("Searching the TMs…")

    def show_message(self, text: str) -> None:
        self.matches = []
        self.view.clear()
        self.status.setText(text)

    def show_matches(self, query: TaggedText, matches: list[FoundMatch]) -> None:
        self.query, self.matches, self.selected = query, list(matches), 0
        if not matches:
            self.show_message("No TM match above 30%.")
            return
        self.status.setText(f"{len(matches)} match{'es' if len(matches) > 1 else ''} · Ctrl+1…{min(9, len(matches))} inserts")
        self._render()

    def percent(self, i: int) -> int:
        return round(self.matches[i].score * 100)

    def _render(self) -> None:
        doc = self.view.document()
        doc.clear()
        cur = QTextCursor(doc)
        first = True
        for i, fm in enumerate(self.matches):
            m = fm.match
            bf = QTextBlockFormat()
            bf.setTopMargin(0 if first else 8)
            if i == self.selected:
                bf.setBackground(QBrush(QColor("#eef3ff")))
            if not first:
                cur.insertBlock(bf)
            else:
                cur.setBlockFormat(bf)
            first = False
            cur.block().setUserState(i)
            head = QTextCharFormat()
            head.setFontWeight(QFont.Bold)
            cur.insertText(f"{i + 1}  ", head)
            pct = QTextCharFormat(head)
            pct.setForeground(QColor(BAND_COLOURS.get(band_of(m.score), "#555555")))
            pct.setToolTip(f"{SCORE_TOOLTIP}\nCharacter similarity: {round(m.char_score * 100)}%")
            cur.insertText(f"{self.percent(i)}%", pct)
            meta = QTextCharFormat()
            meta.setForeground(QColor("#666666"))
            date = (m.meta.get("changed") or m.meta.get("created") or "")[:10]
            origin = m.meta.get("origin") or ""
            who = m.meta.get("changer") or m.meta.get("creator") or ""
            info = " · ".join(x for x in (fm.tm, origin, who, date) if x)
            cur.insertText(f"   {info}", meta)
            # source with differences
            sbf = QTextBlockFormat(bf)
            sbf.setTopMargin(2)
            cur.insertBlock(sbf)
            cur.block().setUserState(i)
            text, spans = diff_layout(self.query.text if self.query else "", m.source.text, m.ops)
            formats = []
            for s, e, kind, tip in spans:
                f = QTextCharFormat()
                f.setBackground(DIFF_COLOURS[kind])
                f.setToolTip(tip)
                if kind == "insert":
                    f.setFontStrikeOut(True)
                if kind == "delete":
                    f.setFontItalic(True)
                formats.append((s, e, f))
            fill(doc, text, m.source.tags, formats, append=True)
            cur.movePosition(QTextCursor.End)
            tbf = QTextBlockFormat(bf)
            tbf.setTopMargin(2)
            cur.insertBlock(tbf)
            cur.block().setUserState(i)
            tf = QTextCharFormat()
            tf.setForeground(QColor("#0b3d91"))
            fill(doc, m.target.text, m.target.tags, base=tf, append=True)
            cur.movePosition(QTextCursor.End)
        self.view.moveCursor(QTextCursor.Start)

    def _select(self, i: int) -> None:
        if 0 <= i < len(self.matches) and i != self.selected:
            self.selected = i
            self._render()

    def mouseDoubleClickEvent(self, e):  # noqa: N802
        self.insertRequested.emit(self.selected)
