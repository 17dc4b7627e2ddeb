"""What the XLIFF 1.2 and XLIFF 2.0 readers/writers share.

* sniffing the root element (``<xliff version=...>`` and its namespace),
* loading a tree safely (through :mod:`engine.formats.xmlsafe`) and refusing
  entity references that a not-loaded external DTD would have defined,
* turning an element's mixed content into :class:`~engine.inline.TaggedText`
  while remembering which element each tag number came from (:class:`Codes`),
* putting a translated :class:`~engine.inline.TaggedText` back as XML content
  (:func:`fill_content`), re-nesting paired codes where the translation keeps
  them well nested and isolating them where it does not,
* serialising the tree with the original prolog, encoding and BOM
  (:func:`write_tree`), which the writers use only when
  :mod:`engine.formats.xmlsplice` cannot map the original bytes.

What is written, and what is not
    A writer only touches the segments it is given a translation for.  A
    segment the translator never touched is absent from ``translations`` and
    its XML stays exactly as it was (no state added, no whitespace trimmed, no
    markup rebuilt): rebuilding it from the reader's view could only lose what
    that view leaves out.  A translation that says what the file already says
    (the target as read, the status as read) counts as untouched too.

    For an edited segment the writer rebuilds the target from the codes of the
    target already in the file where it has them (:func:`remap_target` returns
    them in the source's numbering): an ``<mrk>`` keeps the target's own id and
    type, and codes only the target has (a ``<ph>``, an ``<it>``, a tracked
    change, a protected ``<mrk>``) come back instead of being dropped.  The
    whitespace that reading trims from the ends of a segment (outside
    ``xml:space="preserve"``) is put back around the new target
    (:func:`keep_edges`), so ``"Second one. "`` does not lose the space that
    separates it from the next sentence.

Private-use characters
    Verso's tag placeholders are the characters U+E001..U+F8FF, so a file's own
    private-use character (a Wingdings bullet U+F0A7, a company logo glyph) can
    not stay in the text as itself.  It becomes a standalone code whose
    ``original`` is the character and whose label is ``U+F0A7``
    (:meth:`engine.inline.TaggedTextBuilder.text`); writers put the character back
    as text, never as markup (:func:`engine.inline.is_private_use_tag`).  Refusing such files
    would refuse ordinary Word exports; replacing the character by U+FFFD, as
    before, lost it silently.

Nothing here imports torch or Qt.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal

from lxml import etree

from engine.errors import FormatError, UnsafeXMLError
from engine.formats import xmlsafe
from engine.formats.xmlsplice import qname
from engine.fsutil import atomic_write
from engine.inline import Tag, TaggedText, TaggedTextBuilder, is_private_use_tag, tag_char, tag_number

XML_NS = "http://www.w3.org/XML/1998/namespace"
XML_SPACE = f"{{{XML_NS}}}space"
XML_LANG = f"{{{XML_NS}}}lang"

STATUS_RANK = {"new": 0, "draft": 1, "confirmed": 2}

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
    for ent in tree.getroot().iter(etree.Entity):
        raise UnsafeXMLError(path, f"refused: the document uses the entity {ent.text} "
                                   "(entities are never expanded)", _line(ent))
    di = tree.docinfo
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


def preserve_space(el) -> bool:
    """True when the nearest ``xml:space`` on ``el`` or an ancestor is ``preserve``."""
    while el is not None:
        v = el.get(XML_SPACE)
        if v is not None:
            return v == "preserve"
        el = el.getparent()
    return False


_XML_WS = re.compile(r"[ \t\r\n]+")


def normalize(tt: TaggedText, preserve: bool) -> TaggedText:
    """Collapse XML whitespace runs and trim the ends unless ``preserve``."""
    if preserve:
        return tt
    return TaggedText(_XML_WS.sub(" ", tt.text).strip(" "), tt.tags)


_LEAD = re.compile(r"^[ \t\r\n]*")
_TRAIL = re.compile(r"[ \t\r\n]*$")


def edges(tt: TaggedText) -> tuple[str, str]:
    """The whitespace at the start and at the end of ``tt`` (as in the file)."""
    text = tt.text
    lead = _LEAD.match(text).group(0)
    if lead == text:
        return lead, ""
    return lead, _TRAIL.search(text).group(0)


def keep_edges(target: TaggedText, lead: str, trail: str) -> TaggedText:
    """``target`` with the whitespace reading trimmed (``lead``/``trail``) put
    back, unless the translation has whitespace of its own at that end."""
    text = target.text
    if not text:
        return target
    if lead and not _LEAD.match(text).group(0):
        text = lead + text
    if trail and not _TRAIL.search(text).group(0):
        text = text + trail
    return TaggedText(text, target.tags)


# ------------------------------------------------------------- serialisation


def _esc_attr(v: str) -> str:
    return (v.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def _esc_text(v: str | None) -> str:
    return (v or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _name(el) -> str:
    local = localname(el)
    return f"{el.prefix}:{local}" if el.prefix else local


def start_tag(el, *, empty: bool = False) -> str:
    """``<g id="1" ctype="bold">`` (no namespace declarations)."""
    attrs = "".join(f' {qname(el, k)}="{_esc_attr(v)}"' for k, v in el.attrib.items())
    return f"<{_name(el)}{attrs}{'/' if empty else ''}>"


def end_tag(el) -> str:
    return f"</{_name(el)}>"


def outer_xml(node) -> str:
    """The markup of ``node`` without its tail and without xmlns clutter."""
    if isinstance(node, etree._Comment):
        return f"<!--{node.text or ''}-->"
    if isinstance(node, etree._ProcessingInstruction):
        return f"<?{node.target} {node.text or ''}?>".replace(" ?>", "?>")
    if not len(node) and not node.text:
        return start_tag(node, empty=True)
    inner = _esc_text(node.text) + "".join(outer_xml(c) + _esc_text(c.tail) for c in node)
    return start_tag(node) + inner + end_tag(node)


def inner_text(el) -> str:
    """All text inside ``el`` (for notes)."""
    return "".join(el.itertext())


# ------------------------------------------------------------ reading codes
Role = Literal["copy", "open", "close", "char"]


@dataclass
class Code:
    """Where tag ``n`` of a segment came from: ``copy`` (an empty or opaque
    code copied as is), ``open`` / ``close`` of a wrapping element (``<g>``,
    ``<pc>``, ``<mrk>``) that must be re-nested in a target, or ``char`` (a
    private-use character of the text, written back as ``text``)."""

    el: object
    role: Role
    partner: int = 0  # for open/close: the number of the other half
    text: str = ""    # for char: the character


@dataclass
class Extracted:
    """A container's content as tagged text plus the element of each tag."""

    text: TaggedText
    codes: dict[int, Code] = field(default_factory=dict)


