"""Every tag of the source, once, balanced, in the translation.

The model reads a segment's inline codes as tag symbols (:mod:`engine.inline`) and usually
writes each one back where the target language wants it.  When it does not -- a tag dropped,
written twice, invented, or a closing tag before its opening one -- :func:`repair` mends the
translation so that it carries exactly the source's tags:

1. a tag the source lacks, and every occurrence of a tag after its first, is removed;
2. a missing half of a pair goes around the word beside the half that is there; any other
   missing tag is put where the attention says: before (an opening or standalone tag) or after
   (a closing tag) the first target word whose most-attended source word is the one the tag
   stood at in the source; with no such word, at the start (opening) or the end (closing);
3. a pair written close-before-open has its two halves swapped; two pairs that cross
   (``<b> <i> </b> </i>``) have the inner closing tag moved before the outer one.

The model's own placement is kept wherever it is already valid.  Pure Python.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.inline import TaggedText, tag_char, tag_number

if TYPE_CHECKING:
    from engine.nmt.translator import TranslationResult


def _tag_word_index(words: list[str], n: int) -> int | None:
    """Index of the source word that holds tag ``n`` (or the word after it)."""
    ch = tag_char(n)
    for i, w in enumerate(words):
        if ch in w:
            return i
    return None


def _place(chars: list[str], tag, src_words: list[str], words: list[str], links: list[int],
           fallback: bool = True) -> bool:
    """Insert tag ``tag`` into ``chars`` (the target as a list of characters) by the alignment; with no
    target word aligned to the tag's source word, at the start or end (``fallback``) or not at all (False)."""
    ch = tag.char
    i = _tag_word_index(src_words, tag.n)
    target_word = next((j for j, s in enumerate(links) if s == i), None) if i is not None else None
    text = "".join(chars)
    if target_word is not None and target_word < len(words):
        # the character span of that target word (words are whitespace-split in order)
        pos = 0
        for j, w in enumerate(words):
            k = text.find(w, pos)
            if k < 0:
                break
            if j == target_word:
                at = k + len(w) if tag.kind == "close" else k
                chars.insert(at, ch)
                return True
            pos = k + len(w)
    if not fallback:
        return False
    if tag.kind == "close":
        end = len(chars)
        while end and chars[end - 1] in ".!?:;。！？":  # before the final punctuation
            end -= 1
        chars.insert(end, ch)
    else:
        chars.insert(0, ch)
    return True


def _partners(source: TaggedText) -> dict[int, int]:
    """Tag number -> the number of the other half of its pair."""
    halves: dict[str, dict[str, int]] = {}
    for t in source.tags:
        if t.kind in ("open", "close") and t.pair:
            halves.setdefault(t.pair, {})[t.kind] = t.n
    out = {}
    for h in halves.values():
        if "open" in h and "close" in h:
            out[h["open"]], out[h["close"]] = h["close"], h["open"]
    return out


def _beside_partner(chars: list[str], tag, partner: str) -> None:
    """Put the missing half of a pair around the one word beside the half that is there: an
    opening tag before the word that ends at the closing one, a closing tag after the word that
    starts at the opening one (rather than stretching the pair over the whole sentence)."""
    i = chars.index(partner)
    if tag.kind == "open":
        j = i
        while j > 0 and chars[j - 1].isspace():
            j -= 1
        while j > 0 and not chars[j - 1].isspace():
            j -= 1
        chars.insert(j, tag.char)
    else:
        j = i + 1
        while j < len(chars) and chars[j].isspace():
            j += 1
        while j < len(chars) and not chars[j].isspace():   # the whole word: a URL's ":" and "." are in it
            j += 1
        while j > i + 1 and chars[j - 1] in ".,;:!?)»”\"'":   # but not the punctuation that ends it
            j -= 1
        chars.insert(j, tag.char)


def repair(text: str, source: TaggedText, *, words: list[str] | None = None,
           src_words: list[str] | None = None, links: list[int] | None = None, fallback: bool = True) -> str:
    """``text`` (a translation, tags as placeholder characters) with exactly ``source``'s tags,
    each once and balanced.  ``words``/``src_words``/``links``: the translation's words, the
    source's words and, per target word, its most-attended source word (a TranslationResult).
    ``fallback=False``: a missing tag that neither its partner nor the alignment places is left out
    (for the caller to name) rather than put at the start or end."""
    by_n = {t.n: t for t in source.tags}
    seen: set[int] = set()
    chars: list[str] = []
    for ch in text:
        n = tag_number(ch)
        if n is None:
            chars.append(ch)
        elif n in by_n and n not in seen:
            seen.add(n)
            chars.append(ch)
    words, src_words, links = words or [], src_words or [], links or []
    partner = _partners(source)
    missing = [t for t in source.tags if t.n not in seen]
    for t in missing:
        other = partner.get(t.n)
        if other is not None and other in seen:
            _beside_partner(chars, t, tag_char(other))  # half a pair: wrap the word next to its partner
        elif not _place(chars, t, src_words, words, links, fallback):
            continue
        seen.add(t.n)
    # Pairs: open before close, no crossing.
    pair_of = {t.n: t.pair for t in source.tags if t.kind in ("open", "close") and t.pair}
    for _ in range(2 * len(source.tags) + 1):
        changed = False
        pos = {tag_number(c): i for i, c in enumerate(chars) if tag_number(c) is not None}
        halves: dict[str, dict[str, int]] = {}
        for n, pid in pair_of.items():
            halves.setdefault(pid, {})[by_n[n].kind] = n
        for pid, h in halves.items():
            if "open" in h and "close" in h and h["open"] in pos and h["close"] in pos \
                    and pos[h["close"]] < pos[h["open"]]:
                a, b = pos[h["open"]], pos[h["close"]]
                chars[a], chars[b] = chars[b], chars[a]
                changed = True
                break
        if changed:
            continue
        stack: list[int] = []
        whole = {pid for pid, h in halves.items() if all(m in pos for m in h.values()) and len(h) == 2}
        for i, c in enumerate(chars):
            n = tag_number(c)
            if n is None or n not in pair_of or pair_of[n] not in whole:   # half a pair left out: no order
                continue
            if by_n[n].kind == "open":
                stack.append(n)
            elif stack and pair_of[stack[-1]] == pair_of[n]:
                stack.pop()
            elif stack:
                # ``n`` closes an outer pair while an inner one is open: close the inner one first
                inner = stack[-1]
                inner_close = next(m for m, p in pair_of.items() if p == pair_of[inner] and m != inner)
                j = chars.index(tag_char(inner_close))
                chars.pop(j)
                chars.insert(i, tag_char(inner_close))
                changed = True
                break
        if not changed:
            break
    return "".join(chars)


