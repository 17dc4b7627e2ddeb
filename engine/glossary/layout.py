"""The columns of a glossary table (CSV/TSV or a sheet): which one holds the source term,
the target terms, notes, part of speech, status, forbidden variants -- named by a header row
(role names or language codes) or, without one, OmegaT's fixed order source, target, note."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.langs import normalize_lang, same_language

_ROLE_NAMES = {
    "source": "source", "src": "source", "sourceterm": "source", "term": "source", "sourcetext": "source",
    "target": "target", "tgt": "target", "targetterm": "target", "translation": "target",
    "translations": "target", "targetterms": "target", "targettext": "target",
    "note": "note", "notes": "note", "comment": "note", "comments": "note", "description": "note",
    "definition": "note", "remark": "note", "remarks": "note", "context": "note",
    "pos": "pos", "partofspeech": "pos", "wordclass": "pos",
    "status": "status", "termstatus": "status",
    "forbidden": "forbidden", "forbiddenterms": "forbidden", "forbiddenvariants": "forbidden",
    "donotuse": "forbidden", "deprecatedterms": "forbidden",
    "inflect": "inflect", "inflected": "inflect", "inflection": "inflect", "inflects": "inflect",
}
_LANG_CELL = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$")


@dataclass
class Layout:
    header: bool
    cols: dict[str, int]
    src_lang: str = ""
    tgt_lang: str = ""


def layout(first: list[str], src_lang: str, tgt_lang: str) -> Layout:
    """Column roles from the first row (a header) or OmegaT's fixed columns."""
    cols: dict[str, int] = {}
    langs: list[tuple[int, str]] = []
    for i, cell in enumerate(first):
        name = re.sub(r"[\s_\-]", "", (cell or "").strip().lower())
        role = _ROLE_NAMES.get(name)
        if role and role not in cols:
            cols[role] = i
        elif not role and _LANG_CELL.match((cell or "").strip()):
            langs.append((i, normalize_lang(cell)))
    lay = Layout(False, {"source": 0, "target": 1, "note": 2})
    if "source" in cols or "target" in cols or len(langs) >= 2:
        lay = Layout(True, cols)
        for i, lang in langs:
            wanted_src = not src_lang or same_language(src_lang, lang)
            if "source" not in cols and wanted_src and not lay.src_lang:
                cols["source"], lay.src_lang = i, lang
            elif "target" not in cols and (not tgt_lang or same_language(tgt_lang, lang)):
                cols["target"], lay.tgt_lang = i, lang
    return lay


def glossary_header(first_row: list[str]) -> str:
    """The first row of a table as a glossary reader would name it ("source | target",
    "en | de"), or "" when it does not read as a glossary's header: a role name for both
    sides, or two language codes (what :func:`layout` takes as a header)."""
    lay = layout(first_row, "", "")
    if not lay.header or "source" not in lay.cols or "target" not in lay.cols:
        return ""
    return " | ".join((first_row[lay.cols[side]] or "").strip() for side in ("source", "target"))
