"""Two versions of one document compared segment by segment (``verso review compare A B``).

Each file is read with its format's reader (:func:`engine.formats.read_document`); a bilingual
file (XLIFF, PO, ...) is compared by its targets, a monolingual one (an exported DOCX, ODT,
HTML ...) by its text.  Segments are paired by the reader's key, in A's order, then B's segments A
lacks; a changed pair is shown as a word-level difference (:mod:`engine.review.diff`), tags as
their short forms.  Also the editor's segment history panel draws its differences with
:func:`diff_html`.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from engine.inline import TaggedText
from engine.review.diff import diff


@dataclass(frozen=True)
class Pair:
    key: str
    a: str | None  # display text; None: not in that version
    b: str | None

    @property
    def state(self) -> str:
        if self.a is None:
            return "added"
        if self.b is None:
            return "removed"
        return "same" if self.a == self.b else "changed"


def _texts(path: Path) -> list[tuple[str, str]]:
    from engine.formats import read_document

    doc = read_document(path)
    bilingual = any(s.target is not None and s.target.text for s in doc.segments)
    out = []
    for s in doc.segments:
        tt: TaggedText | None = s.target if bilingual else s.source
        out.append((s.key, tt.display() if tt is not None else ""))
    return out


def compare(a: str | Path, b: str | Path) -> list[Pair]:
    ta, tb = _texts(Path(a)), _texts(Path(b))
    in_b = dict(tb)
    seen = set()
    pairs = []
    for key, text in ta:
        seen.add(key)
        pairs.append(Pair(key, text, in_b.get(key)))
    pairs.extend(Pair(key, None, text) for key, text in tb if key not in seen)
    return pairs


def diff_html(old: str, new: str) -> str:
    """``old`` -> ``new`` with deletions struck through (``<del>``) and insertions underlined (``<ins>``)."""
    out = []
    for op in diff(old, new):
        t = html.escape(op.text)
        out.append(t if op.kind == "equal" else f"<del>{t}</del>" if op.kind == "delete" else f"<ins>{t}</ins>")
    return "".join(out)


def to_html(pairs: list[Pair], a: str, b: str) -> str:
    e = html.escape
    n = {s: sum(1 for p in pairs if p.state == s) for s in ("same", "changed", "added", "removed")}
    rows = []
    for i, p in enumerate(pairs, 1):
        if p.state == "same":
            continue
        cell = diff_html(p.a or "", p.b or "")
        rows.append(f"<tr class='{p.state}'><td>{i}</td><td>{e(p.key)}</td><td>{p.state}</td><td>{cell}</td></tr>")
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>Compare</title><style>"
            "del{color:#b00;text-decoration:line-through}ins{color:#070;text-decoration:underline}"
            "table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}</style></head><body>"
            f"<h1>{e(a)} &#8594; {e(b)}</h1><p id='summary'>{n['changed']} changed, {n['same']} unchanged, "
            f"{n['added']} added, {n['removed']} removed</p>"
            "<table><tr><th>#</th><th>key</th><th>state</th><th>difference</th></tr>"
            + "".join(rows) + "</table></body></html>\n")
