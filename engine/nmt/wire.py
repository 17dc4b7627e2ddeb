"""The messages between the editor and its suggestion engine process (:mod:`engine.nmt.server`):
JSON objects, one a message, written out field by field -- never pickle.

:func:`result_to_dict` / :func:`result_from_dict` carry a :class:`~engine.nmt.results.TranslationResult`
(every field but ``gate_vectors``, the ``--json`` detail tensor no caller of the engine process reads),
:func:`request_to_dict` / :func:`request_from_dict` a :class:`~engine.nmt.results.TranslationRequest`
(its terms as :class:`~engine.nmt.results.Term` s, what the translator makes of every kind it takes).
"""
from __future__ import annotations

import json

from engine.nmt.results import CopiedWord, Term, TranslationRequest, TranslationResult


def encode(msg: dict) -> bytes:
    return json.dumps(msg, ensure_ascii=False).encode("utf-8")


def decode(data: bytes) -> dict:
    return json.loads(data.decode("utf-8"))


# -- terms and copied words -------------------------------------------------------------------
def term_to_dict(term: Term) -> dict:
    return {"targets": list(term.targets), "span": list(term.span) if term.span is not None else None,
            "inflect": term.inflect}


def term_from_dict(d: dict) -> Term:
    span = d.get("span")
    return Term(tuple(d["targets"]), (int(span[0]), int(span[1])) if span is not None else None, bool(d["inflect"]))


def copied_to_dict(c: CopiedWord) -> dict:
    return {"weight": float(c.weight), "entry_index": c.entry_index, "token_index": c.token_index, "word": c.word,
            "uid": c.uid, "line": c.line}


def copied_from_dict(d: dict) -> CopiedWord:
    return CopiedWord(d["weight"], d["entry_index"], d["token_index"], d["word"], d.get("uid"), d.get("line"))


# -- requests -----------------------------------------------------------------------------------
def request_to_dict(req: TranslationRequest) -> dict:
    return {"source": req.source, "prefix": req.prefix,
            "pairs": [_pair(p) for p in req.pairs],
            "context": list(req.context) if req.context is not None else None,
            "terms": [term_to_dict(Term.of(t)) for t in req.terms]}


def _pair(p) -> list:
    """A retrieved pair as (source, target[, score]): a tuple, or a TM match's texts and score."""
    if isinstance(p, (tuple, list)):
        return list(p)
    m = getattr(p, "match", p)
    return [m.source.text, m.target.text, float(m.score)]


def request_from_dict(d: dict) -> TranslationRequest:
    ctx = d.get("context")
    return TranslationRequest(d["source"], d.get("prefix", ""), tuple(tuple(p) for p in d.get("pairs", ())),
                              tuple(ctx) if ctx is not None else None,
                              tuple(term_from_dict(t) for t in d.get("terms", ())))


# -- results ------------------------------------------------------------------------------------
_FLOATS = ("gates", "token_gates", "copy")
_LISTS = ("words", "src_words", "links", "tokens", "src_tokens")
_MATRICES = ("alignment", "token_attention")


def result_to_dict(r: TranslationResult) -> dict:
    d: dict = {"text": r.text, "score": float(r.score), "memory_pairs": r.memory_pairs,
               "memory_kind": r.memory_kind, "exact_match": r.exact_match, "terms": r.terms}
    for name in _LISTS:
        d[name] = list(getattr(r, name))
    for name in _FLOATS:
        v = getattr(r, name)
        d[name] = None if v is None else [float(x) for x in v]
    for name in _MATRICES:
        d[name] = [[float(x) for x in row] for row in getattr(r, name)]
    d["memory"] = None if r.memory is None else [None if m is None else copied_to_dict(m) for m in r.memory]
    return d


def result_from_dict(d: dict) -> TranslationResult:
    memory = d.get("memory")
    return TranslationResult(
        text=d["text"], score=d["score"], **{k: d[k] for k in _LISTS + _FLOATS + _MATRICES},
        memory_pairs=d.get("memory_pairs"), memory_kind=d.get("memory_kind"), exact_match=d.get("exact_match"),
        terms=d.get("terms"),
        memory=None if memory is None else [None if m is None else copied_from_dict(m) for m in memory])
