"""Quality checks on translated segments: what a reviewer is paid to catch before delivery.

Each check looks at one segment's source and target (or, for consistency, at all the
segments at once) and yields :class:`Issue` objects, each pointing to its segment.  The
checks a project runs are chosen per project (:class:`QAOptions`, stored as the project
setting ``qa.disabled``); tag errors always count for export, whatever the options say,
because a broken tag breaks the client's file.  Pure Python, no torch, no Qt.

Check groups (``CHECKS``), and the findings (``Issue.check``) each can give:

=============  =========================================================================
tags           missing-tag, extra-tag, tag-order (a close before its open), tag-overlap
               (``<b><i></b></i>``): errors
numbers        number: a number of the source not in the target (error) or the reverse
spaces         leading-space, trailing-space (differ from the source), double-space
punctuation    end-punctuation: the target ends with other punctuation than the source
untranslated   untranslated / empty (no target), source-copied
consistency    inconsistent-target (one source, several targets), same-target (one target
               for several sources)
length         length: the target is much shorter or longer than the source
spelling       spelling (needs a dictionary; see :mod:`engine.spelling`)
terms          term-not-used, forbidden-term (the project's glossaries; :mod:`engine.qa_terms`)
omission       possible-omission: a machine-filled target (origin ``mt``) lacks a negation, number,
               code or menu separator of its source (:mod:`engine.qa_omission`)
=============  =========================================================================
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Collection, Iterable, Iterator, Sequence

from engine.inline import TaggedText
from engine.qa_types import GROUP, Issue

# Numbers as a reader sees them: 1,234.5 / 1.234,5 / 12 / 3.5 / 1 000
_NUMBER = re.compile(r"(?<![\w.,])[-+]?\d+(?:[ \u00a0\u202f.,]\d{3})*(?:[.,]\d+)?(?![\w])")


@dataclass(frozen=True)
class CheckInfo:
    id: str
    title: str
    default: bool = True


CHECKS: tuple[CheckInfo, ...] = (
    CheckInfo("tags", "Tags missing, extra, out of order or overlapping"),
    CheckInfo("numbers", "Numbers differ from the source"),
    CheckInfo("spaces", "Leading, trailing or double spaces"),
    CheckInfo("punctuation", "End punctuation differs from the source"),
    CheckInfo("untranslated", "Untranslated, empty, or a copy of the source"),
    CheckInfo("consistency", "Inconsistent translations of the same source, one translation for different sources"),
    CheckInfo("length", "Target much shorter or longer than the source"),
    CheckInfo("repeats", "A word or phrase written twice in a row (\"die die\") where the source does not repeat"),
    CheckInfo("spelling", "Spelling (hunspell dictionary of the target language)"),
    CheckInfo("terms", "Glossary terms: a term not translated as the glossary says, a forbidden term used"),
    CheckInfo("omission", "Machine drafts that may leave out a negation, number, code or menu separator"),
)
CHECK_IDS = tuple(c.id for c in CHECKS)

TAG_CHECKS = frozenset(k for k, g in GROUP.items() if g == "tags")

# A target this many times longer, or this fraction as long, as its source is flagged; below
# LENGTH_MIN_CHARS source characters the ratio says nothing (a "OK" becomes "Einverstanden").
LENGTH_RATIO = (0.4, 2.5)
LENGTH_MIN_CHARS = 20


@dataclass(frozen=True)
class QAOptions:
    """Which check groups run.  Stored in a project as the setting ``qa.disabled`` (JSON list)."""

    enabled: frozenset[str] = frozenset(c.id for c in CHECKS if c.default)

    SETTING = "qa.disabled"

    @classmethod
    def from_setting(cls, value: str | None) -> "QAOptions":
        try:
            off = set(json.loads(value)) if value else set()
        except (ValueError, TypeError):
            off = set()
        return cls(frozenset(c for c in CHECK_IDS if c not in off))

    def to_setting(self) -> str:
        return json.dumps([c for c in CHECK_IDS if c not in self.enabled])

    def with_check(self, check: str, on: bool) -> "QAOptions":
        if check not in CHECK_IDS:
            raise ValueError(f"unknown QA check {check!r} (known: {', '.join(CHECK_IDS)})")
        return QAOptions(self.enabled | {check} if on else self.enabled - {check})


def _normalise_number(s: str) -> str:
    """``1,234.50`` and ``1.234,50`` and ``1 234,50`` compare equal."""
    digits = re.sub(r"[ \u00a0\u202f]", "", s)
    m = re.match(r"^([-+]?)(.*?)(?:[.,](\d{1,2}|\d{4,}))?$", digits)
    if not m:
        return digits
    sign, whole, frac = m.groups()
    whole = re.sub(r"[.,]", "", whole)
    frac = (frac or "").rstrip("0")
    return f"{sign}{int(whole) if whole.isdigit() else whole}" + (f".{frac}" if frac else "")


def numbers(text: str) -> Counter:
    return Counter(_normalise_number(m.group(0)) for m in _NUMBER.finditer(text))


#: Codes that record a reviewer's tracked change (SDL, memoQ), not markup of the text: a
#: target may carry them where the source has none, and the other way round.
TRACKED_CHANGES = frozenset({"x-sdl-deleted", "x-sdl-added", "x-mq-tc", "x-ctr"})  # x-ctr: XLIFF 2.0 ctr:


def _tracked(tag) -> bool:
    return tag is not None and tag.attrs.get("mtype") in TRACKED_CHANGES


def check_tags(source: TaggedText, target: TaggedText) -> Iterator[tuple[str, str]]:
    src_tags = {t.n: t for t in source.tags}
    tgt_tags = {t.n: t for t in target.tags}
    src = Counter(n for n in source.tag_numbers() if not _tracked(src_tags.get(n)))
    tgt = Counter(n for n in target.tag_numbers() if not _tracked(tgt_tags.get(n) or src_tags.get(n)))
    by_n = {t.n: t for t in source.tags}
    for n in sorted(src - tgt):
        t = by_n.get(n)
        yield "missing-tag", f"tag {t.display() if t else n} is missing in the target"
    for n in sorted(tgt - src):
        t = by_n.get(n)
        yield "extra-tag", f"tag {t.display() if t else n} is not in the source" if n not in src \
            else f"tag {t.display() if t else n} is in the target more often than in the source"
    # A closing tag before its opening tag, or two pairs that cross, breaks the file on export.
    order = target.tag_numbers()
    pos = {n: i for i, n in enumerate(order)}
    pair_of: dict[int, str] = {}
    pairs: dict[str, dict[str, int]] = {}
    for t in source.tags:
        if t.kind in ("open", "close") and t.pair and t.n in pos:
            pairs.setdefault(t.pair, {})[t.kind] = pos[t.n]
            pair_of[t.n] = t.pair
    for pid, p in pairs.items():
        if "open" in p and "close" in p and p["close"] < p["open"]:
            yield "tag-order", f"closing tag {by_n[order[p['close']]].display()} comes before its opening tag"
    stack: list[str] = []
    for n in order:
        pid = pair_of.get(n)
        if pid is None or len(pairs.get(pid, {})) != 2 or pairs[pid]["close"] < pairs[pid]["open"]:
            continue
        if by_n[n].kind == "open":
            stack.append(pid)
        elif stack and stack[-1] == pid:
            stack.pop()
        elif pid in stack:
            yield "tag-overlap", f"tag {by_n[n].display()} closes across another pair of tags"
            stack.remove(pid)


def tag_issues(segment_id: int, idx: int, source: TaggedText, target: TaggedText) -> list[Issue]:
    """Only the tag errors of one translated segment (what export and confirm refuse)."""
    if not target.text:
        return []
    return [Issue(segment_id, idx, c, m) for c, m in check_tags(source, target)]


_END_PUNCT = re.compile(r"([.!?:;…。！？：；]+|\.\.\.)[\"'”’»)\]\s]*$")
_PUNCT_EQUIV = str.maketrans({"。": ".", "！": "!", "？": "?", "：": ":", "；": ";", "…": "..."})


def _end_punct(text: str) -> str:
    m = _END_PUNCT.search(text.strip())
    return m.group(1).translate(_PUNCT_EQUIV) if m else ""


# A word, or a phrase of up to three words, written again at once with only spaces between
# ("individuelle individuelle", "der Datei der Datei"): what a looping decoder produces.
_REPEAT = re.compile(r"(?<!\w)((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)(?:\s+\1)+(?!\w)", re.IGNORECASE)
#: doubles that are grammar, not a slip (French reflexives: "nous nous levons")
_LEGIT_DOUBLES = frozenset({"nous", "vous"})


def repeats(text: str) -> list[str]:
    """The words or phrases ``text`` writes twice (or more) in a row."""
    return [m.group(1) for m in _REPEAT.finditer(text) if m.group(1).lower() not in _LEGIT_DOUBLES]


def check_segment(segment_id: int, idx: int, source: TaggedText, target: TaggedText,
                  status: str = "draft", options: QAOptions | None = None) -> list[Issue]:
    """The single-segment checks that ``options`` enables (all by default)."""
    on = (options or QAOptions()).enabled
    out: list[Issue] = []
    add = lambda check, msg, sev="error": out.append(Issue(segment_id, idx, check, msg, sev))  # noqa: E731
    if not target.text.strip():
        if "untranslated" in on and source.plain().strip():
            add("untranslated" if status == "new" else "empty", "the target is empty", "warning")
        return out
    if "tags" in on:
        for check, msg in check_tags(source, target):
            add(check, msg)
    s_plain, t_plain = source.plain(), target.plain()
    if "numbers" in on:
        s_num, t_num = numbers(s_plain), numbers(t_plain)
        for n in sorted((s_num - t_num)):
            add("number", f"number {n} of the source is not in the target")
        for n in sorted((t_num - s_num)):
            add("number", f"number {n} is in the target but not in the source", "warning")
    if "spaces" in on:
        for check, fn, where in (("leading-space", str.lstrip, "starts"), ("trailing-space", str.rstrip, "ends")):
            s_sp = len(source.text) - len(fn(source.text))
            t_sp = len(target.text) - len(fn(target.text))
            if (s_sp > 0) != (t_sp > 0):
                add(check, f"the target {where} with {'a space' if t_sp else 'no space'}, the source "
                           f"{'does not' if t_sp else 'does'}", "warning")
        if "  " in t_plain.strip() and "  " not in s_plain.strip():
            add("double-space", "the target has a double space", "warning")
    if "punctuation" in on:
        s_end, t_end = _end_punct(s_plain), _end_punct(t_plain)
        if s_end != t_end and t_plain.strip():
            add("end-punctuation", f"the source ends with {s_end or 'no punctuation'!r}, the target with "
                                   f"{t_end or 'no punctuation'!r}", "warning")
    src_nfc = unicodedata.normalize("NFC", s_plain).strip()
    if "untranslated" in on and src_nfc and src_nfc == unicodedata.normalize("NFC", t_plain).strip() \
            and re.search(r"[^\W\d_]{3,}", src_nfc):
        add("source-copied", "the target is a copy of the source", "warning")
    if "repeats" in on:
        extra = repeats(t_plain)[len(repeats(s_plain)):]  # as many as the source has are the author's
        for r in extra:
            add("repeated-word", f"{r!r} is written twice in a row", "warning")
    if "length" in on and len(src_nfc) >= LENGTH_MIN_CHARS:
        ratio = len(t_plain.strip()) / len(src_nfc)
        lo, hi = LENGTH_RATIO
        if not lo <= ratio <= hi:
            add("length", f"the target is {ratio:.1f} times as long as the source", "warning")
    return out


def _norm(tt: TaggedText) -> str:
    return " ".join(unicodedata.normalize("NFC", tt.text).split())


def check_consistency(segments: Sequence) -> list[Issue]:
    """One source translated in different ways; one translation given to different sources."""
    by_source: dict[str, list] = defaultdict(list)
    by_target: dict[str, list] = defaultdict(list)
    for s in segments:
        if s.target.text.strip():
            by_source[_norm(s.source)].append(s)
            by_target[_norm(s.target)].append(s)
    out: list[Issue] = []
    # (groups, what differs within a group, finding, message)
    for groups, other, check, what in (
            (by_source, lambda s: _norm(s.target), "inconsistent-target", "the same source is translated {n} ways"),
            (by_target, lambda s: _norm(s.source), "same-target",
             "the same translation is given to {n} different sources")):
        for group in groups.values():
            n = len({other(s) for s in group})
            if n > 1:
                rows = ", ".join(str(s.idx + 1) for s in group)
                out += [Issue(s.id, s.idx, check, what.format(n=n) + f" (segments {rows})", "warning")
                        for s in group]
    return out


def check_segments(segments: Iterable, options: QAOptions | None = None, *, spelling=None,
                   terms=None, tgt_lang: str = "", received: Collection[int] = ()) -> list[Issue]:
    """Run the enabled checks over store segments (objects with id, idx, source, target, status),
    sorted by segment.  ``spelling``: a :class:`engine.spelling.SpellChecker`, or None (then a
    spelling check that is on reports once that there is no dictionary).  ``terms``: the
    project's :class:`engine.glossary.TermIndex` (None: no glossary, nothing to check).
    ``received``: ids of segments whose target is as the file brought it (:func:`received_ids`):
    their tag findings are warnings "as received", never errors -- the client's file is the
    client's, and a code its own target adds or drops is legitimate in many formats.
    A locked segment (``locked``: engine/store/locks.py) is not checked: nobody may change it."""
    options = options or QAOptions()
    segments = [s for s in segments if not getattr(s, "locked", False)]
    received = set(received)
    out: list[Issue] = []
    for s in segments:
        found = check_segment(s.id, s.idx, s.source, s.target, s.status, options)
        if s.id in received:
            found = [Issue(i.segment_id, i.idx, i.check, f"as received: {i.message}", "warning")
                     if i.check in TAG_CHECKS else i for i in found]
        out.extend(found)
    if "consistency" in options.enabled:
        out.extend(check_consistency(segments))
    if "spelling" in options.enabled:
        out.extend(_spelling(segments, spelling))
    if "terms" in options.enabled and terms is not None:
        out.extend(_terms(segments, terms, tgt_lang))
    if "omission" in options.enabled:
        from engine.qa_omission import omission_issues

        out.extend(omission_issues(segments, tgt_lang=tgt_lang))
    out.sort(key=lambda i: (i.idx, i.severity != "error"))
    return out


def received_ids(segments: Iterable) -> set[int]:
    """The ids of store segments whose target is as the file brought it."""
    return {s.id for s in segments if s.as_received}


def _terms(segments: Sequence, index, tgt_lang: str) -> list[Issue]:
    """Glossary terms found in each translated source, checked in its target (word boundaries,
    inflection and compound heads: :mod:`engine.qa_terms`): a term not used as the glossary says
    (warning), a forbidden variant used (error: the client said no)."""
    from engine.qa_terms import term_issues

    out: list[Issue] = []
    for s in segments:
        if not s.target.text.strip():
            continue
        hits = index.find(s.source.text)
        for p in term_issues(s.source.text, s.target.text, hits, tgt_lang) if hits else ():
            forbidden = p.kind == "forbidden_term"
            out.append(Issue(s.id, s.idx, "forbidden-term" if forbidden else "term-not-used", p.message,
                             "error" if forbidden else "warning"))
    return out


def _spelling(segments: Sequence, checker) -> list[Issue]:
    from engine.spelling import spelling_issues

    return spelling_issues(segments, checker)
