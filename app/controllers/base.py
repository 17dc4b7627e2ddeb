"""What every controller has: the window it serves and a line in its status bar."""
from __future__ import annotations

from PySide6.QtCore import QObject


class Controller(QObject):
    def __init__(self, win):
        super().__init__(win)
        self.win = win

    def say(self, text: str, ms: int = 5000) -> None:
        """One line in the window's status bar for ``ms`` milliseconds."""
        self.win.statusBar().showMessage(text, ms)

    def fill_menu(self, name: str, menu) -> None:
        """Fill the menu placeholder ``name`` this controller owns (``app/actions.py``)."""
        raise KeyError(f"{type(self).__name__} owns no menu placeholder {name!r}")
