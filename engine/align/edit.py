"""The translator's corrections to an alignment before it goes into the TM: merge a link with the
next, split one, move a target sentence across the boundary with the next link, confirm.  Links are
kept in document order; an edited link is the translator's own, so its confidence becomes 1."""
from __future__ import annotations

from dataclasses import dataclass, replace

from engine.align.dp import Link


@dataclass(frozen=True)
class Row:
    """One link under review."""

    link: Link
    confirmed: bool = False

    @property
    def confidence(self) -> float:
        return self.link.confidence


class Review:
    """The links of one alignment in document order, with what the translator did to them."""

    def __init__(self, links: list[Link]):
        self.rows = [Row(x) for x in links]

    def confirm(self, i: int, on: bool = True) -> None:
        self.rows[i] = replace(self.rows[i], confirmed=on)

    def merge(self, i: int) -> int:
        """Link i and link i+1 become one (confirmed); returns its index."""
        if i + 1 >= len(self.rows):
            return i
        a, b = self.rows[i].link, self.rows[i + 1].link
        self.rows[i:i + 2] = [Row(Link(a.src + b.src, a.tgt + b.tgt, 1.0), True)]
        return i

    def split(self, i: int) -> int:
        """Link i becomes two: its first source and first target sentence, and the rest (a 1-1 link
        becomes 1-0 and 0-1: the two were not translations of each other).  Returns how many rows now."""
        x = self.rows[i].link
        if len(x.src) <= 1 and len(x.tgt) <= 1:
            if not (x.src and x.tgt):
                return 1
            parts = [Link(x.src, (), 1.0), Link((), x.tgt, 1.0)]
        else:
            parts = [Link(x.src[:1], x.tgt[:1], 1.0), Link(x.src[1:], x.tgt[1:], 1.0)]
        self.rows[i:i + 1] = [Row(p) for p in parts]
        return 2

    def shift(self, i: int, down: bool) -> None:
        """``down``: the last target sentence of link i moves to the start of link i+1; else the
        first target sentence of link i+1 moves to the end of link i."""
        if i + 1 >= len(self.rows):
            return
        a, b = self.rows[i].link, self.rows[i + 1].link
        if down and a.tgt:
            a, b = Link(a.src, a.tgt[:-1], 1.0), Link(b.src, a.tgt[-1:] + b.tgt, 1.0)
        elif not down and b.tgt:
            a, b = Link(a.src, a.tgt + b.tgt[:1], 1.0), Link(b.src, b.tgt[1:], 1.0)
        else:
            return
        self.rows[i:i + 2] = [Row(a, True), Row(b, True)]
        self.rows = [r for r in self.rows if r.link.src or r.link.tgt]

    def chosen(self, min_confidence: float | None = None) -> list[Link]:
        """Links with both sides that go into the TM: the confirmed ones, or (with
        ``min_confidence``) all at or above it."""
        return [r.link for r in self.rows if r.link.src and r.link.tgt
                and (r.confirmed if min_confidence is None else r.confidence >= min_confidence)]
