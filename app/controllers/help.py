"""Settings and help: Edit ▸ Settings (its changes applied to the keys and the suggestion
engine at once), Help ▸ Keyboard Shortcuts and Help ▸ About."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QMessageBox

from app import keymap
from app.controllers.base import Controller
from app.preferences import preferences


class HelpController(Controller):
    def settings_dialog(self):
        from app.dialogs.settings import SettingsDialog

        win = self.win
        dlg = SettingsDialog(win, win.nmt.memory_in_use() if win.nmt is not None else "")
        if dlg.exec():
            prefs = preferences()
            win.apply_preset(str(prefs.preset))
            if win.nmt is not None:
                win.nmt.set_modes(memory_mode=prefs.memory_mode, terms_mode=prefs.glossary_terms)
        return dlg

    def shortcuts_dialog(self):
        """Help ▸ Keyboard Shortcuts: every action with its keys in the current preset."""
        from app.dialogs.help import ShortcutsDialog

        rows = [(a.text().replace("&", "").rstrip("…"), a.shortcut().toString(QKeySequence.NativeText))
                for a in self.win.actions_by_id.values() if not a.shortcut().isEmpty()]
        rows += [("Insert the source's n-th tag", "Alt+1 … Alt+9"),
                 ("Copy / cut / paste in the target (tags kept)", "Ctrl+C / Ctrl+X / Ctrl+V")]
        rows += keymap.editor_key_rows(self.win.preset)
        dlg = ShortcutsDialog(self.win, rows)
        dlg.show()
        return dlg

    def about_dialog(self):
        from app.dialogs.help import about_text

        box = QMessageBox(QMessageBox.Information, "About Verso", about_text(), QMessageBox.Ok, self.win)
        box.setTextFormat(Qt.RichText)
        box.show()
        return box
