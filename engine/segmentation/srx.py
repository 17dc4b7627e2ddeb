"""SRX 2.0 segmentation rules: read strictly, compiled to a few regular expressions per language.

An SRX file (the CAT tools' standard, LISA/GALA SRX 2.0) holds ``languagerule`` elements -- ordered
``rule`` elements, each a ``beforebreak`` and an ``afterbreak`` regular expression and ``break="yes"``
(a sentence ends here) or ``"no"`` (an exception) -- and ``maprules`` that map language codes
(``languagepattern``, a regular expression) to rule sets.  With ``cascade="yes"`` every map that
matches the language adds its rules, in map order; with ``"no"`` only the first.  At a position of
the text the first rule whose ``beforebreak`` matches the text ending there and whose ``afterbreak``
matches the text starting there decides; no rule, no break.

Compiled (:class:`Segmenter`): one pattern finds every position any break rule matches
(``(?<=before)(?=after)``, alternated), and each run of consecutive rules of one kind is one
pattern, tried at those positions in rule order -- a handful of regular expressions per language
whatever the number of abbreviations.  The patterns are ICU/Java regular expressions in SRX files
(``\\p{Lu}``, variable-length look-behind); the ``regex`` package reads them, Python's ``re`` does
neither.  The parse is strict: a file that is not well-formed, not SRX, or holds a pattern that does
not compile is refused in one line naming the file and line.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import regex
from lxml import etree

from engine.errors import FormatError
from engine.formats.xmlsafe import check_file_prolog, safe_parser

__all__ = ["SRX", "Rule", "Segmenter", "parse_srx", "default_rules", "MAX_SRX_BYTES"]

SRX_NS = "http://www.lisa.org/srx20"
#: An SRX file larger than this is refused (the largest public rule sets are under 200 KB).
MAX_SRX_BYTES = 2_000_000
DEFAULT_SRX = Path(__file__).with_name("default.srx")
#: The longest one paragraph's segmentation may take (the default rules: about 0.05 ms).
RULE_SECONDS = 2.0


@dataclass(frozen=True)
class Rule:
    """One SRX rule: ``brk`` True for ``break="yes"``; ``line`` its line in the file."""

    brk: bool
    before: str
    after: str
    line: int = 0


@dataclass(frozen=True)
class SRX:
    """A parsed SRX file: named rule sets and the language maps, in file order."""

    source: str
    cascade: bool
    languagerules: dict[str, tuple[Rule, ...]]
    maps: tuple[tuple[str, str], ...]  # (languagepattern, languagerulename)
    trusted: bool = False  # Verso's own rules: matched without a time limit
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def names_for(self, lang: str) -> tuple[str, ...]:
        """The rule sets that apply to ``lang`` (a language code such as ``de-AT``), in order."""
        code = (lang or "").strip()
        names: list[str] = []
        for pattern, name in self.maps:
            if regex.fullmatch(pattern, code, flags=regex.IGNORECASE) and name not in names:
                names.append(name)
                if not self.cascade:
                    break
        return tuple(names)

    def rules_for(self, lang: str) -> tuple[Rule, ...]:
        return tuple(r for n in self.names_for(lang) for r in self.languagerules[n])

    def segmenter(self, lang: str) -> Segmenter:
        """The compiled rules of ``lang`` (made once per language: matching the maps for every
        paragraph cost 1.0 of 3.4 s importing 3 MB of JRC-Acquis text)."""
        seg = self._cache.get(lang)
        if seg is None:
            names = self.names_for(lang)
            seg = self._cache.get(names)
            if seg is None:
                seg = self._cache[names] = Segmenter(tuple(r for n in names for r in self.languagerules[n]),
                                                     self.source, guard=not self.trusted)
            self._cache[lang] = seg
        return seg


def _zero_width(rule: Rule) -> str:
    before = f"(?<={rule.before})" if rule.before else ""
    after = f"(?={rule.after})" if rule.after else ""
    return before + after


class Segmenter:
    """The rules of one language compiled: :meth:`cuts` gives the break positions of a text."""

    def __init__(self, rules: tuple[Rule, ...], source: str = "", *, guard: bool = True):
        self.rules = rules
        self.source = source
        self.guard = guard  # a time limit on each match (it doubles the time a match takes)
        # Each break rule as a forward pattern, ``before(?=after)``: the ends of its matches are the
        # candidates.  A look-behind tried at every position costs more: on 1.7 MB of JRC-Acquis the
        # two default break rules as zero-width alternatives scan at 10 MB/s, forward at 200 MB/s.
        self._finders = [(f"line {r.line}", regex.compile(f"(?:{r.before})(?={r.after})" if r.after
                                                          else f"(?:{r.before})"), _in_order(first_chars(r.before)))
                         for r in rules if r.brk]
        runs: list[tuple[bool, list[Rule]]] = []
        for r in rules:
            if runs and runs[-1][0] == r.brk:
                runs[-1][1].append(r)
            else:
                runs.append((r.brk, [r]))
        self._runs = [(brk, _lines(rs), regex.compile("|".join(f"(?:{_zero_width(r)})" for r in rs)))
                      for brk, rs in runs]
        self._run_rules = [rs for _, rs in runs]
        if len(self._runs) == 2 and not self._runs[0][0]:  # exceptions, then breaks: one test a position
            self._runs = self._runs[:1]
        # A rule whose text before the break starts with a given character cannot match in a text without
        # it: its run is tried without it there (the guillemet exception scanned up to 400 characters back
        # at every candidate break of a text with no «: 2.4 of 4.4 us a candidate on JRC-Acquis).
        self._guards = [[_in_order(first_chars(r.before)) for r in rs] for rs in self._run_rules[:len(self._runs)]]
        self._narrowed: dict[tuple[int, tuple[int, ...]], regex.Pattern | None] = {}

    def _runs_for(self, text: str) -> list:
        """The runs as :meth:`_decide` tries them on ``text``: each without the rules that need a
        character ``text`` lacks (None: no rule of the run can match)."""
        out = []
        for k, (run, guards) in enumerate(zip(self._runs, self._guards)):
            drop = tuple(i for i, g in enumerate(guards) if g is not None and not any(map(text.__contains__, g)))
            if drop:
                key = (k, drop)
                if key not in self._narrowed:
                    kept = [r for i, r in enumerate(self._run_rules[k]) if i not in drop]
                    self._narrowed[key] = regex.compile("|".join(f"(?:{_zero_width(r)})" for r in kept)) \
                        if kept else None
                run = (run[0], run[1], self._narrowed[key])
            out.append(run)
        return out

    def cuts(self, text: str) -> list[int]:
        """Offsets in ``text`` where a sentence starts (0 and ``len(text)`` excluded).  Rules that
        take more than :data:`RULE_SECONDS` on one text (a pattern that backtracks without end, in a
        file from someone else) are refused in one line naming the SRX file and the rule's line."""
        n = len(text)
        finders = [(where, (f, first)) for where, f, first in self._finders
                   if first is None or any(map(text.__contains__, first))]
        if not self.guard:
            return self._decide(text, {e for _, f in finders for e in _match_ends(f, text)})
        deadline = time.monotonic() + RULE_SECONDS
        where = ""
        try:
            found: set[int] = set()
            for where, (finder, _) in finders:
                pos = 0
                while pos <= n:
                    m = finder.search(text, pos, timeout=max(deadline - time.monotonic(), 0.001))
                    if m is None:
                        break
                    found.add(m.end())
                    pos = m.end() if m.end() > m.start() else m.end() + 1
            return self._decide(text, found, deadline)
        except TimeoutError as e:
            where = e.args[1] if len(e.args) > 1 else where
            raise FormatError(self.source or None, f"a sentence rule took more than {RULE_SECONDS:g} s on one "
                                                   "paragraph (a pattern that backtracks without end?); "
                                                   "simplify it", where) from None


    def _decide(self, text: str, found: set[int], deadline: float | None = None) -> list[int]:
        """The candidates that break: the first run of rules matching there decides."""
        out: list[int] = []
        n = len(text)
        runs = self._runs_for(text) if found else []
        for p in sorted(found):
            if p <= 0 or p >= n:
                continue
            for brk, where, pattern in runs:
                if pattern is None:  # none of its rules can match in this text
                    continue
                if deadline is None:
                    hit = pattern.match(text, p)
                else:
                    try:
                        hit = pattern.match(text, p, timeout=max(deadline - time.monotonic(), 0.001))
                    except TimeoutError:
                        raise TimeoutError("timed out", where) from None
                if hit:
                    if brk:
                        out.append(p)
                    break
            else:  # only the break run is left, and it matched: a break
                out.append(p)
        return out


