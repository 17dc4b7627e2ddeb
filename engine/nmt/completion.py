"""Completing what the translator typed (interactive translation prediction).

A typed prefix is read as its whole words and the word typed half way::

    "Drücken Sie den Kn"  ->  words "Drücken Sie den", part " Kn"  (" ": a word start, "▁")

The search forces the whole words' tokens (the prefix), then :class:`TypedWord` lets a row write only
tokens whose text agrees with what is left of the part -- a piece p ("▁" read as a space) may follow
when p starts with the rest of the part or the rest starts with p, so "Kn" becomes "▁Knopf", "▁K nopf"
or "▁Kn opf" --, and no ``</s>`` before the part is written.  Forcing the part's own pieces instead
("▁K n") left the model to start a new word after them ("Kn Knopf").

:func:`keep_better`: the completion is never worse than the unconstrained suggestion's own
continuation: where the suggestion's words after the typed words' place still fit (the typed text
is its start, or the last typed word is one of its words and the part begins the next), both
full translations are scored under the model (length-normalised log-probability, as the beam ranks)
and the better one is kept.
"""
from __future__ import annotations

import inspect
from bisect import bisect_left

from torch import Tensor

from engine.nmt.hooks import Batch, Rule, StepView
from engine.nmt.vocab import EOS, WORD_START

NEG_INF = float("-inf")


def split_typed(prefix: str) -> tuple[str, str]:
    """(whole words, the word typed half way with a leading space where it starts a word).  A prefix
    that ends in whitespace has no part; a part at the very start begins a word too."""
    if not prefix or prefix[-1].isspace():
        return prefix, ""
    cut = len(prefix.rstrip()) - len(prefix.rstrip().split()[-1])
    words, part = prefix[:cut], prefix[cut:]
    if not words or words[-1].isspace():
        return words.rstrip(), " " + part
    return words, part  # glued to what precedes it (a tag)


class PieceTexts:
    """The target pieces as text ("▁" a space; a special symbol none), and per rest of a typed part the
    tokens that agree with it (built once per model and rest)."""

    def __init__(self, pieces: list[str]):
        self.text = [p.replace(WORD_START, " ") if not (p.startswith("<") and p.endswith(">")) else "" for p in pieces]
        self._allowed: dict[str, list[int]] = {}
        # sorted texts: those that begin with a rest are one range of them (a scan of the whole vocabulary
        # per new rest was 18 % of the editor's completion CPU, cProfile of 27 typed sentences)
        order = sorted((t, i) for i, t in enumerate(self.text) if t)
        self._keys, self._ids = [t for t, _ in order], [i for _, i in order]
        self._by_text: dict[str, list[int]] = {}
        for t, i in order:
            self._by_text.setdefault(t, []).append(i)

    def allowed(self, left: str) -> list[int]:
        """The tokens that agree with the rest ``left`` of the part: a piece that begins with it (one range
        of the sorted texts), or one that is a shorter start of it."""
        if left not in self._allowed:
            if len(self._allowed) > 4096:
                self._allowed.clear()
            lo = bisect_left(self._keys, left)
            hi = bisect_left(self._keys, left + "\U0010ffff", lo)
            ok = self._ids[lo:hi]
            for n in range(1, len(left)):
                ok += self._by_text.get(left[:n], [])
            self._allowed[left] = ok
        return self._allowed[left]


