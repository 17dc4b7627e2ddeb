"""XLIFF sniffing and loading: which XLIFF a file is, and its tree, read safely.

:func:`sniff_version` tells XLIFF 1.x from 2.x by a file's first bytes;
:func:`load` parses through :mod:`engine.formats.xmlsafe` and also refuses entity
references that a not-loaded external DTD would have defined (they would lose
text silently); :func:`root_of` checks the root is the ``<xliff>`` expected.
Errors name the file and line (:func:`where`).
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError
from engine.formats import xmlsafe

# ------------------------------------------------------------------ sniffing
_ROOT_RE = re.compile(r"<(?:[A-Za-z_][\w.-]*:)?xliff\b([^>]*)>", re.S)
_VERSION_RE = re.compile(r"""\bversion\s*=\s*["']([^"']+)["']""")
_NS_RE = re.compile(r"urn:oasis:names:tc:xliff:document:(\d[\d.]*)")


def decode_head(head: bytes) -> str:
    """Best-effort text of a file's first bytes (UTF-8/UTF-16, BOM or not)."""
    if head[:3] == b"\xef\xbb\xbf":
        return head[3:].decode("utf-8", errors="ignore")
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return head.decode("utf-16", errors="ignore")
    if len(head) > 1 and head[0] == 0:
        return head.decode("utf-16-be", errors="ignore")
    if len(head) > 1 and head[1] == 0:
        return head.decode("utf-16-le", errors="ignore")
    return head.decode("utf-8", errors="ignore")


def sniff_version(head: bytes) -> str | None:
    """XLIFF major version ("1" or "2") of a file's head, ``""`` for an
    ``<xliff>`` root that says neither, ``None`` when no xliff root is seen."""
    text = decode_head(head)
    m = _ROOT_RE.search(text)
    if not m:
        return None
    attrs = m.group(1)
    ns = _NS_RE.search(attrs)
    if ns:
        return ns.group(1).split(".")[0]
    v = _VERSION_RE.search(attrs)
    if v:
        return v.group(1).strip().split(".")[0]
    return ""


# ------------------------------------------------------------------- loading
_QUOTED = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>", re.S)
_NON_PREDEFINED_ENTITY = re.compile(
    r"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)[A-Za-z_:][\w:.-]*;")


def load(path: Path) -> etree._ElementTree:
    """Parse ``path`` safely; refuse entity references of any kind.

    :func:`xmlsafe.parse_file` refuses entity *declarations*.  A document may
    still name an external DTD and use entities defined there; the DTD is never
    loaded, so such a reference would silently lose text: refuse it instead.
    """
    try:
        tree = xmlsafe.parse_file(path)
    except UnsafeXMLError:
        raise
    except FormatError as e:
        if e.location is None:
            _explain_encoding(path)
        raise
    di = tree.docinfo  # an entity reference in the tree: refused by parse_file
    if di.system_url or di.public_id:
        raw = Path(path).read_bytes()
        try:
            text = raw.decode(di.encoding or "utf-8", errors="replace")
        except LookupError:
            text = raw.decode("utf-8", errors="replace")
        text = _QUOTED.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keep line numbers
        m = _NON_PREDEFINED_ENTITY.search(text)
        if m:
            line = text.count("\n", 0, m.start()) + 1
            raise UnsafeXMLError(path, f"refused: the document uses the entity {m.group(0)} "
                                       "of an external DTD (DTDs are never loaded)", f"line {line}")
    return tree


_ENC_DECL = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _explain_encoding(path: Path) -> None:
    """Raise a FormatError naming the line of the first byte that is not in
    the file's declared (or default UTF-8) encoding; return if there is none."""
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return  # UTF-16 with a BOM: libxml2 reported something else
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    m = _ENC_DECL.match(body)
    enc = m.group(1).decode("ascii") if m else "utf-8"
    try:
        body.decode(enc)
    except LookupError:
        raise FormatError(path, f"unknown encoding {enc!r} in the XML declaration", "line 1") from None
    except UnicodeDecodeError as e:
        line = body.count(b"\n", 0, e.start) + 1
        raise FormatError(path, f"byte 0x{body[e.start]:02X} is not valid {enc} "
                                "(is the declared encoding wrong?)", f"line {line}") from None


def _line(el) -> str | None:
    n = getattr(el, "sourceline", None)
    return f"line {n}" if n else None


def where(el, what: str = "") -> str:
    """``"unit 'u1', line 12"`` style location for errors."""
    line = getattr(el, "sourceline", None)
    parts = [what] if what else []
    if line:
        parts.append(f"line {line}")
    return ", ".join(parts)


def localname(el) -> str:
    return xmlsafe.localname(el)


def root_of(path: Path, tree: etree._ElementTree, version: str) -> etree._Element:
    """The ``<xliff>`` root, or a FormatError saying what the file is instead."""
    root = tree.getroot()
    if localname(root) != "xliff":
        raise FormatError(path, f"not an XLIFF file: the root element is <{localname(root)}>",
                          _line(root))
    ns = etree.QName(root).namespace or ""
    m = _NS_RE.search(ns)
    found = m.group(1).split(".")[0] if m else (root.get("version") or "").split(".")[0]
    if version == "2" and found != "2":
        raise FormatError(path, f"not XLIFF 2.x (version {root.get('version') or '?'}, "
                                f"namespace {ns or 'none'})", _line(root))
    if version == "1" and found == "2":
        raise FormatError(path, "this is XLIFF 2.x, not XLIFF 1.x", _line(root))
    return root
