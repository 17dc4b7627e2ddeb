"""XML parsing without entity expansion, external entities or network access.

Every XML reader in Verso goes through here.  A document with a DOCTYPE that
declares entities (billion laughs, XXE) is refused with
:class:`~engine.errors.UnsafeXMLError` before anything is expanded, wherever
the DOCTYPE is (after a comment of any length) and naming its line: the
prolog is scanned in a stream (:func:`check_file_prolog`) up to the root
element, in bounded memory.
"""
from __future__ import annotations

import codecs
import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError

#: The characters outside XML 1.0's Char production (C0 controls but tab, LF and CR; surrogates;
#: U+FFFE, U+FFFF), named as themselves: the complement of its ranges (U+0020-U+D7FF ...) made
#: `re` fill a 64K-entry map at import (7 ms of each process that reads TMX; this: 0.7).
INVALID_XML_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.I)
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.I)


def safe_parser(**kw) -> etree.XMLParser:
    """An lxml parser that resolves no entity, loads no DTD, touches no network."""
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, remove_blank_text=False, **kw,
    )


def check_prolog(path: str | Path, head: bytes) -> None:
    """Refuse entity declarations in the prolog (``head``: the file's first bytes,
    any encoding -- UTF-16 heads are checked after decoding)."""
    probe = head
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) > 1 and (head[0] == 0 or head[1] == 0)):
        for enc in ("utf-16", "utf-16-le", "utf-16-be"):
            try:
                probe = head.decode(enc, errors="ignore").encode("utf-8")
                if b"<" in probe:
                    break
            except Exception:  # pragma: no cover - decode with errors=ignore does not raise
                continue
    if _DOCTYPE.search(probe) and _ENTITY_DECL.search(probe):
        raise UnsafeXMLError(path, "refused: the document declares XML entities "
                                   "(entity expansion is disabled for safety)", "prolog")


_CHUNK = 1 << 16
_NEXT_MARKUP = re.compile("<")
_NEXT_IN_DOCTYPE = re.compile("[<\"']")
#: [A-Za-z_:\u00c0-\uffff], written so that it compiles in 0.05 ms, not 7 (a range past U+00FF makes
#: the compiler build a 64K-entry map: 0.007 s of every process that imports this module)
_NAME_START = re.compile(r"[A-Za-z_:]|[^\x00-\xbf\U00010000-\U0010ffff]")


def _prolog_encoding(head: bytes) -> str:
    """A codec that decodes the markup of the prolog (ASCII) whatever the file's encoding."""
    for bom, enc in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                     (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                     (codecs.BOM_UTF16_BE, "utf-16-be")):
        if head.startswith(bom):
            return enc
    if len(head) > 1 and head[0] == 0 and head[1] != 0:
        return "utf-16-be"
    if len(head) > 1 and head[1] == 0 and head[0] != 0:
        return "utf-16-le"
    return "latin-1"  # byte for byte: ASCII markup reads right in any ASCII-compatible encoding


def check_file_prolog(path: str | Path) -> None:
    """Refuse a DOCTYPE that declares entities, wherever it is before the root
    element, with its line.  Streams the file up to the root element's start,
    skipping comments and processing instructions of any length and, inside
    the DOCTYPE, quoted literals; at most a chunk is held at a time."""
    path = Path(path)
    try:
        fh = open(path, "rb")
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    with fh:
        head = fh.read(_CHUNK)
        dec = codecs.getincrementaldecoder(_prolog_encoding(head))(errors="replace")
        buf = dec.decode(head)
        line = 1          # line of buf[0]
        doctype_line = 0  # line of the DOCTYPE once inside it
        eof = not head

        def more() -> bool:
            nonlocal buf, eof
            if eof:
                return False
            chunk = fh.read(_CHUNK)
            buf += dec.decode(chunk, final=not chunk)
            eof = not chunk
            return True

        def skip_to(pos: int, end: str) -> int | None:
            """Offset after ``end`` searched from ``pos`` (reading on, dropping what is passed)."""
            nonlocal buf, line
            while True:
                k = buf.find(end, pos)
                if k >= 0:
                    return k + len(end)
                keep = max(pos, len(buf) - len(end))
                line += buf.count("\n", 0, keep)
                buf, pos = buf[keep:], 0
                if not more():
                    return None

        pos = 0
        while True:
            if len(buf) - pos < 16 and not eof:
                line += buf.count("\n", 0, pos)
                buf, pos = buf[pos:], 0
                more()
                continue
            if pos >= len(buf):
                return
            c = buf[pos]
            if doctype_line and c in "\"'":
                nxt = skip_to(pos + 1, c)
            elif buf.startswith("<!--", pos):
                nxt = skip_to(pos + 4, "-->")
            elif buf.startswith("<?", pos):
                nxt = skip_to(pos + 2, "?>")
            elif buf[pos:pos + 9].upper() == "<!DOCTYPE":
                doctype_line = line + buf.count("\n", 0, pos)
                nxt = pos + 9
            elif doctype_line and buf[pos:pos + 8].upper() == "<!ENTITY":
                raise UnsafeXMLError(path, "refused: the document declares XML entities "
                                           "(entity expansion is disabled for safety)", f"line {doctype_line}")
            elif c == "<" and _NAME_START.match(buf, pos + 1):
                return  # the root element: the prolog is over
            else:  # on to the next markup (or quote, inside the DOCTYPE)
                m = (_NEXT_IN_DOCTYPE if doctype_line else _NEXT_MARKUP).search(buf, pos + 1)
                nxt = m.start() if m else len(buf)
            if nxt is None:
                return
            pos = nxt


def refuse_entities(path: str | Path, el) -> None:
    """Refuse an entity reference under ``el``: one that an external DTD (never loaded) would
    define is kept by lxml as an entity node, whose text a reader would silently drop."""
    for ent in el.iter(etree.Entity):
        raise UnsafeXMLError(path, f"refused: the document uses the entity {ent.text} "
                                   "(entities are never expanded)", f"line {ent.sourceline}")


def parse_file(path: str | Path) -> etree._ElementTree:
    """Parse a whole (small or medium) XML file safely; an entity reference is refused."""
    path = Path(path)
    check_file_prolog(path)
    try:
        tree = etree.parse(str(path), safe_parser())
        refuse_entities(path, tree.getroot())
        return tree
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None)
        raise FormatError(path, f"not well-formed XML: {e.msg}", f"line {line}" if line else None) from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e}") from None


def iterparse(path: str | Path, events=("start", "end"), tag=None):
    """Streaming parse (bounded memory); the caller clears finished elements."""
    path = Path(path)
    check_file_prolog(path)
    return etree.iterparse(
        str(path), events=events, tag=tag, resolve_entities=False, no_network=True,
        load_dtd=False, huge_tree=False, recover=False,
    )


def localname(el) -> str:
    """Tag name without namespace (``{urn:...}unit`` -> ``unit``)."""
    t = el.tag
    if not isinstance(t, str):
        return ""
    return t.rsplit("}", 1)[-1]
