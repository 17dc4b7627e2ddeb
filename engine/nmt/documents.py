"""Documents of a corpus: which sentence belongs to which document, and its previous sentences.

Two ways to say where documents start (pure Python, no torch):

* a document-id file (``--docs FILE`` / ``data.train_docs``): one id per line
  of the text file; a new document starts wherever the id differs from the
  previous line's id;
* ``<d>`` marker lines in the text itself (the format of the document-level
  test sets): a line that is exactly ``<d>`` starts a document.  A file is
  read as marked only when its first non-empty line is ``<d>``, so a plain
  corpus is never changed.

The *context* of a sentence is the list of up to ``k`` previous non-empty
sentences of the same document, oldest first; it is empty at a document
start and never reaches into another document.  Without any document
information, every sentence is a document of its own (empty context).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.errors import ConfigError, FormatError

DOC_MARKER = "<d>"
STRATEGIES = ("init-enc", "init-dec", "aux", "gated-aux")


def validate_doc_config(strategies: list[str], k: int, hidden: int) -> None:
    """Check ``model.doc_context`` / ``doc_k`` / ``doc_hidden`` (raises ConfigError)."""
    for s in strategies:
        if s not in STRATEGIES:
            raise ConfigError(f"model.doc_context: unknown strategy {s!r} (use {', '.join(STRATEGIES)})")
    if len(set(strategies)) != len(strategies):
        raise ConfigError("model.doc_context: a strategy is listed twice")
    if "aux" in strategies and "gated-aux" in strategies:
        raise ConfigError("model.doc_context: 'aux' and 'gated-aux' exclude each other (gated-aux is aux with a gate)")
    if k < 1:
        raise ConfigError("model.doc_k must be at least 1")
    if hidden < 0:
        raise ConfigError("model.doc_hidden must be 0 (same as hidden) or positive")


# ------------------------------------------------------------------ reading
def read_doc_ids(path: str | Path, expected: int | None = None, *, text_path: str | Path | None = None) -> list[str]:
    """Document ids, one per line; with ``expected``, the line count must match the text file's."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            ids = [ln.rstrip("\r\n") for ln in fh]
    except UnicodeDecodeError as e:
        raise FormatError(path, f"not UTF-8 text ({e.reason})", f"byte {e.start}") from None
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror or e}") from None
    if expected is not None and len(ids) != expected:
        other = f" but {text_path} has {expected}" if text_path else f" but {expected} were expected"
        raise FormatError(path, f"has {len(ids)} document ids{other}: one id per line is needed")
    return ids


def has_markers(lines: list[str]) -> bool:
    """True when the first non-empty line is a ``<d>`` marker."""
    for ln in lines:
        if ln.strip():
            return ln.strip() == DOC_MARKER
    return False


@dataclass
class DocLayout:
    """Sentences of a text with their documents.

    ``sentences``: the lines without marker lines; ``doc_ids``: one per
    sentence; ``marker_lines``: 0-based line numbers of ``<d>`` lines in the
    original text (so that output can be written back line for line).
    """

    sentences: list[str]
    doc_ids: list[str]
    marker_lines: list[int]

    def restore(self, outputs: list[str], marker: str = DOC_MARKER) -> list:
        """``outputs`` (one per sentence) with ``marker`` back at each marker line."""
        if len(outputs) != len(self.sentences):
            raise ValueError(f"{len(outputs)} outputs for {len(self.sentences)} sentences")
        out: list = []
        it = iter(outputs)
        marks = set(self.marker_lines)
        for i in range(len(self.sentences) + len(self.marker_lines)):
            out.append(marker if i in marks else next(it))
        return out

    def contexts(self, k: int) -> list[list[int]]:
        """Per sentence, the indices of its context sentences (see :func:`context_indices`)."""
        return context_indices(self.doc_ids, k, self.sentences)


def split_markers(lines: list[str]) -> DocLayout:
    """Read ``<d>`` markers: each starts a document (numbered ``"1"``, ``"2"``, ...)."""
    sents, ids, marks = [], [], []
    doc = 0
    for i, ln in enumerate(lines):
        if ln.strip() == DOC_MARKER:
            marks.append(i)
            doc += 1
        else:
            sents.append(ln)
            ids.append(str(doc))
    return DocLayout(sents, ids, marks)


def layout(lines: list[str], *, docs: str | Path | None = None, path: str | Path | None = None) -> DocLayout:
    """Documents of a text: from a document-id file, else from ``<d>`` markers,
    else every line a document of its own."""
    if docs:
        return DocLayout(list(lines), read_doc_ids(docs, len(lines), text_path=path), [])
    if has_markers(lines):
        return split_markers(lines)
    return DocLayout(list(lines), [f"#{i}" for i in range(len(lines))], [])


def parallel_layout(src: list[str], tgt: list[str], *, docs: str | Path | None = None,
                    src_path: str | Path | None = None, tgt_path: str | Path | None = None
                    ) -> tuple[DocLayout, list[str]]:
    """Documents of a line-aligned pair of texts.  With markers, both sides must have
    them on the same lines; returns the source layout and the target sentences."""
    if len(src) != len(tgt):
        raise FormatError(tgt_path, f"has {len(tgt)} lines but {src_path} has {len(src)}: files are not line-aligned")
    lay = layout(src, docs=docs, path=src_path)
    if not lay.marker_lines:
        if not docs and has_markers(tgt):
            raise FormatError(src_path, f"has no '{DOC_MARKER}' marker lines but {tgt_path} has")
        return lay, list(tgt)
    tgt_marks = [i for i, ln in enumerate(tgt) if ln.strip() == DOC_MARKER]
    if tgt_marks != lay.marker_lines:
        line = min(set(tgt_marks) ^ set(lay.marker_lines))
        raise FormatError(tgt_path, f"'{DOC_MARKER}' marker lines differ from {src_path}", f"line {line + 1}")
    marks = set(tgt_marks)
    return lay, [t for i, t in enumerate(tgt) if i not in marks]


# ------------------------------------------------------------------ context
def context_indices(doc_ids: list[str], k: int, sentences: list[str] | None = None) -> list[list[int]]:
    """Per sentence, the indices of the up to ``k`` previous sentences of its
    document, oldest first.  A document is a run of equal consecutive ids.
    With ``sentences``, empty (whitespace-only) sentences are never context."""
    out: list[list[int]] = []
    window: list[int] = []
    prev_id: str | None = None
    for i, d in enumerate(doc_ids):
        if i == 0 or d != prev_id:
            window = []
        prev_id = d
        out.append(list(window[-k:]) if k > 0 else [])
        if sentences is None or sentences[i].strip():
            window.append(i)
            if len(window) > k:
                window = window[-k:]
    return out


def context_texts(texts: list[str], doc_ids: list[str], k: int) -> list[list[str]]:
    """Per sentence, the texts of its context sentences (oldest first)."""
    return [[texts[j] for j in idx] for idx in context_indices(doc_ids, k, texts)]


def document_spans(doc_ids: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each document (run of equal consecutive ids)."""
    spans, start = [], 0
    for i in range(1, len(doc_ids) + 1):
        if i == len(doc_ids) or doc_ids[i] != doc_ids[start]:
            spans.append((start, i))
            start = i
    return spans
