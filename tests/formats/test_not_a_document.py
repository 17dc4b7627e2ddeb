"""A TM or glossary file given to `verso doc import` is refused with the command that takes it."""
from __future__ import annotations

import subprocess
import sys

import pytest

from engine.errors import UnsupportedFormatError
from engine.formats import detect


@pytest.mark.parametrize("name,data,points_at", [
    ("memory.tmx", '<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body><tu><tuv '
                   'xml:lang="en"><seg>Open</seg></tuv></tu></body></tmx>', "verso tm import"),
    ("truncated.xml", '<?xml version="1.0"?><tmx version="1.4"><header srclang="en"/><body><tu><tuv '
                      'xml:lang="en"><seg>Open', "verso tm import"),
    ("terms.xml", '<?xml version="1.0"?><martif type="TBX" xml:lang="en"><text><body/></text></martif>',
     "verso glossary import"),
])
def test_a_tm_or_glossary_file_is_no_document_and_the_error_names_the_command(tmp_path, name, data, points_at):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    with pytest.raises(UnsupportedFormatError, match=points_at):
        detect(path)
    r = subprocess.run([sys.executable, "-m", "engine", "doc", "import", str(path), "--project",
                        str(tmp_path / "p"), "--src-lang", "en", "--tgt-lang", "de"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and points_at in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "p").exists()