class Extractor:
    """Walks mixed content; subclasses say what each inline element becomes.

    ``handle(builder, el)`` returns True when it dealt with ``el``; the base
    class turns anything else (foreign elements, comments, PIs) into an opaque
    standalone code so that it comes back on export.
    """

    def __init__(self, path: Path):
        self.path = path
        self.b = TaggedTextBuilder()
        self.b.on_private_use = self._char
        self.codes: dict[int, Code] = {}
        self._n = 0

    # -- helpers for subclasses
    def _next(self) -> int:
        self._n += 1
        return self._n

    def ph(self, el, label: str, attrs: dict | None = None, kind: str = "ph",
           pair: str = "") -> int:
        n = self._next()
        original = outer_xml(el)
        if kind == "open":
            self.b.open(original, label, pair=pair or f"p{n}", attrs=attrs)
        elif kind == "close":
            self.b.close(original, label, pair=pair or f"p{n}", attrs=attrs)
        else:
            self.b.ph(original, label, attrs=attrs)
        self.codes[n] = Code(el, "copy")
        return n

    def wrap(self, el, label: str, attrs: dict | None = None) -> None:
        """A paired element whose content is part of the segment."""
        n_open = self._next()
        pair = f"p{n_open}"
        self.b.open(start_tag(el), label, pair=pair, attrs=attrs)
        self.content(el)
        n_close = self._next()
        self.b.close(end_tag(el), label, pair=pair, attrs=attrs)
        self.codes[n_open] = Code(el, "open", n_close)
        self.codes[n_close] = Code(el, "close", n_open)

    def text(self, s: str | None) -> None:
        self.b.text(s)  # a private-use character becomes a code: counted by _char

    def _char(self, ch: str) -> None:
        self.codes[self._next()] = Code(None, "char", text=ch)

    # -- walking
    def content(self, el) -> None:
        self.text(el.text)
        for child in el:
            if isinstance(child, etree._Entity):
                raise UnsafeXMLError(self.path, f"refused: entity {child.text} is not expanded",
                                     _line(child))
            if not (isinstance(child.tag, str) and self.handle(child)):
                self.ph(child, _opaque_label(child))
            self.text(child.tail)

    def handle(self, el) -> bool:  # pragma: no cover - overridden
        return False

    def run(self, el) -> Extracted:
        self.content(el)
        return Extracted(self.b.build(), self.codes)


