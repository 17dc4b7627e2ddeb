from __future__ import annotations

from pathlib import Path

import pytest

from engine.store import Project

SDLXLIFF = """\ufeff<?xml version="1.0" encoding="utf-8"?><xliff xmlns:sdl="http://sdl.com/FileTypes/SdlXliff/1.0" xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2" sdl:version="1.0"><file original="a.docx" datatype="x-sdlfilterframework2" source-language="en-US" target-language="de-DE"><header><file-info xmlns="http://sdl.com/FileTypes/SdlXliff/1.0"><value key="SDL:FileId">x</value></file-info></header><body>
<trans-unit id="u1"><source>The red house is big.</source><seg-source><mrk mtype="seg" mid="1">The red house is big.</mrk></seg-source><target><mrk mtype="seg" mid="1">Das rote Haus ist gross.</mrk></target><sdl:seg-defs><sdl:seg id="1" conf="Translated" origin="interactive"/></sdl:seg-defs></trans-unit>
<trans-unit id="u2"><source>Open the <g id="1">file</g> now.</source><seg-source><mrk mtype="seg" mid="2">Open the <g id="1">file</g> now.</mrk></seg-source><target><mrk mtype="seg" mid="2">Öffnen Sie die <g id="1">Datei</g> jetzt.</mrk></target><sdl:seg-defs><sdl:seg id="2" conf="Translated" origin="interactive"/></sdl:seg-defs></trans-unit>
<trans-unit id="u3"><source>Close it.</source><seg-source><mrk mtype="seg" mid="3">Close it.</mrk></seg-source><target><mrk mtype="seg" mid="3">Schliessen.</mrk></target><sdl:seg-defs><sdl:seg id="3" conf="Translated" origin="interactive"/></sdl:seg-defs></trans-unit>
</body></file></xliff>"""


@pytest.fixture
def sdl_project(tmp_path) -> tuple[Project, Path]:
    src = tmp_path / "a.sdlxliff"
    src.write_bytes(SDLXLIFF.encode("utf-8"))
    p = Project.create(tmp_path / "p", src_lang="en", tgt_lang="de")
    p.import_document(src)
    yield p, src
    p.close()
