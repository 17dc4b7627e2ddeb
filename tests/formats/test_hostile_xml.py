"""Hostile and broken XML given to the XLIFF readers: refused with a named
error (file, and line where known), without expansion, fetching or memory growth."""
from __future__ import annotations

import resource
from pathlib import Path

import pytest

from engine.errors import FormatError, UnsafeXMLError
from engine.formats.base import Translation
from engine.formats.xliff12 import FORMAT as XLIFF12
from engine.formats.xliff20 import FORMAT as XLIFF20
from engine.inline import TaggedText

ROOTS = {
    "xliff12": ('<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
                '<file source-language="en" target-language="de"><body>'
                '<trans-unit id="1" resname="{attr}"><source>{text}</source></trans-unit>'
                '</body></file></xliff>'),
    "xliff20": ('<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" '
                'srcLang="en" trgLang="de"><file id="f"><unit id="1" name="{attr}"><segment>'
                '<source>{text}</source></segment></unit></file></xliff>'),
}
FORMATS = {"xliff12": XLIFF12, "xliff20": XLIFF20}
both = pytest.mark.parametrize("fmt", sorted(FORMATS))

LOLS = "".join(
    f'<!ENTITY lol{i} "{("&lol%d;" % (i - 1)) * 10}">' for i in range(1, 10)
).replace("&lol0;", "lol")
BILLION_LAUGHS_DTD = f"<!DOCTYPE xliff [<!ENTITY lol \"lol\">{LOLS}]>"


def _doc(fmt: str, text: str = "Hello", attr: str = "ctx", prolog: str = "") -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + prolog + ROOTS[fmt].format(
        text=text, attr=attr)


def _file(tmp_path: Path, data: str | bytes, name: str = "evil.xlf") -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return p


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _refused(fmt: str, path: Path, exc=FormatError) -> str:
    before = _maxrss_mb()
    with pytest.raises(exc) as e:
        FORMATS[fmt].read(path)
    assert _maxrss_mb() - before < 50, "parsing must not grow memory"
    msg = str(e.value)
    assert str(path) in msg, "the error names the file"
    return msg


@both
def test_billion_laughs_refused_without_expansion(fmt, tmp_path):
    p = _file(tmp_path, _doc(fmt, text="&lol9;", prolog=BILLION_LAUGHS_DTD))
    msg = _refused(fmt, p, UnsafeXMLError)
    assert "entit" in msg and "lollol" not in msg


@both
def test_billion_laughs_after_a_long_prolog_is_still_refused(fmt, tmp_path):
    # the entity declarations come after 70 KB of comment, beyond any head check
    prolog = "<!--" + "x" * 70_000 + "-->\n" + BILLION_LAUGHS_DTD
    p = _file(tmp_path, _doc(fmt, text="&lol9;", attr="&lol9;", prolog=prolog))
    msg = _refused(fmt, p)
    assert "lollol" not in msg


@both
@pytest.mark.parametrize("url", ["file:///etc/passwd", "http://127.0.0.1:9/secret.txt"])
def test_external_entity_refused(fmt, url, tmp_path):
    prolog = f'<!DOCTYPE xliff [<!ENTITY xxe SYSTEM "{url}">]>'
    p = _file(tmp_path, _doc(fmt, text="&xxe;", prolog=prolog))
    msg = _refused(fmt, p, UnsafeXMLError)
    assert "root:" not in msg


@both
@pytest.mark.parametrize("where", ["text", "attr"])
def test_entity_from_external_dtd_refused_and_dtd_never_read(fmt, where, tmp_path):
    dtd = tmp_path / "evil.dtd"
    dtd.write_text('<!ENTITY secret "SECRET-MARKER">', encoding="utf-8")
    prolog = f'<!DOCTYPE xliff SYSTEM "{dtd.as_uri()}">\n'
    kw = {"text": "a &secret; b"} if where == "text" else {"attr": "&secret;"}
    p = _file(tmp_path, _doc(fmt, prolog=prolog, **kw))
    msg = _refused(fmt, p, UnsafeXMLError)
    assert "&secret;" in msg and "line 3" in msg and "SECRET-MARKER" not in msg


@both
def test_public_doctype_without_entities_reads_offline(fmt, tmp_path):
    prolog = ('<!DOCTYPE xliff PUBLIC "-//XLIFF//DTD XLIFF//EN" '
              '"http://127.0.0.1:9/xliff.dtd">\n')
    text = "Plain &amp; simple <![CDATA[&nbsp;]]><!-- &copy; -->"
    p = _file(tmp_path, _doc(fmt, text=text, prolog=prolog))
    seg, = FORMATS[fmt].read(p).segments
    assert seg.source.text.startswith("Plain & simple &nbsp;")


@both
def test_writer_refuses_hostile_original(fmt, tmp_path):
    p = _file(tmp_path, _doc(fmt, text="&lol9;", prolog=BILLION_LAUGHS_DTD))
    out = tmp_path / "out.xlf"
    with pytest.raises(UnsafeXMLError):
        FORMATS[fmt].write(p, out, {"1": Translation(TaggedText("x"))}, tgt_lang="de")
    assert not out.exists()


@both
def test_truncated_file_names_file_and_line(fmt, tmp_path):
    full = _doc(fmt, text="Hello\nworld").replace("><", ">\n<")
    p = _file(tmp_path, full[: len(full) * 2 // 3])
    msg = _refused(fmt, p)
    assert "line " in msg


@both
def test_empty_file(fmt, tmp_path):
    msg = _refused(fmt, _file(tmp_path, b""))
    assert "empty" in msg.lower()


@both
def test_binary_junk(fmt, tmp_path):
    _refused(fmt, _file(tmp_path, bytes(range(256)) * 16))


@both
def test_utf16_labelled_utf8_is_read_by_its_bom(fmt, tmp_path):
    data = _doc(fmt, text="Café ☕").encode("utf-16")  # BOM + UTF-16, declaration says UTF-8
    seg, = FORMATS[fmt].read(_file(tmp_path, data)).segments
    assert seg.source.text == "Café ☕"


@both
def test_utf8_labelled_utf16_is_refused(fmt, tmp_path):
    data = _doc(fmt, text="Café").replace('encoding="UTF-8"', 'encoding="UTF-16"').encode()
    msg = _refused(fmt, _file(tmp_path, data))
    assert "line 1" in msg


@both
def test_latin1_bytes_labelled_utf8_name_the_line(fmt, tmp_path):
    data = _doc(fmt, text="Caf\xe9").replace("<source>", "\n<source>").encode("latin-1")
    msg = _refused(fmt, _file(tmp_path, data))
    assert "line 3" in msg


@both
def test_sniff_ignores_junk(fmt, tmp_path):
    assert not FORMATS[fmt].sniff(Path("junk.bin"), bytes(range(256)) * 16)
    assert not FORMATS[fmt].sniff(Path("empty.txt"), b"")
