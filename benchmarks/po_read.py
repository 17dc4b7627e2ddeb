"""PO read and untouched-export speed with HTML msgids (issue 45: articles read sentence by sentence).

    .venv/bin/python -m benchmarks.po_read [--entries 20000] [--html 0.1] [--repeat 3] [--tree /work/base951]

The file: ``--entries`` entries, every one translated; a share ``--html`` of them an article
(``<p>Press <b>Save</b> &amp; close. ...</p>``), the others one short sentence with a ``%s``.
Printed (JSON): seconds to read the file and to export it untouched, the best of ``--repeat``; with
``--tree`` the same on another checkout, interleaved (:mod:`benchmarks.compare`).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from benchmarks import compare


def make(path: Path, entries: int, html: float) -> None:
    every = round(1 / html) if html else 0
    out = ['msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: de\\n"\n']
    for i in range(entries):
        if every and i % every == 0:
            msgid = f"<p>Press <b>Save</b> &amp; close window {i}. Then open the report.</p><p>Done {i}.</p>"
            msgstr = f"<p>Drücken Sie <b>Speichern</b> &amp; schließen Sie Fenster {i}. Dann öffnen.</p><p>Fertig {i}.</p>"
        else:
            msgid, msgstr = f"Open file %s number {i}", f"Datei %s Nummer {i} öffnen"
        out.append(f'#: src/file.c:{i}\nmsgid "{msgid}"\nmsgstr "{msgstr}"\n')
    path.write_text("\n".join(out), "utf-8")


def main() -> None:
    if compare.run_if_asked("po_read"):
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=20000)
    ap.add_argument("--html", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    from engine.formats.po import FORMAT

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "big.po"
        make(src, a.entries, a.html)
        reads, writes = [], []
        for _ in range(a.repeat):
            t = time.perf_counter()
            doc = FORMAT.read(src, src_lang="en", tgt_lang="de")
            reads.append(time.perf_counter() - t)
            t = time.perf_counter()
            FORMAT.write(src, Path(tmp) / "out.po", {})
            writes.append(time.perf_counter() - t)
        same = (Path(tmp) / "out.po").read_bytes() == src.read_bytes()
    print(json.dumps({"entries": a.entries, "segments": len(doc.segments), "read_s": round(min(reads), 3),
                      "export_untouched_s": round(min(writes), 3), "untouched_identical": same}))


if __name__ == "__main__":
    main()
