"""File ▸ Open Package… and File ▸ Create Return Package: an agency's Trados/memoQ package as a project
(engine/packages), its instructions shown once; the return package through the export tag gate."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.controllers.base import Controller
from engine.errors import TagErrorsError, VersoError

PACKAGE_FILTER = "Packages (*.sdlppx *.mqout *.mqxlz);;All files (*)"


class PackageController(Controller):
    def open_package_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.win, "Open package", "", PACKAGE_FILTER)
        if not path:
            return
        parent = QFileDialog.getExistingDirectory(self.win, "Folder for the new project", str(Path(path).parent))
        if parent:
            self.open_package(Path(path), Path(parent) / Path(path).stem)

    def open_package(self, path: Path, folder: Path):
        """Make the project ``folder`` from the package off the UI thread (a TM inside can take a
        minute to import), with progress and Cancel; then open it and show what the package says.
        A cancelled or refused open leaves no project.  Returns the :class:`~app.workers.Worker`
        (tests wait on its signals)."""
        from PySide6.QtWidgets import QProgressDialog

        from app.workers import Worker, start
        from engine.packages import open_package

        win = self.win
        dlg = QProgressDialog(f"Opening {path.name}…", "Cancel", 0, 0, win)
        dlg.setWindowTitle("Open package")
        dlg.setMinimumDuration(400)
        self.progress_dialog = dlg

        def job(control):
            def tick(text: str) -> None:
                control.progress(text=text)
                control.check()   # Cancel: open_package removes what it made

            return open_package(path, folder, progress=tick)

        def done(opened) -> None:
            from app.dialogs.package_info import PackageInfoDialog

            dlg.reset()
            self.opened = opened
            win.documents.open_project(folder)
            self.dialog = PackageInfoDialog(path.name, opened, win)
            self.dialog.open()

        w = Worker(job)
        w.signals.progress.connect(lambda e: dlg.setLabelText(e.get("text", "")))
        w.signals.result.connect(done)
        w.signals.error.connect(lambda msg: (dlg.reset(), QMessageBox.critical(win, "Open package", msg)))
        w.signals.cancelled.connect(lambda: (dlg.reset(), self.say(
            f"Opening {path.name} cancelled: no project was made.")))
        dlg.canceled.connect(w.cancel)
        self.opened = None
        self._open_worker = start(w)
        return w

    def return_package_dialog(self) -> None:
        from engine.packages import KINDS, package_record

        win = self.win
        if win.project is None:
            return
        try:
            rec = package_record(win.project)
        except VersoError as e:
            QMessageBox.critical(win, "Create return package", str(e))
            return
        if rec is None:
            QMessageBox.information(win, "Create return package",
                                    "This project was not opened from a package (File ▸ Open Package…).")
            return
        win.nav.commit_editor()
        ext = KINDS[rec.kind]
        proposed = win.project.folder / "exports" / (Path(rec.name).stem + ext)
        proposed.parent.mkdir(parents=True, exist_ok=True)
        path, _ = QFileDialog.getSaveFileName(win, "Create return package", str(proposed), f"Return package (*{ext})")
        if path:
            self.write_return(Path(path))

    def write_return(self, out: Path) -> bool:
        """Write the return package; tag errors stop it unless the translator says to go ahead."""
        from engine.packages import return_package

        try:
            try:
                res = return_package(self.win.project, out)
            except TagErrorsError as e:
                rows = ", ".join(sorted({str(i.idx + 1) for i in e.issues}, key=int))
                answer = QMessageBox.question(self.win, "Create return package",
                                              f"Tag errors in segment(s) {rows}: the agency's tool may reject the "
                                              "file. Write the return package anyway?",
                                              QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
                if answer != QMessageBox.Yes:
                    return False
                res = return_package(self.win.project, out, force=True)
        except VersoError as e:
            QMessageBox.critical(self.win, "Create return package", str(e))
            return False
        self.say(f"Return package written: {out} ({len(res.files)} file(s))")
        return True
