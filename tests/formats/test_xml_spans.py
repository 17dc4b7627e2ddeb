"""The splice writers' locator (engine/formats/xmlspans.py) finds each edited element's bytes where
the file has them: markup-like text in comments, CDATA and processing instructions is not taken
for elements, and every element of the XML samples is found where the full tokenizer finds it."""
from __future__ import annotations

import pytest
from lxml import etree

from datafiles import SHARED_DATA
from engine.formats.base import Translation
from engine.formats.xliff12 import FORMAT
from engine.formats.xmlspans import Locator, SpliceError, _decode, _tokenize

_SAMPLES = SHARED_DATA / "format-samples"
SAMPLES = sorted(p for ext in ("xlf", "xliff", "sdlxliff", "mqxliff") for p in _SAMPLES.rglob(f"*.{ext}")) \
    if _SAMPLES.is_dir() else []

TRICKY = """<?xml version="1.0" encoding="utf-8"?>
<!-- a comment with <trans-unit id="x"> and </target> in it -->
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" source-language="en"
 target-language="de" datatype="plaintext"><body>
<?pi <source>not an element</source>?>
<trans-unit id="1"><source>One</source><target state="translated">Eins</target></trans-unit>
<trans-unit id="2"><source><![CDATA[a <b> </target> c]]></source><target>alt</target><!-- <x/> --></trans-unit>
<trans-unit id="3" ><source >Three</source ><target state='new' >Drei</target ></trans-unit>
</body></file></xliff>
"""


def test_an_edit_after_markup_in_comments_cdata_and_pis_changes_only_its_target(tmp_path):
    src = tmp_path / "a.xlf"
    src.write_bytes(TRICKY.encode())
    doc = FORMAT.read(src)
    keys = [s.key for s in doc.segments]
    out = tmp_path / "out.xlf"
    FORMAT.write(src, out, {keys[1]: Translation(doc.segments[1].target.with_text("neu"), "confirmed"),
                            keys[2]: Translation(doc.segments[2].target.with_text("drei!"), "confirmed")})
    expected = (TRICKY.replace("<target>alt</target>", '<target state="translated">neu</target>')
                .replace("<target state='new' >Drei</target >", "<target state='translated' >drei!</target >"))
    assert out.read_text("utf-8") == expected


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_element_of_a_sample_is_found_where_the_tokenizer_finds_it(path):
    raw = path.read_bytes()
    try:
        root = etree.fromstring(raw, etree.XMLParser(resolve_entities=False, no_network=True))
        bom, codec, text = _decode(raw, root.getroottree().docinfo.encoding)
        spans = _tokenize(text)
    except (etree.XMLSyntaxError, SpliceError, ValueError):
        pytest.skip("not mapped by the splice writer (it serialises the tree)")
    loc = Locator(text, root, [root])
    for el, sp in zip(root.iter(etree.Element), spans):
        got = loc.span(el, closed=True)
        assert (got.start, got.stag_end, got.etag_start, got.end, got.empty) == \
            (sp.start, sp.stag_end, sp.etag_start, sp.end, sp.empty)


def test_a_file_whose_start_tags_do_not_match_its_elements_is_not_mapped():
    root = etree.fromstring("<a><b/><c/></a>")
    with pytest.raises(SpliceError):
        Locator("<a><b/></a>", root, [root])
