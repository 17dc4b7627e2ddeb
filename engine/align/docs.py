"""A document as the aligner reads it: its sentences, as Verso segments them, and each one's paragraph.

Every format Verso imports (engine.formats: DOCX, ODT, HTML, Markdown, TXT, ...) is read by its
own reader with the sentence rules of the document's language; a PDF is read as text by poppler's
``pdftotext`` where installed (Verso has no PDF reader of its own: layout-to-text is poppler's job).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import FormatError
from engine.inline import Tag, TaggedText, tag_char

_SENTENCE_KEY = re.compile(r"\.s\d+$")
PDF_SECONDS = 60


@dataclass
class AlignDoc:
    """``sentences`` in document order; ``paragraphs[i]``: the paragraph number of sentence i."""

    path: Path
    sentences: list[TaggedText] = field(default_factory=list)
    paragraphs: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name

    def paragraph_count(self) -> int:
        return len(set(self.paragraphs))


def read_for_alignment(path: str | Path, lang: str) -> AlignDoc:
    """Read ``path`` (a monolingual document in ``lang``) into sentences; one-line FormatError when it cannot be."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(path, "not a file" if path.exists() else "no such file")
    if path.suffix.lower() == ".pdf":
        return _pdf(path, lang)
    from engine.formats import read_document

    parsed = read_document(path, src_lang=lang, tgt_lang="")
    doc = AlignDoc(path)
    ids: dict[str, int] = {}
    for seg in parsed.segments:
        if not seg.source.plain().strip():
            continue
        par = seg.meta.get("paragraph") if isinstance(seg.meta, dict) else None
        key = str(par) if par is not None else _SENTENCE_KEY.sub("", seg.key)
        doc.sentences.append(seg.source)
        doc.paragraphs.append(ids.setdefault(key, len(ids)))
    if not doc.sentences:
        raise FormatError(path, "no text to align")
    return doc


def _pdf(path: Path, lang: str) -> AlignDoc:
    from engine.segmentation import split_sentences

    exe = shutil.which("pdftotext")
    if exe is None:
        raise FormatError(path, "reading a PDF needs pdftotext (poppler-utils), which is not installed")
    try:
        out = subprocess.run([exe, "-enc", "UTF-8", "-q", str(path), "-"], capture_output=True,
                             timeout=PDF_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise FormatError(path, f"pdftotext took more than {PDF_SECONDS} s") from None
    if out.returncode != 0:
        raise FormatError(path, "pdftotext could not read it (damaged or not a PDF)")
    doc = AlignDoc(path)
    text = out.stdout.decode("utf-8", "replace").replace("\f", "\n\n")
    for p, para in enumerate(x for x in re.split(r"\n\s*\n", text) if x.strip()):
        for s in split_sentences(" ".join(para.split()), lang):
            doc.sentences.append(TaggedText(s))
            doc.paragraphs.append(p)
    if not doc.sentences:
        raise FormatError(path, "no text to align (a scanned PDF has none)")
    return doc


def join(texts: list[TaggedText]) -> TaggedText:
    """Sentences of a 2-1 link as one segment, separated by a space; later sentences' tags renumbered."""
    if len(texts) == 1:
        return texts[0]
    parts: list[str] = []
    tags: list[Tag] = []
    for t in texts:
        off = len(tags)
        table = {tag_char(g.n): tag_char(g.n + off) for g in t.tags}
        parts.append("".join(table.get(ch, ch) for ch in t.text) if off else t.text)
        tags += [Tag(g.n + off, g.kind, g.original, g.label, g.pair and f"{g.pair}.{off}", g.attrs)
                 if off else g for g in t.tags]
    return TaggedText(" ".join(p.strip() for p in parts), tuple(tags))
