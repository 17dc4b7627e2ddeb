"""The one-way rule and the fast-start rule, checked on the real code."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    """import-linter: app -> engine only; engine has no Qt; TM/formats/store have no torch."""
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    r = subprocess.run(cmd + ["--config", str(ROOT / "pyproject.toml")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_code_is_lint_clean():
    """ruff with the project's rules (pyproject [tool.ruff]): no unused imports or variables,
    no undefined names, anywhere in the code, its tests, benchmarks, experiments and packaging."""
    exe = Path(sys.executable).with_name("ruff")
    cmd = [str(exe)] if exe.exists() else [shutil.which("ruff") or "ruff"]
    r = subprocess.run(cmd + ["check", "--no-cache", "engine", "app", "tests", "benchmarks", "experiments", "packaging"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_tm_formats_and_store_start_without_torch_or_qt():
    code = ("import sys, engine.formats, engine.store, engine.cli;"
            "import importlib;"
            "[importlib.import_module(m) for m in ('engine.tm', 'engine.formats.tmx') "
            " if importlib.util.find_spec(m)];"
            "bad = [m for m in ('torch', 'PySide6', 'sentencepiece') if m in sys.modules];"
            "print(','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "", f"fast-start modules pulled in: {r.stdout.strip()}"


def test_cli_help_needs_no_torch():
    r = subprocess.run([sys.executable, "-c",
                        "import sys; from engine.cli import build_parser; build_parser();"
                        "print('torch' in sys.modules)"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def _import_cycles(package: str) -> list[list[str]]:
    """Strongly connected groups of more than one module in ``package``'s import graph
    (function-level and TYPE_CHECKING imports count: each still ties the modules together)."""
    import grimp

    graph = grimp.build_graph(package, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):  # Tarjan, iterative: the graph is deep enough to hit the recursion limit
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(edges.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    group.append(m)
                    if m == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


#: Cycles still to untie (none today).  No cycle may join.
KNOWN_CYCLES: list[set[str]] = []


def test_engine_has_no_import_cycles():
    """A module never imports, directly or through others, a module that imports it
    (the QA finding type lives in engine/qa_types.py, below qa.py and spelling.py)."""
    new = [c for c in _import_cycles("engine") if not any(set(c) <= known for known in KNOWN_CYCLES)]
    assert new == []


def test_app_has_no_import_cycles():
    """The editor's modules import one way too (what Replace all and the undo of a document step
    both write lives in app/statewrite.py, below app/replace.py and app/undo.py)."""
    assert _import_cycles("app") == []


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch):
    pkg = tmp_path / "cyc"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyc import b\n")
    (pkg / "b.py").write_text("def f():\n    from cyc import a\n")
    (pkg / "c.py").write_text("from cyc import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _import_cycles("cyc") == [["cyc.a", "cyc.b"]]


MAX_MODULE_LINES = 400
#: Engine modules longer than MAX_MODULE_LINES, each with the most lines it may have: a
#: ceiling only ever lowered (split a module rather than raise it); app/ has none.
LONG_MODULES: dict[str, int] = {}


def _lines(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_modules_stay_short():
    """Every module of app/ and engine/ has at most 400 lines, but for the engine modules
    listed above, which may not grow past their ceiling."""
    too_long = []
    for package in ("app", "engine"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            n = _lines(path)
            if n > LONG_MODULES.get(rel, MAX_MODULE_LINES):
                too_long.append(f"{rel}: {n} lines (at most {LONG_MODULES.get(rel, MAX_MODULE_LINES)})")
    assert too_long == [], "split these modules by job:\n" + "\n".join(too_long)


def test_only_engine_modules_may_be_long():
    assert all(p.startswith("engine/") for p in LONG_MODULES)
    assert all(n > MAX_MODULE_LINES for n in LONG_MODULES.values())


def test_test_modules_outside_packages_have_unique_names():
    """pytest imports a test file of a folder without ``__init__.py`` by its bare name: two such
    files of one name (tests/app/test_x.py, tests/store/test_x.py) stop the whole run at collection."""
    tests = Path(__file__).parent
    seen: dict[str, list[str]] = {}
    for f in tests.rglob("test_*.py"):
        if not (f.parent / "__init__.py").exists():
            seen.setdefault(f.name, []).append(str(f.relative_to(tests)))
    assert {n: p for n, p in seen.items() if len(p) > 1} == {}
