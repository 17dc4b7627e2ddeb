"""What the zipped document formats (DOCX, ODT/ODS/ODP) share: the package.

Zip packages
    :class:`Package` opens a zip safely: a member whose name is absolute or
    climbs out of the package (``../``), a member that would expand past
    :data:`MAX_MEMBER_BYTES`, a package past :data:`MAX_TOTAL_BYTES` or
    :data:`MAX_MEMBERS`, and a member that expands more than
    :data:`MAX_RATIO` times its compressed size (a zip bomb) are refused with
    one :class:`~engine.errors.FormatError` naming the file and the member.
    Sizes are checked on the header *and* while reading (a header can lie).
    Writing copies every member the writer did not change byte for byte, in
    the original order and with the original compression and dates (ODF needs
    ``mimetype`` first and stored).  XML members are parsed with
    :mod:`engine.formats.xmlsafe` (no entities, no DTD, no network).

Paragraphs as segments
    :mod:`engine.formats.paragraphs` (its names are importable from here too).
"""
from __future__ import annotations

import io
import posixpath
import re
import zipfile
from pathlib import Path

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError
from engine.formats import xmlsafe
from engine.formats.paragraphs import (  # noqa: F401  (the formats import them from here)
    Paragraph, Token, apply_translations, events, paragraph_text, segment_keys, translated_text, unknown_keys,
)
from engine.fsutil import atomic_write

#: Limits on a package.  Word and LibreOffice documents of several hundred pages
#: stay far below them (the largest XML part of the 49 sample packages is 0.3 MiB,
#: their highest compression ratio 27).
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 512 << 20
MAX_TOTAL_BYTES = 2 << 30
MAX_RATIO = 200
#: Below this size a member's ratio is not checked (tiny members of repeated text compress well).
RATIO_FLOOR = 1 << 20
ZIP_MAGIC = b"PK\x03\x04"