def _match_ends(finder: tuple[regex.Pattern, tuple[str, ...] | None], text: str) -> list[int]:
    """The ends of ``pattern.finditer(text)``'s matches, where ``first`` (the characters every match starts with, see
    :func:`first_chars`; each match is one character or more) is known: the pattern is tried only where one of them
    stands.  ``regex`` looks for a class such as ``[.?!…]`` at about 110 MB/s, ``str.find`` for a character at GB/s
    (the default break rule over the sentences of 3 MB of JRC-Acquis read as HTML, DOCX and TXT: 0.067 -> 0.036 s)."""
    pattern, first = finder
    if first is None:
        return [m.end() for m in pattern.finditer(text)]
    starts: list[int] = []
    for ch in first:
        i = text.find(ch)
        while i >= 0:
            starts.append(i)
            i = text.find(ch, i + 1)
    starts.sort()
    ends: list[int] = []
    pos = 0
    for i in starts:
        if i >= pos:  # not inside the last match (finditer goes on from its end)
            m = pattern.match(text, i)
            if m is not None:
                pos = m.end()
                ends.append(pos)
    return ends


_META = frozenset("\\.^$*+?{}[]()|")
_LOOK = ("(?:", "(?=", "(?!", "(?<=", "(?<!")


def first_chars(pattern: str) -> frozenset[str] | None:
    """The characters one of which text matching ``pattern`` starts with, when the pattern begins with a
    literal character or a plain class of them (no escape, range or negation; nothing optional about
    it) and holds no alternative at its top level and no inline flag (``(?i)`` would widen them);
    else None: any text may match."""
    bare = pattern
    for look in _LOOK:
        bare = bare.replace(look, "")
    if not pattern or "(?" in bare or _top_level_bar(pattern):
        return None
    if pattern[0] == "[":
        end = pattern.find("]", 1)
        body = pattern[1:end]
        if end < 2 or any(c in "\\^-[]" for c in body):
            return None
        chars, rest = frozenset(body), pattern[end + 1:]
    elif pattern[0] in _META or pattern[0].isspace() or pattern[0] == "#":
        return None
    else:
        chars, rest = frozenset(pattern[0]), pattern[1:]
    return None if rest[:1] in ("*", "?", "{") else chars


