"""The glossary package's modules import one way: model <- recognise <- store <- formats/CLI."""
from __future__ import annotations

import ast
from pathlib import Path

import engine.glossary

PKG = Path(engine.glossary.__file__).parent


def _glossary_imports(path: Path) -> set[str]:
    """The engine.glossary modules ``path`` imports, at any depth (function-level imports too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine.glossary."):
            out.add(node.module.rsplit(".", 1)[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.rsplit(".", 1)[1] for a in node.names if a.name.startswith("engine.glossary."))
    return out


def test_glossary_modules_import_each_other_without_a_circle():
    graph = {p.stem: _glossary_imports(p) for p in PKG.glob("*.py") if p.stem != "__init__"}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        if state.get(m) == 1:
            raise AssertionError("import circle: " + " -> ".join(path + [m]))
        if state.get(m) == 2:
            return
        state[m] = 1
        for n in graph.get(m, ()):
            visit(n, path + [m])
        state[m] = 2

    for m in graph:
        visit(m, [])
    assert "store" not in graph["recognise"]
