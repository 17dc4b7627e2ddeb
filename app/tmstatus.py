"""A status-bar label saying when the shared TM is offline, read-only or refuses
this user (:attr:`app.tmservice.TMService.shared_state`); hidden while all is well.
A refusal names the grant to ask for, which is long: the label shows the start,
the tooltip and the status bar's message the whole line."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

#: Widest the label grows (pixels); the rest of the message is in its tooltip.
MAX_WIDTH = 520


class TMStatusLabel(QLabel):
    NAME = "sharedTmStatus"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName(self.NAME)
        self.setStyleSheet("color: #b35c00; padding: 0 6px;")
        self.hide()

    def show_state(self, msg: str) -> None:
        text = f"⚠ {msg}" if msg else ""
        self.setText(self.fontMetrics().elidedText(text, Qt.ElideRight, MAX_WIDTH))
        self.setToolTip(msg)
        self.setVisible(bool(msg))
        bar = self.parent()
        if msg and hasattr(bar, "showMessage"):
            bar.showMessage(msg, 8000)

    @classmethod
    def attach(cls, window, service) -> "TMStatusLabel":
        """The window's label (made once, in its status bar), following ``service``."""
        bar = window.statusBar()
        label = bar.findChild(cls, cls.NAME)
        if label is None:
            label = cls(bar)
            bar.addPermanentWidget(label)
        label.show_state("")
        service.shared_state.connect(label.show_state)
        return label
