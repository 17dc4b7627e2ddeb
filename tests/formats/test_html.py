"""HTML: blocks -> sentences, inline elements as tags, alt/title, code untouched, exact export."""
from __future__ import annotations

from pathlib import Path

import pytest

from datafiles import SHARED_DATA
from engine.formats import detect, write_document
from engine.formats.base import Translation
from engine.formats.html import FORMAT
from engine.inline import TaggedText

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>My page</title>
<style>p { color: red; }</style><script>var s = "Not text.";</script></head>
<body>
<h1>Welcome &amp; hello</h1>
<p>Click <b>Save</b> now. Then <a href="/x" title="Go there">leave</a>.</p>
<pre>keep   this</pre>
<p>Run <code>make all</code> first.<img src="a.png" alt="A cat"></p>
<!-- a comment -->
</body></html>
"""


def _write(tmp_path, text: str = PAGE, name: str = "page.html", encoding="utf-8") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode(encoding))
    return p


def _upper(doc) -> dict[str, Translation]:
    return {s.key: Translation(TaggedText(s.source.text.upper(), s.source.tags)) for s in doc.segments}


def test_blocks_sentences_and_attributes_become_segments(tmp_path):
    doc = FORMAT.read(_write(tmp_path), src_lang="en")
    got = {s.key: s.source.display() for s in doc.segments}
    assert got == {
        "b1.s1": "My page", "b2.s1": "Welcome & hello", "b3.s1": "Click <b>Save</b> now.",
        "b3.s2": "Then <a>leave</a>.", "b4.s1": "Run <code/> first.", "a1.title": "Go there", "a2.alt": "A cat"}


def test_script_style_pre_and_code_are_never_segments(tmp_path):
    plain = " ".join(s.source.plain() for s in FORMAT.read(_write(tmp_path), src_lang="en").segments)
    assert "color" not in plain and "Not text" not in plain and "keep" not in plain and "make all" not in plain


def test_untouched_export_is_byte_for_byte(tmp_path):
    path = _write(tmp_path)
    write_document(path, tmp_path / "out.html", {}, format="html", src_lang="en")
    assert (tmp_path / "out.html").read_bytes() == path.read_bytes()


def test_translated_export_changes_only_the_text_and_keeps_markup(tmp_path):
    path = _write(tmp_path)
    doc = FORMAT.read(path, src_lang="en")
    seg = next(s for s in doc.segments if s.key == "b3.s1")
    o, c = (t.char for t in seg.source.tags)
    tr = {"b3.s1": Translation(TaggedText(f"Jetzt {o}Speichern{c} & klicken.", seg.source.tags)),
          "a1.title": Translation(TaggedText('Geh "dahin"')), "b2.s1": Translation(TaggedText("Willkommen"))}
    write_document(path, tmp_path / "out.html", tr, format="html", src_lang="en")
    out = (tmp_path / "out.html").read_text()
    assert "<p>Jetzt <b>Speichern</b> &amp; klicken. Then <a href=\"/x\" title=\"Geh &quot;dahin&quot;\">" in out
    assert "<h1>Willkommen</h1>" in out
    assert out.replace("Jetzt <b>Speichern</b> &amp; klicken.", "Click <b>Save</b> now.").replace(
        "Geh &quot;dahin&quot;", "Go there").replace("Willkommen", "Welcome &amp; hello") == PAGE


def test_encoding_of_the_meta_charset_is_kept(tmp_path):
    text = '<html><head><meta charset="iso-8859-1"></head><body><p>Café.</p></body></html>'
    path = _write(tmp_path, text, encoding="latin-1")
    doc = FORMAT.read(path, src_lang="en")
    assert doc.segments[0].source.text == "Café."
    write_document(path, tmp_path / "o.html", {"b1.s1": Translation(TaggedText("Kaffee → Café."))},
                   format="html", src_lang="en")
    assert (tmp_path / "o.html").read_bytes().decode("latin-1").endswith("<p>Kaffee &#8594; Café.</p></body></html>")


def test_detected_by_content(tmp_path):
    assert detect(_write(tmp_path, name="page.txt")).name == "html"


def _samples() -> list[Path]:
    base = SHARED_DATA / "format-samples" / "omegat" / "filters-documents"
    return sorted(p for p in base.rglob("*") if p.suffix in (".html", ".xhtml")) if base.is_dir() else []


@pytest.mark.data
@pytest.mark.parametrize("path", _samples(), ids=lambda q: q.name)
def test_every_sample_round_trips(path, tmp_path):
    doc = FORMAT.read(path, src_lang="en")
    assert doc.segments
    FORMAT.write(path, tmp_path / "same.html", {}, src_lang="en")
    assert (tmp_path / "same.html").read_bytes() == path.read_bytes()
    FORMAT.write(path, tmp_path / "up.html", _upper(doc), src_lang="en")
    again = FORMAT.read(tmp_path / "up.html", src_lang="en")
    # every translation in its place (an upper-case text may break at other sentence ends: "IS... TO")
    assert "".join("".join(s.source.text.split()) for s in again.segments) == \
        "".join("".join(s.source.text.upper().split()) for s in doc.segments)
