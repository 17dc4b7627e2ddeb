"""Tracked changes in XLIFF 1.x: reading the SDL and memoQ revision ``<mrk>``s, and writing a reviewer's
changes back in the file's own way.

Read: SDL ``<mrk mtype="x-sdl-deleted|x-sdl-added" sdl:revid>`` and memoQ
``<mrk mtype="x-mq-tc" mq:tctype="del|ins">`` (:func:`tracked_change`).

Write: a target handed over with *revision tags* (:mod:`engine.review.export`: a code with
``attrs["verso-rev"]`` ``del`` / ``ins``) gets, for those tags, codes the writer's
:func:`~engine.formats.xliffcommon.fill_content` knows (:func:`revision_codes`): in an SDLXLIFF a
deletion ``<mrk mtype="x-sdl-deleted" sdl:revid=ID>deleted text</mrk>`` and an insertion
``<mrk mtype="x-sdl-added" sdl:revid=ID>`` around the new text, each ID a ``<rev-def>`` (author,
``MM/DD/YYYY HH:MM:SS`` UTC, ``type="Delete"`` for a deletion) in ``<doc-info><rev-defs>``
(:func:`write_rev_defs`); in a memoQ file ``<mrk mtype="x-mq-tc" mq:tctype="del|ins" mq:tcuser
mq:tctime>``.  A plain XLIFF 1.2 has no tracked changes: no code, so the writer drops the tags and
writes the edited text.

Who changed a memoQ unit: an edited unit's ``mq:lastchangedtimestamp`` (UTC) and
``mq:lastchanginguser`` (:func:`engine.identity.user_name`: the editor's Settings ▸ Your name) are
updated on export where the unit has them (:func:`stamp_mq_unit`); an untouched unit keeps its own.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from lxml import etree

from engine.formats.xliffcommon import Code
from engine.fsutil import atomic_write
from engine.identity import user_name
from engine.inline import TaggedText

SDL_NS = "http://sdl.com/FileTypes/SdlXliff/1.0"
MQ_NS = "MQXliff"
MQ_TCTYPE = f"{{{MQ_NS}}}tctype"
REV = "verso-rev"


def tracked_change(mrk) -> str | None:
    """``"del"`` / ``"ins"`` for an SDL or memoQ tracked-change ``<mrk>``."""
    mtype = mrk.get("mtype", "")
    if mtype == "x-sdl-deleted":
        return "del"
    if mtype == "x-sdl-added":
        return "ins"
    if mtype == "x-mq-tc" and mrk.get(MQ_TCTYPE) in ("del", "ins"):
        return mrk.get(MQ_TCTYPE)
    return None


def flavour(root) -> str:
    """``sdl``, ``memoq`` or ``""`` (a plain XLIFF: no tracked changes)."""
    ns = set(root.nsmap.values())
    return "sdl" if SDL_NS in ns else "memoq" if MQ_NS in ns else ""


def revision_codes(target: TaggedText, codes: dict[int, Code], root) -> dict[int, Code]:
    """``codes`` and a code for each revision tag of ``target`` (none in a plain XLIFF)."""
    kind = flavour(root)
    revs = [t for t in target.tags if t.attrs.get(REV)]
    if not kind or not revs:
        return codes
    xns = etree.QName(root).namespace
    mrk = f"{{{xns}}}mrk" if xns else "mrk"
    out = dict(codes)
    opens = {t.pair: t.n for t in revs if t.kind == "open"}
    closes = {t.pair: t.n for t in revs if t.kind == "close"}
    for t in revs:
        deleted = t.attrs[REV] == "del"
        if kind == "sdl":
            attrs = {"mtype": "x-sdl-deleted" if deleted else "x-sdl-added", f"{{{SDL_NS}}}revid": t.attrs["revid"]}
        else:
            attrs = {"mtype": "x-mq-tc", MQ_TCTYPE: t.attrs[REV], f"{{{MQ_NS}}}tcuser": t.attrs["author"],
                     f"{{{MQ_NS}}}tctime": _utc(t.attrs["date"]).strftime("%Y-%m-%dT%H:%M:%SZ")}
        el = root.makeelement(mrk, attrs)
        if deleted:
            el.text = t.attrs["text"]
            out[t.n] = Code(el, "copy")
        elif t.kind == "open":
            out[t.n] = Code(el, "open", closes.get(t.pair, 0))
        else:
            out[t.n] = Code(el, "close", opens.get(t.pair, 0))
    return out


def write_rev_defs(out: Path, root, translations) -> None:
    """An SDLXLIFF's ``<rev-def>`` for each revision the translations wrote, added to ``out``'s
    ``<doc-info><rev-defs>`` (made when missing: ``<doc-info>`` first in ``<xliff>``).  Spliced into
    the written text as translate5 and Trados place it -- re-serialising the tree would change the
    bytes of every untouched unit.  UTF-8 only (what SDLXLIFF is); another encoding is left as
    written, without the definitions."""
    if flavour(root) != "sdl":
        return
    defs = []
    for tr in translations.values():
        for t in tr.target.tags:
            if t.attrs.get(REV) and t.kind != "close":
                kind = ' type="Delete"' if t.attrs[REV] == "del" else ""
                defs.append(f'<rev-def id="{_esc(t.attrs["revid"])}"{kind} author="{_esc(t.attrs["author"])}" '
                            f'date="{_utc(t.attrs["date"]).strftime("%m/%d/%Y %H:%M:%S")}" />')
    if not defs:
        return
    raw = out.read_bytes()
    bom = b"\xef\xbb\xbf" if raw.startswith(b"\xef\xbb\xbf") else b""
    try:
        text = raw[len(bom):].decode("utf-8")
    except UnicodeDecodeError:
        return
    head_end = (re.search(r"<(?:[\w.-]+:)?file[\s>]", text) or re.search(r"$", text)).start()
    head = text[:head_end]
    block = "".join(defs)
    m = re.search(r"</(?:[\w.-]+:)?rev-defs\s*>", head)
    if m:
        pos, ins = m.start(), block
    else:
        m = re.search(r"</(?:[\w.-]+:)?doc-info\s*>", head)
        if m:
            pos, ins = m.start(), f"<rev-defs>{block}</rev-defs>"
        else:
            m = re.search(r"<(?:[\w.-]+:)?xliff\b[^>]*>", head)
            if m is None:
                return
            pos, ins = m.end(), f'<doc-info xmlns="{SDL_NS}"><rev-defs>{block}</rev-defs></doc-info>'
    with atomic_write(out, "wb") as f:
        f.write(bom + (text[:pos] + ins + text[pos:]).encode("utf-8"))


def stamp_mq_unit(sp, unit, status_attr: str, status: str, status_changed: bool) -> None:
    """An edited memoQ unit: its ``mq:status`` when it changed, who changed it and when."""
    if status_changed:
        sp.set(unit, status_attr, status)
    stamp = {"lastchangedtimestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "lastchanginguser": user_name()}
    for name, value in stamp.items():  # updated where memoQ wrote them (its own files do), never added
        if unit.get(f"{{{MQ_NS}}}{name}") is not None:
            sp.set(unit, f"{{{MQ_NS}}}{name}", value)


def _utc(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
