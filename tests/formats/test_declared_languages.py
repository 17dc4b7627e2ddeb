"""`verso doc import` and `verso tm import` take the languages a file declares (XLIFF 1.2/2.0, PO,
a CSV header), and refuse a file whose declared pair is not the project's (regional variants are
the same language), naming both pairs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.langs import same_pair

XLF12 = ('<?xml version="1.0"?><xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
         '<file source-language="{s}" target-language="{t}" datatype="plaintext" original="a"><body>'
         '<trans-unit id="1"><source>Open the file.</source><target>{tr}</target></trans-unit>'
         '</body></file></xliff>')
XLF20 = ('<?xml version="1.0"?><xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" '
         'srcLang="{s}" trgLang="{t}"><file id="f"><unit id="u1"><segment><source>Open the file.</source>'
         '<target>{tr}</target></segment></unit></file></xliff>')
PO = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {t}\\n"\n\n'
      'msgid "Open the file."\nmsgstr "{tr}"\n')


def _verso(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _project(tmp_path: Path, src: str, tgt: str) -> Path:
    folder = tmp_path / f"p-{src}-{tgt}"
    assert _verso("project", "create", folder, "--src-lang", src, "--tgt-lang", tgt).returncode == 0
    return folder


def test_same_pair_takes_regional_variants_as_one_language():
    assert same_pair("en-GB", "fr-CA", "en-US", "fr")
    assert same_pair("", "ja", "en", "ja")
    assert not same_pair("en", "ja", "en", "fr")
    assert not same_pair("zh-Hans", "en", "zh-Hant", "en")


@pytest.mark.parametrize("name,text", [
    ("memoq.xlf", XLF12.format(s="en-US", t="ja-JP", tr="ファイルを開く。")),
    ("tool.xlf", XLF20.format(s="en-US", t="ja-JP", tr="ファイルを開く。")),
])
def test_doc_import_creates_the_project_for_the_languages_the_xliff_declares(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    r = _verso("doc", "import", f, "--project", tmp_path / "p")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["src_lang"], out["tgt_lang"]) == ("en-US", "ja-JP")
    info = json.loads(_verso("project", "info", tmp_path / "p").stdout)
    assert (info["src_lang"], info["tgt_lang"]) == ("en-US", "ja-JP")


@pytest.mark.parametrize("name,text,declared", [
    ("memoq.xlf", XLF12.format(s="en-US", t="ja-JP", tr="ファイルを開く。"), "en-US -> ja-JP"),
    ("tool.xlf", XLF20.format(s="en", t="de", tr="Datei öffnen."), "en -> de"),
    ("app.po", PO.format(t="ja", tr="ファイルを開く。"), "en -> ja"),
    ("table.csv", "en,ja\nOpen the file.,ファイルを開く。\n", "en -> ja"),
])
def test_doc_import_refuses_a_file_declaring_another_pair_naming_both(tmp_path, name, text, declared):
    project = _project(tmp_path, "en", "fr")
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    r = _verso("doc", "import", f, "--project", project)
    assert r.returncode == 2
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and name in line
    assert f"declares {declared}" in line and "en -> fr" in line
    assert json.loads(_verso("doc", "list", "--project", project).stdout) == []


def test_doc_import_ignore_declared_languages_imports_into_the_project_pair(tmp_path):
    project = _project(tmp_path, "en", "fr")
    f = tmp_path / "tool.xlf"
    f.write_text(XLF20.format(s="en", t="de", tr="Datei öffnen."), encoding="utf-8")
    refused = _verso("doc", "import", f, "--project", project)
    assert refused.returncode == 2 and "--ignore-declared-languages" in refused.stderr
    r = _verso("doc", "import", f, "--project", project, "--ignore-declared-languages")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["src_lang"], out["tgt_lang"]) == ("en", "fr")
    assert any("declares en -> de" in p and "en -> fr" in p for p in out["problems"])
    assert len(json.loads(_verso("doc", "list", "--project", project).stdout)) == 1
    # the file itself is the client's: exported untouched it is the same bytes, trgLang="de"
    exported = tmp_path / "out.xlf"
    e = _verso("doc", "export", out["document_id"], "--project", project, "--out", exported)
    assert e.returncode == 0, e.stderr
    assert exported.read_bytes() == f.read_bytes()


@pytest.mark.parametrize("name,text", [
    ("regional.xlf", XLF12.format(s="en-GB", t="fr-CA", tr="Ouvrir le fichier.")),
    ("app.po", PO.format(t="fr_FR", tr="Ouvrir le fichier.")),
    ("plain.po", PO.format(t="", tr="Ouvrir le fichier.")),
])
def test_doc_import_accepts_the_same_pair_in_regional_variants(tmp_path, name, text):
    project = _project(tmp_path, "en-US", "fr")
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    r = _verso("doc", "import", f, "--project", project)
    assert r.returncode == 0, r.stderr


def test_doc_import_refuses_a_file_that_contradicts_the_languages_given(tmp_path):
    f = tmp_path / "memoq.xlf"
    f.write_text(XLF12.format(s="en", t="ja", tr="x"), encoding="utf-8")
    r = _verso("doc", "import", f, "--project", tmp_path / "p", "--src-lang", "en", "--tgt-lang", "fr")
    assert r.returncode == 2 and "declares en -> ja" in r.stderr and "en -> fr" in r.stderr
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize("name,text", [
    ("memoq.xlf", XLF12.format(s="en-US", t="ja-JP", tr="ファイルを開く。")),
    ("tool.xlf", XLF20.format(s="en-US", t="ja-JP", tr="ファイルを開く。")),
])
def test_tm_import_takes_the_languages_the_file_declares(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    r = _verso("tm", "import", f, "--tm", tmp_path / "tm")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["added"] == 1
    stats = json.loads(_verso("tm", "stats", "--tm", tmp_path / "tm").stdout)
    assert (stats["src_lang"], stats["tgt_lang"]) == ("en-US", "ja-JP")


@pytest.mark.parametrize("name,text", [
    ("memoq.xlf", XLF12.format(s="en-US", t="ja-JP", tr="ファイルを開く。")),
    ("memory.tmx", '<?xml version="1.0"?><tmx version="1.4"><header srclang="en-US" datatype="plaintext" '
                   'segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>'
                   '<body><tu><tuv xml:lang="en-US"><seg>Open the file.</seg></tuv><tuv xml:lang="ja-JP">'
                   '<seg>ファイルを開く。</seg></tuv></tu></body></tmx>'),
])
def test_tm_import_refuses_a_file_of_another_pair_naming_both(tmp_path, name, text):
    seed = tmp_path / "seed.xlf"
    seed.write_text(XLF12.format(s="en", t="fr", tr="Ouvrir le fichier."), encoding="utf-8")
    assert _verso("tm", "import", seed, "--tm", tmp_path / "tm").returncode == 0
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    r = _verso("tm", "import", f, "--tm", tmp_path / "tm")
    assert r.returncode == 2, r.stdout
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and name in line and "en-US -> ja-JP" in line and "en -> fr" in line
