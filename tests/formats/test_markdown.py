"""Markdown: CommonMark blocks -> sentences, inline markup as codes, export keeps the syntax."""
from __future__ import annotations

from engine.formats import detect, write_document
from engine.formats.base import Translation
from engine.formats.markdown import FORMAT
from engine.inline import TaggedText

DOC = """---
title: not parsed as text? it is a thematic break and a setext heading
---

Setext title
============

# ATX *title* #

Some __strong__ text and a [link](http://x.org "T") here. Second sentence.
It goes on with `code` and ![an image](a.png).

> Quoted line one
> and line two.

- item *one*
- item <b>two</b>

```python
print("untouched")
```

    indented code

| Col A | Col B |
|-------|-------|
| cell one | cell two |
"""


def _write(tmp_path, text=DOC, name="doc.md"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def test_blocks_become_segments_and_inline_markup_codes(tmp_path):
    doc = FORMAT.read(_write(tmp_path), src_lang="en")
    got = [s.source.display() for s in doc.segments]
    assert "Setext title" in got
    assert "ATX <*>title</*>" in got
    assert 'Some <__>strong</__> text and a <link>link</link> here.' in got
    assert "Second sentence." in got and "It goes on with <code/> and <img/>." in got
    assert "Quoted line one\nand line two." in got
    assert "item <*>one</*>" in got and "item <html/>two<html/>" in got
    assert "cell one" in got and "Col A" in got
    assert not any("untouched" in g or "indented" in g for g in got)


def test_untouched_export_is_byte_for_byte(tmp_path):
    path = _write(tmp_path)
    write_document(path, tmp_path / "out.md", {}, format="markdown", src_lang="en")
    assert (tmp_path / "out.md").read_bytes() == path.read_bytes()


def test_translated_export_keeps_the_original_syntax(tmp_path):
    path = _write(tmp_path)
    doc = FORMAT.read(path, src_lang="en")
    write_document(path, tmp_path / "out.md", _upper(doc), format="markdown", src_lang="en")
    out = (tmp_path / "out.md").read_text()
    assert "SETEXT TITLE\n============" in out
    assert "# ATX *TITLE* #" in out
    assert 'SOME __STRONG__ TEXT AND A [LINK](http://x.org "T") HERE. SECOND SENTENCE.\n' in out
    assert "IT GOES ON WITH `code` AND ![an image](a.png)." in out
    assert "> QUOTED LINE ONE\n> AND LINE TWO." in out
    assert "- ITEM *ONE*\n- ITEM <b>TWO</b>" in out
    assert 'print("untouched")' in out and "    indented code" in out
    assert "| CELL ONE | CELL TWO |" in out
    again = FORMAT.read(tmp_path / "out.md", src_lang="en")
    # every translation in its place (an upper-case text may break at other sentence ends: "IS... TO")
    assert "".join("".join(s.source.text.split()) for s in again.segments) == \
        "".join("".join(s.source.text.upper().split()) for s in doc.segments)


def test_one_translated_sentence_changes_only_its_text(tmp_path):
    path = _write(tmp_path)
    doc = FORMAT.read(path, src_lang="en")
    seg = next(s for s in doc.segments if s.source.text == "Setext title")
    write_document(path, tmp_path / "out.md", {seg.key: Translation(TaggedText("Titel"))},
                   format="markdown", src_lang="en")
    assert (tmp_path / "out.md").read_text() == DOC.replace("Setext title", "Titel")


def test_detected_by_extension(tmp_path):
    assert detect(_write(tmp_path)).name == "markdown"
