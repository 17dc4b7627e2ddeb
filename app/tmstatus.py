"""A status-bar label saying when the shared TM is offline, read-only or refuses
this user (:attr:`app.tmservice.TMService.shared_state`); hidden while all is well.
A refusal names the grant to ask for, which is long: the label shows the start,
the tooltip and the status bar's message the whole line.

Beside it, :class:`ReplicaStatus`: what a shared TM's local replica is doing
(:attr:`~app.tmservice.TMService.replica_state`: its first copy, with a Cancel
button, then its index build); hidden once the replica answers searches."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

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


class ReplicaStatus(QWidget):
    """"Shared TM acme: copying 12,000 of 752,000 units [Cancel]", "... building its index (40 %)"."""

    NAME = "replicaStatus"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName(self.NAME)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 0, 6, 0)
        self.label = QLabel(self)
        self.label.setToolTip("Searches of this shared TM go to the server until this computer has its own copy; "
                              "after that they never wait for the network.")
        self.cancel = QToolButton(self)
        self.cancel.setObjectName("replicaCancel")
        self.cancel.setText("Cancel")
        self.cancel.setToolTip("Stop copying the shared TM to this computer (what was copied is kept; "
                               "the copy goes on when the project is opened again)")
        lay.addWidget(self.label)
        lay.addWidget(self.cancel)
        self.service = None
        self.cancel.clicked.connect(self._cancel)
        self.hide()

    def _cancel(self) -> None:
        self.cancel.setEnabled(False)
        if self.service is not None:
            self.service.cancel_sync()

    def show_state(self, msg: str, cancellable: bool) -> None:
        self.label.setText(self.label.fontMetrics().elidedText(msg, Qt.ElideRight, MAX_WIDTH))
        self.cancel.setVisible(cancellable)
        self.cancel.setEnabled(cancellable)
        self.setVisible(bool(msg))

    @classmethod
    def attach(cls, window, service) -> "ReplicaStatus":
        """The window's replica status (made once, in its status bar), following ``service``."""
        bar = window.statusBar()
        w = bar.findChild(cls, cls.NAME)
        if w is None:
            w = cls(bar)
            bar.addPermanentWidget(w)
        w.show_state("", False)
        w.service = service
        service.replica_state.connect(w.show_state)
        return w