def code_label(name: str, ident: str | None) -> str:
    """Chip label of an inline code: ``g1``, ``x2``, ``mrk-m1``."""
    if not ident:
        return name
    return f"{name}{ident}" if ident[0].isdigit() else f"{name}-{ident}"


def _opaque_label(node) -> str:
    if isinstance(node, etree._Comment):
        return "!--"
    if isinstance(node, etree._ProcessingInstruction):
        return "?" + (node.target or "")
    return localname(node) or "?"


# ------------------------------------------------------------ writing codes
IsolateFn = Callable[[object, Role, bool], "etree._Element | None"]
TextFn = Callable[[object, str], None]


def _tokens(tt: TaggedText) -> list[str | int]:
    out: list[str | int] = []
    buf: list[str] = []
    for ch in tt.text:
        n = tag_number(ch)
        if n is None:
            buf.append(ch)
            continue
        if buf:
            out.append("".join(buf))
            buf = []
        out.append(n)
    if buf:
        out.append("".join(buf))
    return out


def append_text(parent, s: str) -> None:
    """Append text after the last child of ``parent`` (or as its text)."""
    if not s:
        return
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + s
    else:
        parent.text = (parent.text or "") + s


def clear_content(el) -> None:
    el.text = None
    for c in list(el):
        el.remove(c)


def fill_content(container, target: TaggedText, codes: dict[int, Code], *,
                 isolate: IsolateFn, add_text: TextFn = append_text) -> None:
    """Replace ``container``'s content with ``target``.

    Tag ``n`` of the target is code ``n`` of ``codes`` (the source's, or the
    file's target's where :func:`remap_target` found it there).  Standalone
    codes are copied; a wrapping pair whose two halves are well nested in the
    target is rebuilt around its content; a half that is alone or crosses
    another pair becomes what ``isolate(el, role, partner_present)`` returns
    (``None`` drops it).  A private-use character is written as text.  Other
    numbers ``codes`` does not know are dropped.
    """
    clear_content(container)
    tags = {t.n: t for t in target.tags}
    toks = _tokens(target)
    present = {t for t in toks if isinstance(t, int)}
    matched: set[int] = set()
    stack: list[int] = []  # token indexes of open halves
    for i, t in enumerate(toks):
        if isinstance(t, str) or t not in codes:
            continue
        code = codes[t]
        if code.role == "open":
            stack.append(i)
        elif code.role == "close":
            j = next((k for k in range(len(stack) - 1, -1, -1)
                      if toks[stack[k]] == code.partner), None)
            if j is not None:
                matched.update((stack[j], i))
                del stack[j:]
    cur = container
    parents: list = []
    for i, t in enumerate(toks):
        if isinstance(t, str):
            add_text(cur, t)
            continue
        code = codes.get(t)
        if code is None:
            if is_private_use_tag(tags.get(t)):  # e.g. from a TM: still just a character
                add_text(cur, tags[t].original)
            continue
        if code.role == "char":
            add_text(cur, code.text)
        elif code.role == "copy":
            new = copy.deepcopy(code.el)
            new.tail = None
            cur.append(new)
        elif i in matched and code.role == "open":
            new = cur.makeelement(code.el.tag, dict(code.el.attrib))
            cur.append(new)
            parents.append(cur)
            cur = new
        elif i in matched:  # matched close
            cur = parents.pop()
        else:
            iso = isolate(code.el, code.role, code.partner in present)
            if iso is not None:
                cur.append(iso)


