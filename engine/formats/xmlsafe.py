"""XML parsing without entity expansion, external entities or network access.

Every XML reader in Verso goes through here.  A document with a DOCTYPE that
declares entities (billion laughs, XXE) is refused with
:class:`~engine.errors.UnsafeXMLError` before anything is expanded.
"""
from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError

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


def parse_file(path: str | Path) -> etree._ElementTree:
    """Parse a whole (small or medium) XML file safely."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(65536)
    check_prolog(path, head)
    try:
        return etree.parse(str(path), safe_parser())
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None)
        raise FormatError(path, f"not well-formed XML: {e.msg}", f"line {line}" if line else None) from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e}") from None


def iterparse(path: str | Path, events=("start", "end"), tag=None):
    """Streaming parse (bounded memory); the caller clears finished elements."""
    path = Path(path)
    with open(path, "rb") as fh:
        head = fh.read(65536)
    check_prolog(path, head)
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
