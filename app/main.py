"""Start the Qt application and open the main window."""
from __future__ import annotations

import app.qtcompat  # noqa: F401  (PySide6 6.12 None refcount workaround; first Qt use)

import sys
from pathlib import Path


def run_editor(project_dir: Path | None = None, *, exec_loop: bool = True) -> int:
    from PySide6.QtWidgets import QApplication

    from engine.demo import ensure_demo_project
    from engine.store import Project

    from app.main_window import MainWindow
    from app.uipost import collect_on_ui_thread

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Verso")
    app.setOrganizationName("Verso")
    collect_on_ui_thread()   # garbage with Qt objects in it is freed on this thread, never a job's
    folder = project_dir or ensure_demo_project()
    win = MainWindow(Project.open(folder))
    win.show()
    if not exec_loop:
        return 0
    return app.exec()
