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
