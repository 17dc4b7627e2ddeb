"""What the zipped document formats (DOCX, ODT/ODS/ODP) share.

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
    Both formats walk a paragraph's content into a flat list of :class:`Token`:
    text with a formatting key, and codes (a line break, a field, a footnote
    reference, the start and end of a hyperlink).  :func:`paragraph_text` turns
    the tokens into one :class:`~engine.inline.TaggedText` where a stretch of
    text whose formatting differs from the paragraph's most common formatting
    is wrapped in a pair of codes; runs that differ only in invisible ways are
    merged before (the format's reader gives them the same key).  The
    paragraph is cut into sentences with the plain-text segmenter.  Export
    turns the translated paragraph text back into events (text with a
    formatting key, codes, containers opened and closed) from which the format
    rebuilds the paragraph's XML.
"""
from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError
from engine.formats import xmlsafe
from engine.formats.codefold import Codes, code_char, code_number, narrow, para_sentence
from engine.fsutil import atomic_write
from engine.inline import TaggedText, is_private_use_tag, tag_number
from engine.segmentation import segment_text

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


# ------------------------------------------------------------- paragraphs
@dataclass
class Token:
    """One item of a paragraph's content.

    ``kind``: ``text`` (``text`` with formatting key ``fmt``), ``ph`` (a
    standalone code), ``open``/``close`` (a container such as a hyperlink or the
    two halves of a field; ``pair`` links them).  ``payload``: what the format
    needs to put the code back (elements); ``label``: the chip's text.
    """

    kind: str
    text: str = ""
    fmt: str = ""
    payload: Any = None
    label: str = ""
    pair: str = ""


@dataclass
class Paragraph:
    """A paragraph's tokens and its text as segments (see :func:`paragraph_text`)."""

    element: Any
    tokens: list[Token]
    base_fmt: str = ""
    text: TaggedText = field(default_factory=lambda: TaggedText(""))
    #: tag number in ``text`` -> ("token", index) or ("fmt", key, "open"/"close")
    actions: dict[int, tuple] = field(default_factory=dict)
    lead: str = ""          # paragraph-level text (codes) before the first sentence
    tail: str = ""          # ... and after the last
    sentences: list[TaggedText] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def translatable(self) -> bool:
        return bool(self.sentences)


def paragraph_text(p: Paragraph, lang: str, path=None, place: str | None = None) -> None:
    """Fill ``p.text``, ``p.actions``, ``p.sentences`` and ``p.gaps`` from ``p.tokens`` (a paragraph
    with too many codes is refused naming ``path`` and ``place``: engine/formats/codefold.py)."""
    counts: dict[str, int] = {}
    for t in p.tokens:
        if t.kind == "text":
            counts[t.fmt] = counts.get(t.fmt, 0) + len(t.text)
    p.base_fmt = max(counts, key=counts.__getitem__) if counts else ""  # the first of the most common
    b = Codes()
    cur: str | None = None  # the formatting key of the open pair of codes
    seq = 0

    def close_fmt() -> None:
        nonlocal cur
        if cur is not None:
            b.code("close", "</fmt>", "fmt", f"f{seq}", {"fmt": cur}, ("fmt", cur, "close"))
            cur = None

    # inside a container (a hyperlink) whose text has one formatting, that formatting
    # is the base: a link styled as a link makes one pair of codes, not two
    bases = [p.base_fmt]
    local: dict[int, str] = {}
    for i, t in enumerate(p.tokens if any(t.kind == "open" for t in p.tokens) else ()):
        if t.kind == "open":
            depth, fmts = 0, set()
            for u in p.tokens[i + 1:]:
                if u.kind == "open":
                    depth += 1
                elif u.kind == "close":
                    if not depth and u.pair == t.pair:
                        break
                    depth -= 1
                elif u.kind == "text":
                    fmts.add(u.fmt)
            if len(fmts) == 1:
                local[i] = fmts.pop()

    for i, t in enumerate(p.tokens):
        if t.kind == "text":
            if t.fmt != (cur if cur is not None else bases[-1]):
                close_fmt()
                if t.fmt != bases[-1]:
                    seq += 1
                    b.code("open", "<fmt>", "fmt", f"f{seq}", {"fmt": t.fmt}, ("fmt", t.fmt, "open"))
                    cur = t.fmt
            b.text(t.text)
            continue
        if t.kind in ("open", "close"):
            close_fmt()
        if t.kind == "open":
            bases.append(local.get(i, bases[-1]))
        elif t.kind == "close" and len(bases) > 1:
            bases.pop()
        label = t.label or t.kind
        original = {"open": f"<{label}>", "close": f"</{label}>"}.get(t.kind, f"<{label}/>")
        pair = f"c{t.pair}" if t.kind != "ph" else ""
        b.code(t.kind if t.kind in ("open", "close") else "ph", original, label, pair, {"tok": i},
               ("token", i, bases[-1]))
    close_fmt()
    p.text, p.actions = text, actions = b.build(path, place)
    # standalone codes at the paragraph's ends (bookmarks, a comment reference) stay
    # outside the segments
    by_n = {t.n: t for t in text.tags}

    def edge_code(ch: str) -> bool:
        n = code_number(ch)
        return n is not None and by_n[n].kind == "ph" and not is_private_use_tag(by_n[n])

    k, e = 0, len(text.text)
    while k < e and edge_code(text.text[k]):
        k += 1
    while e > k and edge_code(text.text[e - 1]):
        e -= 1
    if not any(c.isalnum() for c in text.plain()):
        p.sentences, p.gaps, p.lead, p.tail = [], [], text.text, ""
        return
    seg = segment_text(text.text[k:e], lang, narrow(text.tags))
    p.lead, p.tail = text.text[:k], text.text[e:]
    p.sentences = [para_sentence(s, by_n, path, place) for s in seg.sentences]
    p.gaps = list(seg.gaps)