def _in_order(chars: frozenset[str] | None) -> tuple[str, ...] | None:
    """``chars`` as looked for in a text: ASCII first (prose has them; a character past a text's widest
    is no search at all)."""
    return None if chars is None else tuple(sorted(chars))


def _top_level_bar(pattern: str) -> bool:
    depth, i, in_class = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "]":  # a ] first in a class is a character of it
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def _lines(rules: list[Rule]) -> str:
    a, b = rules[0].line, rules[-1].line
    return f"line {a}" if a == b else f"lines {a}-{b}"


# ------------------------------------------------------------------ reading
def _fail(path, message: str, el=None) -> FormatError:
    line = getattr(el, "sourceline", None)
    return FormatError(path, message, f"line {line}" if line else None)


def _own(el) -> str:
    """The SRX local name of ``el``; "" for comments and other namespaces' elements (extensions)."""
    if not isinstance(el.tag, str):
        return ""
    ns, _, name = el.tag[1:].partition("}") if el.tag.startswith("{") else ("", "", el.tag)
    return name if ns in ("", SRX_NS) else ""


def _children(el, path) -> list:
    out = []
    for c in el:
        name = _own(c)
        if name:
            out.append((name, c))
        elif isinstance(c.tag, str) and not c.tag.startswith("{"):
            raise _fail(path, f"<{c.tag}> is not an SRX element", c)
    return out


