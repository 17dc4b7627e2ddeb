"""The HTML tokenizer's offsets (what the export splices by) are where the standard parser's own
line and column put each token: on tricky pages, on every HTML format sample, and on pages whose end
the parser only reads when closed (an unfinished tag, comment or reference)."""
from __future__ import annotations

from _markupbase import ParserBase
from pathlib import Path

import pytest

from engine.formats.html_scan import Scanner

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "format-samples"


class _ByLineAndColumn(Scanner):
    """The offsets as the parser's line and column give them."""

    updatepos = ParserBase.updatepos

    def _pos(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col


PAGES = [
    "<p>One <b>bold</b> word.</p>\n<p>Two\nlines &amp; a <a href='x'\n title='T'>link</a>.</p>",
    "<html>\r\n<body>\r\n<p>CR LF &#169; lines</p>\r\n</body></html>",
    "<!DOCTYPE html>\n<!-- a\ncomment --><p>Text <![CDATA[x]]> more</p><?pi x?>",
    "<p>Ends inside a tag <b",
    "<p>Ends inside a comment <!-- never closed\n\n",
    "<p>Ends in a reference &amp",
    "<p>Ends in text\n\n and more",
    "<script>if (a < b) {}</script><p>After <img alt='A\nB' src=x> the script</p>",
    "",
]


def _events(cls, text: str) -> list:
    sc = cls(text)
    try:
        sc.run()
    except AssertionError:
        pass
    return [b.items for b in sc.blocks] + [sc.attrs]


@pytest.mark.parametrize("page", PAGES)
def test_offsets_are_the_parsers_own(page):
    assert _events(Scanner, page) == _events(_ByLineAndColumn, page)


def test_offsets_of_every_html_sample_are_the_parsers_own():
    pages = [p for p in sorted(SAMPLES.rglob("*")) if p.suffix.lower() in (".html", ".htm", ".xhtml")]
    if not pages:
        pytest.skip("shared/data/format-samples absent")
    for p in pages:
        text = p.read_bytes().decode("utf-8", errors="replace")
        assert _events(Scanner, text) == _events(_ByLineAndColumn, text), p.name
