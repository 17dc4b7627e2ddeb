"""TM and glossary: the project's TM thread (``app/tmservice.py``), the TM matches and the
glossary terms of the segment (from the segment flow's signals), inserting either, the
concordance, the TM editor, TMX import and export, and adding a term to the project's glossary."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.errors import VersoError
from engine.store import Project

from app.controllers.base import Controller
from app.controllers.documents import freeze_heap
from app.tmservice import TMService, adapt_tags


def no_glossary_text() -> str:
    return "This project has no glossary (Tools ▸ Add Term to Glossary, Ctrl+Shift+G, starts one)."


class MemoryController(Controller):
    def __init__(self, win):
        super().__init__(win)
        self.terms_ready = False       # the term index has answered (tests wait on it)
        self._terms_generation = 0     # a term index built for an older request is dropped
        self.tm_editor = None          # the open TM editor (Tools ▸ TM Editor)
        win.matches.insertRequested.connect(self.insert_match)
        win.glossary.insertRequested.connect(self.insert_term)
        win.concordance.searchRequested.connect(self._concordance_search)
        win.flow.searching.connect(lambda row: win.matches.searching())
        win.flow.matchesReady.connect(self._show_matches)
        win.flow.termsReady.connect(self._show_terms)

    # --------------------------------------------------------- the TM thread
    def project_opened(self, project: Project) -> None:
        win = self.win
        self.confirm_outside_tms(project)
        tm = win.tm = TMService(project, win)
        win.flow.set_tm(tm)
        win.flow.set_terms(None)  # the last project's terms go; this one's load below
        tm.lookups.failed.connect(lambda key, msg: win.matches.show_message(f"TM search failed: {msg}"))
        tm.concordances.ready.connect(lambda key, hits: win.concordance.show_hits(hits))
        tm.failed.connect(lambda msg: self.say(f"TM: {msg}", 8000))
        tm.opened.connect(lambda n: freeze_heap(collect=False))  # the TMs' long-lived objects
        tm.opened.connect(lambda n: win.nav.segment_entered(win.current_row()) if win.model else None)
        tm.indexing.connect(lambda msg: self.say(msg, 3000) if msg else None)
        resent = tm.send_pending(project)  # queued after the TMs open, before any lookup
        if resent:
            self.say(f"{resent} confirmed segment(s) the last session did not finish writing are being added "
                     "to the TM.", 8000)
        if not tm.infos:
            win.matches.show_message("No TM attached to this project (File ▸ Import TMX adds one).")
        self.load_terms(project)

    def confirm_outside_tms(self, project: Project) -> None:
        """Asked once when the project lists TM folders, glossaries or shared-TM servers outside itself
        that no one here confirmed (a received project decides nothing outside itself): yes records
        them (a server for every project that names it), no leaves them out."""
        from engine.store import trusted
        from engine.tm.open import unconfirmed_tms
        from engine.urls import strip_credentials

        strange = unconfirmed_tms(project)
        glossaries = [r for r in project.glossary_refs(outside="allow") if r not in project.glossary_refs()]
        if not strange and not glossaries:
            return
        names = "\n".join([f"  {strip_credentials(str(t.ref))}" for t in strange]
                          + [f"  {r.path} (glossary)" for r in glossaries])
        answer = QMessageBox.question(
            self.win, "TMs outside the project",
            f"This project lists translation memories or glossaries outside its own folder:\n\n{names}\n\n"
            "A project from someone else could read or fill another client's TM this way. Use them?",
            QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
        if answer == QMessageBox.Yes:
            trusted.confirm(project.folder, [Path(t.ref) for t in strange if not t.shared]
                            + [r.path for r in glossaries])
            trusted.confirm_servers([str(t.ref) for t in strange if t.shared])
        else:
            self.say(f"{len(strange) + len(glossaries)} TM(s) or glossaries outside the project left out.", 8000)

    def close_tm(self) -> None:
        if self.tm_editor is not None:  # it reads and writes this project's TMs
            self.tm_editor.close()
        self.win.flow.set_tm(None)
        if self.win.tm is not None:
            self.win.tm.close()
            self.win.tm.deleteLater()
            self.win.tm = None

    def _show_matches(self, row: int, source, found) -> None:
        self.win.matches.show_matches(source, found)
        self.win.panelUpdated.emit(row, "matches")

    def insert_match(self, n: int) -> None:
        """Ctrl+N: put TM match N (0-based here) into the target."""
        win = self.win
        if win.model is None or not (0 <= n < len(win.matches.matches)):
            self.say(f"There is no match {n + 1}.", 3000)
            return
        fm = win.matches.matches[n]
        seg = win.model.segment(win.current_row())
        win.editing.put_in_editor(adapt_tags(fm.match, seg.source), origin="tm", score=fm.match.score)
        win.tm.record_use(fm.match.entry.id, fm.tm)

    # --------------------------------------------------------- concordance
    def open_concordance(self) -> None:
        win = self.win
        ed = win.editor()
        sel = ed.textCursor().selectedText().strip() if ed is not None else ""
        win.dock_concordance.show()
        win.dock_concordance.raise_()
        win.concordance.edit.setFocus()
        if sel:
            win.concordance.search(sel)

    def _concordance_search(self, phrase: str, side: str) -> None:
        if self.win.tm is None or not self.win.tm.infos:
            self.win.concordance.show_hits([])
            return
        self.win.tm.concordance(phrase, phrase, side)

    def tm_editor_dialog(self):
        """Tools ▸ TM Editor: browse, search, edit and delete the units of the project's TMs.
        Returns the dialog (open, not modal)."""
        from app.controllers.tm_editor import TMEditorController
        from app.dialogs.tm_editor import TMEditorDialog

        tm = self.win.tm
        if tm is None or not tm.infos:
            self.say("This project has no TM (File ▸ Import TMX adds one).", 5000)
            return None
        dlg = TMEditorDialog(self.win, [f"{i.name} (shared)" if i.shared else i.name for i in tm.infos])
        dlg.controller = TMEditorController(tm, dlg)
        dlg.controller.unitsChanged.connect(self._look_up_again)
        dlg.finished.connect(lambda _: self._tm_editor_closed(dlg))
        dlg.controller.search(dlg.unit_filter())
        dlg.show()
        self.tm_editor = dlg
        return dlg

    def _look_up_again(self) -> None:
        """The TM matches of the segment the translator is in, again (a unit shown may have changed)."""
        flow = self.win.flow
        if self.win.model is not None and flow.row is not None:
            flow.enter(flow.row)

    def _tm_editor_closed(self, dlg) -> None:
        if self.tm_editor is dlg:
            self.tm_editor = None
        dlg.deleteLater()

    # --------------------------------------------------------- TM files
    def import_tm_dialog(self):
        from app.dialogs.import_tm import ImportTMDialog

        if self.win.project is None:
            return None
        dlg = ImportTMDialog(self.win, self.win.project, self.win.tm)
        dlg.show()
        return dlg

    def export_tm_dialog(self) -> None:
        from app.dialogs.export_tm import export_tm

        tm = self.win.tm
        if tm is None or tm.writable_info() is None:
            QMessageBox.information(self.win, "Verso", "This project has no writable TM to export.")
            return
        path, _ = QFileDialog.getSaveFileName(self.win, "Export TM as TMX", "memory.tmx", "TMX (*.tmx)")
        if path:
            export_tm(self.win, tm, Path(path))

    # --------------------------------------------------------- glossary
    def load_terms(self, project: Project) -> None:
        """Build the project's term index (every glossary's source terms, stemmed) off the UI
        thread, when the project opens and after a term is added; until it is ready the
        glossary panel says so.  Looking a segment up in it then costs well under a millisecond."""
        from app.workers import Worker, start

        from engine.glossary import load_term_index

        win = self.win
        self._terms_generation += 1
        gen = self._terms_generation
        refs, lang = project.glossary_refs(), project.src_lang  # read here: the project is the UI thread's
        if win.flow.terms is None:
            win.glossary.show_message("Loading the glossaries…" if refs else no_glossary_text())

        def job(control):
            return load_term_index([r.path for r in refs], lang)

        def done(index):
            if win.project is project and gen == self._terms_generation:  # not another project, not stale
                self.terms_ready = True
                win.flow.set_terms(index)

        def failed(msg):
            if win.project is project and gen == self._terms_generation:
                self.terms_ready = True
                win.glossary.show_message(f"The glossaries could not be read: {msg}")

        self.terms_ready = False
        w = Worker(job)
        w.signals.result.connect(done)
        w.signals.error.connect(failed)
        self._terms_worker = start(w)

    def _show_terms(self, row: int, hits) -> None:
        win = self.win
        source = win.model.segment(row).source.text if win.model is not None else None
        win.delegate.set_terms(source, [(h.start, h.end) for h in hits])
        if win.flow.terms is not None:
            win.glossary.show_hits(hits)
        elif self.terms_ready:
            win.glossary.show_message(no_glossary_text())
        win.panelUpdated.emit(row, "terms")

    def insert_term(self, n: int) -> None:
        """Ctrl+Alt+N: the preferred target term of glossary term N (0-based here) at the cursor
        of the target box, as one undo step of the box."""
        win = self.win
        entries = win.glossary.entries
        if win.model is None or not (0 <= n < len(entries)) or not entries[n].target:
            self.say(f"There is no glossary term {n + 1}.", 3000)
            return
        ed = win.editor()
        if ed is None:
            win.nav.go_to(win.current_row())
            ed = win.editor()
        if ed is None:
            return
        cur = ed.textCursor()
        cur.beginEditBlock()
        cur.insertText(entries[n].target)
        cur.endEditBlock()
        # Qt merges an insertion and the typing right after it into one undo command;
        # an unmodified document starts a new one, so Ctrl+Z takes the term alone.
        ed.document().setModified(False)
        ed.setTextCursor(cur)
        ed.setFocus()

    def add_term_dialog(self):
        """Ctrl+Shift+G: a term for the project's glossary, the target prefilled from the text
        selected in the target box, the source from the source words highlighted in the grid
        (a word clicked in the alignment panel).  Returns the dialog (open, window-modal)."""
        from app.dialogs.add_term import AddTermDialog

        win = self.win
        if win.project is None:
            return None
        ed = win.editor()
        target = ed.textCursor().selectedText().replace("\u2029", " ") if ed is not None else ""
        target = "".join(ch for ch in target if not 0xE000 <= ord(ch) <= 0xF8FF)  # no tag chips in a term
        source = ""
        hl, row = win.delegate.highlight, win.flow.row
        if hl is not None and win.model is not None and row is not None \
                and hl[0] == win.model.segment(row).source.text:
            source = " ".join(hl[1])
        dlg = AddTermDialog(win, source=source, target=target, src_lang=win.project.src_lang,
                            tgt_lang=win.project.tgt_lang)
        dlg.accepted.connect(lambda: self.add_term(dlg.entry()))
        dlg.open()
        return dlg

    def add_term(self, entry) -> bool:
        """Write ``entry`` (a GlossaryEntry) to the project's writable glossary and rebuild the
        term index, so the glossary panel shows it at once."""
        from app.dialogs.add_term import save_term

        if self.win.project is None:
            return False
        try:
            stored = save_term(self.win.project, entry)
        except VersoError as e:
            QMessageBox.critical(self.win, "Verso", f"The term was not added: {e}")
            return False
        self.say(f"Added to the glossary: {stored.source} → {stored.target}")
        self.load_terms(self.win.project)
        return True
