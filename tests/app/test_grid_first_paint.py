"""The grid's first paint: the rows on screen are fitted before they are drawn, each laid out once
for its height and its drawing, and a changed row is drawn with its new text."""
from __future__ import annotations

from collections import Counter

from app.grid_delegate import ChipDelegate
from app.segment_model import COL_SOURCE, COL_TARGET, ROLE_RAW
from app.main_window import MainWindow
from engine.store import Project

from editor_helpers import make_project

LONG = "This sentence is long enough to wrap onto several lines in a column of the grid, {n}. " * 3
SOURCES = [(LONG.format(n=i) if i % 3 == 0 else f"Short segment {i}.").strip() for i in range(60)]


def _recording(monkeypatch):
    """Every cell the delegate paints, as (row, column, painted height), and every document it lays out."""
    painted: list[tuple[int, int, int]] = []
    laid_out: list[str] = []
    paint, doc = ChipDelegate.paint, ChipDelegate._doc

    def recorded_paint(self, painter, option, index):
        painted.append((index.row(), index.column(), option.rect.height()))
        return paint(self, painter, option, index)

    def recorded_doc(self, tt, width, font, source=False):
        d = doc(self, tt, width, font, source)
        laid_out.append(d.toPlainText())
        return d

    monkeypatch.setattr(ChipDelegate, "paint", recorded_paint)
    monkeypatch.setattr(ChipDelegate, "_doc", recorded_doc)
    return painted, laid_out


def _open(qtbot, tmp_path, painted) -> MainWindow:
    win = MainWindow(Project.open(make_project(tmp_path / "p", SOURCES, tm=False)), nmt=False)
    qtbot.addWidget(win)
    win.resize(900, 600)
    win.show()
    qtbot.waitExposed(win, timeout=30_000)
    grid = win.grid  # drawn, and the fit timer and what follows it done (a busy machine takes longer than 150 ms)
    qtbot.waitUntil(lambda: bool(painted) and not grid._fit_timer.isActive() and not grid._fit_more.isActive()
                    and all(r in grid._fitted for r in grid.visible_rows()), timeout=30_000)
    return win


def test_rows_on_screen_are_drawn_at_their_fitted_height_from_the_first_paint(qtbot, tmp_path, monkeypatch):
    painted, _ = _recording(monkeypatch)
    win = _open(qtbot, tmp_path, painted)
    grid = win.grid
    assert any(r % 3 == 0 for r, c, h in painted), "the long rows were drawn"
    gap = 1 if grid.showGrid() else 0
    wrong = [(r, c, h, grid.rowHeight(r) - gap) for r, c, h in painted if h != grid.rowHeight(r) - gap]
    assert not wrong, f"cells drawn at another height than their fitted one (row, col, drawn, fitted): {wrong}"
    assert grid.rowHeight(0) > grid.rowHeight(1)  # the long first row is fitted, not the default height


def test_a_row_is_laid_out_once_for_its_height_and_its_drawing(qtbot, tmp_path, monkeypatch):
    painted, _ = _recording(monkeypatch)
    win = _open(qtbot, tmp_path, painted)
    rows = {r for r, c, h in painted if c == COL_SOURCE}
    assert rows
    per_text = Counter(key[0] for key in win.grid.delegate._cache)
    twice = {r: per_text[SOURCES[r]] for r in rows if per_text[SOURCES[r]] != 1}
    assert not twice, f"source cells laid out more than once (row: documents): {twice}"


def test_an_edited_target_is_drawn_with_its_new_text_and_height(qtbot, tmp_path, monkeypatch):
    painted, laid_out = _recording(monkeypatch)
    win = _open(qtbot, tmp_path, painted)
    grid, model = win.grid, win.grid.model()
    before = grid.rowHeight(1)
    painted.clear()
    laid_out.clear()
    new = "Ein neuer Text, lang genug, um in der Spalte des Rasters auf mehrere Zeilen umzubrechen. " * 3
    model.setData(model.index(1, COL_TARGET), new.strip(), ROLE_RAW)
    qtbot.waitUntil(lambda: (1, COL_TARGET) in {(r, c) for r, c, h in painted}, timeout=30_000)
    assert new.strip() in laid_out
    assert grid.rowHeight(1) > before
