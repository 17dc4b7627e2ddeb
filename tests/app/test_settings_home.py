"""The editor's own settings (Open Recent, presets, ...) live under VERSO_HOME when it is set:
two users or two test runs with their own VERSO_HOME never share an Open Recent list."""
from __future__ import annotations

from editor_helpers import make_project
from test_editor import open_window


def recent_items(win) -> list[str]:
    return [a.text() for a in win.documents.recent_menu.actions()]


def test_open_recent_is_kept_under_verso_home_and_another_home_does_not_share_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "ann"))
    first = make_project(tmp_path / "one", ["One."], tm=False)
    win = open_window(qtbot, first)
    assert recent_items(win) == [str(first.resolve())]
    assert str(first.resolve()) in "".join(p.read_text(encoding="utf-8")
                                          for p in (tmp_path / "ann").rglob("*") if p.is_file()
                                          and p.suffix in (".ini", ".conf"))
    win.close()

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "bob"))
    second = make_project(tmp_path / "two", ["Two."], tm=False)
    win = open_window(qtbot, second)
    assert recent_items(win) == [str(second.resolve())]  # not ann's project
    win.close()

    monkeypatch.setenv("VERSO_HOME", str(tmp_path / "ann"))
    win = open_window(qtbot, second)
    assert recent_items(win) == [str(second.resolve()), str(first.resolve())]
