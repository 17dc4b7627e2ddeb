"""A status-bar label saying when the shared TM is offline or read-only
(:attr:`app.tmservice.TMService.shared_state`); hidden while all is well."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel


class TMStatusLabel(QLabel):
    NAME = "sharedTmStatus"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName(self.NAME)
        self.setStyleSheet("color: #b35c00; padding: 0 6px;")
        self.hide()

    def show_state(self, msg: str) -> None:
        self.setText(f"⚠ {msg}" if msg else "")
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
