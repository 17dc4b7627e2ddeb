"""What the engine hands the app is typed: no engine function the app calls, and no field or
method of an engine class it gets from one, is declared as an untyped record (a bare ``dict``,
``list[dict]``, ``dict[str, Any]``), which the app could only read by string keys.

Read from the declarations (AST), not guessed from the app's subscripts: a dict the app builds
itself (Qt, a Worker's progress event) is none of the engine's business, and a mapping whose keys
are data (``dict[str, int]``: languages to units, statuses to segments) is a table, not a record.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Untyped dicts the app meets but reads nothing of by key: (module, class or "", member) -> why.
ALLOWED = {
    ("engine.training.runs", "RunStatus", "last"): "the raw JSON event; the app reads last_event",
    ("engine.training.runs", "EventTail", "read"): "the raw JSON protocol; the app reads events()",
    ("engine.training.runs", "EventTail", "parse"): "one raw JSON line; the app reads events()",
    ("engine.inline", "Tag", "attrs"): "a tag's XML attributes, as the file has them",
    ("engine.nmt.translator", "Translator", "info"): "verso nmt info's JSON",
    ("engine.nmt.remote", "RemoteTranslator", "info"): "verso nmt info's JSON, through the pipe",
    ("engine.nmt.results", "TranslationRequest", "options"): "Translator.translate's keyword arguments, spread",
    ("engine.nmt.results", "TranslationResult", "memory_pairs"): "verso translate --json's detail",
    ("engine.nmt.results", "TranslationResult", "terms"): "verso translate --json's detail",
    ("engine.review.report", "QualityReport", "summary"): "verso review report's JSON; the editor writes the HTML",
}
#: A field by this name is free-form metadata (TMX props, a format's unit fields): data, not an API.
DATA_FIELDS = {"meta"}


def _modname(p: Path) -> str:
    parts = p.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _engine():
    """(module, name) -> def node; module -> {local name: (module, name)} of its engine imports."""
    defs, imports = {}, {}
    for p in sorted((ROOT / "engine").rglob("*.py")):
        mod = _modname(p)
        ns = imports.setdefault(mod, {})
        for n in ast.parse(p.read_text(encoding="utf-8")).body:
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                defs[(mod, n.name)] = n
            elif isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("engine"):
                for a in n.names:
                    ns[a.asname or a.name] = (n.module, a.name)
    return defs, imports


def _resolve(defs, imports, key):
    for _ in range(10):  # through re-exports (engine.packages -> engine.packages.opening)
        if key in defs:
            return key
        key = imports.get(key[0], {}).get(key[1])
        if key is None:
            return None
    return None


def _annotation(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.parse(node.value, mode="eval").body
    return node


def _records(ann) -> list[str]:
    """The untyped records in an annotation: bare dict, dict[str, Any | object]."""
    out = []
    heads = {id(n.value) for n in ast.walk(ann) if isinstance(n, ast.Subscript)}
    for n in ast.walk(ann):
        if isinstance(n, ast.Name) and n.id in ("dict", "Dict") and id(n) not in heads:
            out.append("dict")
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in ("dict", "Dict") \
                and isinstance(n.slice, ast.Tuple) and ast.unparse(n.slice.elts[-1]) in ("Any", "object"):
            out.append(ast.unparse(n))
    return out


def _app_uses(defs, imports) -> set[tuple[str, str]]:
    """The engine functions and classes app/ imports by name or reaches through an engine module."""
    seeds = set()
    for p in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        modules = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("engine"):
                for a in n.names:
                    key = _resolve(defs, imports, (n.module, a.name))
                    if key is not None:
                        seeds.add(key)
                    else:
                        modules[a.asname or a.name] = f"{n.module}.{a.name}"
            elif isinstance(n, ast.Import):
                modules.update({a.asname or a.name: a.name for a in n.names if a.name.startswith("engine")})
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules:
                key = _resolve(defs, imports, (modules[n.value.id], n.attr))
                if key is not None:
                    seeds.add(key)
    return seeds


def _untyped_records_the_app_meets() -> dict[tuple[str, str, str], str]:
    defs, imports = _engine()
    todo, seen, found = list(_app_uses(defs, imports)), set(), {}

    def check(mod: str, owner: str, member: str, ann) -> None:
        if ann is None:
            return
        ann = _annotation(ann)
        bad = _records(ann)
        if bad and member not in DATA_FIELDS:
            found[(mod, owner, member)] = ast.unparse(ann)
        for n in ast.walk(ann):  # the engine classes it names are met too
            if isinstance(n, ast.Name):
                key = _resolve(defs, imports, (mod, n.id))
                if key is not None:
                    todo.append(key)

    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        mod, node = key[0], defs[key]
        if isinstance(node, ast.FunctionDef):
            check(mod, "", node.name, node.returns)
            continue
        for m in node.body:
            if isinstance(m, ast.AnnAssign) and isinstance(m.target, ast.Name) and not m.target.id.startswith("_"):
                check(mod, node.name, m.target.id, m.annotation)
            elif isinstance(m, ast.FunctionDef) and not m.name.startswith("_") and m.name != "to_json":
                check(mod, node.name, m.name, m.returns)
    return found


def test_the_app_meets_no_untyped_record_from_the_engine():
    found = _untyped_records_the_app_meets()
    assert {f"{'.'.join(filter(None, k))}: {ann}" for k, ann in found.items() if k not in ALLOWED} == set()
    assert set(ALLOWED) <= set(found), "an allowed untyped record is gone: take it off ALLOWED"
