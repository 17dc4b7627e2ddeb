"""Glossary: the terms of the project's glossaries found in the current source, numbered
(Ctrl+Alt+1..9 inserts the preferred target term of one), each with its other accepted
target terms, part of speech, note, and the forbidden variants struck through."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from engine.glossary import GlossaryEntry, TermHit

TERM_COLOUR = "#0b3d91"
FORBIDDEN_COLOUR = "#c92a2a"


def unique_entries(hits: list[TermHit]) -> list[GlossaryEntry]:
    """The entries of ``hits`` in text order, each once (a term found twice is listed once)."""
    out: list[GlossaryEntry] = []
    seen: set = set()
    for h in sorted(hits, key=lambda h: h.start):
        key = (h.entry.source.casefold(), h.entry.targets)  # the same terms in two glossaries: once
        if key not in seen:
            seen.add(key)
            out.append(h.entry)
    return out


class GlossaryPanel(QWidget):
    """Shows the :class:`~engine.glossary.TermHit` list of one source; ``insertRequested(n)``
    (0-based) when a term's number is clicked."""

    insertRequested = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hits: list[TermHit] = []
        self.entries: list[GlossaryEntry] = []   # what the numbers insert, in order
        self.status = QLabel("No segment", self)
        self.status.setWordWrap(True)
        self.view = QTextBrowser(self)
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(self._clicked)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.status)
        lay.addWidget(self.view, 1)

    def show_message(self, text: str) -> None:
        self.hits, self.entries = [], []
        self.view.clear()
        self.status.setText(text)

    def show_hits(self, hits: list[TermHit]) -> None:
        self.hits = list(hits)
        self.entries = unique_entries(self.hits)
        if not self.entries:
            self.view.clear()
            self.status.setText("No glossary term in this segment.")
            return
        n = len(self.entries)
        self.status.setText(f"{n} term{'s' if n != 1 else ''} · Ctrl+Alt+1…{min(9, n)} inserts")
        self.view.setHtml("".join(self._entry_html(i, e) for i, e in enumerate(self.entries)))

    def text(self) -> str:
        """What the panel shows, as plain text (tests, accessibility)."""
        return self.view.toPlainText()

    @staticmethod
    def _entry_html(i: int, e: GlossaryEntry) -> str:
        num = f'<a href="term:{i}" style="text-decoration:none"><b>{i + 1}</b></a>' if i < 9 else f"<b>{i + 1}</b>"
        src = escape(e.source)
        if e.status == "deprecated":
            src += ' <span style="color:#888">(deprecated source term)</span>'
        targets = ", ".join(f'<b style="color:{TERM_COLOUR}">{escape(t)}</b>' if k == 0 else escape(t)
                            for k, t in enumerate(e.targets)) or '<i style="color:#888">no target term</i>'
        out = [f'<p style="margin-top:4px; margin-bottom:0">{num}&nbsp;&nbsp;{src} → {targets}']
        if e.pos:
            out.append(f' <span style="color:#666">({escape(e.pos)})</span>')
        out.append("</p>")
        extra = []
        if e.forbidden:
            bad = ", ".join(f'<s>{escape(t)}</s>' for t in e.forbidden)
            extra.append(f'<span style="color:{FORBIDDEN_COLOUR}">do not use: {bad}</span>')
        if e.note:
            extra.append(f'<span style="color:#666"><i>{escape(e.note)}</i></span>')
        if extra:
            out.append('<p style="margin-top:0; margin-bottom:0; margin-left:18px">' + " · ".join(extra) + "</p>")
        return "".join(out)

    def _clicked(self, url: QUrl) -> None:
        s = url.toString()
        if s.startswith("term:") and s[5:].isdigit():
            self.insertRequested.emit(int(s[5:]))