class Package:
    """A zip package opened for reading, its members checked (see the module doc)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as e:
            raise FormatError(self.path, f"not a readable zip package ({e})") from None
        self.infos = self._zip.infolist()
        #: member -> {namespace URI as parsed: as written} for URIs libxml2 refuses (see :meth:`xml`)
        self._uri_fixes: dict[str, dict[bytes, bytes]] = {}
        if len(self.infos) > MAX_MEMBERS:
            raise FormatError(self.path, f"refused: {len(self.infos)} members in the package "
                                         f"(more than {MAX_MEMBERS}; a zip bomb?)")
        total = 0
        seen: set[str] = set()
        for info in self.infos:
            name = info.filename
            norm = posixpath.normpath(name.replace("\\", "/"))
            if (name.startswith(("/", "\\")) or norm.startswith("..") or ":" in name.split("/")[0]
                    or "\x00" in name):
                raise FormatError(self.path, "refused: a member path points outside the package "
                                             "(path traversal)", f"member {name!r}")
            if name in seen:
                raise FormatError(self.path, "refused: the same member twice", f"member {name!r}")
            seen.add(name)
            self._check_size(info, info.file_size)
            total += info.file_size
            if total > MAX_TOTAL_BYTES:
                raise FormatError(self.path, f"refused: the package expands past {MAX_TOTAL_BYTES >> 20} MiB "
                                             "(a zip bomb?)", f"member {name!r}")

    def _check_size(self, info: zipfile.ZipInfo, size: int) -> None:
        name = info.filename
        if size > MAX_MEMBER_BYTES:
            raise FormatError(self.path, f"refused: a member expands past {MAX_MEMBER_BYTES >> 20} MiB "
                                         "(a zip bomb?)", f"member {name!r}")
        if size > RATIO_FLOOR and size > MAX_RATIO * max(info.compress_size, 1):
            raise FormatError(self.path, f"refused: a member expands {size // max(info.compress_size, 1)} "
                                         f"times its compressed size (over {MAX_RATIO}; a zip bomb?)",
                              f"member {name!r}")

    def names(self) -> list[str]:
        return [i.filename for i in self.infos]

    def has(self, name: str) -> bool:
        return name in {i.filename for i in self.infos}

    def read(self, name: str) -> bytes:
        """A member's bytes, read in chunks so that a header that lies about the size
        is caught after at most the limit."""
        info = self._zip.getinfo(name)
        out = io.BytesIO()
        try:
            with self._zip.open(info) as fh:
                while True:
                    chunk = fh.read(1 << 20)
                    if not chunk:
                        break
                    out.write(chunk)
                    self._check_size(info, out.tell())
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise FormatError(self.path, f"corrupt zip member ({e})", f"member {name!r}") from None
        return out.getvalue()

    def xml(self, name: str) -> etree._ElementTree:
        """A member parsed safely (entity declarations refused, nothing fetched)."""
        data = self.read(name)
        try:
            xmlsafe.check_prolog(self.path, data[:65536])
        except UnsafeXMLError as e:
            raise UnsafeXMLError(self.path, e.message, f"member {name!r}") from None
        try:
            try:
                root = etree.fromstring(data, xmlsafe.safe_parser())
            except etree.XMLSyntaxError as e:
                fixed = _escape_namespace_uris(data) if "is not a valid URI" in str(e.msg) else None
                if fixed is None:
                    raise
                data, self._uri_fixes[name] = fixed
                root = etree.fromstring(data, xmlsafe.safe_parser())
        except etree.XMLSyntaxError as e:
            raise FormatError(self.path, f"not well-formed XML: {e.msg}",
                              f"member {name!r}, line {getattr(e, 'lineno', '?')}") from None
        for ent in root.iter(etree.Entity):
            raise UnsafeXMLError(self.path, f"refused: the document uses the entity {ent.text}",
                                 f"member {name!r}")
        return root.getroottree()

    def write(self, out: str | Path, replaced: dict[str, bytes]) -> None:
        """Write the package to ``out``: members of ``replaced`` with their new bytes,
        every other member as it was, same order, compression and dates."""
        with atomic_write(out, "wb") as fh:
            with zipfile.ZipFile(fh, "w") as zout:
                for info in self.infos:
                    if info.filename in replaced:
                        data = replaced[info.filename]
                        for parsed, written in self._uri_fixes.get(info.filename, {}).items():
                            data = data.replace(parsed, written)
                    else:
                        data = self.read(info.filename)
                    zi = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                    zi.compress_type = info.compress_type
                    zi.external_attr = info.external_attr
                    zi.create_system = info.create_system
                    zi.comment = info.comment
                    zi.extra = info.extra
                    zout.writestr(zi, data)

    def close(self) -> None:
        self._zip.close()

    def __enter__(self) -> "Package":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_NS_DECL = re.compile(rb"""(\sxmlns(?::[\w.-]+)?\s*=\s*)(["'])([^"'<>]*)\2""")
#: What libxml2 refuses in a namespace URI that Word and LibreOffice accept (a space, mostly).
_URI_BAD = re.compile(rb"[\s\"<>\\^`{|}]")


def _escape_namespace_uris(data: bytes) -> tuple[bytes, dict[bytes, bytes]] | None:
    """``data`` with the namespace URIs libxml2 refuses percent-escaped, and the declarations to
    put back on export ({escaped declaration: original}); None when there is none to escape or the
    member is not in an ASCII-compatible encoding."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    fixes: dict[bytes, bytes] = {}

    def esc(m: re.Match) -> bytes:
        uri = m.group(3)
        if not _URI_BAD.search(uri):
            return m.group(0)
        new = _URI_BAD.sub(lambda c: b"%%%02X" % c.group(0)[0], uri)
        fixes[b'="' + new + b'"'] = b'="' + uri + b'"'  # as lxml writes an attribute
        return m.group(1) + m.group(2) + new + m.group(2)

    out = _NS_DECL.sub(esc, data)
    return (out, fixes) if fixes else None


def xml_bytes(tree: etree._ElementTree) -> bytes:
    """A changed XML member, with an XML declaration as Office writes it."""
    di = tree.docinfo
    return etree.tostring(tree, xml_declaration=True, encoding=di.encoding or "UTF-8",
                          standalone=di.standalone)


def is_zip(head: bytes) -> bool:
    return head.startswith(ZIP_MAGIC)


def member_head(path: str | Path, name: str, size: int = 256) -> bytes | None:
    """The first ``size`` bytes of the member ``name`` of the zip ``path`` (stored or compressed),
    None when the file is no readable zip or has no such member."""
    try:
        with zipfile.ZipFile(path) as z:
            with z.open(name) as fh:
                return fh.read(size)
    except (zipfile.BadZipFile, OSError, KeyError, EOFError, RuntimeError, NotImplementedError, ValueError):
        return None
