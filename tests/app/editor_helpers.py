"""Helpers shared by the editor tests (a uniquely named module, not conftest,
so imports resolve the same way whatever else pytest collected)."""
from __future__ import annotations

from pathlib import Path


def make_project(folder: Path, sources: list[str], *, tm: bool = True) -> Path:
    """A project with one plain-text document of ``sources`` and an empty writable TM."""
    from engine.formats.base import ParsedDocument, ParsedSegment
    from engine.inline import protect
    from engine.store import Project

    original = folder.parent / f"{folder.name}-doc.txt"
    original.write_text("\n\n".join(sources), encoding="utf-8")
    segs = [ParsedSegment(f"k{i}", protect(s)) for i, s in enumerate(sources)]
    with Project.create(folder, src_lang="en", tgt_lang="de") as p:
        p.import_parsed(ParsedDocument(original.name, "txt", "en", "de", segs), original)
        if tm:
            p.set_setting("tms", '[{"path": "tm", "writable": true}]')
    return folder


def open_window(qtbot, folder: Path, model: Path):
    """The editor on project ``folder`` with ``model`` as its machine translation, one engine thread,
    shown and exposed."""
    from app.main_window import MainWindow, settings
    from engine.store import Project

    with Project.open(folder) as p:
        p.set_setting("model", str(model))
    settings().setValue("nmt/threads", 1)
    w = MainWindow(Project.open(folder))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=30_000)
    return w


def hold_jobs(monkeypatch):
    """Background jobs started from now on wait, on their pool thread, until the returned event is
    set: a test connects to a job's signals after the call that starts it, and a job that ran
    before that connection emitted to no one (a cross-thread signal with no connection is lost)."""
    import threading

    from app.workers import Worker

    gate, real = threading.Event(), Worker.run

    def run(self):
        gate.wait(60)
        real(self)

    monkeypatch.setattr(Worker, "run", run)
    return gate
