"""What every `verso` command loads before it starts: a command pays for what it uses (issue 46: the
parser of every group loaded the glossary readers, the project store loaded numpy through sqlite_utils)."""
from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from engine.cli import build_parser
from engine.store import Project
build_parser()
p = Project.create(sys.argv[1], src_lang="en", tgt_lang="de")
p.close()
heavy = sorted(m for m in ("numpy", "sqlite_utils", "engine.glossary.store", "engine.glossary.formats",
                           "engine.glossary.recognise", "torch") if m in sys.modules)
print(",".join(heavy))
"""


def test_a_project_command_loads_neither_numpy_nor_the_glossary_readers(tmp_path):
    r = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path / "p")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


def test_the_glossary_api_is_still_there_when_asked_for():
    import engine.glossary as g

    assert g.Glossary.__name__ == "Glossary" and callable(g.read_glossary_file) and g.TermHit
    assert set(g.__all__) == set(g._WHERE)