def _pattern(path, el, what: str, check: bool) -> str:
    text = el.text or ""
    if not check:
        return text
    try:
        regex.compile(text)
        regex.compile(f"(?<={text})" if text else "")
    except regex.error as e:
        raise _fail(path, f"the {what} pattern {text!r} does not compile: {e}", el) from None
    return text


def parse_srx(path: str | Path, *, check: bool = True) -> SRX:
    """Read an SRX file strictly (see the module's doc); refused in one line naming file and line.
    ``check=False``: the patterns are not compiled one by one (Verso's own file, tested)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise FormatError(path, f"cannot read: {e.strerror}") from None
    if size > MAX_SRX_BYTES:
        raise FormatError(path, f"{size:,} bytes: larger than an SRX rules file can be ({MAX_SRX_BYTES:,})")
    check_file_prolog(path)
    try:
        root = etree.parse(str(path), safe_parser()).getroot()
    except etree.XMLSyntaxError as e:
        line = getattr(e, "lineno", None)
        raise FormatError(path, f"not well-formed XML: {e.msg}", f"line {line}" if line else None) from None
    if _own(root) != "srx":
        raise _fail(path, f"not an SRX file: the root element is <{etree.QName(root).localname}>, not <srx>", root)
    parts = dict(_children(root, path))
    header, body = parts.get("header"), parts.get("body")
    if header is None or body is None:
        raise _fail(path, "an SRX file needs a <header> and a <body>", root)
    cascade = header.get("cascade", "no")
    if cascade not in ("yes", "no"):
        raise _fail(path, f"cascade={cascade!r}: SRX says yes or no", header)
    sections = dict(_children(body, path))
    if "languagerules" not in sections or "maprules" not in sections:
        raise _fail(path, "the <body> needs <languagerules> and <maprules>", body)
    rules: dict[str, tuple[Rule, ...]] = {}
    for name, lr in _children(sections["languagerules"], path):
        rname = lr.get("languagerulename")
        if name != "languagerule" or not rname:
            raise _fail(path, f"<{name}> in <languagerules>: expected <languagerule languagerulename=...>", lr)
        if rname in rules:
            raise _fail(path, f"a second languagerule named {rname!r}", lr)
        rules[rname] = tuple(_rule(path, r, check) for r in _children(lr, path))
    maps: list[tuple[str, str]] = []
    for name, m in _children(sections["maprules"], path):
        pattern, rname = m.get("languagepattern"), m.get("languagerulename")
        if name != "languagemap" or pattern is None or rname is None:
            raise _fail(path, f"<{name}> in <maprules>: expected <languagemap languagepattern=... "
                              "languagerulename=...>", m)
        if rname not in rules:
            raise _fail(path, f"the language map names the rules {rname!r}, which the file does not hold", m)
        try:
            regex.compile(pattern)
        except regex.error as e:
            raise _fail(path, f"the language pattern {pattern!r} does not compile: {e}", m) from None
        maps.append((pattern, rname))
    return SRX(str(path), cascade == "yes", rules, tuple(maps), trusted=not check)


def _rule(path, item, check: bool) -> Rule:
    name, el = item
    if name != "rule":
        raise _fail(path, f"<{name}> in a <languagerule>: expected <rule>", el)
    brk = el.get("break", "yes")
    if brk not in ("yes", "no"):
        raise _fail(path, f"break={brk!r}: SRX says yes or no", el)
    before = after = ""
    for part, c in _children(el, path):
        if part == "beforebreak":
            before = _pattern(path, c, "beforebreak", check)
        elif part == "afterbreak":
            after = _pattern(path, c, "afterbreak", check)
        else:
            raise _fail(path, f"<{part}> in a <rule>: expected <beforebreak> and <afterbreak>", c)
    return Rule(brk == "yes", before, after, el.sourceline or 0)


@lru_cache(maxsize=1)
def default_rules() -> SRX:
    """Verso's own rules (``default.srx`` beside this module; its patterns compiled when a language's
    rules are: checking each one first was 0.01 s of every command's start)."""
    return parse_srx(DEFAULT_SRX, check=False)