class TypedWord(Rule):
    """After its prefix, each row of sentence b writes ``parts[b]`` (see the module doc) before
    anything else.  ``table``: the target pieces as text (:class:`PieceTexts`)."""

    def __init__(self, parts: list[str], table: PieceTexts):
        self.parts, self.table = parts, table
        self.text = table.text

    def start(self, batch: Batch) -> None:
        super().start(batch)
        self.left = [self.parts[b] for b in range(len(self.parts)) for _ in range(batch.K)]

    def adjust(self, lp: Tensor, view: StepView) -> None:
        K, self.step = self.batch.K, view.step
        for b in range(lp.size(0)):
            if view.done[b] or self.batch.in_prefix(b, view.step):
                continue
            for k in range(K):
                left = self.left[b * K + k]
                if left:
                    keep = lp[b, k].clone()
                    lp[b, k].fill_(NEG_INF)
                    ok = self.table.allowed(left)
                    lp[b, k, ok] = keep[ok]

    def advance(self, rows: list[int], toks: list[int]) -> None:
        K, step = self.batch.K, self.step
        self.left = [self.left[r] if self.batch.in_prefix(r // K, step) else self._rest(self.left[r], t)
                     for r, t in zip(rows, toks)]

    def _rest(self, left: str, tok: int) -> str:
        if not left or tok == EOS:
            return left
        t = self.text[tok]
        return left[len(t):] if left.startswith(t) else ""


def along_suggestion(typed: str, suggestion: str) -> str | None:
    """The typed text continued with the suggestion's words after the typed words' place, or None
    where they do not fit: the typed text is the suggestion's start; or the last whole typed word is
    one of its words (the occurrence nearest the typed word's own place) and the part typed half way
    begins the word after it."""
    if suggestion.startswith(typed):
        return suggestion
    words, part = split_typed(typed)
    tw, sw, stem = words.split(), suggestion.split(), part.strip()
    places = [j for j, w in enumerate(sw) if tw and w == tw[-1]]
    if not places:
        return None
    j = min(places, key=lambda j: abs(j - (len(tw) - 1)))
    rest = sw[j + 1:]
    if stem and not (rest and rest[0].startswith(stem)):
        return None
    out = words.rstrip() + "".join(" " + w for w in rest)
    return out if out.startswith(typed) else None


#: What a completion is chosen among besides the constrained search's own (``suggestion``: the
#: suggestion continued; ``()``: the search's alone -- the same translator effort on the dev split,
#: benchmarks/completion_choice.py; with the best TM match's rest as a third, scored alike, the same again).
ALTERNATIVES = ("suggestion",)


def complete(tr, texts: list[str], prefixes: list[str], **kw) -> list:
    """``tr.translate`` of sentences with typed prefixes (see the module doc): the constrained
    completion, or the unconstrained suggestion continued after the typed words where the model
    scores that better (total log-probability / tokens, ``</s>`` counted)."""
    done = tr.translate(texts, prefixes=prefixes, best_of_both=False, **kw)
    todo = [i for i, p in enumerate(prefixes) if p and not kw.get("exact_matches") and "suggestion" in ALTERNATIVES]
    if not todo:
        return done
    memories, context = kw.get("memories"), kw.get("context")
    for i in todo:
        own = {k: [v[i]] if isinstance(v, list) and len(v) == len(texts) else v for k, v in kw.items()}
        p = plain_suggestion(tr, texts[i], own)
        other = along_suggestion(prefixes[i], p.text)
        if other is None or other == done[i].text:
            continue
        mem = [memories[i]] * 2 if memories is not None else None
        ctx = [context[i]] * 2 if context is not None else None
        both = tr.forced([texts[i]] * 2, [done[i].text, other], context=ctx, memories=mem,
                         memory_mode=kw.get("memory_mode", "auto"))
        norm = [r.score / max(1, len(r.tokens)) for r in both]
        if norm[1] > norm[0]:
            done[i] = both[1]
    return done


def plain_suggestion(tr, text: str, kw: dict):
    """``tr.translate`` of one sentence without a prefix (``kw``: its own arguments); the last 64 kept,
    so the completions of one segment decode its suggestion once -- none when the segment's suggestion
    was asked first (:func:`remember_plain`): the editor's first refresh of a segment then costs one
    search less."""
    kw = {k: v for k, v in kw.items() if k not in ("prefixes", "stop")}
    key = _plain_key(text, kw)
    cache = tr.__dict__.setdefault("_plain", {})
    if key not in cache:
        _keep(cache, key, tr.translate([text], best_of_both=False, **kw)[0])
    return cache[key]


def remember_plain(tr, text: str, kw: dict, result):
    """Keep ``result``, ``tr.translate([text], **kw)`` without a prefix, for :func:`plain_suggestion`
    (the same arguments, its defaults filled in, make the same key); ``result`` back."""
    if not kw.get("prefixes") and not kw.get("exact_matches"):
        args = inspect.signature(type(tr).translate).bind(tr, [text], **kw)
        args.apply_defaults()
        own = {k: v for k, v in args.arguments.items() if k not in ("self", "texts", "best_of_both", "prefixes", "stop")}
        _keep(tr.__dict__.setdefault("_plain", {}), _plain_key(text, own), result)
    return result


def _plain_key(text: str, kw: dict) -> str:
    return repr((text, sorted(kw.items())))


def _keep(cache: dict, key: str, result) -> None:
    cache[key] = result
    while len(cache) > 64:
        cache.pop(next(iter(cache)))
