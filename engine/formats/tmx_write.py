"""TMX writing: :func:`write_tmx` streams units into a TMX 1.4b file.

Streams through :class:`lxml.etree.xmlfile` into :func:`engine.fsutil.atomic_write`,
one ``<tu>`` element built at a time, so memory stays bounded however many units.
Inline codes are written by :func:`engine.formats.tmx_inline.tagged_to_seg`, meta
by :mod:`engine.formats.tmx_meta`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from lxml import etree

import engine
from engine.errors import FormatError
from engine.formats.base import TMUnit
from engine.formats.tmx_inline import tagged_to_seg
from engine.formats.tmx_meta import XML_LANG, _add_notes_props, _meta_attrs, _now_tmx
from engine.formats.xmlsafe import localname
from engine.fsutil import atomic_write
from engine.inline import Tag, TaggedText
from engine.langs import normalize_lang, same_language


def _indent(parent, level: int) -> None:
    """Whitespace between structural children (never inside <seg>)."""
    kids = list(parent)
    if not kids:
        return
    pad = "\n" + "  " * (level + 1)
    parent.text = pad
    for k in kids:
        k.tail = pad
        if localname(k) == "tuv":
            _indent(k, level + 1)
    kids[-1].tail = "\n" + "  " * level


def _tuv(lang: str, tt: TaggedText, meta: dict | None):
    tuv = etree.Element("tuv", {XML_LANG: lang})
    if meta:
        for k, v in _meta_attrs(meta).items():
            tuv.set(k, v)
        _add_notes_props(tuv, meta)
    tuv.append(tagged_to_seg(tt))
    return tuv


def _tu_element(unit: TMUnit, src_lang: str) -> etree._Element:
    meta = unit.meta or {}
    tu = etree.Element("tu")
    for k, v in _meta_attrs(meta).items():
        tu.set(k, v)
    tu_src = normalize_lang(meta.get("srclang") or "")
    if tu_src and tu_src != src_lang:
        tu.set("srclang", tu_src)
    _add_notes_props(tu, meta)
    tuv_meta = meta.get("tuv") or {}
    langs = list(unit.variants)
    first = next((lang for lang in langs if same_language(lang, src_lang, loose=False)), None)
    if first:
        langs.remove(first)
        langs.insert(0, first)
    for lang in langs:
        tu.append(_tuv(normalize_lang(lang), unit.variants[lang], tuv_meta.get(lang)))
    for extra in meta.get("extra_variants") or ():
        tt = TaggedText(extra.get("text", ""), tuple(Tag.from_json(d) for d in extra.get("tags") or ()))
        tu.append(_tuv(normalize_lang(extra.get("lang", "")), tt, None))
    _indent(tu, 2)
    return tu


def write_tmx(path: str | Path, units: Iterable[TMUnit], *, src_lang: str,
              creation_tool: str = "Verso", creation_tool_version: str = engine.__version__,
              adminlang: str = "en", segtype: str = "sentence", datatype: str = "plaintext",
              o_tmf: str = "Verso", header_props: Iterable[tuple[str, str]] = (),
              header_notes: Iterable[str] = ()) -> int:
    """Write ``units`` as a TMX 1.4b file (UTF-8, streamed, atomic); return how many.

    ``src_lang`` becomes the header's ``srclang`` (``*all*`` allowed); each
    unit's variant in that language is written first.
    """
    path = Path(path)
    src = src_lang if src_lang == "*all*" else normalize_lang(src_lang)
    if not src:
        raise FormatError(path, "write_tmx needs the source language (src_lang)")
    count = 0
    header = etree.Element("header", {
        "creationtool": creation_tool, "creationtoolversion": creation_tool_version,
        "segtype": segtype, "o-tmf": o_tmf, "adminlang": normalize_lang(adminlang) or "en",
        "srclang": src, "datatype": datatype, "creationdate": _now_tmx(),
    })
    _add_notes_props(header, {"notes": list(header_notes), "props": [list(p) for p in header_props]})
    _indent(header, 1)
    with atomic_write(path, "wb") as fh:
        with etree.xmlfile(fh, encoding="UTF-8") as xf:
            xf.write_declaration()
            xf.write_doctype('<!DOCTYPE tmx SYSTEM "tmx14.dtd">')
            with xf.element("tmx", version="1.4"):
                xf.write("\n  ")
                header.tail = "\n  "
                xf.write(header)
                with xf.element("body"):
                    xf.write("\n")
                    for unit in units:
                        tu = _tu_element(unit, src)
                        xf.write("    ")
                        xf.write(tu)
                        xf.write("\n")
                        count += 1
                    xf.write("  ")
                xf.write("\n")
        fh.write(b"\n")
    return count
