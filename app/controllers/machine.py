"""Training and models: the suggestion engine (``app/suggest.py``) and what it shows -- the
suggestion, the completion of what is typed (on its panel line, and as grey ghost text after the
cursor, asked again at each keystroke that leaves it behind), the alignment of both -- inserting
them, and Tools ▸ Train a Model and Tools ▸ Models, which change the project's model."""
from __future__ import annotations

from pathlib import Path

from engine.resources import default_model_dir
from engine.store import Project
from engine.training.models import serves as model_serves

from app import keymap
from app.controllers.base import Controller
from app.preferences import ProjectSettings, preferences
from app.suggest import NMTService


class MachineController(Controller):
    def __init__(self, win):
        super().__init__(win)
        f = win.flow
        f.translating.connect(lambda row: win.suggestion.working())
        f.suggestionReady.connect(self._show_suggestion)
        f.completionReady.connect(self._show_completion)
        f.forcedReady.connect(self._show_forced)
        win.suggestion.insertRequested.connect(self.insert_suggestion)
        win.suggestion.completionRequested.connect(self.insert_completion)
        win.alignment.wordClicked.connect(self._alignment_clicked)
        win.alignment.choice.currentIndexChanged.connect(lambda i: i == 1 and win.flow.score_own_target())
        win.delegate.editorCreated.connect(self._editor_created)

    # --------------------------------------------------------- the engine
    def project_opened(self, project: Project) -> None:
        from app.training import notice

        text = notice(project)
        if text:
            self.say(text, 15000)
        if self.win.use_nmt:
            self._start_nmt(default_model_dir(project))
        else:
            self.win.suggestion.show_message("Machine suggestions are off.")

    def _start_nmt(self, model_dir: Path | None) -> None:
        win = self.win
        if win.nmt is not None:
            win.nmt.close()
            win.nmt.deleteLater()
        prefs = preferences()
        nmt = win.nmt = NMTService(model_dir, win, beam=prefs.beam, threads=prefs.threads, quantize=prefs.quantize,
                                   terms_mode=prefs.glossary_terms, memory_mode=prefs.memory_mode)
        if model_dir is None and win.project is not None:  # none of the project's pair (the line it shows)
            from app.panels.suggestion import no_model_message
            nmt.error = no_model_message(win.project.src_lang, win.project.tgt_lang)
        win.flow.set_nmt(nmt)
        nmt.unavailable.connect(win.suggestion.show_message)
        nmt.failed.connect(lambda key, msg: win.suggestion.show_message(f"Translation failed: {msg}"))
        nmt.loaded.connect(self._nmt_loaded)

    def close_nmt(self) -> None:
        self.win.flow.set_nmt(None)
        if self.win.nmt is not None:
            self.win.nmt.close()
            self.win.nmt.deleteLater()
            self.win.nmt = None

    def _nmt_loaded(self, folder: str) -> None:
        in_use = self.win.nmt.memory_in_use() if self.win.nmt is not None else ""
        self.win.suggestion.show_message(f"Model loaded: {Path(folder).name}" + (f" ({in_use})" if in_use else ""))
        self.win.nav.reenter()

    def use_model(self, folder: str) -> None:
        """Make ``folder`` the project's model and reload the suggestion engine."""
        if self.win.project is None:
            return
        ProjectSettings(self.win.project).model = str(folder)
        if self.win.use_nmt:
            self._start_nmt(Path(folder))
            self.win.flow.row = None

    def clear_panels(self) -> None:
        """No document: the suggestion and alignment panels show nothing of the last one."""
        win = self.win
        if win.nmt is None:
            win.suggestion.show_message("")
        else:
            win.suggestion.working()
            win.suggestion.status.setText("")
        win.alignment.set_suggestion(None)
        win.alignment.set_forced(None)

    # --------------------------------------------------------- what it shows
    def _show_suggestion(self, row: int, view, tags) -> None:
        self.win.suggestion.show_view(view, tags)
        self.win.alignment.set_suggestion(view)
        self.win.panelUpdated.emit(row, "suggestion")

    def _show_completion(self, row: int, view, tags) -> None:
        self.win.suggestion.show_completion(view, tags)
        shown = self.win.suggestion.completion or view  # as the panel mends it (tags, separators back)
        self._ghost_from(shown, view.extra.get("prefix", ""))
        self.win.panelUpdated.emit(row, "completion")

    # --------------------------------------------------------- ghost text
    def _editor_created(self, ed) -> None:
        ed.ghost_keys = (tuple(keymap.shortcuts(self.win.preset, "accept_ghost_word")),
                         tuple(keymap.shortcuts(self.win.preset, "accept_ghost_rest")))
        ed.ghostWanted.connect(self.typed)

    def _ghost_from(self, view, typed: str) -> bool:
        """Show ``view``'s text after ``typed`` as ghost text in the open box, where it continues it."""
        ed = self.win.editor()
        if ed is None or view is None or not typed or not view.text.startswith(typed):
            return False
        return ed.set_ghost(typed, view.text[len(typed):])

    def typed(self, text: str) -> None:
        """A keystroke left no ghost text: the suggestion shown where it continues what is typed (no
        engine call), else a completion asked at once -- it supersedes the one under way, which stops
        at its next search step (NMTService.complete, LatestOnly)."""
        win = self.win
        if not text.strip() or not preferences().complete or win.model is None or win.flow.row is None:
            return
        view = win.suggestion.current
        if view is not None and view.source == win.model.segment(win.flow.row).source.text and self._ghost_from(view, text):
            return
        win.flow.complete(view)

    def _show_forced(self, row: int, view) -> None:
        self.win.alignment.set_forced(view)
        self.win.panelUpdated.emit(row, "forced")

    def request_completion(self) -> None:
        """A typing pause: ask for the completion of what is typed (unless ghost text continues it)."""
        ed = self.win.editor()
        if ed is None or not ed.ghost.rest:
            self.win.flow.complete(self.win.suggestion.current)

    def _alignment_clicked(self, i: int, src_idx: list) -> None:
        win = self.win
        view = win.alignment.heat.view
        if view is None:
            return
        words = [view.src_words[j] for j in src_idx if j < len(view.src_words)]
        self.say(f"“{view.words[i]}” ← " + ", ".join(f"“{w}”" for w in words), 6000)
        if win.flow.row is not None:
            win.delegate.set_highlight(win.model.segment(win.flow.row).source.text, words)

    # --------------------------------------------------------- inserting
    def insert_suggestion(self) -> None:
        """Ctrl+0: the machine suggestion for this segment's source (never a completion)."""
        win = self.win
        view = win.suggestion.current
        if win.model is None or view is None or view.source != win.model.segment(win.current_row()).source.text:
            self.say("No machine suggestion for this segment yet.", 3000)
            return
        win.editing.put_in_editor(view.text, origin="mt", score=None)

    def insert_completion(self) -> None:
        """Ctrl+Shift+0: what was typed plus the engine's completion of it."""
        win = self.win
        view = win.suggestion.completion
        ed = win.editor()
        if win.model is None or view is None or ed is None or not view.text.startswith(ed.segment_text()):
            self.say("No completion of what you typed yet.", 3000)
            return
        win.editing.put_in_editor(view.text, origin="mt", score=None)

    # --------------------------------------------------------- training and models
    def training_dialog(self):
        """Tools ▸ Train a Model: a new model for the pair or fine-tuning the current one; attaches to
        the project's run when one is going on or waits for a decision."""
        from app.dialogs.training import TrainingDialog
        from app.training import TrainingRun

        win = self.win
        if win.project is None:
            return None
        current = default_model_dir(win.project)
        folder = ProjectSettings(win.project).training_run
        run = TrainingRun(folder) if folder and Path(folder).is_dir() else None
        dlg = TrainingDialog(win, win.project, current,
                             current_pair=model_serves(current, win.project.src_lang, win.project.tgt_lang),
                             threads=preferences().threads, run=run)
        dlg.modelChosen.connect(self.use_model)
        dlg.runStarted.connect(lambda f: self._remember_run(f))
        dlg.runDismissed.connect(lambda f: self._remember_run(""))
        dlg.show()
        return dlg

    def _remember_run(self, folder: str) -> None:
        if self.win.project is not None:
            ProjectSettings(self.win.project).training_run = folder

    def models_dialog(self):
        """Tools ▸ Models: the models of the project's pair; use, delete, export, import."""
        from app.dialogs.models import ModelsDialog

        if self.win.project is None:
            return None
        dlg = ModelsDialog(self.win, self.win.project, default_model_dir(self.win.project))
        dlg.modelChosen.connect(self.use_model)
        dlg.show()
        return dlg