def restore_markup(text: str, source: TaggedText, result: TranslationResult | None = None) -> str:
    """The translation with the source's original markup in place of its tags (what the command
    line prints), after :func:`repair` with the alignment of ``result`` when given."""
    if result is None:
        fixed = repair(text, source)
    else:
        fixed = repair(text, source, words=result.words, src_words=result.src_words, links=result.links)
    return TaggedText(fixed, source.tags).original()


# ------------------------------------------------------------------ menu separators
_TAGS = "\ue001-\uf8ff"
_GLUED_SEP = re.compile(rf"(?<=[\w{_TAGS}])[ \t]*(>|→|▸)[ \t]*(?=[\w{_TAGS}])")


def word_starts(text: str, words: list[str]) -> list[int | None]:
    """Character offset of each target word in ``text`` (in order; None where a word is not found)."""
    out, pos = [], 0
    for w in words:
        k = text.find(w, pos) if w else -1
        out.append(k if k >= 0 else None)
        if k >= 0:
            pos = k + len(w)
    return out


def place_separators(text: str, source: str, *, words: list[str] | None = None,
                     src_words: list[str] | None = None, links: list[int] | None = None) -> tuple[str, int]:
    """``text`` with the menu separators of ``source`` (">" between menu items, "File > Open"), and how
    many it could not place.  A separator glued to its items ("Datei >Öffnen") gets the source's spaces; a
    missing one goes between the two items that flank it in the source: the tags beside it
    ("\\ue002 > \\ue003"), or the target words aligned to the source words before and after it when these
    stand side by side.  Anywhere else it would join the wrong items, so it is left to the reader (counted)."""
    from engine.qa_omission import separators

    seps = separators(source)
    if not seps:
        return text, 0
    if len(_GLUED_SEP.findall(text)) <= len(seps):
        text = _GLUED_SEP.sub(lambda m: f" {m.group(1)} ", text)
    missing = len(seps) - len(separators(text))
    if missing <= 0:
        return text, 0
    for k, at in enumerate(seps):
        if missing <= 0:
            break
        sep = source[at]
        left, right = source[:at].rstrip(), source[at + 1:].lstrip()
        a, b = left[-1], right[0]
        if tag_number(a) is not None and tag_number(b) is not None:
            m = re.search(re.escape(a) + r"(\s*)" + re.escape(b), text)
            if m:
                text = text[:m.start()] + f"{a} {sep} {b}" + text[m.end():]
                missing -= 1
                continue
        placed = _by_alignment(text, sep, k, words or [], src_words or [], links or [])
        if placed is not None:
            text, missing = placed, missing - 1
    return text, max(0, missing)


def _by_alignment(text: str, sep: str, k: int, words: list[str], src_words: list[str],
                  links: list[int]) -> str | None:
    """``text`` with separator ``sep`` (the ``k``-th of the source) between the target words aligned to the
    source words on either side of it, when those stand side by side; else None."""
    at_src = [i for i, w in enumerate(src_words) if w == sep]
    if k >= len(at_src) or not words or len(links) < len(words):
        return None
    s = at_src[k]
    left = [j for j, link in enumerate(links) if link == s - 1]
    right = [j for j, link in enumerate(links) if link == s + 1]
    if not left or not right or right[0] != left[-1] + 1:
        return None
    starts = word_starts(text, words)
    j = right[0]
    if starts[j] is None:
        return None
    cut = starts[j]
    head = text[:cut].rstrip()
    return f"{head} {sep} {text[cut:].lstrip()}"


def tags_beside_separators(text: str, source: TaggedText) -> str:
    """A source tag missing from ``text`` that stands just after (an opening or standalone tag) or just
    before (a closing tag) the source's n-th menu separator, put at the same side of the target's n-th one
    ("\\ue002 > Tags" -> "\\ue002 > \\ue003Tags"), where :func:`repair` alone would guess from a word."""
    from engine.qa_omission import separators

    src_seps, tgt_seps = separators(source.text), separators(text)
    by_n = {t.n: t for t in source.tags}
    for k, at in enumerate(src_seps[:len(tgt_seps)]):
        after = source.text[at + 1:].lstrip()[:1]
        before = source.text[:at].rstrip()[-1:]
        for ch, side in ((after, "after"), (before, "before")):
            n = tag_number(ch) if ch else None
            if n is None or n not in by_n or ch in text:
                continue
            at_t = separators(text)[k]
            if side == "after":
                j = at_t + 1
                while j < len(text) and text[j].isspace():
                    j += 1
            else:
                j = at_t
                while j > 0 and text[j - 1].isspace():
                    j -= 1
            text = text[:j] + ch + text[j:]
    return text
