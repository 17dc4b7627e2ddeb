"""The schema of a TM's Whoosh index (see :mod:`engine.tm.whoosh_index` for what each
field holds) and the codec its writers use."""
from __future__ import annotations

from whoosh import columns, fields, formats
from whoosh.codec.whoosh3 import W3Codec

from engine.tm.pairs import pair_term, split_pair_term  # noqa: F401  (the index's term of a pair)
from engine.tm.tokens import analyse, index_terms, occurrence_terms

INDEX_NAME = "MAIN"

#: 2: language-pair field ``lp``; 4: occurrence terms in ``src``, columns ``e``, ``x``
#: and ``n`` (uint16)
FORMAT = 4
#: Separates the surface and punctuation encodings in column ``x``.
EXTRA_SEP = "\x01"
#: Postings per block: large blocks make reading a long posting list cheap.
BLOCK_LIMIT = 1024


def writer_codec() -> W3Codec:
    """Whoosh's codec without field-length statistics.  No field of ours is scorable, so a
    segment has no length column, and Whoosh's writer asked for every posting's field length
    anyway: a stat() of the absent column file each time -- 1.5 million stat calls, 22 of 60 s
    of a 50,000-unit build under cProfile (27.5 -> 15.7 s unprofiled).  The length it wrote was
    0, as it is now.  (An instance attribute, not a subclass: the segment pickles its codec, and
    the index's unpickler admits only Whoosh's own classes.)"""
    codec = W3Codec(blocklimit=BLOCK_LIMIT)
    codec.length_stats = False
    return codec


def source_terms(text: str) -> list[str]:
    """The ``src`` field's terms of a source text: occurrence terms of its core tokens."""
    return occurrence_terms(analyse(text).core)


def target_terms(text: str) -> list[str]:
    """The ``tgt`` field's terms of a target text: its distinct core terms."""
    return index_terms(text)


class TermsField(fields.FieldType):
    """Existence-only field whose value is segment text, analysed by
    :func:`engine.tm.tokens.index_terms` (no Whoosh analyser chain)."""

    indexed = True
    scorable = False
    stored = False
    unique = False

    def __init__(self) -> None:
        self.format = formats.Existence()
        self.analyzer = None
        self.column_type = None
        self.vector = None

    def index(self, value, **kwargs):
        for t in target_terms(value):
            yield t.encode("utf-8"), 1, 1.0, b""

    def process_text(self, qstring, mode="", **kwargs):
        return iter(target_terms(qstring))

    def self_parsing(self):
        return False


class SourceTermsField(TermsField):
    """Like :class:`TermsField`, with occurrence terms
    (:func:`engine.tm.tokens.occurrence_terms`) of the core tokens."""

    def index(self, value, **kwargs):
        for t in source_terms(value):
            yield t.encode("utf-8"), 1, 1.0, b""

    def process_text(self, qstring, mode="", **kwargs):
        return iter(source_terms(qstring))


def make_schema() -> fields.Schema:
    return fields.Schema(
        src=SourceTermsField(),
        tgt=TermsField(),
        uid=fields.ID(unique=True),
        uidc=fields.COLUMN(columns.NumericColumn("I")),
        n=fields.COLUMN(columns.NumericColumn("H")),
        lp=fields.ID(),
        e=fields.COLUMN(columns.VarBytesColumn()),
        x=fields.COLUMN(columns.VarBytesColumn()),
    )


def doc_fields(uid: int, source: str, target: str, src_lang: str = "",
               tgt_lang: str = "", enc: str = "", senc: str = "", penc: str = "") -> dict:
    """Whoosh fields of one unit (``enc`` / ``senc`` / ``penc``: its stored
    core, surface and punctuation encodings)."""
    return {"src": source, "tgt": target, "uid": str(uid), "uidc": uid,
            "n": min(65535, len(enc)), "lp": pair_term(src_lang, tgt_lang),
            "e": enc.encode("utf-8"), "x": f"{senc}{EXTRA_SEP}{penc}".encode("utf-8")}


__all__ = ["INDEX_NAME", "FORMAT", "EXTRA_SEP", "BLOCK_LIMIT", "writer_codec", "TermsField", "SourceTermsField",
           "make_schema", "pair_term", "split_pair_term", "doc_fields", "source_terms", "target_terms"]
