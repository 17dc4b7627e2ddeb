"""What a translation is, as the CLI and the editor receive it: :class:`TranslationResult` (words,
their alignment to the source words and context-gate values, the subword detail, what was copied
from the memory), :class:`TranslationRequest` (one editor suggestion's inputs) and :class:`Term` (a
glossary term a translation must hold), :class:`CopiedWord` (a word that came from the memory) and
:class:`Stopped` (a translation told to stop); how a split sentence's pieces join back into one result,
and how subword attention becomes word alignment.

Importing it does not import torch (only joining and aggregating do): the editor's process reads
results from its engine process (:mod:`engine.nmt.remote`) without loading torch.

    A[i, j] = mean_{t in word_i} sum_{s in word_j} attn[t, s]     (aggregate: (words_t, words_s))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.nmt.vocab import WORD_START, word_spans

if TYPE_CHECKING:
    import torch


class Stopped(Exception):
    """The search was told to stop (its ``stop`` function said so) before it finished."""


@dataclass(frozen=True)
class CopiedWord:
    """A target word copied from a retrieved pair: ``weight`` its copy mass (mean over its
    subwords), ``entry_index`` the pair (index among those the sentence read), ``token_index``
    and ``word`` the word of that pair's target, and the TM unit ``uid`` / corpus ``line`` of the
    pair when known."""

    weight: float
    entry_index: int
    token_index: int
    word: str
    uid: int | None = None
    line: int | None = None

    def to_json(self) -> dict:
        d = {"weight": self.weight, "entry_index": self.entry_index, "token_index": self.token_index,
             "word": self.word}
        if self.uid is not None:
            d["id"] = self.uid
        if self.line is not None:
            d["line"] = self.line
        return d


@dataclass
class TranslationResult:
    """One translated sentence.

    ``text``: the translation; ``words`` / ``src_words``: target and source
    words; ``alignment``: (len(words), len(src_words)) attention mass;
    ``links``: per target word the index of its most-attended source word;
    ``gates``: per target word the mean context-gate value (None without gates).
    Subword-level detail for ``--json``: ``tokens``, ``token_attention``
    (tokens x source pieces, ``</s>`` included), ``token_gates`` and
    ``gate_vectors`` (tokens x H).
    With a translation memory read: ``memory_pairs`` the retrieved pairs read;
    ``memory_kind`` which memory read them (``knn`` or ``learned``); per word
    ``copy`` (its copy mass: lambda * p_kNN or zeta * p_copy, mean over its
    subwords) and ``memory``: None, or the :class:`~engine.nmt.copyreport.CopiedWord`
    it came from;
    ``exact_match``: with ``translate(exact_matches=True)``, the index of the
    100 % pair whose target ``text`` is (None: the model's own translation).
    """

    text: str
    score: float
    words: list[str] = field(default_factory=list)
    src_words: list[str] = field(default_factory=list)
    alignment: list[list[float]] = field(default_factory=list)
    links: list[int] = field(default_factory=list)
    gates: list[float] | None = None
    tokens: list[str] = field(default_factory=list)
    src_tokens: list[str] = field(default_factory=list)
    token_attention: list[list[float]] = field(default_factory=list)
    token_gates: list[float] | None = None
    gate_vectors: torch.Tensor | None = None
    memory_pairs: list[dict] | None = None
    copy: list[float] | None = None
    memory: list[CopiedWord | None] | None = None
    memory_kind: str | None = None
    exact_match: int | None = None
    terms: list[dict] | None = None   # with a glossary: each entry found, its target term, whether it is in

    def to_json(self, *, detail: bool = True) -> dict:
        d = {"translation": self.text, "score": round(self.score, 4), "words": self.words,
             "src_words": self.src_words, "links": self.links,
             "alignment": [[round(x, 4) for x in row] for row in self.alignment],
             "gates": None if self.gates is None else [round(g, 4) for g in self.gates]}
        if detail:
            d.update({"tokens": self.tokens, "src_tokens": self.src_tokens,
                      "attention": [[round(x, 4) for x in row] for row in self.token_attention],
                      "token_gates": None if self.token_gates is None else [round(g, 4) for g in self.token_gates]})
        if self.memory_pairs is not None:
            d.update({"memory_pairs": self.memory_pairs, "memory_kind": self.memory_kind,
                      "copy": [round(c, 4) for c in self.copy or []],
                      "memory": [m.to_json() if m is not None else None for m in self.memory or []],
                      "exact_match": self.exact_match})
        if self.terms is not None:
            d["terms"] = self.terms
        return d


@dataclass(frozen=True)
class TranslationRequest:
    """One sentence as the editor asks for it: its ``source``, what the translator has typed
    (``prefix``), the TM ``pairs`` the memory may read (RetrievedPairs, (source, target[, score])
    tuples or TM matches), the sources of the previous segments of its document (``context``,
    oldest first; None: not known) and the glossary ``terms`` found in it (target strings,
    :class:`Term` s or glossary ``TermHit`` s, see :meth:`Translator.translate`)."""

    source: str
    prefix: str = ""
    pairs: tuple = ()
    context: tuple[str, ...] | None = None
    terms: tuple = ()

    def options(self, *, beam: int, memory_kind: str, terms_mode: str, reads_context: bool, stop=None) -> dict:
        """The keyword arguments of :meth:`Translator.translate` for this one sentence (each
        per-sentence option a list of one): ``memory_kind`` the memory in effect for its pairs
        ("none": none), ``reads_context``: the model reads document context."""
        kw: dict = {"beam": beam, "stop": stop}
        if self.terms and terms_mode in ("prefer", "enforce"):
            kw["terms"], kw["terms_mode"] = [list(self.terms)], terms_mode
        if self.prefix:
            kw["prefixes"] = [self.prefix]
        if self.pairs and memory_kind != "none":
            kw["memories"], kw["memory_mode"] = [list(self.pairs)], memory_kind
        if self.context is not None and reads_context:
            kw["context"] = [list(self.context)]
        return kw


@dataclass(frozen=True)
class Term:
    """A glossary term a translation must hold (or is nudged towards, ``prefer``).

    ``targets``: its accepted target forms, any one of which meets it (a glossary entry's target
    terms, preferred first); ``span``: the source term's characters in the source sentence (None:
    not known) -- the term is then written where the attention is on it rather than anywhere;
    ``inflect``: inflected forms of the last word (same Snowball stem, from the target
    vocabulary) meet it too."""

    targets: tuple[str, ...]
    span: tuple[int, int] | None = None
    inflect: bool = False

    @classmethod
    def of(cls, item) -> "Term":
        """A :class:`Term` from a target string, a Term, or a glossary ``TermHit`` (its entry's
        target terms, its span, the entry's ``inflect`` flag)."""
        if isinstance(item, Term):
            return item
        if isinstance(item, str):
            return cls((item,))
        entry = item.entry
        return cls(tuple(entry.targets), (item.start, item.end), bool(getattr(entry, "inflect", False)))


def join_parts(parts: list[TranslationResult], gaps: list[str]) -> TranslationResult:
    """One result from the results of a sentence's pieces, in order: words
    and tokens follow each other, attention is block-diagonal (a piece's
    words align only to its own source words), scores add up."""
    import torch

    def block(rows_of, cols_of) -> tuple[list[list[float]], list[int]]:
        width = sum(len(cols_of(p)) for p in parts)
        out, offs, off = [], [], 0
        for p in parts:
            for row in rows_of(p):
                out.append([0.0] * off + list(row) + [0.0] * (width - off - len(row)))
            offs.append(off)
            off += len(cols_of(p))
        return out, offs

    alignment, w_offs = block(lambda p: p.alignment, lambda p: p.src_words)
    token_attention, _ = block(lambda p: p.token_attention, lambda p: p.src_tokens)
    first = parts[0]
    gv = [p.gate_vectors for p in parts]
    return TranslationResult(
        text="".join(p.text + (g if p.text else "") for p, g in zip(parts, gaps)).strip(),
        score=sum(p.score for p in parts),
        words=[w for p in parts for w in p.words],
        src_words=[w for p in parts for w in p.src_words],
        alignment=alignment,
        links=[l + o for p, o in zip(parts, w_offs) for l in p.links],
        gates=None if first.gates is None else [g for p in parts for g in p.gates or []],
        tokens=[t for p in parts for t in p.tokens],
        src_tokens=[t for p in parts for t in p.src_tokens],
        token_attention=token_attention,
        token_gates=None if first.token_gates is None else [g for p in parts for g in p.token_gates or []],
        gate_vectors=None if any(v is None for v in gv) else torch.cat(gv, 0),
        memory_pairs=first.memory_pairs,
        memory_kind=first.memory_kind,
        copy=None if first.copy is None else [c for p in parts for c in p.copy or []],
        memory=None if first.memory is None else [m for p in parts for m in p.memory or []],
    )


def piece_text(p: str) -> str:
    return p.replace(WORD_START, "")


def aggregate(matrix: torch.Tensor, tgt_spans: list[tuple[int, int]], src_spans: list[tuple[int, int]]) -> torch.Tensor:
    """Subword attention (T, S) -> word attention (words_t, words_s):
    sum over a source word's pieces, mean over a target word's pieces."""
    import torch

    if not tgt_spans or not src_spans:
        return torch.zeros(len(tgt_spans), len(src_spans))
    # one mean per target word, then one column sum per source word for all target words at once
    # (was one tensor sum per word pair: 12 ms a 60-word sentence, demo model, 2-core VM)
    rows = torch.stack([matrix[a:b].float().mean(0) for a, b in tgt_spans])     # (words_t, S)
    return torch.stack([rows[:, c:d].sum(-1) for c, d in src_spans], 1)          # (words_t, words_s)


def words_result(src_pieces, tgt_pieces, text, score, attn, gates) -> TranslationResult:
    """A :class:`TranslationResult` of target pieces written with ``attn`` (T, S) and ``gates`` (T, H) or
    None: per word its text, its source alignment (attention summed over the source word's pieces,
    averaged over the target word's) and gate."""
    s_spans = word_spans(src_pieces)
    t_spans = word_spans(tgt_pieces)
    A = aggregate(attn, t_spans, s_spans)
    tok_g = gates.float().mean(-1) if gates is not None else None
    return TranslationResult(
        text=text, score=float(score),
        words=["".join(piece_text(p) for p in tgt_pieces[a:b]) for a, b in t_spans],
        src_words=["".join(piece_text(p) for p in src_pieces[a:b]) for a, b in s_spans],
        alignment=A.tolist(),
        links=A.argmax(-1).tolist() if A.numel() else [],
        gates=[float(tok_g[a:b].mean()) for a, b in t_spans] if tok_g is not None else None,
        tokens=tgt_pieces, src_tokens=src_pieces,
        token_attention=attn.float().tolist(),
        token_gates=tok_g.tolist() if tok_g is not None else None,
        gate_vectors=gates,
    )
