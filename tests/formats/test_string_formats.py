"""The software-string and subtitle formats as a whole: listed where a translator picks a file or a
format, imported into a project and exported through the public entry points."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.formats import by_name, read_document, strings_registry, write_document
from engine.formats.base import Translation
from engine.inline import TaggedText

FIX = Path(__file__).parent / "fixtures" / "strings"
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "data" / "format-samples"


def test_every_format_is_named_by_doc_import_format_help():
    from engine.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    doc = sub.choices["doc"]
    imp = next(a for a in doc._actions if a.dest == "doc_command").choices["import"]
    helptext = next(a for a in imp._actions if a.dest == "format").help
    for f in strings_registry.FORMATS:
        assert f.name in helptext, f.name
        assert by_name(f.name) is f


def test_every_extension_is_offered_by_the_import_document_dialog():
    pytest.importorskip("PySide6")
    from app.controllers.documents import DOCUMENT_FILTER

    for f in strings_registry.FORMATS:
        for ext in f.extensions:
            assert f"*{ext} " in DOCUMENT_FILTER or f"*{ext})" in DOCUMENT_FILTER, ext


@pytest.mark.parametrize("name", ["messages.properties", "nested.json", "rails.yml", "dialogue.srt", "talk.vtt",
                                  "strings.xml", "app_de.ts", "Strings.resx", "Localizable.strings",
                                  "Localizable.stringsdict"])
def test_detected_read_and_written_through_the_public_entry_points(tmp_path, name):
    src = tmp_path / name
    shutil.copyfile(FIX / name, src)
    doc = read_document(src, src_lang="en", tgt_lang="de")
    assert doc.segments
    write_document(src, tmp_path / ("out-" + name), {}, format=doc.format, src_lang="en")
    assert (tmp_path / ("out-" + name)).read_bytes() == src.read_bytes()
    seg = doc.segments[-1]
    edited = {seg.key: Translation(TaggedText("Übersetzt " + seg.source.text, seg.source.tags))}
    write_document(src, tmp_path / ("ed-" + name), edited, format=doc.format, src_lang="en")
    again = {s.key: s for s in read_document(tmp_path / ("ed-" + name), src_lang="en", tgt_lang="de").segments}
    got = again[seg.key].target or again[seg.key].source  # bilingual files hold it as the target
    assert got.text.startswith("Übersetzt ")


_KINDS = ("*.properties", "*.json", "*.yml", "*.yaml", "*.strings", "*.stringsdict", "*.resx", "*.ts", "*.srt",
          "*.vtt")


def test_real_samples_import(tmp_path):
    files = [f for pat in _KINDS for f in (SAMPLES.rglob(pat) if SAMPLES.is_dir() else [])]
    if not files:
        pytest.skip("no software-string or subtitle files under ../shared/data/format-samples")
    ok = 0
    for f in files:
        doc = read_document(f, src_lang="en", tgt_lang="de")
        write_document(f, tmp_path / f.name, {}, format=doc.format, src_lang="en")
        ok += (tmp_path / f.name).read_bytes() == f.read_bytes()
    assert ok == len(files)


@pytest.mark.parametrize("name,fmt", [("strings.xml", "android"), ("app_de.ts", "qt-ts"), ("Strings.resx", "resx")])
def test_xml_kinds_are_told_apart_by_content_whatever_the_extension(tmp_path, name, fmt):
    from engine.formats import detect

    p = tmp_path / "resources.xml"
    shutil.copyfile(FIX / name, p)
    assert detect(p).name == fmt


def test_a_tmx_named_like_a_resource_file_gets_the_tm_import_pointer(tmp_path):
    from engine.errors import UnsupportedFormatError
    from engine.formats import detect

    p = tmp_path / "strings.xml"
    p.write_text('<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body/></tmx>\n')
    with pytest.raises(UnsupportedFormatError, match="verso tm import"):
        detect(p)


def _ttk_sources(name: str) -> set[str]:
    from translate.storage import aresource, properties, resx, ts2

    data = (FIX / name).read_bytes()
    if name.endswith(".properties"):
        store = properties.propfile(personality="java")
        store.parse(data)
    elif name.endswith(".strings"):
        store = properties.stringsfile() if data[:2] == b"\xff\xfe" else properties.stringsutf8file()
        store.parse(data)
    elif name.endswith(".resx"):
        store = resx.RESXFile.parsestring(data)
    elif name.endswith(".ts"):
        store = ts2.tsfile.parsestring(data)
    else:
        store = aresource.AndroidResourceFile.parsestring(data)
    out = set()
    for u in store.units:
        out.update(str(s) for s in (u.source.strings if hasattr(u.source, "strings") else [u.source]) if str(s))
    return out


@pytest.mark.parametrize("name,skip", [
    ("messages.properties", set()),
    ("InfoPlist.strings", set()),
    ("Strings.resx", {"75, 23", "button1"}),        # a typed resource and a designer entry: not text
    ("app_de.ts", {"Old entry"}),                    # a vanished message
    ("strings.xml", {"abc123", "@string/app_name", "ID_1"}),  # translatable="false" and a reference
])
def test_values_agree_with_translate_toolkits_reader(name, skip):
    ours = {s.source.original() for s in read_document(FIX / name, src_lang="en").segments}
    theirs = _ttk_sources(name) - skip
    if name == "strings.xml":  # translate-toolkit skips <string-array>, and keeps &lt; decoded
        ours = {o.replace("&lt;", "<").replace("&gt;", ">") for o in ours} - {"Mercury", "Venus"}
    assert ours == theirs
