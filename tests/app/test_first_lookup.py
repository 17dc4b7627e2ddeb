"""The first TM match of a project's opening: the row a document opens on is searched while the
document loads (engine/store/first_row.py, SegmentFlow.look_up_first)."""
from __future__ import annotations

from engine.store import Project

from app.main_window import MainWindow
from editor_helpers import make_project


def test_the_row_a_document_opens_on_is_looked_up_before_its_rows_load(qtbot, tmp_path, monkeypatch):
    """The TM thread searches the first open row while the UI thread loads the document (the search of
    a new TM's first row waited 0.2-0.8 s behind the window being built): one search, for that row."""
    from app.segment_model import SegmentTableModel
    from app.tmservice import TMService

    asked: list[tuple] = []
    loaded_with: list[list] = []
    real_lookup, real_init = TMService.lookup, SegmentTableModel.__init__

    def lookup(self, key, query, k=5):
        asked.append((key, query.text))
        real_lookup(self, key, query, k)

    def init(self, *a, **kw):
        loaded_with.append(list(asked))
        real_init(self, *a, **kw)

    monkeypatch.setattr(TMService, "lookup", lookup)
    monkeypatch.setattr(SegmentTableModel, "__init__", init)
    folder = make_project(tmp_path / "p", ["The house is big.", "Open the file.", "Save it."])
    with Project.open(folder) as p:
        first = p.segments(p.documents()[0].id)[0]
        p.set_target(first.id, "Das Haus ist groß.", status="confirmed")
    win = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 1, timeout=30_000)
    qtbot.wait(300)  # a second lookup would have been asked by now
    assert [text for _, text in loaded_with[0]] == ["Open the file."]
    assert [text for _, text in asked] == ["Open the file."] and asked[0][0] == (win.model.document_id, 1)


def test_a_new_tm_folder_starts_its_index_build_once_the_first_match_is_shown(qtbot, tmp_path, monkeypatch):
    """The build's and the scan's processes start after the first match (started with the TM, they
    took the CPU from the window's first paint and search); the index is still built."""
    import shutil

    from engine.tm import index_process, scan
    from engine.tm import memory as memory_mod
    from engine.tm.memory import TranslationMemory

    folder = make_project(tmp_path / "p", ["Sentence number 7 about layer 7.", "Other."])
    with TranslationMemory(folder / "tm", src_lang="en", tgt_lang="de") as tm:
        tm.add_many([(f"Sentence number {i} about layer {i}.", f"Satz {i} zu Ebene {i}.") for i in range(200)])
    shutil.rmtree(folder / "tm" / "index")  # a TM folder received from someone: its index rebuilt
    monkeypatch.setattr(memory_mod, "BACKGROUND_MIN", 100)
    started: list[tuple[str, int | None]] = []
    win = None
    real_ctx, real_start = index_process.multiprocessing.get_context, scan.ScanProcess._start

    def get_context(*a):
        started.append(("build", win.shown_for.get("matches") if win is not None else None))
        return real_ctx(*a)

    def start(self):
        started.append(("scan", win.shown_for.get("matches") if win is not None else None))
        real_start(self)

    monkeypatch.setattr(index_process.multiprocessing, "get_context", get_context)
    monkeypatch.setattr(scan.ScanProcess, "_start", start)
    win = MainWindow(Project.open(folder), nmt=False)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.shown_for.get("matches") == 0, timeout=30_000)
    assert any(m.match.target.text == "Satz 7 zu Ebene 7." and m.score == 1.0 for m in win.matches.matches)
    qtbot.waitUntil(lambda: not any(t.rebuilding for t in win.tm.tms), timeout=60_000)
    assert sorted(started) == [("build", 0), ("scan", 0)]
