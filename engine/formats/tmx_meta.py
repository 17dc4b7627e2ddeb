"""TMX header and properties: what a ``<header>``, ``<tu>`` or ``<tuv>`` says besides its text.

Reading turns attributes, ``<prop>``s and ``<note>``s into the ``meta`` dict of a
:class:`~engine.formats.base.TMUnit` (:func:`_meta_of`) or a :class:`TMXHeader`
(:func:`_header_from`); writing turns that dict back into attributes and elements
(:func:`_meta_attrs`, :func:`_add_notes_props`).  TMX dates (``20060101T120000Z``)
convert to and from ISO 8601.  The keys are listed in :mod:`engine.formats.tmx`.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field

from lxml import etree

from engine.formats.xmlsafe import INVALID_XML_CHARS, localname
from engine.langs import normalize_lang

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_XML_NS = "{http://www.w3.org/XML/1998/namespace}"

#: Attributes of <tu>/<tuv> with a dedicated meta key.
_DATE_KEYS = ("creationdate", "changedate", "lastusagedate")
_PLAIN_KEYS = ("tuid", "creationid", "changeid")

# ------------------------------------------------------------------- dates
_BASIC_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$")
_EXT_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$")


def tmx_date_to_iso(raw: str | None) -> str | None:
    """``20060101T120000Z`` -> ``2006-01-01T12:00:00Z``; None when it is no date.

    ISO 8601 extended dates (written by some tools) are accepted as well.
    """
    if not raw:
        return None
    raw = raw.strip()
    m = _BASIC_DATE.match(raw) or _EXT_DATE.match(raw)
    if not m:
        return None
    try:
        y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
        when = _dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc)
    except ValueError:
        return None
    if len(m.groups()) > 6 and m.group(7) and m.group(7) != "Z":
        return raw  # an explicit offset: already ISO 8601, keep it as written
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_to_tmx_date(iso: str | None) -> str | None:
    """``2006-01-01T12:00:00Z`` (or a datetime's isoformat) -> ``20060101T120000Z``."""
    if not iso:
        return None
    try:
        when = _dt.datetime.fromisoformat(iso.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc)
    return when.strftime("%Y%m%dT%H%M%SZ")


def _now_tmx() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


# ---------------------------------------------------------------- header
@dataclass
class TMXHeader:
    """The ``<header>`` of a TMX file."""

    srclang: str = ""
    attrs: dict = field(default_factory=dict)
    props: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def _attr_name(name: str) -> str:
    return "xml:" + name[len(_XML_NS):] if name.startswith(_XML_NS) else localname_str(name)


def localname_str(name: str) -> str:
    return name.rsplit("}", 1)[-1]


def _text(el) -> str:
    return "".join(el.itertext())


def _header_from(el) -> TMXHeader:
    h = TMXHeader()
    for k, v in el.attrib.items():
        h.attrs[_attr_name(k)] = v
    src = h.attrs.get("srclang", "")
    h.srclang = src if src == "*all*" else normalize_lang(src)
    for ch in el:
        n = localname(ch)
        if n == "prop":
            h.props.append([ch.get("type", ""), _text(ch)])
        elif n == "note":
            h.notes.append(_text(ch))
    return h


def _meta_of(el) -> dict:
    """Known attributes, other attributes, <prop>s and <note>s of a <tu> or <tuv>."""
    meta: dict = {}
    attrs: dict = {}
    for k, v in el.attrib.items():
        name = _attr_name(k)
        if name in ("xml:lang", "lang", "srclang"):
            continue
        if name in _DATE_KEYS:
            meta[name] = v
            iso = tmx_date_to_iso(v)
            if iso:
                meta[name + "_iso"] = iso
        elif name in _PLAIN_KEYS:
            meta[name] = v
        elif name == "usagecount" and v.strip().isdigit():
            meta[name] = int(v)
        else:
            attrs[name] = v
    if attrs:
        meta["attrs"] = attrs
    for ch in el:
        n = localname(ch)
        if n == "prop":
            meta.setdefault("props", []).append([ch.get("type", ""), _text(ch)])
        elif n == "note":
            meta.setdefault("notes", []).append(_text(ch))
    return meta


# ------------------------------------------------------ XML-safe text
def _clean(s: str) -> str:
    """``s`` without the characters XML 1.0 cannot hold."""
    return INVALID_XML_CHARS.sub("", s)


def _meta_attrs(meta: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for k in _PLAIN_KEYS:
        if meta.get(k) not in (None, ""):
            out[k] = str(meta[k])
    for k in _DATE_KEYS:
        v = meta.get(k) or iso_to_tmx_date(meta.get(k + "_iso"))
        if v:
            out[k] = str(v)
    if meta.get("usagecount") not in (None, ""):
        out["usagecount"] = str(meta["usagecount"])
    for k, v in (meta.get("attrs") or {}).items():
        key = _XML_NS + k[4:] if k.startswith("xml:") else k
        out.setdefault(key, str(v))
    return out


def _add_notes_props(parent, meta: dict) -> None:
    for note in meta.get("notes") or ():
        etree.SubElement(parent, "note").text = _clean(str(note))
    for prop in meta.get("props") or ():
        ptype, value = (list(prop) + ["", ""])[:2]
        etree.SubElement(parent, "prop", type=str(ptype)).text = _clean(str(value))

