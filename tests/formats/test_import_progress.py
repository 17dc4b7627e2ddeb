"""A long ``verso doc import`` says how far it is: a line on stderr every few seconds with the
segments read so far (no line for an import shorter than that)."""
from __future__ import annotations

import json
import re

from engine.cli import main
from engine.formats import readprogress


def _big_txt(path, paragraphs: int):
    path.write_text("".join(f"Paragraph number {i} says something.\n\n" for i in range(paragraphs)), "utf-8")
    return path


def test_a_long_import_prints_segments_read_on_stderr(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(readprogress, "EVERY", 0.01)   # "every few seconds", shrunk to fit a test
    src = _big_txt(tmp_path / "big.txt", 60_000)
    assert main(["doc", "import", str(src), "--project", str(tmp_path / "p"),
                 "--src-lang", "en", "--tgt-lang", "de"]) == 0
    cap = capsys.readouterr()
    counts = [int(m.replace(",", "")) for m in re.findall(r"^import: ([\d,]+) segments read \(\d+ s\)$",
                                                           cap.err, re.M)]
    assert counts and counts == sorted(counts) and counts[-1] <= 60_000, cap.err
    assert all(re.match(r"import: (reading|[\d,]+ segments read) \(\d+ s\)$", line)
               for line in cap.err.splitlines() if line.startswith("import:"))
    assert json.loads(cap.out)["segments"] == 60_000


def test_a_short_import_prints_no_progress(tmp_path, capsys):
    src = _big_txt(tmp_path / "small.txt", 3)
    assert main(["doc", "import", str(src), "--project", str(tmp_path / "p"),
                 "--src-lang", "en", "--tgt-lang", "de"]) == 0
    assert "segments read" not in capsys.readouterr().err