def translated_text(p: Paragraph, targets: list[TaggedText | None]) -> str:
    """The paragraph's text (paragraph-level code numbers) with ``targets`` in place
    of the sentences that have one."""
    out = [p.lead, p.gaps[0]]
    for src, tgt, gap in zip(p.sentences, targets, p.gaps[1:]):
        if tgt is None:
            out.append(_to_para(src, src))
        else:
            out.append(_to_para(tgt, src))
        out.append(gap)
    out.append(p.tail)
    return "".join(out)


def _to_para(tt: TaggedText, src: TaggedText) -> str:
    """``tt`` (numbered as the segment ``src``) with paragraph-level code numbers; a code
    the source segment lacks is dropped."""
    by_n = {t.n: t for t in src.tags}
    out = []
    for ch in tt.text:
        n = tag_number(ch)
        if n is None:
            out.append(ch)
        elif n in by_n and "p" in by_n[n].attrs:
            out.append(code_char(by_n[n].attrs["p"]))
    return "".join(out)


def events(p: Paragraph, text: str) -> list[tuple]:
    """Turn paragraph-level ``text`` back into events for the format's builder:
    ``("text", str, fmt)``, ``("ph", token)``, ``("open", token)``, ``("close", token)``.
    Formatting codes change the key of the text that follows; a code without its
    partner is kept (a container a translation leaves open is closed at the end)."""
    by_n = {t.n: t for t in p.text.tags}
    fmt_stack: list[str] = []
    open_tokens: list[Token] = []
    bases = [p.base_fmt]
    evs: list[tuple] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            evs.append(("text", "".join(buf), fmt_stack[-1] if fmt_stack else bases[-1]))
            buf.clear()

    def step(act: tuple) -> None:
        if act[0] == "fmt":
            if act[2] == "open":
                fmt_stack.append(act[1])
            elif act[1] in fmt_stack:
                del fmt_stack[len(fmt_stack) - 1 - fmt_stack[::-1].index(act[1])]
            return
        tok = p.tokens[act[1]]
        if tok.kind == "open":
            open_tokens.append(tok)
            bases.append(act[2])
        elif tok.kind == "close":
            if tok.pair not in {t.pair for t in open_tokens}:
                return  # its opening code was deleted: drop the close as well
            while open_tokens:
                top = open_tokens.pop()
                bases.pop()
                if top.pair == tok.pair:
                    break
                evs.append(("close", _partner(p, top)))
        evs.append((tok.kind, tok))

    for ch in text:
        n = code_number(ch)
        if n is None:
            buf.append(ch)
            continue
        act = p.actions.get(n)
        if act is None:
            continue
        if act[0] == "char":
            buf.append(by_n[n].original)
            continue
        flush()
        for a in act[1] if act[0] == "group" else (act,):  # a group: adjacent codes joined (codefold)
            step(a)
    flush()
    while open_tokens:
        evs.append(("close", _partner(p, open_tokens.pop())))
    return evs


def _partner(p: Paragraph, tok: Token) -> Token:
    for t in p.tokens:
        if t.kind == "close" and t.pair == tok.pair:
            return t
    return Token("close", pair=tok.pair)


def segment_keys(prefix: str, p: Paragraph) -> list[str]:
    return [f"{prefix}.s{i + 1}" for i in range(len(p.sentences))]


def apply_translations(p: Paragraph, prefix: str, translations: dict) -> str | None:
    """The paragraph's translated text, or None when no sentence of it is translated
    (differently from its source)."""
    keys = segment_keys(prefix, p)
    targets: list[TaggedText | None] = []
    changed = False
    for k, src in zip(keys, p.sentences):
        tr = translations.get(k)
        if tr is None or (tr.target.text == src.text):
            targets.append(None)
        else:
            targets.append(tr.target)
            changed = True
    return translated_text(p, targets) if changed else None


def unknown_keys(path, translations: dict, known: set[str]) -> None:
    unknown = [k for k in translations if k not in known]
    if unknown:
        raise FormatError(path, f"{len(unknown)} translation(s) for segments the file does not have "
                                f"(first: {unknown[0]!r})")
