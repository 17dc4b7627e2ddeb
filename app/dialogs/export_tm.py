"""Export the project's writable TM as TMX 1.4b (on the TM thread)."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox


def export_tm(window, tm_service, out: Path) -> None:
    def job(control):
        from engine.formats.tmx import write_tmx

        tm = tm_service.writable()
        return write_tmx(out, tm.tm_units(), src_lang=tm.src_lang or "*all*")

    tm_service.run(job, on_result=lambda n: window.statusBar().showMessage(f"Exported {n} units to {out}", 6000),
                   on_error=lambda msg: QMessageBox.critical(window, "Verso", msg))
