"""A DOCX, HTML or TXT file is detected without importing the other format readers (0.1 s CPU of
every import), and always as the same format the full walk of every reader's ``sniff`` finds: every
fixture and format sample, under each of those extensions and its own, both ways."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import engine.formats as formats_pkg
from engine.formats import detect

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[2] / "shared" / "data" / "format-samples"

_HEADS = {  # files whose head another format claims, whatever their extension
    "xliff": b'<?xml version="1.0"?>\n<xliff version="1.2"><file original="a"><body/></file></xliff>\n',
    "xliff2": b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en"/>',
    "po": b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Open"\nmsgstr ""\n',
    "vtt": b"WEBVTT\n\n00:00.000 --> 00:01.000\nHello.\n",
    "android": b'<?xml version="1.0"?>\n<resources><string name="a">Open</string></resources>\n',
    "resx": b'<?xml version="1.0"?>\n<root><data name="a"><value>Open</value></data></root>\n',
    "html": b"<!DOCTYPE html><html><body><p>Open the file.</p></body></html>\n",
    "xhtml": b'<?xml version="1.0"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Hi.</p></body></html>',
    "text": b"Open the file. Close it.\n\nA second paragraph.\n",
    "text-lt": b"Open the file if a < b. Close it.\n",
    "utf16": "Open the file.\n".encode("utf-16"),
    "tmx": b'<?xml version="1.0"?>\n<tmx version="1.4"><header/><body/></tmx>\n',
}


def _docx_bytes(tmp: Path, word: bool) -> bytes:
    path = tmp / "z.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("word/document.xml" if word else "content.xml", "<x/>")
    return path.read_bytes()


def _samples(tmp: Path) -> list[tuple[str, bytes]]:
    out = [(name, data) for name, data in _HEADS.items()]
    out += [("docx-zip", _docx_bytes(tmp, True)), ("other-zip", _docx_bytes(tmp, False))]
    for root in (HERE / "fixtures", SAMPLES):
        if root.is_dir():
            out += [(str(p.relative_to(root)), p.read_bytes()) for p in sorted(root.rglob("*"))
                    if p.is_file() and p.stat().st_size < 300_000]
    return out


def _outcome(path: Path) -> str:
    try:
        return detect(path).name
    except Exception as e:  # noqa: BLE001 -- the refusal itself is compared
        return f"{type(e).__name__}: {e}"


def test_quick_detection_names_the_format_the_full_walk_names(tmp_path, monkeypatch):
    checked = 0
    for n, (name, data) in enumerate(_samples(tmp_path)):
        own = Path(name).suffix.lower()
        for suffix in {".txt", ".html", ".htm", ".xhtml", ".docx", own} - {""}:
            path = tmp_path / f"f{n}{suffix}"
            path.write_bytes(data)
            quick = _outcome(path)
            with monkeypatch.context() as m:
                m.setattr(formats_pkg, "_quick", lambda *a: None)
                full = _outcome(path)
            assert quick == full, f"{name} as {suffix}: quick {quick!r}, full walk {full!r}"
            path.unlink()
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("name,fmt", [("jrc.docx", "docx"), ("jrc.html", "html"), ("jrc.txt", "txt")])
def test_detecting_a_docx_html_or_txt_loads_only_its_reader(tmp_path, name, fmt):
    path = tmp_path / name
    if fmt == "docx":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("word/document.xml", "<x/>")
    else:
        path.write_bytes(_HEADS["html" if fmt == "html" else "text"])
    code = ("import sys; from engine.formats import detect; f = detect(sys.argv[1]); "
            "print(f.name, sorted(m for m in sys.modules if m.startswith('engine.formats.')))")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True,
                       cwd=HERE.parents[1])
    assert r.stdout.startswith(fmt + " ")
    for other in ("xliff20", "xliff12", "po", "tabular", "strings_registry", "xlsx", "markdown"):
        assert f"'engine.formats.{other}'" not in r.stdout
