"""The target language's dictionary loads off the UI thread; a window closed before that job ran
must not leave the job reading the closed project (a read on a closed sqlite connection from a
pool thread took the whole test process down once: CI at 6648a2b)."""
from __future__ import annotations

import threading

from app.controllers import delivery
from app.main_window import MainWindow
from app.workers import Worker, start
from engine.spelling import SpellChecker
from engine.store import Project

from editor_helpers import make_project


def test_the_dictionary_job_of_a_window_closed_before_it_ran_never_reads_the_closed_project(
        qtbot, tmp_path, monkeypatch):
    gate, held = threading.Event(), threading.Semaphore(0)
    pool = delivery.spell_pool()

    def hold(control):
        held.release()
        gate.wait(30)

    blockers = [start(Worker(hold), pool) for _ in range(pool.maxThreadCount())]
    for _ in blockers:
        assert held.acquire(timeout=30)          # every thread of the spelling pool is busy
    asked = []
    monkeypatch.setattr(SpellChecker, "for_language",
                        classmethod(lambda cls, lang, words=(), **k: asked.append(lang)))
    win = MainWindow(Project.open(make_project(tmp_path / "p", ["First sentence."], tm=False)), nmt=False)
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: getattr(win.delivery, "_spell_worker", None) is not None, timeout=30_000)
    job = win.delivery._spell_worker
    errors = []
    job.signals.error.connect(errors.append)
    win.close()                                   # the project closes while its dictionary job waits
    gate.set()
    assert job.wait(30)
    assert errors == [] and asked == [win_lang(tmp_path)]


def win_lang(tmp_path) -> str:
    with Project.open(tmp_path / "p") as p:
        return p.tgt_lang