# ------------------------------------------------------------------- keys
class KeyMaker:
    """Unique, deterministic segment keys: a repeated or missing id gets a
    ``~2``, ``~3`` ... suffix that never collides with another raw id."""

    def __init__(self, reserved: set[str]):
        self.reserved = set(reserved)
        self.used: set[str] = set()

    def take(self, base: str) -> str:
        if base not in self.used:
            self.used.add(base)
            return base
        k = 2
        while f"{base}~{k}" in self.used or f"{base}~{k}" in self.reserved:
            k += 1
        key = f"{base}~{k}"
        self.used.add(key)
        return key


def min_status(statuses) -> str:
    return min(statuses, key=lambda s: STATUS_RANK.get(s, 0))


# ------------------------------------------------------------------ writing
_DECL_RE = re.compile(rb"^(\xef\xbb\xbf)?<\?xml[^>]*\?>")
_ROOT_END_RE = re.compile(rb"</(?:[A-Za-z_][\w.-]*:)?xliff\s*>")
_ASCII_COMPATIBLE = re.compile(r"^(utf-?8|us-ascii|ascii|iso-?8859-\d+|latin-?1|windows-125\d|cp125\d)$",
                               re.I)


def _prolog_end(raw: bytes) -> int | None:
    """Byte offset of the root element's start tag (after decl, comments,
    PIs and a DOCTYPE), or None when the prolog cannot be scanned."""
    i = 0
    if raw.startswith(b"\xef\xbb\xbf"):
        i = 3
    n = len(raw)
    while i < n:
        while i < n and raw[i:i + 1] in b" \t\r\n":
            i += 1
        if raw.startswith(b"<?", i):
            j = raw.find(b"?>", i)
            if j < 0:
                return None
            i = j + 2
        elif raw.startswith(b"<!--", i):
            j = raw.find(b"-->", i)
            if j < 0:
                return None
            i = j + 3
        elif raw.startswith(b"<!DOCTYPE", i) or raw.startswith(b"<!doctype", i):
            depth, j = 0, i
            while j < n:
                c = raw[j:j + 1]
                if c == b"[":
                    depth += 1
                elif c == b"]":
                    depth -= 1
                elif c == b">" and depth <= 0:
                    break
                j += 1
            i = j + 1
        elif raw.startswith(b"<", i):
            return i
        else:
            return None
    return None


def write_tree(tree: etree._ElementTree, original: Path, out: Path) -> None:
    """Serialise ``tree`` to ``out`` atomically, keeping the original file's
    prolog bytes (declaration, comments, DOCTYPE), epilogue, encoding and BOM
    where the encoding allows (UTF-16 files are re-serialised whole)."""
    raw = Path(original).read_bytes()
    enc = tree.docinfo.encoding or "UTF-8"
    data: bytes | None = None
    if _ASCII_COMPATIBLE.match(enc):
        start = _prolog_end(raw)
        ends = list(_ROOT_END_RE.finditer(raw))
        if start is not None:
            body = etree.tostring(tree.getroot(), encoding=enc, xml_declaration=False,
                                  with_tail=False)
            crlf = raw.count(b"\r\n")
            if crlf and crlf == raw.count(b"\n"):  # a CRLF file stays CRLF
                body = body.replace(b"\n", b"\r\n")
            suffix = raw[ends[-1].end():] if ends else b"\n"
            data = raw[:start] + body + suffix
    if data is None:
        data = etree.tostring(tree, encoding=enc, xml_declaration=True,
                              standalone=tree.docinfo.standalone)
    try:
        with atomic_write(out, "wb") as fh:
            fh.write(data)
    except OSError as e:
        raise FormatError(out, f"cannot write: {e.strerror or e}") from None


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


