"""File ▸ Align Documents…: the alignment dialog (app.dialogs.align_docs) and the one thing it
needs from the window -- the project's writable TM, written on the TM thread."""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QMessageBox

from app.controllers.base import Controller
from engine.align.totm import ORIGIN


class AlignController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.dialog = None

    def align_documents_dialog(self):
        from app.dialogs.align_docs import AlignDocsDialog

        win = self.win
        if win.project is None or win.tm is None:
            QMessageBox.information(win, "Verso", "Open a project first: aligned pairs go into its TM.")
            return None
        project = win.project
        self.dialog = AlignDocsDialog(win, project.src_lang, project.tgt_lang,
                                      lambda units, done: self.store(units, done))
        self.dialog.show()
        return self.dialog

    def store(self, units: list, done: Callable) -> None:
        """Add ``units`` to the project's writable TM (made when missing) on the TM thread; ``done``
        gets the ImportResult, or the one-line reason it failed."""
        tm, project = self.win.tm, self.win.project
        tm.ensure_writable(project)
        src, tgt = project.src_lang, project.tgt_lang

        def job(control):
            return tm.writable().import_units(iter(units), src_lang=src, tgt_lang=tgt, origin=ORIGIN)

        def ok(res):
            done(res)
            self.say(f"Aligned pairs added to the TM: {res.added} new, {res.updated} already there.")

        tm.run(job, on_result=ok, on_error=done)