def _signature(code: Code) -> tuple[str, str, str]:
    if code.role == "char":
        return ("#char", code.text, "char")
    el = code.el
    if not isinstance(getattr(el, "tag", None), str):
        return ("", "", code.role)
    ident = el.get("id") or el.get("startRef") or el.get("rid") or el.get("mid") or ""
    return (localname(el), ident, code.role)


def remap_target(src: Extracted, tgt: Extracted) -> Extracted:
    """A target read from the file, renumbered so that tag ``n`` is the
    source's code ``n``.

    Codes are matched by element name, id and role, then by identical markup
    (an ``<mrk>``, whose id may differ in a target, by name alone); the closing
    half of a wrapping element follows its opening half.  Codes only the target
    has get numbers after the source's.

    The codes returned are the target's own elements under those numbers, and
    the source's for the numbers the target lacks: what a writer needs to
    rebuild an edited target without replacing the target's ``<mrk id>`` by
    the source's or dropping a code only the target has.
    """
    src_tags = {t.n: t for t in src.text.tags}
    free: dict[tuple, list[int]] = {}
    loose: dict[tuple, list[int]] = {}
    for n in sorted(src.codes):
        sig = _signature(src.codes[n])
        free.setdefault(sig, []).append(n)
        if sig[0] == "mrk" and sig[2] == "open":
            loose.setdefault(sig[0], []).append(n)
    by_original: dict[str, list[int]] = {}
    for t in src.text.tags:
        if src.codes.get(t.n) is None or src.codes[t.n].role == "copy":
            by_original.setdefault(t.original, []).append(t.n)
    used: set[int] = set()
    mapping: dict[int, int] = {}
    extra: list[Tag] = []
    next_n = max(src_tags, default=0) + 1
    for t in sorted(tgt.text.tags, key=lambda t: t.n):
        code = tgt.codes.get(t.n)
        if code is not None and code.role == "close" and code.partner in mapping:
            opener = src.codes.get(mapping[code.partner])
            cand = [opener.partner] if opener is not None and opener.role == "open" else []
        elif code is not None and code.role != "copy":
            sig = _signature(code)
            cand = free.get(sig, []) + (loose.get(sig[0], []) if sig[2] == "open" else [])
        else:
            cand = (free.get(_signature(code), []) if code is not None else []) + \
                by_original.get(t.original, [])
        cand = [m for m in cand if m not in used]
        if cand:
            mapping[t.n] = cand[0]
            used.add(cand[0])
        else:
            mapping[t.n] = next_n
            extra.append(Tag(next_n, t.kind, t.original, t.label, f"t{t.pair}" if t.pair else "",
                             dict(t.attrs)))
            next_n += 1
    text = "".join(tag_char(mapping[tag_number(c)]) if tag_number(c) in mapping else c
                   for c in tgt.text.text)
    codes = dict(src.codes)
    for tn, sn in mapping.items():
        code = tgt.codes.get(tn)
        if code is not None:
            partner = mapping.get(code.partner, 0) if code.role in ("open", "close") else 0
            codes[sn] = Code(code.el, code.role, partner, code.text)
    return Extracted(TaggedText(text, tuple(src.text.tags) + tuple(extra)), codes)


def target_codes(src: Extracted, source_edges: tuple[str, str], container,
                 extract: Callable[[object], Extracted]) -> tuple[dict[int, Code], tuple[str, str]]:
    """What a writer needs to rebuild the target in ``container`` (None when
    the segment has none yet): the codes by number (:func:`remap_target`) and
    the whitespace to keep around the new text (:func:`keep_edges`) -- the
    existing target's when it has content, else the source's
    (``source_edges``)."""
    if container is not None:
        tgt = extract(container)
        if tgt.text.text.strip():
            return remap_target(src, tgt).codes, edges(tgt.text)
    return src.codes, source_edges
